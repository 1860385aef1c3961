"""What the real Factory Droid 0.225.2 does with its sandbox block and command lists
(groundwork for a Droid target): every fact the target will compile against, pinned by a
headless ``droid exec`` against the fake model of ``droid_client``, checked on disk (the file a
command would write exists or not) or in what the model is told (a secret's text in the tool
result), each refused case beside a control that succeeds. docs/agents/pi-droid-observed.md
lists the facts.

The runs of one module fixture, three at a time, against one fake chat server, all with
``--auto high`` except the read-only ones (``readonly_*``, ``allow_*``) and ``skip``:
``plain`` (no keys: the control of every refusal), ``sandbox`` (``sandbox`` with denyRead, an
empty allowWrite, a denyWrite directory and one allowed domain), ``nobwrap`` (the same, bwrap
not on PATH), ``no_enabled`` (the same block without ``enabled``), ``blocklist`` /
``denylist`` (``commandBlocklist`` / ``commandDenylist``), the read-only default with the
model claiming a low risk (``readonly_low``) or a high one (``readonly_high``), with a user or
project ``commandAllowlist`` (``allow_user``, ``allow_project``), a user denylist beside a
project allowlist (``deny_beats_allow``), a project file that tries to widen or switch off the
user's sandbox (``project_widen``), a project-only sandbox (``project_sandbox``), two switches
that do not turn the sandbox off (``skip``: --skip-permissions-unsafe; ``settings_flag``:
--settings with ``enabled: false``), and ``FACTORY_HOME_OVERRIDE`` naming a HOME without the
sandbox, in the launch environment (``home_override``) or in a workspace .env (``dotenv``).
Install with .ci/install-droid.sh.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_chat import FakeChat

from .droid_client import (
    VERSION,
    Call,
    Observed,
    Setup,
    after_proxy,
    create,
    droid_bin,
    read,
    run_all,
)
from .gemini_client import path_without
from .qwen_client import scratch_dir

pytestmark = [pytest.mark.real, pytest.mark.long, pytest.mark.xdist_group("droid_observed")]

SECRET = "DROID-OUTSIDE-SECRET"
NO_SANDBOX = "refusing command execution without sandbox protection"
BLOCKED = "blocked by your organization's security policy"
ENDED = "Exec ended early: insufficient permission to proceed"
# the forbidden writes through Execute: (name, command, the path it makes, relative to the root)
WRITES = [
    ("deny-create", "touch prot/new", "ws/prot/new"),
    ("deny-append", "echo more >> prot/e", None),
    ("deny-rename", "mv movable prot/moved", "ws/prot/moved"),
    ("deny-symlink", "ln -s /etc/hostname prot/link", "ws/prot/link"),
    ("out-create", "touch ../out/new", "out/new"),
    ("out-append", "echo more >> ../out/e", None),
    ("out-rename", "mv movable2 ../out/moved", "out/moved"),
    ("out-symlink", "ln -s /etc/hostname ../out/link", "out/link"),
]
TOUCHES = [
    ("plain", "touch t-plain", "ws/t-plain"),
    ("compound", "true && touch t-and", "ws/t-and"),
    ("env", "env touch t-env", "ws/t-env"),
    ("sh-c", "sh -c 'touch t-shc'", "ws/t-shc"),
]


def _sandbox(setup: Setup, out: Path) -> dict[str, Any]:
    filesystem = {
        "denyRead": [f"{out}/secret"],
        "allowWrite": [],
        "denyWrite": [str(setup.workspace / "prot")],
    }
    network = {"allowedDomains": ["localhost"]}
    return {"sandbox": {"enabled": True, "filesystem": filesystem, "network": network}}


def _files(setup: Setup) -> None:
    setup.write()
    (setup.workspace / "prot").mkdir()
    (setup.workspace / "prot" / "e").write_text("old\n")
    (setup.workspace / "prot" / "ed").write_text("old\n")
    (setup.workspace / "movable").write_text("m\n")
    (setup.workspace / "movable2").write_text("m\n")
    (setup.root / "out").mkdir()
    (setup.root / "out" / "e").write_text("old\n")
    (setup.root / "off.json").write_text(json.dumps({"sandbox": {"enabled": False}}))


def _sandbox_calls(setup: Setup, out: Path, fake: FakeChat) -> list[Call]:
    local = fake.url("allowed").replace("127.0.0.1", "localhost")
    calls = [Call(f"cat {out}/secret"), Call("echo x > ok")]
    calls += [Call(command) for _, command, _ in WRITES]
    calls += [
        Call(after_proxy(f"curl -sS -m 30 --noproxy '' {local}")),
        Call(after_proxy(f"curl -sS -m 30 --noproxy '' {fake.url('refused-ip')}")),
        # the same request once more: under load Droid's proxy has refused a connection before
        # it could answer with its allowlist message (the request did not get through either)
        Call(after_proxy(f"curl -sS -m 30 --noproxy '' {fake.url('refused-ip-again')}")),
        read(f"{out}/secret"),
        create(setup.workspace / "prot" / "c"),
        Call(
            tool="Edit",
            args={"file_path": f"{setup.workspace}/prot/ed", "old_str": "old", "new_str": "new"},
        ),
        Call("mkdir -p .factory && echo '{}' > .factory/planted.json"),
    ]
    return calls


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    with scratch_dir("twsrt-droid-out-", {"secret": SECRET + "\n"}) as path:
        yield path


def _plans(root: Path, out: Path, fake: FakeChat) -> dict[str, Any]:
    plans: dict[str, Any] = {}

    def plan(name: str, calls: list[Call], settings: Any = None, **options: Any) -> Setup:
        setup = Setup(root / name, settings=settings or {}, project=options.pop("project", None))
        _files(setup)
        plans[name] = (setup, calls, options)
        return setup

    def sandboxed(name: str, **options: Any) -> None:
        setup = Setup(root / name)
        calls = _sandbox_calls(setup, out, fake)
        plan(name, calls, _sandbox(setup, out) | options.pop("settings", {}), **options)

    touches = [Call(command) for _, command, _ in TOUCHES] + [Call("echo x > ok")]
    home_write = [Call("touch $HOME/written", risk="low")]
    high_touch = [Call("touch $HOME/written", risk="high")]
    plan("plain", _sandbox_calls(Setup(root / "plain"), out, fake) + touches + [Call("mkdir d")])
    sandboxed("sandbox")
    nobwrap = str(path_without("bwrap", root / "nobwrap-bin"))
    sandboxed("nobwrap", path=nobwrap)
    skip = {"commandBlocklist": ["mkdir"]}
    sandboxed("skip", auto=None, flags=["--skip-permissions-unsafe"], settings=skip)
    sandboxed("settings_flag", flags=["--settings", str(root / "settings_flag" / "off.json")])
    plan("blocklist", touches, {"commandBlocklist": ["touch"]})
    plan("denylist", [Call("echo x > ok"), Call("mkdir d")], {"commandDenylist": ["mkdir"]})
    plan("readonly_low", home_write, auto=None)
    plan("readonly_high", high_touch, auto=None)
    plan("allow_user", high_touch, {"commandAllowlist": ["touch"]}, auto=None)
    plan("allow_project", high_touch, auto=None, project={"commandAllowlist": ["touch"]})
    plan(
        "deny_beats_allow",
        [Call("mkdir d")],
        {"commandDenylist": ["mkdir"]},
        project={"commandAllowlist": ["mkdir"]},
    )
    widen = Setup(root / "project_widen")
    fs = {"denyRead": [], "allowWrite": [str(widen.root / "out")], "denyWrite": []}
    plan(
        "project_widen",
        [Call(f"cat {out}/secret"), Call("touch ../out/new")],
        _sandbox(widen, out),
        project={"sandbox": {"enabled": False, "filesystem": fs}},
    )
    for name in ("home_override", "dotenv"):
        setup = Setup(root / name)
        plan(name, [Call(f"cat {out}/secret")], _sandbox(setup, out))
        other = setup.root / "other" / ".factory"  # a HOME whose settings have no sandbox
        other.mkdir(parents=True)
        setup.point_at(fake.base_url(name))
        model = json.loads(setup.user_settings.read_text())["customModels"]
        (other / "settings.json").write_text(json.dumps({"customModels": model}))
        if name == "dotenv":
            (setup.workspace / ".env").write_text(f"FACTORY_HOME_OVERRIDE={other.parent}\n")
        else:
            plans[name][2]["extra_env"] = {"FACTORY_HOME_OVERRIDE": str(other.parent)}
    inert = Setup(root / "no_enabled")
    block = _sandbox(inert, out)
    del block["sandbox"]["enabled"]
    plan("no_enabled", [Call(f"cat {out}/secret"), Call("touch ../out/new")], block)
    only = Setup(root / "project_sandbox")
    plan(
        "project_sandbox",
        [Call(f"cat {out}/secret"), Call("touch ../out/new")],
        project=_sandbox(only, out),
    )
    return plans


@pytest.fixture(scope="module")
def runs(outside: Path, fake: FakeChat) -> Iterator[dict[str, Observed]]:
    binary = droid_bin()
    with scratch_dir("twsrt-droid-") as root:
        yield run_all(binary, fake, _plans(root, outside, fake))


def _leaked(observed: Observed, key: str) -> bool:
    return SECRET in observed.result(key)


def test_the_pinned_version_is_installed(tmp_path: Path) -> None:
    got = subprocess.run(
        [droid_bin(), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert got.stdout.strip() == VERSION


def test_every_call_is_answered_and_only_asks_end_an_exec(runs: dict[str, Observed]) -> None:
    """A refused command is not a failed run: status 0 and a result for every call, except the
    runs where exec had to ask (a commandDenylist match, a high risk in read-only mode): those
    end with status 1 and exec's ``error`` event at that call."""
    asked = {"denylist", "readonly_high", "deny_beats_allow"}
    codes = {n: o.run.returncode for n, o in runs.items()}
    assert codes == {n: 1 if n in asked else 0 for n in runs}
    missing = {n: o.run.results.count(None) for n, o in runs.items()}
    assert missing == dict.fromkeys(runs, 0)
    assert {n for n, o in runs.items() if o.run.ended_early} == asked


