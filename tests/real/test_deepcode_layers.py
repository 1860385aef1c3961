"""DeepCode between launches (issue 25, observation 5): its own Linux sandbox code and the real
bubblewrap (tests/real/deepcode_client.py) on the settings twsrt generates, against srt's
mandatory-deny set.

srt on the policy (the reference and the control: the protection exists) refuses a command
that creates ``.git/hooks/pre-commit``, ``.git/config`` content, ``.bashrc``,
``.vscode/tasks.json``, ``.mcp.json`` and ``.claude/commands/x.md`` in its working directory.
DeepCode's sandbox, started in the same directory, lets every one of them through to the host,
in the workspace and under an allowWrite root alike, and a planted ``sub/.claude/settings.json``
with it: TWS472, which ``generate`` and ``check`` report at error. Two sandbox starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.tools import locate_tool, require_tool

from .deepcode_client import deepcode_plan, run_sandboxed

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent.parent
SRT_BIN = "/opt/twsrt-tools/srt/bin/srt"
NAMES = (
    ".git/hooks/pre-commit",
    ".git/config",
    ".bashrc",
    ".vscode/tasks.json",
    ".mcp.json",
    ".claude/commands/x.md",
)


def layout(tmp: Path) -> tuple[Path, Path, Path, dict]:
    """HOME, the workspace ``work`` and the allowWrite root ``allowed`` (both git
    repositories), and the policy."""
    home, work, allowed = tmp / "home", tmp / "home" / "work", tmp / "allowed"
    for repo in (work, allowed):
        repo.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    policy = {
        "filesystem": {"allowWrite": [".", str(allowed)], "denyRead": ["~/.aws"]},
        "network": {"allowedDomains": []},
    }
    return home, work, allowed, policy


def attack(*roots: Path) -> str:
    lines = []
    for root in roots:
        for name in (*NAMES, "sub/.claude/settings.json"):
            path = root / name
            lines.append(f"mkdir -p '{path.parent}' 2>/dev/null; echo pwn >> '{path}' 2>/dev/null")
    return "\n".join(lines) + "\ntrue"


def written(root: Path, names: tuple[str, ...]) -> dict[str, bool]:
    return {n: (root / n).is_file() and "pwn" in (root / n).read_text() for n in names}


def test_srt_protects_the_set_in_its_working_directory(tmp_path: Path) -> None:
    srt = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_BIN))
    home, work, _allowed, policy = layout(tmp_path)
    settings = tmp_path / "srt.json"
    settings.write_text(json.dumps(policy))
    subprocess.run(
        [srt, "--settings", str(settings), "-c", attack(work)],
        cwd=work,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert written(work, NAMES) == dict.fromkeys(NAMES, False)


def test_deepcode_lets_a_command_write_it_and_twsrt_reports_it(tmp_path: Path) -> None:
    home, work, allowed, policy = layout(tmp_path)
    config = tmp_path / "dotfiles"
    config.mkdir()
    (config / "srt.json").write_text(json.dumps(policy))
    (config / "bash.json").write_text("{}")
    target = home / ".deepcode" / "settings.json"
    (config / "twsrt.toml").write_text(
        f"home = {json.dumps(str(home))}\n"
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        f"[targets]\ndeepcode_settings = {json.dumps(str(target))}\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "twsrt", "-c", str(config / "twsrt.toml"), "generate", "-w"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0 and "error[TWS472]" in proc.stderr, proc.stderr
    mode, args = deepcode_plan(json.loads(target.read_text()), work)
    assert mode == "workspace-write" and args, args
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    run_sandboxed(args, attack(work, allowed), work, env)
    everything = (*NAMES, "sub/.claude/settings.json")
    assert written(work, everything) == dict.fromkeys(everything, True)
    assert written(allowed, everything) == dict.fromkeys(everything, True)
