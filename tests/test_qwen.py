"""The Qwen Code target on its own terms: the rule spellings Qwen 0.24.4 honours (Bash for deny
and ask, Shell for allow, ``//abs``/``~/p``/``/rel`` paths), the execution sandbox by sandbox
mode, the ``"$version"`` Qwen adds at start (a file Qwen rewrote is no drift), the user's bytes
kept by the merge, the yolo-only ask finding and the effective check of ``tools.approvalMode``.
Each behaviour has its control: the same run without what the rule is about."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.rule_cases import config
from support.sandbox import Sandbox

TARGET = "home/.qwen/settings.json"
SRT = {
    "filesystem": {
        "denyRead": ["/etc/shadow", "~/.ssh", "secrets"],
        "denyWrite": ["./build/out"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": []},
}
BASH = {"deny": ["rm -rf"], "ask": ["git push"], "allow": ["gh pr view"]}


def _setup(sandbox: Sandbox, srt: dict[str, Any] | None = None) -> None:
    sandbox.write("twsrt.toml", config(f'qwen_settings = "{TARGET}"\n'))
    sandbox.write(".srt-settings.json", srt if srt is not None else SRT)
    sandbox.write("bash-rules.json", BASH)


def _generate(sandbox: Sandbox, *args: str) -> dict[str, Any]:
    result = sandbox.run("generate", "qwen", "-w", *args)
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads((sandbox.repo / TARGET).read_text())
    return loaded


def test_the_rules_use_the_spellings_qwen_honours(sandbox: Sandbox) -> None:
    _setup(sandbox)
    document = _generate(sandbox)
    permissions = document["permissions"]
    assert permissions["ask"] == ["Bash(git push)", "Bash(git push *)"]
    # allow as Shell(...): only that name switches the shell on headless (observed row 11)
    assert permissions["allow"] == ["Shell(gh pr view)", "Shell(gh pr view *)"]
    deny = permissions["deny"]
    assert {"Bash(rm -rf)", "Bash(rm -rf *)"} <= set(deny)
    assert {"Read(//etc/shadow)", "Read(//etc/shadow/**)", "Edit(//etc/shadow/**)"} <= set(deny)
    assert {"Read(~/.ssh)", "Read(~/.ssh/**)"} <= set(deny)
    # a relative path is anchored at the directory Qwen starts in (row 6: /p is the project)
    assert {"Read(/secrets)", "Read(/secrets/**)", "Edit(/build/out/**)"} <= set(deny)
    assert "Read(/build/out)" not in deny  # denyWrite is no read deny
    assert document["$version"] == 4


@pytest.mark.parametrize(
    ("mode", "filesystem"),
    [("workspace-write", "workspace-write"), ("read-only", "read-only")],
)
def test_the_execution_sandbox_follows_the_mode(
    sandbox: Sandbox, mode: str, filesystem: str
) -> None:
    _setup(sandbox)
    document = _generate(sandbox, "--sandbox", mode)
    assert document["tools"]["executionSandbox"] == {
        "backend": "auto",
        "filesystem": filesystem,
        "network": "closed",
    }


def test_no_dot_in_allow_write_keeps_the_workspace_read_only(sandbox: Sandbox) -> None:
    """Qwen can make only the workspace writable: without "." the policy grants it nothing
    there, so the sandbox is read-only and the other roots are findings (TWS408)."""
    _setup(sandbox, {"filesystem": {"allowWrite": ["/srv/data"]}})
    result = sandbox.run("generate", "qwen", "-w", "-v")
    assert result.returncode == 0, result.stderr
    document = json.loads((sandbox.repo / TARGET).read_text())
    assert document["tools"]["executionSandbox"]["filesystem"] == "read-only"
    assert "TWS408" in result.stderr and "TWS487" not in result.stderr


def test_danger_full_access_removes_the_sandbox_and_keeps_the_denies(sandbox: Sandbox) -> None:
    _setup(sandbox)
    _generate(sandbox)
    document = _generate(sandbox, "--sandbox", "danger-full-access")
    assert "executionSandbox" not in document["tools"]
    assert "Bash(rm -rf)" in document["permissions"]["deny"]


def test_a_file_qwen_rewrote_is_no_drift(sandbox: Sandbox) -> None:
    """Qwen rewrites a file without "$version" at start (2-space JSON, row 12): the generated
    file carries it, so that rewrite changes no managed member. The control: a file without
    the key, as Qwen would have found one, is drift."""
    _setup(sandbox)
    document = _generate(sandbox)
    path = sandbox.repo / TARGET
    path.write_text(json.dumps(document, indent=2) + "\n")  # what Qwen writes back
    assert sandbox.run("diff", "qwen").returncode == 0
    del document["$version"]
    path.write_text(json.dumps(document, indent=2) + "\n")
    drift = sandbox.run("diff", "qwen")
    assert drift.returncode == 1
    assert "$version" in drift.stdout


def test_the_merge_keeps_every_user_byte(sandbox: Sandbox) -> None:
    _setup(sandbox)
    user = (
        '{\n  "$schema":   "https://example.invalid/qwen.json",\n  "general": {"vimMode": true},\n'
        '  "permissions": {"defaultMode": "default", "deny": ["Bash(old)"]},\n'
        '  "tools": {"shell": {"enableInteractiveShell": false}},\n'
        '  "mcpServers": {"docs": {"command": "docs-server"}}\n}\n'
    )
    sandbox.write(TARGET, user)
    result = sandbox.run("generate", "qwen", "-w")
    assert result.returncode == 0, result.stderr
    text = (sandbox.repo / TARGET).read_text()
    assert '"$schema":   "https://example.invalid/qwen.json"' in text
    assert '"general": {"vimMode": true}' in text
    assert '"mcpServers": {"docs": {"command": "docs-server"}}' in text
    assert '"defaultMode": "default"' in text and "Bash(old)" not in text
    # the objects twsrt owns members of are rendered anew, their other keys kept
    assert json.loads(text)["tools"]["shell"] == {"enableInteractiveShell": False}
    again = sandbox.run("generate", "qwen", "-w")
    assert again.returncode == 0 and (sandbox.repo / TARGET).read_text() == text


def test_only_yolo_reports_the_approved_asks(sandbox: Sandbox) -> None:
    _setup(sandbox)
    yolo = sandbox.run("generate", "qwen", "--yolo", "-v")
    full = sandbox.run("generate", "qwen", "-v")
    assert "note[TWS485]" in yolo.stderr  # what yolo means for every agent: not a widening
    assert "TWS485" not in full.stderr
    assert yolo.stdout == full.stdout  # one file for both approval modes
    # the preview is the managed members as the written file holds them
    written = _generate(sandbox)
    assert json.loads(full.stdout) == {key: written[key] for key in json.loads(full.stdout)}


def test_check_reports_a_user_approval_mode_of_yolo(sandbox: Sandbox) -> None:
    _setup(sandbox)
    sandbox.accept_planted_layers()
    _generate(sandbox)
    clean = sandbox.run("check", "--agent", "qwen")
    assert "TWS632" not in clean.stdout + clean.stderr  # the control
    path = sandbox.repo / TARGET
    document = json.loads(path.read_text())
    document["tools"]["approvalMode"] = "yolo"
    path.write_text(json.dumps(document, indent=2) + "\n")
    widened = sandbox.run("check", "--agent", "qwen")
    assert widened.returncode == 1
    assert "error[TWS632]" in widened.stdout + widened.stderr
    document["tools"]["approvalMode"] = "default"
    path.write_text(json.dumps(document, indent=2) + "\n")
    default = sandbox.run("check", "--agent", "qwen")
    assert "TWS632" not in default.stdout + default.stderr
