"""Golden files for the Claude Code translation tables and merge.

Each directory under tests/golden/claude holds the canonical sources (srt.json, bash.json), an
optional existing target (existing.json), optional config lines (config-extra.toml), and the
expected bytes of the full and yolo targets plus the findings printed on stderr.
Regenerate after an intended change with ``UPDATE_GOLDEN=1 pytest tests/test_golden_claude.py``
and review the diff.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from support.golden import assert_golden, golden_name
from support.sandbox import DEFAULT_CONFIG, Sandbox

from twsrt.config import SANDBOX_MODES

GOLDEN = Path(__file__).parent / "golden" / "claude"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def _setup(sandbox: Sandbox, case: Path) -> Path:
    shutil.copy(case / "srt.json", sandbox.repo / ".srt-settings.json")
    shutil.copy(case / "bash.json", sandbox.repo / "bash-rules.json")
    extra = case / "config-extra.toml"
    config = DEFAULT_CONFIG + (extra.read_text() if extra.exists() else "")
    sandbox.write("twsrt.toml", config)
    target = sandbox.repo / "home" / ".claude" / "settings.full.json"
    if (case / "existing.json").exists():
        target.parent.mkdir(parents=True)
        shutil.copy(case / "existing.json", target)
    return target


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_claude_golden(sandbox: Sandbox, name: str, sandbox_mode: str) -> None:
    case = GOLDEN / name
    target = _setup(sandbox, case)
    flag = ["--sandbox", sandbox_mode]
    full = sandbox.run("generate", "claude", "-w", "-v", *flag)
    assert full.returncode == 0, full.stderr
    assert_golden(
        case / golden_name(sandbox_mode, "expected.full.json"), target.read_text(encoding="utf-8")
    )
    assert_golden(case / golden_name(sandbox_mode, "stderr.full.txt"), full.stderr)

    yolo = sandbox.run("generate", "claude", "-w", "-v", "--yolo", *flag)
    assert yolo.returncode == 0, yolo.stderr
    yolo_target = target.with_name("settings.yolo.json")
    assert_golden(
        case / golden_name(sandbox_mode, "expected.yolo.json"),
        yolo_target.read_text(encoding="utf-8"),
    )
    link = target.with_name("settings.json")
    assert os.readlink(link) == "settings.yolo.json"

    assert sandbox.run("diff", "claude", *flag).returncode == 0
    assert sandbox.run("diff", "claude", "--yolo", *flag).returncode == 0


@pytest.mark.parametrize("name", CASES)
def test_claude_preview_matches_fragment(sandbox: Sandbox, name: str) -> None:
    """`generate claude` prints exactly the managed sections that --write merges in."""
    import json

    case = GOLDEN / name
    _setup(sandbox, case)
    preview = sandbox.run("generate", "claude")
    assert preview.returncode == 0, preview.stderr
    fragment = json.loads(preview.stdout)
    sandbox.run("generate", "claude", "-w")
    written = json.loads(
        (sandbox.repo / "home" / ".claude" / "settings.full.json").read_text(encoding="utf-8")
    )
    assert written["permissions"]["deny"] == fragment["permissions"]["deny"]
    assert written["permissions"]["ask"] == fragment["permissions"]["ask"]
    webfetch = [r for r in written["permissions"].get("allow", []) if r.startswith("WebFetch(")]
    assert webfetch == fragment["permissions"]["allow"]