# the sandbox block


@pytest.mark.parametrize(("case", "command", "made"), WRITES, ids=[w[0] for w in WRITES])
def test_writes_into_deny_write_and_outside_allow_write_are_refused(
    runs: dict[str, Observed], case: str, command: str, made: str | None
) -> None:
    """create, append, rename, symlink: each lands without the sandbox, none under it (the
    workspace itself stays writable: ``ok`` lands)."""
    plain, boxed = runs["plain"], runs["sandbox"]
    assert "Read-only file system" in boxed.result(command), boxed.result(command)
    assert "Read-only file system" not in plain.result(command)
    if made is None:  # an append: the file keeps its one line
        target = "ws/prot/e" if "prot" in command else "out/e"
        assert (plain.setup.root / target).read_text() == "old\nmore\n"
        assert (boxed.setup.root / target).read_text() == "old\n"
    else:
        assert plain.exists(made) and not boxed.exists(made)
    assert boxed.exists("ws/ok")


def test_deny_read_refuses_execute_and_the_read_tool(
    runs: dict[str, Observed], outside: Path
) -> None:
    boxed, plain = runs["sandbox"], runs["plain"]
    assert "Permission denied" in boxed.result(f"cat {outside}/secret")
    assert "read denied" in boxed.result(f"Read {outside}/secret")
    assert _leaked(plain, f"cat {outside}/secret") and _leaked(plain, f"Read {outside}/secret")


