"""The implementations issue 17 replaced in the readonce engineer's modules, kept as test
oracles: the new code must answer exactly as these did (``tests/test_read_once_oracles.py``)."""

from __future__ import annotations

from twsrt.agents.base import Drift
from twsrt.config import Config


def foreign_home(drift: Drift, config: Config) -> str | None:
    """``run.foreign_home`` before issue 17: every missing entry against every extra entry."""
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
