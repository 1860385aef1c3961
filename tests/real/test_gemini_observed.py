"""What the real Gemini CLI 0.61.0 does with policy rules and its tool sandbox (groundwork for
issue 30): every fact the Gemini target will compile against, pinned by a headless run against
the fake model of ``gemini_client`` and checked on disk (the file a command would write exists
or not), each refused case beside a control that succeeds. docs/agents/gemini-observed.md lists
the facts and what each means for the translation.

Nine runs start at once in one module fixture (1-2 s of CPU each, 16 s for the whole file, 37 s
wall on the shared 2-core machine): ``plain`` (--yolo, no policy: the controls),
``denied`` (--yolo, user deny rules on ``touch`` and ``cat``), ``priority`` (no --yolo:
``tools.allowed`` against TOML denies at 999 and 100, an auto-saved.toml, a rule without
priority), ``policy_paths`` (--yolo, settings ``policyPaths``), ``approval_setting`` and
``approval_flag`` (yolo from settings, and from the flag), and three with
``security.toolSandboxing``: ``sandbox_yolo``, ``sandbox_default`` (no --yolo, a user allow
rule) and ``sandbox_nobwrap`` (--yolo, bwrap not on PATH). Their files live
under /var/tmp, not /tmp: the sandbox mounts a private tmpfs over /tmp, so a HOME under /tmp is
invisible to a sandboxed command. Install the CLI with .ci/install-gemini.sh.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.hitserver import HitServer, hit_server

from .gemini_client import (
    VERSION,
    Call,
    Result,
    Run,
    Setup,
    bundle_dir,
    deny_rule,
    gemini_bin,
    path_without,
    run_gemini,
)

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("gemini_observed")]

SANDBOX = {"security": {"toolSandboxing": True}}
ALLOW_SHELL = '[[rule]]\ntoolName = "run_shell_command"\ndecision = "allow"\npriority = 500\n'
ALLOWED = ["run_shell_command(touch)", "run_shell_command(mkdir)", "run_shell_command(cp)"]
# what "allow for all future sessions" writes (createTomlRule: priority 950 of the tier)
AUTO_SAVED = (
    '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "ln"\ndecision = "allow"\n'
    "priority = 950\n"
)
NO_PRIORITY = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "mv"\ndecision = "allow"\n'
BWRAP_MISSING = "exec: bwrap: not found"

# (b): each command beside the file it writes when it runs, and whether a `cat` deny refused it
CAT_CASES: list[tuple[str, str, str, bool]] = [
    ("cat", "cat in > o1", "ws/o1", True),
    ("cat2", "cat2", "home/ran-cat2", False),
    ("catalog", "catalog", "home/ran-catalog", False),
    ("env-cat", "env cat in > o4", "ws/o4", False),
    ("sh-c-cat", "sh -c 'cat in > o5'", "ws/o5", True),
    ("cat-then-other", "cat in > o6; mkdir d6", "ws/d6", True),
    ("other-then-cat", "mkdir d7; cat in > o7", "ws/d7", True),
    ("absolute-cat", "/bin/cat in > o8", "ws/o8", False),
    ("command-cat", "command cat in > o9", "ws/o9", False),
    ("cat-tab", "cat\tin > o10", "ws/o10", False),
    ("pipe-into-cat", "echo x | cat > o11", "ws/o11", True),
    ("workspace-policy", "mkdir wsdeny", "ws/wsdeny", False),
]
TOUCH = "touch $HOME/x"


@dataclass
class Observed:
    setup: Setup
    calls: list[Call]
    run: Run

    def result(self, command: str) -> Result:
        """The result of the first call whose command starts with ``command``."""
        starts = [call.command.startswith(command) for call in self.calls]
        return self.run.results[starts.index(True)]

    def exists(self, relative: str) -> bool:
        return (self.setup.root / relative).exists()


def _scripts(setup: Setup) -> None:
    """`in` in the workspace; `cat2` and `catalog` in ~/bin, each leaving ~/ran-<name>; a
    workspace policy denying `mkdir` (ignored, as the `workspace-policy` case shows)."""
    setup.write()
    (setup.workspace / "in").write_text("IN\n")
    policies = setup.workspace / ".gemini" / "policies"
    policies.mkdir(parents=True)
    (policies / "deny.toml").write_text(deny_rule("mkdir"))
    bindir = setup.home / "bin"
    bindir.mkdir()
    for name in ("cat2", "catalog"):
        script = bindir / name
        script.write_text('#!/bin/sh\necho ran > "$HOME/ran-$(basename "$0")"\n')
        script.chmod(0o755)


def _plans(root: Path, out: Path, port: int) -> dict[str, tuple[Setup, list[Call], dict[str, Any]]]:
    """Each run: its files, the fake model's calls, run_gemini's options."""
    url = f"http://127.0.0.1:{port}"
    cat_calls = [Call(TOUCH), Call(f"touch {out}/plain")] + [Call(c[1]) for c in CAT_CASES]
    policy = deny_rule("touch") + deny_rule("cat")
    plans: dict[str, tuple[Setup, list[Call], dict[str, Any]]] = {}
    for name, rules in (("plain", None), ("denied", policy)):
        setup = Setup(root / name, policy=rules)
        _scripts(setup)
        plans[name] = (setup, cat_calls, {"path": f"{setup.home}/bin:{_path()}"})
    priority = Setup(
        root / "priority",
        settings={"tools": {"allowed": ALLOWED}},
        policy=deny_rule("touch", 999) + deny_rule("mkdir", 100),
    )
    priority.write()
    (priority.home / ".gemini" / "policies" / "auto-saved.toml").write_text(AUTO_SAVED)
    (priority.home / ".gemini" / "policies" / "no-priority.toml").write_text(NO_PRIORITY)
    priority_calls = [Call(c) for c in ("touch t", "mkdir m", "cp in c", "ln -s in l", "mv in v")]
    (priority.workspace / "in").write_text("IN\n")
    plans["priority"] = (priority, priority_calls, {"yolo": False})
    elsewhere = root / "policy_paths" / "elsewhere"
    paths = Setup(root / "policy_paths", settings={"policyPaths": [str(elsewhere)]}, policy=policy)
    paths.write()
    elsewhere.mkdir()
    (elsewhere / "other.toml").write_text(deny_rule("mkdir"))
    plans["policy_paths"] = (paths, [Call(TOUCH), Call("mkdir d")], {})
    # a settings default of yolo (ignored) and the same call under the flag (the control)
    for name, settings, options in (
        ("approval_setting", {"general": {"defaultApprovalMode": "yolo"}}, {"yolo": False}),
        ("approval_flag", {}, {}),
    ):
        plans[name] = (Setup(root / name, settings=settings), [Call("mkdir asked")], options)
    write_expand = {"additional_permissions": {"fileSystem": {"write": [str(out)]}}}
    net_expand = {"additional_permissions": {"network": True}}
    sandbox_calls = {
        "sandbox_yolo": [
            Call("touch inside"),
            Call(f"cp {out}/secret read-outside"),
            Call("cp $HOME/secret read-home"),
            Call(f"touch /tmp/{out.name}-yolo"),
            Call(f"curl -s -m 5 -o net {url}/yolo"),
            Call(f"touch {out}/yolo", args=write_expand),
            Call(f"touch {out}/yolo-plain"),  # a sandbox denial: the run ends here
            Call("touch after"),
        ],
        "sandbox_default": [
            Call("touch inside"),
            Call(f"touch {out}/default", args=write_expand),
            Call(f"curl -s -m 5 -o net-expanded {url}/default-expanded", args=net_expand),
            Call(f"curl -s -m 5 -o net {url}/default"),  # a sandbox denial: the run ends here
            Call("touch after"),
        ],
        "sandbox_nobwrap": [Call("touch inside"), Call(f"touch {out}/nobwrap")],
    }
    for name, calls in sandbox_calls.items():
        setup = Setup(root / name, settings=SANDBOX)
        setup.policy = ALLOW_SHELL if name == "sandbox_default" else None
        setup.write()
        (setup.home / "secret").write_text("HOME-SECRET\n")
        options: dict[str, Any] = {"yolo": name != "sandbox_default"}
        if name == "sandbox_nobwrap":
            options["path"] = path_without("bwrap", root / "nobwrap-bin")
        plans[name] = (setup, calls, options)
    return plans


def _path() -> str:
    import os

    return os.environ.get("PATH", "/usr/bin:/bin")


@pytest.fixture(scope="module")
def server() -> Iterator[HitServer]:
    with hit_server() as running:
        yield running


@pytest.fixture(scope="module")
def hits(server: HitServer) -> list[str]:
    return server.hits


@pytest.fixture(scope="module")
def outside() -> Iterator[Path]:
    """A directory outside every run's workspace, on the real file system (not /tmp)."""
    path = Path(tempfile.mkdtemp(prefix="twsrt-gemini-out-", dir="/var/tmp"))
    (path / "secret").write_text("OUTSIDE-SECRET\n")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def runs(outside: Path, server: HitServer) -> Iterator[dict[str, Observed]]:
    binary = gemini_bin()
    if shutil.which("bwrap") is None:
        pytest.fail("bwrap is not on PATH (.ci/install-srt.sh installs it)")
    root = Path(tempfile.mkdtemp(prefix="twsrt-gemini-", dir="/var/tmp"))
    try:
        plans = _plans(root, outside, server.port)

        def one(name: str) -> tuple[str, Observed]:
            setup, calls, options = plans[name]
            return name, Observed(setup, calls, run_gemini(binary, setup, calls, **options))

        with ThreadPoolExecutor(len(plans)) as pool:
            yield dict(pool.map(one, plans))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_pinned_version_is_installed() -> None:
    package = json.loads((bundle_dir(gemini_bin()).parent / "package.json").read_text())
    assert package["version"] == VERSION


