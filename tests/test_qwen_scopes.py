"""Qwen Code's project and managed scopes (agents/qwen/project.py, managed.py,
effective_managed.py): what each file carries and leaves out, where each finding stands, and
what the managed-scope check reports in the user's settings on this machine. The bytes are
pinned by tests/golden/qwen-project and tests/golden/qwen-managed; the facts behind them by
tests/real/test_qwen_project_observed.py and test_qwen_managed_observed.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.sandbox import Sandbox

from twsrt.agents.qwen.effective_managed import shell_command

SRT = {
    "filesystem": {"denyRead": ["~/.ssh", "secrets"], "allowWrite": ["."]},
    "network": {"allowedDomains": []},
}
BASH = {"deny": ["curl"], "ask": ["git push"], "allow": ["git status"]}
SOURCES = '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n'
PROJECT = SOURCES + '\n[project]\nagents = ["qwen"]\n'
MANAGED = SOURCES + '\n[managed]\nroot = "managed"\nagents = ["qwen"]\n'
LINUX = "managed/linux/etc/qwen-code/settings.json"


def _setup(sandbox: Sandbox, config: str, srt: dict[str, Any] | None = None) -> None:
    sandbox.write("twsrt.toml", config)
    sandbox.write(".srt-settings.json", SRT if srt is None else srt)
    sandbox.write("bash-rules.json", BASH)


def test_the_project_file_has_the_rules_and_no_sandbox(sandbox: Sandbox) -> None:
    _setup(sandbox, PROJECT)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    document = json.loads((sandbox.repo / ".qwen/settings.json").read_text())
    assert "tools" not in document  # Qwen ignores executionSandbox there (row 19)
    assert {"Read(/secrets)", "Read(/secrets/**)", "Bash(curl *)"} <= set(
        document["permissions"]["deny"]
    )
    assert document["permissions"]["allow"] == ["Shell(git status)", "Shell(git status *)"]
    (ignored,) = [line for line in run.stderr.splitlines() if "TWS492" in line]
    assert ignored.startswith(".srt-settings.json:")  # at the policy's write roots
    assert "warning[TWS492] Qwen ignores tools.executionSandbox in a project's" in ignored
    assert ignored.endswith("(at /filesystem/allowWrite, agent qwen)")
    assert "note[TWS493] Qwen Code loads .qwen/settings.json only when it starts" in run.stderr
    preview = sandbox.run("generate", "qwen")
    assert json.loads(preview.stdout) == {
        k: v for k, v in document.items() if k in ("$version", "permissions")
    }


def test_a_project_file_without_a_sandbox_policy_loses_nothing(sandbox: Sandbox) -> None:
    """Control of TWS492: under danger-full-access the policy asks for no sandbox."""
    _setup(sandbox, PROJECT)
    run = sandbox.run("generate", "-w", "-v", "--sandbox", "danger-full-access")
    assert run.returncode == 0, run.stderr
    assert "TWS492" not in run.stderr
    assert "the project file carries the permission rules only" in run.stderr


def test_the_managed_file_carries_the_sandbox_for_every_os(sandbox: Sandbox) -> None:
    _setup(sandbox, MANAGED)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    texts = {
        path: (sandbox.repo / "managed" / path).read_text()
        for path in (
            "linux/etc/qwen-code/settings.json",
            "macos/Library/Application Support/QwenCode/settings.json",
            "windows/ProgramData/qwen-code/settings.json",
        )
    }
    assert len(set(texts.values())) == 1
    document = json.loads(texts["linux/etc/qwen-code/settings.json"])
    assert document["tools"]["executionSandbox"]["filesystem"] == "workspace-write"
    assert "~/.ssh/**" in " ".join(document["permissions"]["deny"])  # ~ expands per user
    (open_,) = [line for line in run.stderr.splitlines() if "TWS494" in line]
    assert open_.startswith("bash-rules.json:") and "warning[TWS494] Qwen has no managed" in open_
    assert open_.endswith("(at /allow, agent qwen)")
    # the file serves --yolo launches too: the ask rule's loss is reported without --yolo
    assert "note[TWS485] under --yolo Qwen approves" in run.stderr


def _user(sandbox: Sandbox, settings: dict[str, Any]) -> None:
    path = sandbox.home / ".qwen" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")


def test_managed_check_reports_what_the_users_file_still_widens(sandbox: Sandbox) -> None:
    _setup(sandbox, MANAGED)
    assert sandbox.run("generate", "-w").returncode == 0
    _user(
        sandbox,
        {
            "tools": {"approvalMode": "yolo"},
            "permissions": {
                "allow": [
                    "Shell(npm test)",  # the policy does not allow it: widens
                    "Shell(git status *)",  # the policy allows it
                    "Bash(curl:*)",  # the system deny wins
                    "Shell(git push *)",  # the system ask wins
                    "Read(//etc/hosts)",  # no shell rule
                    "Shell",  # every command
                ]
            },
        },
    )
    check = sandbox.run("check", "-v")
    lines = [line for line in check.stdout.splitlines() if "TWS636" in line or "TWS632" in line]
    shown = "\n".join(lines)
    assert "~/.qwen/settings.json:7:7: error[TWS636] the user's allow rule 'Shell(npm test)'" in (
        shown
    )
    assert "'Shell' lets every command run" in shown and "/permissions/allow/5," in shown
    assert 'error[TWS632] tools.approvalMode "yolo"' in shown
    assert "system settings do not bind" in shown
    assert len(lines) == 3, shown


def test_managed_check_without_a_user_file_is_quiet(sandbox: Sandbox) -> None:
    """Control: the same run without ~/.qwen/settings.json reports neither rule."""
    _setup(sandbox, MANAGED)
    assert sandbox.run("generate", "-w").returncode == 0
    check = sandbox.run("check", "-v")
    assert "TWS636" not in check.stdout and "TWS632" not in check.stdout
    assert check.returncode == 1  # TWS487, the agent's own error, as in user scope
    assert "error[TWS487]" in check.stdout


@pytest.mark.parametrize(
    ("rule", "command"),
    [
        ("Shell(npm test)", "npm test"),
        ("Shell(npm *)", "npm"),
        ("Bash(npm:*)", "npm"),
        ("run_shell_command(git status)", "git status"),
        ("Shell", ""),
        ("Shell(*)", ""),
        ("Shell(git st*)", "git st*"),
        ("Read(//etc)", None),
        ("WebFetch(domain:x.com)", None),
    ],
)
def test_shell_command_of_an_allow_rule(rule: str, command: str | None) -> None:
    assert shell_command(rule) == command


def _system(sandbox: Sandbox, settings: dict[str, Any]) -> None:
    """This machine's system settings, under the sandbox's $TWSRT_MANAGED_ROOT."""
    path = sandbox.home.parent / "host-root" / "etc" / "qwen-code" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")


USER_CONFIG = SOURCES + '\n[targets]\nqwen_settings = "home/.qwen/settings.json"\n'


@pytest.mark.parametrize(
    ("system", "expected"),
    [
        (
            {
                "tools": {"executionSandbox": {"filesystem": "workspace-write", "network": "open"}},
                "permissions": {"allow": ["Shell(npm test)", "Shell(git status *)"]},
            },
            [
                "the system settings' tools.executionSandbox opens the network",
                "the system settings' allow rule 'Shell(npm test)'",
            ],
        ),
        # control: the policy's own sandbox and no allow rule grant nothing more
        ({"tools": {"executionSandbox": {"filesystem": "read-only", "network": "closed"}}}, []),
    ],
    ids=["wider", "control"],
)
def test_a_user_check_reads_this_machines_system_settings(
    sandbox: Sandbox, system: dict[str, Any], expected: list[str]
) -> None:
    _setup(sandbox, USER_CONFIG)
    assert sandbox.run("generate", "qwen", "-w").returncode == 0
    _system(sandbox, system)
    check = sandbox.run("check", "--agent", "qwen", "-v")
    lines = [line for line in check.stdout.splitlines() if "TWS637" in line]
    assert len(lines) == len(expected), lines
    for line, text in zip(lines, expected, strict=True):
        assert "etc/qwen-code/settings.json:" in line and "error[TWS637]" in line
        assert text in line
