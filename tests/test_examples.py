"""The bundled examples: the dotfiles repo passes `twsrt check`; broken variants fail as pinned."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import twsrt_command

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


def check(directory: Path, *args: str) -> tuple[int, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    env["TWSRT_NO_CACHE"] = "1"
    proc = subprocess.run(
        [*twsrt_command(), "check", "--format", "json", *args],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def located(report: dict) -> list[tuple[str, str, int, int]]:
    return [
        (f["rule_id"], f["location"]["path"], f["location"]["line"], f["location"]["column"])
        for f in report["findings"]
        if f["level"] != "note"
    ]


def test_dotfiles_example_passes() -> None:
    code, report = check(EXAMPLES / "dotfiles")
    assert code == 0
    assert report["summary"]["error"] == 0


def test_broken_drift() -> None:
    code, report = check(EXAMPLES / "broken" / "drift")
    assert code == 1
    target = "examples/broken/drift/home/.claude/settings.full.json"
    assert ("TWS303", target, 35, 1) in located(report)
    drift = next(f for f in report["findings"] if f["rule_id"] == "TWS303")
    assert '-      "Bash(hand-added)",' in drift["diff"]


def test_broken_schema_error() -> None:
    code, report = check(EXAMPLES / "broken" / "schema-error")
    assert code == 1
    path = "examples/broken/schema-error/srt-settings.json"
    assert located(report) == [("TWS101", path, 3, 5), ("TWS102", path, 4, 19)]


@pytest.mark.parametrize(("args", "code"), [((), 0), (("--fail-on", "warning"), 1)])
def test_broken_lossy_policy(args: tuple[str, ...], code: int) -> None:
    got, report = check(EXAMPLES / "broken" / "lossy-policy", *args)
    assert got == code
    path = "examples/broken/lossy-policy/srt-settings.json"
    assert located(report) == [
        ("TWS204", path, 5, 20),
        ("TWS408", path, 5, 20),
        # allowLocalBinding (10:5) is a grant every target leaves out: a note (TWS414), hidden
        ("TWS410", path, 11, 26),
    ]
