"""Real Claude Code 2.1.332 on the project file twsrt writes (``.claude/settings.json``).

The project repository has its own twsrt.toml with a [project] table and a policy whose denies
are relative (``**/*.pem``, ``secrets``); `twsrt generate -w` (the installed command) writes the
project file. Then:

- `claude doctor`, started in the project with empty user settings, accepts the file; a broken
  project file is reported (so doctor does read the project's settings);
- Claude's Bash tool, started in the project root, is refused every action srt refuses on the
  same policy (reads, append, overwrite, renames of ``sub/dir/key.pem`` and friends), and still
  writes the project. The probes name their files through shell variables, so the permission
  rules' check of the command text cannot see the path: what refuses them is the sandbox, which
  anchors the relative denies at the project root;
- started in a subdirectory, Claude does not load the project file at all (observed: it reads
  ``.claude/settings.json`` of the directory it starts in), which TWS449 and docs/project.md say.

Five process starts: one srt, one twsrt, two doctor, two Claude.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import twsrt_command
from support.tools import locate_tool, require_tool

from .claude_client import find_claude, run_bash
from .claude_doctor import claude_accepts_settings

pytestmark = pytest.mark.real

SRT_BIN = "/opt/twsrt-tools/srt/bin/srt"
POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["**/*.pem", "secrets"],
        "denyWrite": ["**/*.pem"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}
CONFIG = """\
[sources]
srt = "policy/srt-settings.json"
bash_rules = "policy/bash-rules.json"

[project]
agents = ["claude"]
"""

# name -> shell text run from the project root ($P); paths through variables (see above)
PROBES = {
    "read-nested": 'k=key; cat "$P/sub/dir/$k.pem"',
    "read-top": 'k=top; cat "$P/$k.pem"',
    "read-secrets": 'd=secrets; cat "$P/$d/a.txt"',
    "append-nested": 'k=key; echo x >> "$P/sub/dir/$k.pem"',
    "overwrite-nested": 'k=key; echo x > "$P/sub/dir/$k.pem"',
    "rename-nested": 'k=key; mv "$P/sub/dir/$k.pem" "$P/sub/dir/$k.txt"',
    "rename-top": 'k=top; mv "$P/$k.pem" "$P/sub/$k.txt"',
}
ALLOWED = {"write-project": 'echo ok > "$P/free.txt"'}


def probe_script(project: Path) -> str:
    lines = [f"P='{project}'"]
    for name, command in {**PROBES, **ALLOWED}.items():
        verdict = f'then echo "{name}:ok"; else echo "{name}:denied"; fi'
        lines.append(f"if ( {command} ) >/dev/null 2>&1; {verdict}")
    return "\n".join(lines)


def make_project(root: Path) -> Path:
    """A git repository holding the policy, its twsrt.toml and the files the probes aim at."""
    project = root / "proj"
    (project / "sub" / "dir").mkdir(parents=True)
    (project / "secrets").mkdir()
    (project / "policy").mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "sub" / "dir" / "key.pem").write_text("NESTED KEY\n")
    (project / "top.pem").write_text("TOP KEY\n")
    (project / "secrets" / "a.txt").write_text("SECRET\n")
    (project / "policy" / "srt-settings.json").write_text(json.dumps(POLICY, indent=2) + "\n")
    (project / "policy" / "bash-rules.json").write_text('{"allow": [], "deny": [], "ask": []}\n')
    (project / "twsrt.toml").write_text(CONFIG)
    return project


def on_disk(project: Path) -> dict[str, bool]:
    """What the write probes changed (the ground truth beside the script's own report)."""
    return {
        "append/overwrite": (project / "sub/dir/key.pem").read_text() != "NESTED KEY\n",
        "rename-nested": (project / "sub/dir/key.txt").exists(),
        "rename-top": (project / "sub/top.txt").exists(),
    }


def verdicts(output: str | None) -> dict[str, str]:
    assert output is not None, "the probe script never ran"
    pairs = [line.split(":", 1) for line in output.splitlines() if ":" in line]
    return {name: verdict for name, verdict in pairs if verdict in ("ok", "denied")}


def generate(project: Path, home: Path) -> str:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "NO_COLOR": "1"}
    if "PYTHONPATH" in os.environ:  # a worktree run generates with the worktree's twsrt
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    proc = subprocess.run(
        [*twsrt_command(), "generate", "-w", "-v"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    project = make_project(home)
    stderr = generate(project, home)
    assert "twsrt: wrote .claude/settings.json" in stderr, stderr
    assert "TWS402" not in stderr and "TWS416" not in stderr  # no user-file anchoring notes
    return project


def test_doctor_accepts_the_project_file(project: Path) -> None:
    ok, output = claude_accepts_settings(
        find_claude(), project / ".claude" / "settings.json", project=True
    )
    assert ok, output
    broken = project.parent / "broken.json"
    broken.write_text('{"permissions": {"deny": "Read(/**/*.pem)"}}\n')
    ok, output = claude_accepts_settings(find_claude(), broken, project=True)
    assert not ok, output  # doctor reads the project's settings: a wrong shape is reported


def test_srt_refuses_every_probe(tmp_path: Path) -> None:
    """The reference: srt on the canonical policy, started in the project root."""
    srt = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_BIN))
    project = make_project(tmp_path)
    settings = tmp_path / "srt.json"
    settings.write_text(json.dumps(POLICY))
    proc = subprocess.run(
        [srt, "--settings", str(settings), "-c", probe_script(project)],
        cwd=project,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    got = verdicts(proc.stdout)
    assert {name: got.get(name) for name in PROBES} == dict.fromkeys(PROBES, "denied"), got
    assert got["write-project"] == "ok", got
    assert not any(on_disk(project).values()), on_disk(project)


def test_project_file_refuses_what_srt_refuses(project: Path) -> None:
    """Started in the project root with empty user settings: the project file alone keeps
    Bash from every project file srt keeps it from, nested and at the top."""
    home = project.parent
    run = run_bash(find_claude(), {}, [probe_script(project)], home=home, cwd=project)
    got = verdicts(run.outputs[0])
    assert {name: got.get(name) for name in PROBES} == dict.fromkeys(PROBES, "denied"), got
    assert got["write-project"] == "ok", got
    assert not any(on_disk(project).values()), on_disk(project)


def test_project_file_is_not_loaded_from_a_subdirectory(project: Path) -> None:
    """Observed: Claude reads .claude/settings.json of the directory it starts in, not of the
    git root above it. Started in sub/, nothing of the project file applies."""
    home = project.parent
    run = run_bash(find_claude(), {}, [probe_script(project)], home=home, cwd=project / "sub")
    got = verdicts(run.outputs[0])
    assert got["read-nested"] == "ok" and got["read-top"] == "ok", got
