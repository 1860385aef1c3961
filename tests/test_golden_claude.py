"""Golden files for the Claude Code translation tables and merge.

The case layout and ``UPDATE_GOLDEN=1`` are those of every agent (``support/golden.py``). A case
holds the expected bytes of the full and yolo targets (expected.full.json, expected.yolo.json)
and the findings ``generate -w -v`` prints (stderr.full.txt).
"""

from __future__ import annotations

import json
import os

import pytest
from support.golden import GoldenCase, case_names
from support.sandbox import DEFAULT_CONFIG, Sandbox

from twsrt.config import SANDBOX_MODES

CASES = case_names("claude")
TARGET = "home/.claude/settings.full.json"


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_claude_golden(sandbox: Sandbox, name: str, sandbox_mode: str) -> None:
    case = GoldenCase("claude", name)
    target = case.install(sandbox, DEFAULT_CONFIG, TARGET)
    flag = ["--sandbox", sandbox_mode]
    full = sandbox.run("generate", "claude", "-w", "-v", *flag)
    assert full.returncode == 0, full.stderr
    case.expect(sandbox, sandbox_mode, "expected.full.json", target.read_text(encoding="utf-8"))
    case.expect(sandbox, sandbox_mode, "stderr.full.txt", full.stderr)

    yolo = sandbox.run("generate", "claude", "-w", "-v", "--yolo", *flag)
    assert yolo.returncode == 0, yolo.stderr
    yolo_target = target.with_name("settings.yolo.json")
    case.expect(
        sandbox, sandbox_mode, "expected.yolo.json", yolo_target.read_text(encoding="utf-8")
    )
    link = target.with_name("settings.json")
    assert os.readlink(link) == "settings.yolo.json"

    assert sandbox.run("diff", "claude", *flag).returncode == 0
    assert sandbox.run("diff", "claude", "--yolo", *flag).returncode == 0


@pytest.mark.parametrize("name", CASES)
def test_claude_preview_matches_fragment(sandbox: Sandbox, name: str) -> None:
    """`generate claude` prints exactly the managed sections that --write merges in."""
    GoldenCase("claude", name).install(sandbox, DEFAULT_CONFIG, TARGET)
    preview = sandbox.run("generate", "claude")
    assert preview.returncode == 0, preview.stderr
    fragment = json.loads(preview.stdout)
    sandbox.run("generate", "claude", "-w")
    written = json.loads((sandbox.repo / TARGET).read_text(encoding="utf-8"))
    assert written["permissions"]["deny"] == fragment["permissions"]["deny"]
    assert written["permissions"]["ask"] == fragment["permissions"]["ask"]
    webfetch = [r for r in written["permissions"].get("allow", []) if r.startswith("WebFetch(")]
    assert webfetch == fragment["permissions"]["allow"]