def test_every_run_exits_0(runs: dict[str, Observed]) -> None:
    """A refused call is not a failed run: each run ends with status 0 (the sandbox denials
    included, which end the run silently, see below)."""
    assert {name: o.run.returncode for name, o in runs.items()} == dict.fromkeys(runs, 0)


# (a) a user policy deny holds under --yolo


def test_a_user_deny_rule_refuses_touch_under_yolo(runs: dict[str, Observed]) -> None:
    plain, denied = runs["plain"], runs["denied"]
    assert plain.result(TOUCH).status == "success"
    assert plain.exists("home/x")  # control: without the rule the file is made
    assert denied.result(TOUCH).denied
    assert denied.result(TOUCH).output == "Tool execution denied by policy."
    assert not denied.exists("home/x")


# (b) what a `cat` prefix deny covers


@pytest.mark.parametrize(
    ("command", "artefact", "refused"),
    [case[1:] for case in CAT_CASES],
    ids=[case[0] for case in CAT_CASES],
)
def test_a_cat_prefix_deny(
    runs: dict[str, Observed], command: str, artefact: str, refused: bool
) -> None:
    plain, denied = runs["plain"], runs["denied"]
    assert plain.result(command).status == "success"
    assert plain.exists(artefact)  # control: the command runs without the rule
    assert denied.result(command).denied is refused
    assert denied.exists(artefact) is not refused


