"""``[[check.ignore]]``: the config's suppressions, the entries that name no suppressible rule
(TWS008), and which findings an entry suppresses (by rule, path, pointer and agent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twsrt.findings import MESSAGE_LIMIT, Finding, finding, quoted
from twsrt.report import Suppression
from twsrt.rules import IGNORE_NOT_ALLOWED, lookup
from twsrt.wildcard import fnmatch

if TYPE_CHECKING:
    from twsrt.config import Config


def suppressions(config: Config) -> list[Suppression]:
    """The config's ``[[check.ignore]]`` entries, in config order."""
    out = []
    for index, entry in enumerate(config.check.get("ignore", [])):
        out.append(
            Suppression(
                rule=entry["rule"],
                reason=quoted(entry["reason"], MESSAGE_LIMIT),
                path=entry.get("path", ""),
                pointer=entry.get("pointer", ""),
                agent=entry.get("agent", ""),
                index=index,
            )
        )
    return out


def ignore_findings(config: Config) -> list[Finding]:
    """TWS008 for every ``[[check.ignore]]`` naming an unknown or unsuppressible rule."""
    out = []
    for index, entry in enumerate(config.check.get("ignore", [])):
        name = entry["rule"]
        rule = lookup(name)
        if rule is not None and rule.suppressible:
            continue
        why = (
            f"{rule.id} cannot be suppressed: fix the input it reports instead"
            if rule is not None
            else "no rule has this id or name (see `twsrt explain` and docs/rules.md)"
        )
        location = config.location(f"/check/ignore/{index}/rule")
        out.append(finding(IGNORE_NOT_ALLOWED, f"ignore entry '{quoted(name)}': {why}", location))
    return out


def unsuppressed(config: Config, findings: list[Finding]) -> tuple[list[Finding], int]:
    """The findings no ``[[check.ignore]]`` entry matches, and how many were suppressed: what
    generate and diff count and print, as check does."""
    ignores = by_rule(suppressions(config))
    active = [f for f in findings if first_match(ignores, f) is None]
    return active, len(findings) - len(active)


def by_rule(entries: list[Suppression]) -> dict[str, list[Suppression]]:
    """The ignore entries by the rule id or name they give, each list in config order: a
    finding is then matched against the entries of its own rule, not against all of them."""
    out: dict[str, list[Suppression]] = {}
    for entry in entries:
        out.setdefault(entry.rule, []).append(entry)
    return out


def first_match(ignores: dict[str, list[Suppression]], item: Finding) -> Suppression | None:
    """The first ignore entry (in config order) that suppresses ``item``, if any."""
    rule = item.rule
    if not rule.suppressible:
        return None
    first: Suppression | None = None
    for key in (item.rule_id, rule.name):
        for entry in ignores.get(key, ()):
            if first is not None and entry.index > first.index:
                break
            if matches(entry, item):
                first = entry
                break
    return first


def matches(rule: Suppression, item: Finding) -> bool:
    if not item.rule.suppressible:
        return False
    if rule.rule not in (item.rule_id, item.rule.name):
        return False
    if rule.path and not fnmatch(item.location.path, rule.path):
        return False
    if rule.pointer and not fnmatch(item.location.pointer, rule.pointer):
        return False
    return not (rule.agent and rule.agent != item.agent)
