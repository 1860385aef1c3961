"""The real Gemini CLI 0.61.0 on twsrt's managed and project files, each refusal beside a
control run that succeeds without the file.

Managed scope (``twsrt generate -w --managed``; Gemini run through ``private_etc``, so the
generated ``linux/etc/gemini-cli`` tree is /etc/gemini-cli and the real /etc is never written;
the tests run as root, so its files are root-owned as a deployment makes them):

- an admin deny refuses a command, and an admin ask one, that the strongest user allow
  (priority 998) runs in the control; and ``security.disableAlwaysAllow`` (in every settings
  file twsrt writes) drops the user's ``auto-saved.toml`` rules (priority 950) altogether;
- an admin ``argsPattern`` is matched as written: a ``~/`` path does not match the user's home
  (TWS488), where the absolute spelling denies the read;
- a group-writable admin policy directory is skipped with a warning (TWS633);
- the system settings' ``security.toolSandboxing: true`` holds against a user ``false`` (a write
  outside the launch directory is not made; the control writes it), and
  ``$GEMINI_CLI_SYSTEM_SETTINGS_PATH`` set to another file undoes it (TWS490, TWS634).

Project scope (``twsrt generate -w --project``): the workspace ``.gemini/settings.json`` holds
its sandbox against a user ``false`` and takes the web tools out of the run, with folder trust
off and in a trusted folder; started in a subdirectory, Gemini does not read it (TWS491).

Fourteen headless runs of the fake model (``gemini_client``), started together; files under
/var/tmp, as the tool sandbox mounts a private tmpfs over /tmp.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli import run_cli

from twsrt.agents.gemini.translate import path_pattern, toml_value

from .gemini_client import Call, Run, Setup, deny_rule, gemini_bin, run_gemini
from .private_etc import private_etc

pytestmark = [pytest.mark.real, pytest.mark.xdist_group("gemini_scopes")]

BASH = {"deny": ["ln"], "ask": ["mkdir"], "allow": []}
SRT = {"enabled": True, "filesystem": {"allowWrite": ["."]}}
# the strongest allow a user policy file can hold (4.998; not 950, which Gemini drops under
# security.disableAlwaysAllow, as the always_* runs show), and what "allow for all future
# sessions" writes
USER_ALLOW = deny_rule("ln", 998, "allow") + deny_rule("mkdir", 998, "allow")
AUTO_SAVED = deny_rule("ln", 950, "allow") + deny_rule("mkdir", 950, "allow")
USER_OFF = {"security": {"toolSandboxing": False}}
WEB = Call(tool="web_fetch", args={"prompt": "Summarize http://127.0.0.1:9/x"})


def generate(root: Path, scope: str) -> Path:
    """twsrt's files of ``scope`` compiled from SRT/BASH: the managed tree's Linux directory
    (/etc/gemini-cli) or the project directory."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    (repo / "srt.json").write_text(json.dumps(SRT))
    (repo / "bash.json").write_text(json.dumps(BASH))
    out = repo / "out"
    out.mkdir()
    (repo / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[{scope}]\nroot = "out"\nagents = ["gemini"]\n'
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root / "twsrt-home"), "TWSRT_NO_CACHE": "1"}
    wrote = run_cli(["generate", "-w"], cwd=repo, env=env)
    assert wrote.returncode == 0, wrote.stderr
    if scope == "project":
        return out
    etc = out / "linux" / "etc" / "gemini-cli"
    for directory in (etc, etc / "policies"):  # the deployment's mode for directories
        directory.chmod(0o755)
    assert (etc / "policies" / "twsrt.toml").stat().st_mode & 0o777 == 0o644
    return etc


@dataclass
class Case:
    setup: Setup
    calls: list[Call]
    etc: Path | None = None  # bound at /etc/gemini-cli
    env: dict[str, str] | None = None  # put before the agent, inside the private /etc
    yolo: bool = True


@dataclass
class Observed:
    case: Case
    run: Run

    def status(self, index: int) -> str | None:
        return self.run.results[index].status

    def error(self, index: int) -> str | None:
        return self.run.results[index].error_type

    def exists(self, relative: str) -> bool:
        return (self.case.setup.root / relative).exists()


class HomeInWorkspace(Setup):
    """A run whose HOME lies inside the workspace, so the file tools may reach it at all."""

    @property
    def home(self) -> Path:
        return self.root / "ws" / "home"


