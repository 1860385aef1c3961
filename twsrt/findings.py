"""Findings: located values naming a catalog rule (``twsrt.rules``), and the error that carries
them out of a stage that cannot go on."""

from __future__ import annotations

from dataclasses import dataclass, field

from twsrt.locations import Location
from twsrt.rules import CATALOG, Level, Rule


@dataclass(frozen=True)
class Finding:
    rule_id: str
    message: str
    location: Location
    level: Level = Level.ERROR
    agent: str = ""
    related: tuple[Location, ...] = field(default=())
    diff: str = field(default="", compare=False)  # unified diff, for drift findings

    @property
    def rule(self) -> Rule:
        return CATALOG[self.rule_id]

    @property
    def fingerprint(self) -> str:
        """Stable across runs and line moves: rule, file, pointer, agent and message."""
        import hashlib

        text = "\0".join(
            (self.rule_id, self.location.path, self.location.pointer, self.agent, self.message)
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def render(self) -> str:
        """``path:line:col: level[rule-id] message`` (plus the pointer and agent when known)."""
        where = str(self.location)
        extra = []
        if self.location.pointer:
            extra.append(f"at {self.location.pointer}")
        if self.agent:
            extra.append(f"agent {self.agent}")
        tail = f" ({', '.join(extra)})" if extra else ""
        return f"{where}: {self.level.value}[{self.rule_id}] {self.message}{tail}"


LEVEL_ORDER = {Level.NOTE: 0, Level.WARNING: 1, Level.ERROR: 2}


def finding(
    rule: Rule,
    message: str,
    location: Location,
    *,
    agent: str = "",
    related: tuple[Location, ...] = (),
    diff: str = "",
) -> Finding:
    """A finding of ``rule`` (a ``twsrt.rules`` constant) at its default level."""
    return Finding(rule.id, message, location, rule.level, agent, related, diff)


class TwsrtError(Exception):
    """Bad input or environment: reported as findings, exit 2, nothing written."""

    def __init__(self, findings: list[Finding] | Finding) -> None:
        self.findings = findings if isinstance(findings, list) else [findings]
        super().__init__("\n".join(f.render() for f in self.findings))


def fail(rule: Rule, message: str, location: Location) -> TwsrtError:
    """The error that stops a stage with one finding of ``rule``."""
    return TwsrtError(finding(rule, message, location))
