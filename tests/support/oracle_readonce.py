"""The implementations issue 17 replaced in the readonce engineer's modules, kept as test
oracles: the new code must answer exactly as these did (``tests/test_read_once_oracles.py``)."""

from __future__ import annotations

import difflib

from twsrt.agents.base import Drift
from twsrt.config import Config
from twsrt.diffs import View


def foreign_home(drift: Drift, config: Config) -> str | None:
    """``drift.foreign_home`` before issue 17: every missing entry against every extra entry."""
    here = config.output_home.rstrip("/")
    if config.pinned_home is not None or not here or not drift.missing or not drift.extra:
        return None
    theirs = sorted((item.key, item.value) for item in drift.extra)
    candidates: dict[str, None] = {}
    for ours in drift.missing:
        for extra in drift.extra:
            for mine, other in ((ours.key, extra.key), (ours.value, extra.value)):
                at = mine.find(here)
                if at < 0:
                    continue
                head, tail = mine[:at], mine[at + len(here) :]
                fits = len(other) > len(head) + len(tail)
                if fits and other.startswith(head) and other.endswith(tail):
                    candidates.setdefault(other[len(head) : len(other) - len(tail)], None)
    for home in candidates:
        if not home.startswith("/") or home == here:
            continue
        moved = sorted(
            (item.key.replace(here, home), item.value.replace(here, home)) for item in drift.missing
        )
        if moved == theirs:
            return home
    return None


def render_diff(display: str, old: str | None, new: str, view: View) -> str:
    """``diffs.render_diff`` before issue 17: difflib's matcher at every size."""
    before = [] if old is None else view(old).splitlines(keepends=True)
    after = view(new).splitlines(keepends=True)
    lines = difflib.unified_diff(
        before,
        after,
        fromfile=f"a/{display}" if old is not None else "/dev/null",
        tofile=f"b/{display}",
    )
    out = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if not out and old != new:
        return f"(only content twsrt does not manage changes in {display})\n"
    return out


def first_difference(old: str, new: str) -> int:
    """``drift.first_difference`` before issue 17: difflib's matcher at every size."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, _i2, _j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return min(i1 + 1, max(len(old_lines), 1))
    return 1