class SubdirSetup(Setup):
    """A run that starts in ``ws/sub``, below the workspace that holds the project file."""

    @property
    def workspace(self) -> Path:
        return self.root / "ws" / "sub"


def _outside(root: Path) -> Call:
    (root / "outside").mkdir(parents=True, exist_ok=True)
    return Call(f"echo x > {root / 'outside' / 'o'}")


def _cases(base: Path) -> dict[str, Case]:
    admin = generate(base / "gen-managed", "managed")
    project = generate(base / "gen-project", "project") / ".gemini" / "settings.json"
    cases: dict[str, Case] = {}
    for name, etc in (("admin", admin), ("admin_control", None), ("admin_insecure", None)):
        setup = Setup(base / name)
        setup.write()
        (setup.home / ".gemini" / "policies").mkdir(exist_ok=True)
        (setup.home / ".gemini" / "policies" / "mine.toml").write_text(USER_ALLOW)
        if name == "admin_insecure":  # the generated file in a group-writable directory
            etc = base / name / "etc"
            etc.mkdir()
            shutil.copytree(admin / "policies", etc / "policies")
            (etc / "policies").chmod(0o775)
        cases[name] = Case(setup, [Call("ln -s in l"), Call("mkdir d")], etc, yolo=False)
    for name, settings in (
        ("always_off", {"security": {"disableAlwaysAllow": True}}),
        ("always_control", {}),
    ):
        setup = Setup(base / name, settings=settings)
        setup.write()
        (setup.home / ".gemini" / "policies").mkdir(exist_ok=True)
        (setup.home / ".gemini" / "policies" / "auto-saved.toml").write_text(AUTO_SAVED)
        cases[name] = Case(setup, [Call("ln -s in l")], yolo=False)
    for name, spelled in (("tilde", "~/secret"), ("tilde_control", None)):
        setup = HomeInWorkspace(base / name)
        setup.write()
        (setup.home / "secret").write_text("HOME-SECRET\n")
        etc = base / name / "etc"
        (etc / "policies").mkdir(parents=True)
        path = spelled or str(setup.home / "secret")
        pattern = toml_value(path_pattern("file_path", path))
        rule = f'[[rule]]\ntoolName = "read_file"\nargsPattern = {pattern}\n'
        rule += 'decision = "deny"\npriority = 999\n'
        (etc / "policies" / "twsrt.toml").write_text(rule)
        read = Call(tool="read_file", args={"file_path": str(setup.home / "secret")})
        cases[name] = Case(setup, [read], etc)
    moved = base / "moved-settings.json"
    moved.write_text("{}")
    for name, etc, env in (
        ("system", admin, None),
        ("system_control", None, None),
        ("system_moved", admin, {"GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(moved)}),
    ):
        setup = Setup(base / name, settings=USER_OFF)
        cases[name] = Case(setup, [Call("touch inside"), _outside(setup.root)], etc, env)
    trusting = {"security": {"toolSandboxing": False, "folderTrust": {"enabled": True}}}
    for name, kind, settings in (
        ("project", Setup, USER_OFF),
        ("project_control", Setup, USER_OFF),
        ("project_trusted", Setup, trusting),
        ("project_subdir", SubdirSetup, USER_OFF),
    ):
        setup = kind(base / name, settings=settings)
        setup.write()
        if name != "project_control":
            (setup.root / "ws" / ".gemini").mkdir(parents=True, exist_ok=True)
            shutil.copy(project, setup.root / "ws" / ".gemini" / "settings.json")
        if name == "project_trusted":
            trusted = {str(setup.workspace): "TRUST_FOLDER"}
            (setup.home / ".gemini" / "trustedFolders.json").write_text(json.dumps(trusted))
        cases[name] = Case(setup, [WEB, Call("touch inside"), _outside(setup.root)])
    return cases


def _tool(stack: ExitStack, binary: str, case: Case) -> str:
    """The command that starts Gemini for ``case``: the binary, or a private-/etc wrapper.
    Every wrapper is written before any run starts (a script still open for writing in one
    thread is "busy" for a fork in another)."""
    if case.etc is None and case.env is None:
        return binary
    dirs = {"gemini-cli": case.etc} if case.etc is not None else {}
    extra = [f"{key}={value}" for key, value in (case.env or {}).items()]
    tool, first = ("/usr/bin/env", [*extra, binary]) if extra else (binary, [])
    return stack.enter_context(private_etc(tool, dirs, first))


@pytest.fixture(scope="module")
def runs() -> Iterator[dict[str, Observed]]:
    binary = gemini_bin()
    base = Path(tempfile.mkdtemp(prefix="twsrt-gemini-scopes-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    try:
        cases = _cases(base)
        with ExitStack() as stack, ThreadPoolExecutor(max_workers=len(cases)) as pool:
            tools = {name: _tool(stack, binary, case) for name, case in cases.items()}
            futures = {
                name: pool.submit(run_gemini, tools[name], case.setup, case.calls, yolo=case.yolo)
                for name, case in cases.items()
            }
            yield {name: Observed(cases[name], f.result()) for name, f in futures.items()}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_an_admin_deny_and_ask_outrank_the_strongest_user_allow(
    runs: dict[str, Observed],
) -> None:
    admin, control = runs["admin"], runs["admin_control"]
    assert "Policy file error" not in admin.run.stderr, admin.run.stderr
    assert admin.error(0) == "policy_violation" and not admin.exists("ws/l")
    assert admin.status(1) == "error" and not admin.exists("ws/d")  # asked: refused headless
    assert control.status(0) == "success" and (control.case.setup.workspace / "l").is_symlink()
    assert control.status(1) == "success" and control.exists("ws/d")


def test_an_admin_args_pattern_expands_no_tilde(runs: dict[str, Observed]) -> None:
    """TWS488: the pattern of ``~/secret`` does not match the user's own ``$HOME/secret``;
    the same rule with the absolute path denies the read."""
    tilde, control = runs["tilde"], runs["tilde_control"]
    assert "Policy file error" not in tilde.run.stderr, tilde.run.stderr
    assert tilde.status(0) == "success"
    assert control.error(0) == "policy_violation"


def test_a_group_writable_admin_directory_is_skipped(runs: dict[str, Observed]) -> None:
    """TWS633: the same file, its directory mode 0775: Gemini loads none of it."""
    insecure = runs["admin_insecure"]
    assert "Security Warning: Skipping system policies" in insecure.run.stderr
    assert insecure.status(0) == "success" and insecure.exists("ws/d")
    assert "Skipping system policies" not in runs["admin"].run.stderr


def test_disable_always_allow_drops_the_auto_saved_rules(runs: dict[str, Observed]) -> None:
    """security.disableAlwaysAllow (which every twsrt settings file sets) makes Gemini skip
    each rule at priority 950, where "allow for all future sessions" writes them."""
    assert runs["always_off"].status(0) == "error"
    assert not (runs["always_off"].case.setup.workspace / "l").is_symlink()
    assert runs["always_control"].status(0) == "success"
    assert (runs["always_control"].case.setup.workspace / "l").is_symlink()


def test_the_system_sandbox_holds_against_a_user_false(runs: dict[str, Observed]) -> None:
    system, control = runs["system"], runs["system_control"]
    assert system.status(0) == "success" and system.exists("ws/inside")
    assert not system.exists("outside/o")
    assert control.status(1) == "success" and control.exists("outside/o")
    # bwrap's mount points for the files it binds read-only, left in the launch directory
    assert system.exists("ws/.geminiignore") and not control.exists("ws/.geminiignore")


def test_the_system_settings_variable_replaces_the_system_file(
    runs: dict[str, Observed],
) -> None:
    """TWS490/TWS634: the same /etc, the variable naming an empty file: no sandbox."""
    moved = runs["system_moved"]
    assert moved.status(1) == "success" and moved.exists("outside/o")
    assert not runs["system"].exists("outside/o")


def test_the_project_file_holds_its_sandbox_and_excludes_the_web_tools(
    runs: dict[str, Observed],
) -> None:
    for name in ("project", "project_trusted"):
        observed = runs[name]
        assert observed.error(0) == "tool_not_registered", name
        assert observed.exists("ws/inside"), name
        assert not observed.exists("outside/o"), name
    control = runs["project_control"]
    assert control.status(0) == "error" and control.error(0) != "tool_not_registered"
    assert control.exists("outside/o")


def test_the_project_file_is_not_read_from_a_subdirectory(runs: dict[str, Observed]) -> None:
    """TWS491: started in ws/sub, the file in ws/.gemini does not apply."""
    sub = runs["project_subdir"]
    assert sub.error(0) != "tool_not_registered"
    assert sub.exists("ws/sub/inside") and sub.exists("outside/o")
