"""Real Claude Code 2.1.332: a user's ``permissions.allow`` entry cannot undo twsrt's deny or ask.

The effective-configuration check reports such an entry as a note (TWS609, user-allow-shadowed)
rather than an error, because Claude applies deny before ask before allow. That claim is only
worth its level if the real agent behaves so; this test drives Claude's Bash tool through the
fake Messages API (tests/real/claude_client.py) with the same command denied, asked and only
allowed. The allow-only run is the control: it shows the command does run when nothing stops it,
so the two refusals are the rules' doing. Three Claude starts, about a second each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .claude_client import find_claude, run_bash

pytestmark = pytest.mark.real

COMMAND = "echo precedence-probe $((40 + 2))"  # the output (42) is not in the command text
RULES = ["Bash(echo precedence-probe)", "Bash(echo precedence-probe *)"]  # as twsrt writes them
USER_ALLOW = ["Bash(echo precedence-probe *)"]


def _run(tmp_path: Path, permissions: dict[str, list[str]]) -> str | None:
    home, cwd = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    cwd.mkdir()
    settings = {"permissions": permissions, "sandbox": {"enabled": True}}
    return run_bash(find_claude(), settings, [COMMAND], home, cwd).outputs[0]


def test_allow_alone_runs_the_command(tmp_path: Path) -> None:
    assert _run(tmp_path, {"allow": USER_ALLOW}) == "precedence-probe 42"


@pytest.mark.parametrize("tier", ["deny", "ask"])
def test_user_allow_does_not_beat_the_policy(tmp_path: Path, tier: str) -> None:
    output = _run(tmp_path, {tier: RULES, "allow": USER_ALLOW})
    assert output is not None, "Claude never ran the Bash tool"
    assert "precedence-probe 42" not in output, output
    # headless, an ask is a refusal: nobody is there to grant it
    expected = "has been denied" if tier == "deny" else "haven't granted it yet"
    assert expected in output, output
