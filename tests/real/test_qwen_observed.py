"""What the real Qwen Code 0.24.4 does with permission rules and settings scopes
(groundwork for a Qwen target): every fact the target will compile against, pinned by a
headless run against the fake model of ``qwen_client`` and checked on disk (the file a command
would write exists or not) or in what the model is told (a secret's text in the tool result),
each refused case beside a control that succeeds. docs/agents/qwen-observed.md lists the facts
and what each means for the translation.

Six runs start at once in one module fixture (2-3 s of CPU each), all against one fake chat
server: ``plain`` (--yolo, no rules: the controls), ``denied`` (--yolo, user deny rules on
``touch``, two reads and an ``Edit`` tree, an ask rule on ``mkdir``), ``scopes`` (--yolo, a user
deny that a project allow repeats, a project deny), and three headless runs without --yolo
(``headless``: no rules; ``project_allow``: a project allow spelled ``Shell(...)``;
``project_bash``: the same spelled ``Bash(...)``). The execution sandbox is in
test_qwen_sandbox_observed.py. Their files live under /var/tmp. Install the CLI with
.ci/install-qwen.sh.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .qwen_client import (
    BASE_SETTINGS,
    VERSION,
    Call,
    Observed,
    Result,
    Setup,
    edit,
    merge,
    package_dir,
    permissions,
    qwen_bin,
    read_file,
    run_all,
    scratch_dir,
    write_file,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("qwen_observed")]

SECRET = "OUTSIDE-SECRET"
HOME_SECRET = "HOME-SECRET"
TOUCH = "touch $HOME/x"
# (b): each command beside the file it writes when it runs, and whether a `touch` deny refused it
TOUCH_CASES: list[tuple[str, str, str, bool]] = [
    ("plain", "touch t-plain", "ws/t-plain", True),
    ("env", "env touch t-env", "ws/t-env", False),
    ("absolute", "/usr/bin/touch t-abs", "ws/t-abs", False),
    ("sh-c", "sh -c 'touch t-shc'", "ws/t-shc", False),
    ("bash-c", "bash -c 'touch t-bashc'", "ws/t-bashc", False),
    ("compound", "true; touch t-seq", "ws/t-seq", True),
    ("and", "true && touch t-and", "ws/t-and", True),
    ("pipe", "true | touch t-pipe", "ws/t-pipe", True),
    ("command", "command touch t-cmd", "ws/t-cmd", False),
    ("assignment", "X=1 touch t-var", "ws/t-var", True),
    ("tab", "touch\tt-tab", "ws/t-tab", True),
    ("substitution", "$(echo touch) t-subst", "ws/t-subst", False),
]
WRITER = "python3 -c \"open('prot/p', 'w').write('x')\""
ALLOWED = ["git", "python3", "mkdir"]
HEADLESS = [
    Call("git init -q g"),
    Call(WRITER),
    Call("mkdir m"),
    Call("tar cf a.tar in"),
    Call("ls"),
    read_file("WS/in"),
]


def _read_cases(out: Path) -> list[tuple[str, Call, str | None, bool]]:
    """(c): each read of a denied file, the workspace file its copy lands in (None for the read
    tool, whose result the model sees), and whether the deny stops it. ``Read(//OUT/secret)``
    and ``Read(~/hsecret)`` are the rules. The shell cases write the text to a file and the
    test reads that: Qwen's shell result sometimes comes back empty under load (see the doc)."""
    secret = f"{out}/secret"
    return [
        ("read_file", read_file(secret), None, True),
        ("cat", Call(f"cat {secret} > r-cat"), "ws/r-cat", True),
        ("absolute-cat", Call(f"/bin/cat {secret} > r-abs"), "ws/r-abs", False),
        ("sh-c-cat", Call(f"sh -c 'cat {secret}' > r-shc"), "ws/r-shc", True),
        ("env-cat", Call(f"env cat {secret} > r-env"), "ws/r-env", True),
        ("redirect", Call(f"tr a a < {secret} > r-tr"), "ws/r-tr", True),
        ("cp", Call(f"cp {secret} r-cp"), "ws/r-cp", True),
        ("python", Call(f"python3 -c \"print(open('{secret}').read())\" > r-py"), "ws/r-py", False),
        ("variable", Call(f"S={out}; cat $S/secret > r-var"), "ws/r-var", False),
        ("home-read_file", read_file("HOME/hsecret"), None, True),
        ("home-tilde", Call("cat ~/hsecret > r-tilde"), "ws/r-tilde", True),
        ("home-variable", Call("cat $HOME/hsecret > r-home"), "ws/r-home", False),
    ]


def _edit_cases() -> list[tuple[str, Call, str, bool]]:
    """(d): each write into ws/prot/ (``Edit(/prot/**)``), the file it makes, whether refused."""
    return [
        ("write_file", write_file("WS/prot/w"), "ws/prot/w", True),
        ("redirect", Call("echo x > prot/r"), "ws/prot/r", True),
        ("cp", Call("cp in prot/c"), "ws/prot/c", True),
        ("sh-c-redirect", Call("sh -c 'echo x > prot/s'"), "ws/prot/s", True),
        ("python", Call(WRITER), "ws/prot/p", False),
    ]


def _files(setup: Setup) -> None:
    """ws/in, ws/prot/e (an edit target), ~/hsecret."""
    setup.write()
    (setup.workspace / "in").write_text("IN\n")
    (setup.workspace / "prot").mkdir()
    (setup.workspace / "prot" / "e").write_text("old line\n")
    (setup.home / "hsecret").write_text(HOME_SECRET + "\n")


def _main_calls(setup: Setup, out: Path) -> list[Call]:
    calls = [Call(TOUCH), Call("mkdir asked")]
    calls += [Call(case[1]) for case in TOUCH_CASES]
    calls += [case[1] for case in _read_cases(out)]
    calls += [case[1] for case in _edit_cases()]
    calls += [read_file("WS/prot/e"), edit("WS/prot/e", "old line", "new line")]
    return [setup.resolve(call) for call in calls]


def _plans(root: Path, out: Path) -> dict[str, tuple[Setup, list[Call], dict[str, Any]]]:
    """Each run: its files, the fake model's calls, run_qwen's options."""
    plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
    rules = permissions(
        deny=["Bash(touch:*)", f"Read(/{out}/secret)", "Read(~/hsecret)", "Edit(/prot/**)"],
        ask=["Bash(mkdir *)"],
    )
    for name, settings in (("plain", {}), ("denied", rules)):
        setup = Setup(root / name, settings=settings)
        _files(setup)
        plans[name] = (setup, _main_calls(setup, out), {})
    scopes = Setup(
        root / "scopes",
        settings={**permissions(deny=["Bash(touch *)"]), "$version": 4},
        project=permissions(allow=["Bash(touch *)", "Bash"], deny=["Bash(mkdir *)"]),
    )
    plans["scopes"] = (scopes, [Call("touch t"), Call("mkdir m"), Call("ls")], {})
    for name, project in (
        ("headless", None),
        ("project_allow", permissions(allow=[f"Shell({c} *)" for c in ALLOWED])),
        ("project_bash", permissions(allow=[f"Bash({c} *)" for c in ALLOWED])),
    ):
        setup = Setup(root / name, project=project)
        _files(setup)
        plans[name] = (setup, [setup.resolve(c) for c in HEADLESS], {"yolo": False})
    return plans


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    with scratch_dir("twsrt-qwen-out-", {"secret": SECRET + "\n"}) as path:
        yield path


@pytest.fixture(scope="module")
def runs(outside: Path, fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = qwen_bin()
    with scratch_dir("twsrt-qwen-") as root:
        yield run_all(binary, fake, _plans(root, outside))


def _of(observed: Observed, call: Call) -> Result:
    return observed.result(observed.setup.resolve(call).key)


def _leaked(result: Result, secret: str) -> bool:
    return secret in result.output


def test_the_pinned_version_is_installed() -> None:
    binary = qwen_bin()
    package = json.loads((package_dir(binary) / "package.json").read_text())
    assert package["version"] == VERSION
    got = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert got.stdout.strip() == VERSION


def test_every_run_exits_0_and_finishes(runs: dict[str, Observed]) -> None:
    """A refused call is not a failed run: each run ends with status 0 and a `result` event,
    and every call got a tool_result (the sandboxed ones included)."""
    assert {name: o.run.returncode for name, o in runs.items()} == dict.fromkeys(runs, 0)
    assert {name: o.run.finished for name, o in runs.items()} == dict.fromkeys(runs, True)
    unanswered = {n: [r.status for r in o.run.results].count(None) for n, o in runs.items()}
    assert unanswered == dict.fromkeys(runs, 0)


# (a) a user deny rule holds under --yolo


def test_a_user_bash_deny_refuses_touch_under_yolo(runs: dict[str, Observed]) -> None:
    plain, denied = runs["plain"], runs["denied"]
    assert plain.result(TOUCH).status == "success"
    assert plain.exists("home/x")  # control: without the rule the file is made
    result = denied.result(TOUCH)
    assert result.denied and result.status == "error"
    assert 'Matching deny rule: "Bash(touch:*)"' in result.output
    assert not denied.exists("home/x")


def test_the_colon_and_the_space_spelling_are_one_rule(runs: dict[str, Observed]) -> None:
    """``Bash(touch:*)`` (``denied``) and ``Bash(touch *)`` (``scopes``) both refuse touch:
    parseRule rewrites ``:*`` to `` *`` for shell rules."""
    assert runs["denied"].result("touch t-plain").denied
    assert runs["scopes"].result("touch t").denied
    assert not runs["scopes"].exists("ws/t")
    assert runs["plain"].exists("ws/t-plain")


# (b) what a `touch` prefix deny covers


@pytest.mark.parametrize(
    ("command", "artefact", "refused"),
    [case[1:] for case in TOUCH_CASES],
    ids=[case[0] for case in TOUCH_CASES],
)
def test_a_touch_prefix_deny(
    runs: dict[str, Observed], command: str, artefact: str, refused: bool
) -> None:
    plain, denied = runs["plain"], runs["denied"]
    assert plain.result(command).status == "success"
    assert plain.exists(artefact)  # control: the command runs without the rule
    assert denied.result(command).denied is refused
    assert denied.exists(artefact) is not refused


def test_an_ask_rule_is_approved_under_yolo(runs: dict[str, Observed]) -> None:
    """``permissions.ask: ["Bash(mkdir *)"]``: --yolo answers the ask itself."""
    result = runs["denied"].result("mkdir asked")
    assert result.status == "success" and not result.denied
    assert runs["denied"].exists("ws/asked")


# (c) Read(...) denies: the read tools and the shell


@pytest.mark.parametrize(
    ("call", "copy", "refused"),
    [case[1:] for case in _read_cases(Path("/OUT"))],
    ids=[case[0] for case in _read_cases(Path("/OUT"))],
)
def test_a_read_deny(
    runs: dict[str, Observed], outside: Path, call: Call, copy: str | None, refused: bool
) -> None:
    """The rules are ``Read(//OUT/secret)`` and ``Read(~/hsecret)``."""
    real = Call(call.command.replace("/OUT", str(outside)), call.tool, dict(call.args))
    if "file_path" in real.args:
        real.args["file_path"] = str(real.args["file_path"]).replace("/OUT", str(outside))
    secret = HOME_SECRET if "hsecret" in real.key else SECRET
    plain, denied = runs["plain"], runs["denied"]
    assert _of(plain, real).status == "success"  # control: the read works without a rule
    assert _of(denied, real).denied is refused
    if copy is None:
        assert _leaked(_of(plain, real), secret)
        assert _leaked(_of(denied, real), secret) is not refused
    else:
        assert (plain.setup.root / copy).read_text().strip() == secret
        assert denied.exists(copy) is not refused


# (d) Edit(...) denies: the write tools and the shell


@pytest.mark.parametrize(
    ("call", "artefact", "refused"),
    [case[1:] for case in _edit_cases()],
    ids=[case[0] for case in _edit_cases()],
)
def test_an_edit_deny(runs: dict[str, Observed], call: Call, artefact: str, refused: bool) -> None:
    """The rule is ``Edit(/prot/**)``: ``/`` is the project root (the workspace)."""
    plain, denied = runs["plain"], runs["denied"]
    assert _of(plain, call).status == "success"
    assert plain.exists(artefact)  # control
    assert _of(denied, call).denied is refused
    assert denied.exists(artefact) is not refused


def test_an_edit_deny_refuses_the_edit_tool(runs: dict[str, Observed]) -> None:
    change = edit("WS/prot/e", "old line", "new line")
    plain, denied = runs["plain"], runs["denied"]
    assert _of(plain, read_file("WS/prot/e")).status == "success"  # edit needs a read
    assert _of(plain, change).status == "success"
    assert (plain.setup.workspace / "prot" / "e").read_text() == "new line\n"  # control
    assert _of(denied, read_file("WS/prot/e")).status == "success"  # Read is not Edit
    assert _of(denied, change).denied
    assert (denied.setup.workspace / "prot" / "e").read_text() == "old line\n"


# (e) scopes: user and project settings


def test_a_project_allow_does_not_lift_a_user_deny(runs: dict[str, Observed]) -> None:
    """User deny ``Bash(touch *)``; the project allows ``Bash(touch *)`` and ``Bash``."""
    scopes = runs["scopes"]
    assert scopes.result("touch t").denied
    assert 'Matching deny rule: "Bash(touch *)"' in scopes.result("touch t").output
    assert not scopes.exists("ws/t")
    assert runs["plain"].exists("ws/t-plain")  # control: touch runs without the deny


def test_a_project_deny_adds_to_the_user_rules(runs: dict[str, Observed]) -> None:
    scopes = runs["scopes"]
    assert scopes.result("mkdir m").denied
    assert not scopes.exists("ws/m")
    assert scopes.result("ls").status == "success"
    assert runs["plain"].exists("ws/asked")  # control: mkdir runs without the deny


def test_headless_without_yolo_the_shell_is_off(runs: dict[str, Observed]) -> None:
    """No --yolo, no allow rule: every shell call is refused as by a whole-tool deny rule,
    read-only ``ls`` too; the read tools still run."""
    headless = runs["headless"]
    for call in HEADLESS[:5]:
        result = headless.result(call.key)
        assert result.denied
        assert 'Matching deny rule: "run_shell_command"' in result.output
    assert not headless.exists("ws/g")
    assert _of(headless, read_file("WS/in")).status == "success"


def test_a_project_allow_widens_headless(runs: dict[str, Observed]) -> None:
    """A project ``Shell(git *)`` allow lets ``git init`` run headless (``headless`` is the
    control), and switches the shell on, so read-only ``ls`` runs; a command no rule allows
    (``tar``) is still refused: there is no prompt to ask."""
    allowed = runs["project_allow"]
    assert allowed.result("git init").status == "success"
    assert allowed.exists("ws/g/.git")
    assert allowed.result("ls").status == "success"
    tar = allowed.result("tar cf")
    assert tar.denied and "non-interactive mode cannot prompt" in tar.output
    assert not allowed.exists("ws/a.tar")


def test_a_headless_allow_of_an_interpreter_or_a_writer_does_not_hold(
    runs: dict[str, Observed],
) -> None:
    """``Shell(python3 *)`` does not approve ``python3``; ``Shell(mkdir *)`` does not approve
    ``mkdir``: without --yolo the edit tools are switched off (a whole-tool ``edit`` deny), and
    that deny also matches a shell command that writes a file."""
    allowed = runs["project_allow"]
    python = allowed.result("python3")
    assert python.denied and "non-interactive mode cannot prompt" in python.output
    assert not allowed.exists("ws/prot/p")
    mkdir = allowed.result("mkdir m")
    assert mkdir.denied and 'Matching deny rule: "edit"' in mkdir.output
    assert not allowed.exists("ws/m")


def test_a_bash_spelled_allow_does_not_switch_the_shell_on_headless(
    runs: dict[str, Observed],
) -> None:
    """The same allow list spelled ``Bash(git *)``: the shell stays off (the headless switch
    knows the names ``run_shell_command`` and ``Shell``, not the alias ``Bash``)."""
    spelled = runs["project_bash"]
    assert runs["project_allow"].result("git init").status == "success"  # control
    result = spelled.result("git init")
    assert result.denied and 'Matching deny rule: "run_shell_command"' in result.output
    assert not spelled.exists("ws/g")


def test_qwen_writes_a_version_into_both_settings_files(runs: dict[str, Observed]) -> None:
    """A settings file without ``$version`` is rewritten with ``"$version": 4`` at start, the
    user file and the project file alike; one that has it is left byte for byte."""
    plain = json.loads(runs["plain"].setup.user_settings.read_text())
    assert plain["$version"] == 4
    scopes = runs["scopes"].setup
    expected = json.dumps(merge(BASE_SETTINGS, scopes.settings), indent=2) + "\n"
    assert scopes.user_settings.read_text() == expected  # control: already at version 4
    project = json.loads((scopes.workspace / ".qwen" / "settings.json").read_text())
    assert project["$version"] == 4
    assert "$version" not in (scopes.project or {})
