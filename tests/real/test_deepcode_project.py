"""DeepCode's own Linux sandbox code on the project file twsrt writes (.deepcode/settings.json).

DeepCode reads ``<cwd>/.deepcode/settings.json`` after the user's file; its lists replace the
user's and, in a directory it does not trust, the layer's ``sandbox`` is reset to the user's
(agents-formats §5.1; TWS447). The harness (deepcode_client.py) runs the product's mode
resolution and bubblewrap arguments on a ``sandbox`` object it is handed, not the settings
loader, so this test hands in the project file's own object, as DeepCode ends up with it in a
trusted project whose user file holds the same policy:

- twsrt writes the same managed content into the project file as into the user file of the same
  policy (the whole policy: a list of the project layer replaces the user's, so a difference
  would be a loss);
- started in the project, DeepCode's sandbox resolves to the mode asked for, writes the project
  and cannot write $HOME nor read ~/.aws (not mounted).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .deepcode_client import bwrap_bin, deepcode_plan, node_bin, run_sandboxed

pytestmark = pytest.mark.real

SECRET = "twsrt-secret"


def _policy(home: Path) -> dict[str, Any]:
    return {"filesystem": {"allowWrite": ["."], "denyRead": ["~/.aws"]}, "network": {}}


def _twsrt(cwd: Path, home: Path, *args: str) -> str:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    if "PYTHONPATH" in os.environ:  # a worktree run generates with the worktree's twsrt
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    proc = subprocess.run(
        [sys.executable, "-m", "twsrt", *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def _layout(tmp: Path) -> tuple[Path, Path]:
    """$HOME with ~/.aws/credentials, and a project repository inside it with its config."""
    home = tmp / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(f"{SECRET}\n")
    project = home / "proj"
    (project / "policy").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "policy" / "srt.json").write_text(json.dumps(_policy(home)))
    (project / "policy" / "bash.json").write_text('{"deny": ["sudo"], "ask": ["git push"]}')
    head = f'home = {json.dumps(str(home))}\n[sources]\nsrt = "policy/srt.json"\n'
    head += 'bash_rules = "policy/bash.json"\n'
    (project / "twsrt.toml").write_text(head + '[project]\nagents = ["deepcode"]\n')
    (project / "user.toml").write_text(
        head + '[targets]\ndeepcode_settings = "user/.deepcode/settings.json"\n'
    )
    return home, project


def test_project_file_carries_the_user_files_policy(tmp_path: Path) -> None:
    home, project = _layout(tmp_path)
    stderr = _twsrt(project, home, "generate", "-w", "-v")
    assert "TWS447" in stderr, stderr
    _twsrt(project, home, "-c", "user.toml", "generate", "deepcode", "-w")
    mine = json.loads((project / ".deepcode" / "settings.json").read_text())
    user = json.loads((project / "user" / ".deepcode" / "settings.json").read_text())
    assert mine == user
    assert mine["sandbox"]["filesystem"]["denyRead"] == [f"{home}/.aws"]


def test_deepcode_sandbox_from_the_project_file(tmp_path: Path) -> None:
    node, bwrap = node_bin(), bwrap_bin()
    home, project = _layout(tmp_path)
    _twsrt(project, home, "generate", "-w")
    settings = json.loads((project / ".deepcode" / "settings.json").read_text())
    mode, args = deepcode_plan(settings, project, node=node)
    assert mode == "workspace-write" and args
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
    rc, out = run_sandboxed(args, "echo ok > made.txt", project, env, bwrap=bwrap)
    assert rc == 0 and (project / "made.txt").read_text() == "ok\n", out
    secret = shlex.quote(str(home / ".aws" / "credentials"))
    rc, out = run_sandboxed(args, f"cat {secret}", project, env, bwrap=bwrap)
    assert rc != 0 and SECRET not in out, out
    outside = shlex.quote(str(home / "made.txt"))
    rc, out = run_sandboxed(args, f"echo no > {outside}", project, env, bwrap=bwrap)
    assert not (home / "made.txt").exists(), out
    # control: without the sandbox both go through
    assert run_sandboxed([], f"cat {secret}", project, env)[0] == 0