def test_deny_write_refuses_the_create_and_edit_tools(runs: dict[str, Observed]) -> None:
    boxed, plain = runs["sandbox"], runs["plain"]
    assert "write denied" in boxed.result(f"Create {boxed.setup.workspace}/prot/c")
    assert not boxed.exists("ws/prot/c") and plain.exists("ws/prot/c")
    assert "write denied" in boxed.result(f"Edit {boxed.setup.workspace}/prot/ed")
    assert (boxed.setup.workspace / "prot" / "ed").read_text() == "old\n"
    assert (plain.setup.workspace / "prot" / "ed").read_text() == "new\n"


def test_allowed_domains_hold(runs: dict[str, Observed]) -> None:
    """localhost (listed) reaches the fake server through the proxy; 127.0.0.1 (not listed) is
    refused; both reach it without the sandbox."""
    boxed, plain = runs["sandbox"], runs["plain"]
    assert boxed.result(after_proxy("curl -sS -m 30 --noproxy '' http://localhost")).startswith(
        "ok"
    )
    refused = [
        told or ""
        for call, told in zip(boxed.calls, boxed.run.results, strict=True)
        if "/refused-ip" in call.key
    ]
    assert len(refused) == 2
    assert not any(r.startswith("ok") for r in refused), refused
    assert any("blocked by network allowlist" in r for r in refused), refused
    assert plain.result(after_proxy("curl -sS -m 30 --noproxy '' http://127.0.0.1")).startswith(
        "ok"
    )


def test_the_sandbox_fails_closed_without_bwrap(runs: dict[str, Observed], outside: Path) -> None:
    """bwrap not on PATH: every Execute and the file tools are refused, nothing is written."""
    observed = runs["nobwrap"]
    assert all(NO_SANDBOX in (r or "") or "refusing" in (r or "") for r in observed.run.results)
    assert NO_SANDBOX in observed.result("echo x > ok")
    assert not observed.exists("ws/ok") and runs["sandbox"].exists("ws/ok")


