"""Findings: located values naming a catalog rule (``twsrt.rules``), and the error that carries
them out of a stage that cannot go on."""

from __future__ import annotations

import re
from dataclasses import field

from twsrt.escaping import one_line
from twsrt.locations import Location
from twsrt.records import record
from twsrt.rules import CATALOG, Level, Rule

# What a finding quotes of one user value (a path, a domain, a command, a key): enough to find
# it in the file, never the whole of a value that could be megabytes long.
QUOTE_LIMIT = 120
# The last line of defence: no message, whatever it quotes, is longer than this.
MESSAGE_LIMIT = 2000
# A ``Location`` quoted in a message (``path:line:col``, as ``str(Location)`` writes it): the
# part of a message that moves with the lines, left out of the fingerprint.
_QUOTED_POSITION = re.compile(r":[0-9]+:[0-9]+\b")


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` (as ``str`` shows it) as a finding or report quotes it: whole when it has at
    most ``limit`` characters, else its first ``limit`` characters, an ellipsis and its
    length. A control character, a newline too, is shown as an escape (``escaping.one_line``):
    the value is the checkout's, and no report line may start inside it."""

    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return one_line(text)
    return f"{one_line(text[:limit])}… ({len(text):,} characters)"


def capped_message(message: str) -> str:
    """``message`` cut at ``MESSAGE_LIMIT`` characters (saying so) when it is longer."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    cut = f"message cut at {MESSAGE_LIMIT:,} of {len(message):,} characters"
    return f"{message[:MESSAGE_LIMIT]}… ({cut})"


def capped_lines(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` (a diff, a snippet of a file) with every line longer than ``limit`` quoted."""
    if all(len(line) <= limit for line in text.split("\n")):
        return text
    return "\n".join(quoted(line, limit) for line in text.split("\n"))


@record
class Finding:
    rule_id: str
    message: str
    location: Location
    level: Level = Level.ERROR
    agent: str = ""
    related: tuple[Location, ...] = field(default=())
    diff: str = field(default="", compare=False)  # unified diff, for drift findings

    def __post_init__(self) -> None:
        # the last line of defence: a value quoted without `quoted` must not flood the reports
        if len(self.message) > MESSAGE_LIMIT:
            object.__setattr__(self, "message", capped_message(self.message))
        if self.diff:
            object.__setattr__(self, "diff", capped_lines(self.diff))

    @property
    def rule(self) -> Rule:
        return CATALOG[self.rule_id]

    @property
    def fingerprint(self) -> str:
        """Stable across runs and line moves: rule, file, pointer, agent and the message
        without the ``path:line:col`` it may quote (TWS204 names the deny it lies in by its
        place), so a line inserted above changes no fingerprint; the message stays in it to
        tell apart findings of one rule at one pointer."""
        import hashlib

        message = _QUOTED_POSITION.sub("", self.message)
        text = "\0".join(
            (self.rule_id, self.location.path, self.location.pointer, self.agent, message)
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def render(self) -> str:
        """``path:line:col: level[rule-id] message`` (plus the pointer and agent when known)."""
        return f"{self.location}: {self.level.value}[{self.rule_id}] {self.message}{self.tail()}"

    def tail(self) -> str:
        """`` (at POINTER, agent AGENT)`` as far as they are known, else empty."""
        extra = []
        if self.location.pointer:
            extra.append(f"at {quoted(self.location.pointer, MESSAGE_LIMIT)}")
        if self.agent:
            extra.append(f"agent {self.agent}")
        return f" ({', '.join(extra)})" if extra else ""


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
