"""Real Claude Code 2.1.332: the yolo file closes the sandbox's escape hatch.

Claude's Bash tool takes ``dangerouslyDisableSandbox``: the model asks to run a command outside
the sandbox, and unless ``sandbox.allowUnsandboxedCommands`` is false Claude does so once the
request is approved. In full mode the user is asked (headless, nobody answers, so the command
never runs). A yolo file is used with bypassPermissions, where nobody is asked: there the escape
reads a denyRead file that the sandbox itself refuses. twsrt therefore writes
``allowUnsandboxedCommands: false`` into every yolo file whose sandbox is on.

The fake model (tests/real/claude_client.py) asks for the escape on every call. Four Claude
starts, about a second each.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import twsrt_command

from .claude_client import find_claude, run_bash

pytestmark = pytest.mark.real

POLICY = {
    "filesystem": {"denyRead": ["~/secret.txt"], "allowWrite": ["."]},
    "network": {"allowedDomains": []},
}
ESCAPE = {"dangerouslyDisableSandbox": True}
# Spelled so that Claude's Read(~/secret.txt) permission rule does not recognise the path: the
# test is about the sandbox layer, which is what a command the rules cannot parse meets.
READ_SECRET = 'python3 -c \'import os; print(open(os.environ["HOME"] + "/secret.txt").read())\''
BYPASS = {"defaultMode": "bypassPermissions"}
# Claude refuses bypassPermissions as root unless it is told it runs in a sandbox already.
ROOT_OK = {"IS_SANDBOX": "1"}


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The full and yolo files `twsrt generate claude -w [--yolo]` writes for POLICY."""
    repo = tmp_path_factory.mktemp("repo")
    (repo / ".srt-settings.json").write_text(json.dumps(POLICY))
    (repo / "bash-rules.json").write_text('{"allow": [], "deny": [], "ask": []}\n')
    (repo / "twsrt.toml").write_text(
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\nclaude_settings = "out/settings.full.json"\n'
    )
    for extra in ([], ["--yolo"]):
        proc = subprocess.run(
            [*twsrt_command(), "generate", "claude", "-w", *extra],
            cwd=repo,
            env={"PATH": "/usr/bin:/bin", "HOME": str(repo), "NO_COLOR": "1"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
    out = repo / "out"
    return {
        mode: json.loads((out / f"settings.{mode}.json").read_text()) for mode in ("full", "yolo")
    }


def _escape(tmp_path: Path, settings: dict[str, Any]) -> str | None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    cwd.mkdir()
    (home / "secret.txt").write_text("TOPSECRET\n")
    run = run_bash(find_claude(), settings, [READ_SECRET], home, cwd, ROOT_OK, tool_input=ESCAPE)
    return run.outputs[0]


def test_without_the_key_bypass_mode_escapes_the_sandbox(
    tmp_path: Path, generated: dict[str, dict[str, Any]]
) -> None:
    """The control, and the widening: the yolo file minus the key (what twsrt wrote before)."""
    settings = json.loads(json.dumps(generated["yolo"]))
    del settings["sandbox"]["allowUnsandboxedCommands"]
    settings["permissions"].update(BYPASS)
    assert _escape(tmp_path, settings) == "TOPSECRET"


def test_generated_yolo_file_keeps_the_command_sandboxed(
    tmp_path: Path, generated: dict[str, dict[str, Any]]
) -> None:
    assert generated["yolo"]["sandbox"]["allowUnsandboxedCommands"] is False
    settings = json.loads(json.dumps(generated["yolo"]))
    settings["permissions"].update(BYPASS)
    output = _escape(tmp_path, settings)
    assert output is not None and "TOPSECRET" not in output, output
    assert "PermissionError" in output, output


def test_full_file_asks_before_leaving_the_sandbox(
    tmp_path: Path, generated: dict[str, dict[str, Any]]
) -> None:
    """Full mode keeps Claude's default: the escape waits for the user, who is not there."""
    assert "allowUnsandboxedCommands" not in generated["full"]["sandbox"]
    output = _escape(tmp_path, generated["full"])
    assert output is not None and "TOPSECRET" not in output, output
    assert "Run outside of the sandbox" in output, output
