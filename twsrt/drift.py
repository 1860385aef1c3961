"""Drift as findings and as ``diff``'s report: what a target on disk lacks or adds beside the
policy, the first line it differs at, the policy rule behind it, and the one drift no
regeneration fixes (a home directory another machine expanded ``~`` with, TWS012)."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING

from twsrt.diffs import line_opcodes, render_diff
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.redact import redact_item, redact_key
from twsrt.rules import (
    DRIFT_CHANGED,
    DRIFT_OUT_OF_BAND,
    DRIFT_UNAPPLIED,
    DRIFT_UNPINNED_HOME,
    TARGET_MISSING,
)

if TYPE_CHECKING:
    from twsrt.agents.base import Drift, DriftItem, Result
    from twsrt.config import Config


def first_difference(old: str, new: str) -> int:
    """1-based line in ``old`` where it first differs from ``new``."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    for tag, i1, _i2, _j1, _j2 in line_opcodes(old_lines, new_lines, autojunk=False):
        if tag != "equal":
            return min(i1 + 1, max(len(old_lines), 1))
    return 1


def quote_item(item: DriftItem) -> str:
    """A managed entry as reports quote it: key and value, credentials redacted."""
    return f"{quoted(redact_key(item.key))} {quoted(redact_item(item.key, item.value))}"


def _origin(result: Result, drift: Drift) -> tuple[Location, ...]:
    for item in [*drift.missing, *drift.extra]:
        candidates = [item.key.rsplit(".", 1)[-1], item.value]
        try:  # a Codex rule pattern such as ["git", "push"] names the bash command
            tokens = json.loads(item.key.removeprefix("rules."))
            if isinstance(tokens, list):
                candidates.append(" ".join(str(t) for t in tokens))
        except ValueError:
            pass
        try:
            decoded = json.loads(item.value)
            if isinstance(decoded, str):
                candidates.append(decoded)
        except ValueError:
            pass
        for candidate in candidates:
            if candidate in result.origins:
                return (result.origins[candidate],)
    return ()


def drift_findings(
    drift: Drift, result: Result, config: Config, fix: str = "twsrt generate -w"
) -> list[Finding]:
    """``fix``: the command that rewrites the target (``fix_command``)."""
    agent = result.agent
    key = drift.target_key
    if drift.missing_file:
        location = (
            config.location(f"/targets/{key}") if key in config.targets else Location(drift.display)
        )
        return [
            finding(
                TARGET_MISSING,
                f"{drift.display} does not exist; run `{fix}` to create it",
                location,
                agent=agent,
            )
        ]
    if not drift.drifted or drift.old_text is None:
        return []
    line = first_difference(drift.old_text, drift.new_text)
    location = Location(drift.display, line, 1)
    home = foreign_home(drift, config)
    if home is not None:  # regenerating would only trade one machine's paths for another's
        message = f"{drift.display} differs from the policy: {unpinned_home_advice(home, config)}"
        return [
            finding(
                DRIFT_UNPINNED_HOME,
                message,
                location,
                agent=agent,
                related=(Location(config.display),),
                diff=render_diff(drift.display, drift.old_text, drift.new_text, drift.view),
            )
        ]
    missing, extra = len(drift.missing), len(drift.extra)
    if missing:
        rule = DRIFT_UNAPPLIED
        detail = f"{missing} managed entr{'y is' if missing == 1 else 'ies are'} missing"
        detail += f" (first: {quote_item(drift.missing[0])})"
        if extra:
            detail += f" and {extra} extra"
    elif extra:
        rule = DRIFT_OUT_OF_BAND
        detail = f"{extra} managed entr{'y was' if extra == 1 else 'ies were'} added by hand"
        detail += f" (first: {quote_item(drift.extra[0])})"
    else:
        rule = DRIFT_CHANGED
        detail = "managed entries are in a different order"
    return [
        finding(
            rule,
            f"{drift.display} differs from the policy: {detail}. Run `{fix}`.",
            location,
            agent=agent,
            related=_origin(result, drift),
            diff=render_diff(drift.display, drift.old_text, drift.new_text, drift.view),
        )
    ]


def foreign_home(drift: Drift, config: Config) -> str | None:
    """The home directory another machine expanded ``~`` with, when no home is pinned and that
    alone explains the drift: every managed entry on disk is this machine's with that home in
    place of ours. ``generate -w`` here would only swap one machine's paths for another's."""
    here = config.output_home.rstrip("/")
    if config.pinned_home is not None or not here or not drift.missing or not drift.extra:
        return None
    if len(drift.missing) != len(drift.extra):
        return None  # a home swap maps each missing entry onto one extra entry
    # Only one home can explain the drift (a missing entry holds ours, and each home moves it
    # elsewhere), and it turns any entry that names ours once into an extra entry: read the
    # candidates off one such entry, against every extra entry (linear, not missing x extra).
    anchor = next(
        (
            (field, mine)
            for ours in drift.missing
            for field, mine in enumerate((ours.key, ours.value))
            if mine.count(here) == 1
        ),
        None,
    )
    if anchor is None:
        return None
    field, mine = anchor
    at = mine.find(here)
    head, tail = mine[:at], mine[at + len(here) :]
    theirs = Counter((item.key, item.value) for item in drift.extra)
    candidates: dict[str, None] = {}
    for extra in drift.extra:
        other = (extra.key, extra.value)[field]
        if len(other) > len(head) + len(tail) and other.startswith(head) and other.endswith(tail):
            candidates.setdefault(other[len(head) : len(other) - len(tail)], None)
    for home in candidates:
        if home.startswith("/") and home != here and _moves_onto(drift, here, home, theirs):
            return home
    return None


def _moves_onto(drift: Drift, here: str, home: str, theirs: Counter[tuple[str, str]]) -> bool:
    """Is every missing entry, with ``home`` for ``here``, an extra entry (as many times)?
    Stops at the first one that is not."""
    left = theirs.copy()
    for item in drift.missing:
        moved = (item.key.replace(here, home), item.value.replace(here, home))
        if left[moved] <= 0:
            return False
        left[moved] -= 1
    return True


def unpinned_home_advice(home: str, config: Config) -> str:
    return (
        f"generated with the home directory {home}, not this machine's {config.output_home}; "
        f'pin it with home = "{home}" at the top of {config.display} (then every machine '
        "generates the same bytes) instead of regenerating here"
    )


def drift_report(drift: Drift, config: Config, fix: str = "twsrt generate -w") -> str:
    if drift.missing_file:
        return f"{drift.display}: missing (run `{fix}` to create it)\n"
    if not drift.drifted:
        return f"{drift.display}: no drift\n"
    home = foreign_home(drift, config)
    if home is not None:
        return f"{drift.display}: drift detected: {unpinned_home_advice(home, config)}\n"
    lines = [f"{drift.display}: drift detected\n"]
    from twsrt.escaping import one_line  # a key of the checkout: one line, whatever it holds

    if drift.missing:
        lines.append("  missing (in the policy, not on disk):\n")
        lines += [
            f"    + {one_line(redact_key(item.key))}: {redact_item(item.key, item.value)}\n"
            for item in drift.missing
        ]
    if drift.extra:
        lines.append("  extra (on disk, not in the policy):\n")
        lines += [
            f"    - {one_line(redact_key(item.key))}: {redact_item(item.key, item.value)}\n"
            for item in drift.extra
        ]
    if drift.reordered:
        lines.append("  managed entries are in a different order\n")
    return "".join(lines)
