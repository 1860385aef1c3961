"""Claude Code's translation tables and merge: a case holds the expected bytes of the full and
yolo targets (expected.full.json, expected.yolo.json) and the findings ``generate -w -v``
prints (stderr.full.txt)."""

from __future__ import annotations

import os
from pathlib import Path

from support.golden import GoldenCase
from support.sandbox import DEFAULT_CONFIG, Sandbox
from twsrt.config import SANDBOX_MODES

MODES = SANDBOX_MODES
TARGET = "home/.claude/settings.full.json"


def check(case: GoldenCase, sandbox_mode: str, sandbox: Sandbox, _tmp_path: Path) -> None:
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