# (c) tools.allowed in settings.json against TOML denies


def test_settings_allow_loses_to_a_deny_at_999_and_beats_one_at_100(
    runs: dict[str, Observed],
) -> None:
    priority = runs["priority"]
    assert priority.result("cp in c").status == "success"  # control: tools.allowed works headless
    assert priority.exists("ws/c")
    assert priority.result("mv in v").denied  # allowed only by a rule without priority
    assert priority.exists("ws/in")
    assert priority.result("touch t").denied  # deny at 999 beats tools.allowed
    assert not priority.exists("ws/t")
    assert priority.result("mkdir m").status == "success"  # tools.allowed beats deny at 100
    assert priority.exists("ws/m")


def test_an_auto_saved_toml_in_the_user_policies_loads_as_a_user_rule(
    runs: dict[str, Observed],
) -> None:
    priority = runs["priority"]
    assert priority.result("ln -s in l").status == "success"
    assert (priority.setup.workspace / "l").is_symlink()


def test_allow_for_all_future_sessions_writes_the_user_auto_saved_toml() -> None:
    """No headless run can answer a confirmation, so this is the bundle's text: the file is
    ~/.gemini/policies/auto-saved.toml (the workspace one only where workspace policies are
    enabled, which 0.61.0 hard-codes off; the `workspace-policy` case shows them ignored)."""
    texts = [p.read_text() for p in bundle_dir(gemini_bin()).glob("*.js")]
    core = next(t for t in texts if "getAutoSavedPolicyPath()" in t)
    cli = next(t for t in texts if "function resolveWorkspacePolicyState" in t)
    assert 'AUTO_SAVED_POLICY_FILENAME = "auto-saved.toml"' in core
    assert re.search(
        r"getAutoSavedPolicyPath\(\) \{\s*return path\d*\.join\(_Storage\.getUserPoliciesDir\(\), "
        r"AUTO_SAVED_POLICY_FILENAME\);",
        core,
    )
    assert re.search(
        r"getUserPoliciesDir\(\) \{\s*return path\d*\.join\(_Storage\."
        r"getGlobalGeminiDir\(\), \"policies\"\);",
        core,
    )
    assert "var disableWorkspacePolicies = true;" in cli


def test_a_rule_without_priority_is_dropped_with_a_message(runs: dict[str, Observed]) -> None:
    priority = runs["priority"]
    assert priority.result("mv in v").denied
    assert not priority.exists("ws/v")
    assert "[USER] Policy file error in no-priority.toml:" in priority.run.stderr
    assert 'Field "rule.0.priority": priority is required' in priority.run.stderr