def test_skip_permissions_unsafe_keeps_the_sandbox_and_the_blocklist(
    runs: dict[str, Observed], outside: Path
) -> None:
    observed = runs["skip"]
    assert "Permission denied" in observed.result(f"cat {outside}/secret")
    assert not observed.exists("out/new")
    assert BLOCKED in observed.result("mkdir -p .factory")
    assert not observed.exists("ws/.factory")


def test_a_settings_flag_with_enabled_false_does_not_turn_it_off(
    runs: dict[str, Observed], outside: Path
) -> None:
    observed = runs["settings_flag"]
    assert "Permission denied" in observed.result(f"cat {outside}/secret")
    assert not observed.exists("out/new")


# the command lists and the autonomy levels


@pytest.mark.parametrize(("case", "command", "made"), TOUCHES, ids=[t[0] for t in TOUCHES])
def test_the_blocklist_hard_denies_also_inside_compounds_and_wrappers(
    runs: dict[str, Observed], case: str, command: str, made: str
) -> None:
    blocked, plain = runs["blocklist"], runs["plain"]
    assert BLOCKED in blocked.result(command)
    assert not blocked.exists(made) and plain.exists(made)
    assert blocked.exists("ws/ok")  # the run went on after each block


def test_the_denylist_asks_so_exec_stops(runs: dict[str, Observed]) -> None:
    observed = runs["denylist"]
    assert ENDED in observed.result("mkdir d")
    assert observed.exists("ws/ok") and not observed.exists("ws/d")
    assert runs["plain"].exists("ws/d")


def test_read_only_exec_runs_a_write_the_model_calls_low_risk(runs: dict[str, Observed]) -> None:
    """The trap: without --auto, exec is "read-only", yet a ``touch`` the model labels
    ``riskLevel: low`` runs; labelled high, it ends the exec. The risk is the model's word."""
    assert runs["readonly_low"].exists("home/written")
    assert ENDED in runs["readonly_high"].result("touch")
    assert not runs["readonly_high"].exists("home/written")


def test_an_allowlist_runs_a_command_read_only_mode_would_stop(runs: dict[str, Observed]) -> None:
    """The same high-risk touch runs when a user or a project commandAllowlist names it."""
    assert runs["allow_user"].exists("home/written")
    assert runs["allow_project"].exists("home/written")
    assert not runs["readonly_high"].exists("home/written")


def test_a_user_denylist_beats_a_project_allowlist(runs: dict[str, Observed]) -> None:
    observed = runs["deny_beats_allow"]
    assert ENDED in observed.result("mkdir d") and not observed.exists("ws/d")


# project files


def test_a_project_file_cannot_widen_or_disable_the_user_sandbox(
    runs: dict[str, Observed], outside: Path
) -> None:
    """A project sandbox with ``enabled: false``, an empty denyRead and an allowWrite for out/
    changes nothing: the user's denyRead and allowWrite still hold."""
    observed = runs["project_widen"]
    assert "Permission denied" in observed.result(f"cat {outside}/secret")
    assert not observed.exists("out/new")


def test_a_project_file_alone_turns_a_sandbox_on(runs: dict[str, Observed], outside: Path) -> None:
    observed = runs["project_sandbox"]
    assert "Permission denied" in observed.result(f"cat {outside}/secret")
    assert not observed.exists("out/new") and runs["plain"].exists("out/new")


def test_a_sandboxed_command_can_write_the_project_settings_directory(
    runs: dict[str, Observed],
) -> None:
    """The workspace is writable under the sandbox and .factory/ is not protected: a command can
    plant a project settings file (whose commandAllowlist the next launch honours, see
    test_an_allowlist_runs_...)."""
    assert runs["sandbox"].exists("ws/.factory/planted.json")


def test_factory_home_override_drops_the_user_sandbox(
    runs: dict[str, Observed], outside: Path
) -> None:
    """``FACTORY_HOME_OVERRIDE`` in the launch environment wins over HOME: Droid reads the
    settings of that directory, and the user's sandbox is gone (the secret is read). The same
    line in a workspace ``.env`` changes nothing: this build does not load .env files."""
    assert _leaked(runs["home_override"], f"cat {outside}/secret")
    assert "Permission denied" in runs["dotenv"].result(f"cat {outside}/secret")


def test_a_sandbox_block_without_enabled_is_off(runs: dict[str, Observed], outside: Path) -> None:
    """``enabled`` defaults to false: the same filesystem and network lists without it confine
    nothing (the secret is read, a write outside the cwd lands)."""
    observed = runs["no_enabled"]
    assert _leaked(observed, f"cat {outside}/secret")
    assert observed.exists("out/new")
    assert not runs["sandbox"].exists("out/new")