def test_policy_paths_in_settings_replace_the_user_policy_directory(
    runs: dict[str, Observed],
) -> None:
    """settings.json `policyPaths` (or --policy) loads those files *instead of*
    ~/.gemini/policies: twsrt.toml's deny on touch is gone (the `denied` run is the control)."""
    paths = runs["policy_paths"]
    assert runs["denied"].result(TOUCH).denied
    assert paths.result(TOUCH).status == "success"
    assert paths.exists("home/x")
    assert paths.result("mkdir d").denied  # the file policyPaths names is loaded instead
    assert not paths.exists("ws/d")


# (d) the tool sandbox (security.toolSandboxing)


def test_a_default_approval_mode_of_yolo_in_settings_is_ignored(
    runs: dict[str, Observed],
) -> None:
    """``general.defaultApprovalMode: "yolo"`` does not make a launch a yolo launch (the bundle
    drops that value; only the flag sets yolo): headless, the shell is not even offered, while
    the same call under ``--yolo`` runs."""
    setting, flag = runs["approval_setting"], runs["approval_flag"]
    assert setting.result("mkdir asked").status == "error"
    assert not (setting.setup.workspace / "asked").exists()
    assert flag.result("mkdir asked").status == "success"
    assert (flag.setup.workspace / "asked").exists()


def test_the_sandbox_lets_a_workspace_write_and_ends_the_run_at_an_outside_write(
    runs: dict[str, Observed], outside: Path
) -> None:
    yolo = runs["sandbox_yolo"]
    assert yolo.result("touch inside").status == "success"
    assert yolo.exists("ws/inside")
    assert runs["plain"].result(f"touch {outside}/plain").status == "success"
    assert (outside / "plain").exists()  # control: unsandboxed, the outside write is made
    assert not (outside / "yolo-plain").exists()
    blocked = yolo.result(f"touch {outside}/yolo-plain")
    assert blocked.status is None  # no tool_result: the run stopped at the denial
    assert yolo.result("touch after").status is None
    assert '"type":"result"' not in yolo.run.stdout
    assert not yolo.exists("ws/after")


def test_the_sandbox_reads_outside_the_workspace(runs: dict[str, Observed]) -> None:
    yolo = runs["sandbox_yolo"]
    assert (yolo.setup.workspace / "read-outside").read_text() == "OUTSIDE-SECRET\n"
    assert (yolo.setup.workspace / "read-home").read_text() == "HOME-SECRET\n"


def test_a_sandboxed_write_to_tmp_succeeds_into_a_private_tmpfs(
    runs: dict[str, Observed], outside: Path
) -> None:
    result = runs["sandbox_yolo"].result(f"touch /tmp/{outside.name}-yolo")
    assert result.status == "success"
    assert not Path(f"/tmp/{outside.name}-yolo").exists()


def test_yolo_turns_the_sandbox_network_on(runs: dict[str, Observed], hits: list[str]) -> None:
    assert runs["sandbox_yolo"].result("curl -s -m 5 -o net ").status == "success"
    assert "/yolo" in hits
    assert (runs["sandbox_yolo"].setup.workspace / "net").read_text() == "ok"


def test_without_yolo_the_network_is_off_but_a_call_may_ask_for_it(
    runs: dict[str, Observed], hits: list[str]
) -> None:
    default = runs["sandbox_default"]
    assert default.result("touch inside").status == "success"
    assert default.exists("ws/inside")
    assert "/default" not in hits  # the plain curl was stopped (and the run with it)
    assert default.result("touch after").status is None
    assert "/default-expanded" in hits  # additional_permissions.network: granted, no prompt
    assert (default.setup.workspace / "net-expanded").read_text() == "ok"


def test_a_call_asking_for_more_write_roots_is_refused_headless(
    runs: dict[str, Observed], outside: Path
) -> None:
    for name in ("sandbox_yolo", "sandbox_default"):
        result = runs[name].result(f"touch {outside}/{name.removeprefix('sandbox_')}")
        assert result.error_type == "unhandled_exception"
        assert "requires user confirmation" in result.output
    assert not (outside / "yolo").exists()
    assert not (outside / "default").exists()


def test_a_missing_bwrap_runs_nothing_yet_reports_success(
    runs: dict[str, Observed], outside: Path
) -> None:
    nobwrap = runs["sandbox_nobwrap"]
    for command in ("touch inside", f"touch {outside}/nobwrap"):
        result = nobwrap.result(command)
        assert result.status == "success"
        assert BWRAP_MISSING in result.output
    assert not nobwrap.exists("ws/inside")
    assert not (outside / "nobwrap").exists()
