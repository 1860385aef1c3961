"""Findings and the rule catalog: one place defines every rule id twsrt can report."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from twsrt.locations import Location


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    level: Level
    short: str


_RULES = [
    # Loading and parsing (TWS0xx)
    Rule(
        "TWS001", "config-invalid", Level.ERROR, "The twsrt config file cannot be read or parsed."
    ),
    Rule("TWS002", "source-missing", Level.ERROR, "A canonical source file does not exist."),
    Rule("TWS003", "source-unparsable", Level.ERROR, "A canonical source file is not valid JSON."),
    Rule(
        "TWS004", "target-unusable", Level.ERROR, "A target file cannot be read, parsed or written."
    ),
    # Schema (TWS1xx)
    Rule("TWS101", "schema-unknown-key", Level.ERROR, "A key the schema does not know."),
    Rule("TWS102", "schema-violation", Level.ERROR, "A value does not match the schema."),
    Rule("TWS103", "duplicate-json-key", Level.ERROR, "An object names the same key twice."),
    # Translation (TWS4xx): lossy or refused mappings, located at the source rule
    Rule(
        "TWS401",
        "lossy-relative-write-root",
        Level.WARNING,
        "A relative allowWrite path is not passed to an agent that would anchor it elsewhere.",
    ),
    Rule(
        "TWS402",
        "lossy-relative-sandbox-path",
        Level.NOTE,
        "A relative deny path anchors at the agent's settings directory in its sandbox.",
    ),
    Rule(
        "TWS403",
        "lossy-port-domain",
        Level.NOTE,
        "A domain with a :port cannot be expressed as a per-port agent rule.",
    ),
    Rule(
        "TWS404",
        "lossy-literal-glob",
        Level.WARNING,
        "A literal path containing glob characters cannot be expressed exactly.",
    ),
    Rule(
        "TWS405",
        "lossy-unsupported-key",
        Level.WARNING,
        "An SRT setting that this agent cannot take is not compiled.",
    ),
    Rule(
        "TWS407",
        "lossy-stricter-glob",
        Level.WARNING,
        "A deny glob is enforced more strictly than asked because the agent cannot express it.",
    ),
    Rule(
        "TWS408",
        "lossy-write-root",
        Level.WARNING,
        "A write root cannot be granted as asked and is skipped.",
    ),
    Rule(
        "TWS409",
        "lossy-bash-rule",
        Level.WARNING,
        "A bash allow or ask rule is not compiled for an agent where it would not help.",
    ),
    Rule(
        "TWS410",
        "lossy-unix-socket",
        Level.WARNING,
        "A Unix socket entry is not an exact socket path and is skipped.",
    ),
    Rule(
        "TWS411",
        "unexpressible-path",
        Level.ERROR,
        "A deny path cannot be written in the agent's format without dropping it.",
    ),
    Rule(
        "TWS412",
        "lossy-glob-snapshot",
        Level.NOTE,
        "The agent expands a deny glob once at start; files created later are not covered.",
    ),
    Rule(
        "TWS201",
        "disabled-sandbox",
        Level.ERROR,
        "The canonical sandbox is disabled; an agent that needs it refuses to generate.",
    ),
    Rule(
        "TWS202",
        "codex-legacy-sandbox",
        Level.ERROR,
        "A legacy Codex sandbox setting would silently deactivate the twsrt profile.",
    ),
    Rule(
        "TWS406",
        "unexpressible-command",
        Level.ERROR,
        "A bash rule cannot be written in the agent's rule syntax.",
    ),
]

CATALOG: dict[str, Rule] = {rule.id: rule for rule in _RULES}
_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in _RULES}


def rule_by_name(name: str) -> Rule:
    return _BY_NAME[name]


@dataclass(frozen=True)
class Finding:
    rule_id: str
    message: str
    location: Location
    level: Level = Level.ERROR
    agent: str = ""
    related: tuple[Location, ...] = field(default=())

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


def finding(name: str, message: str, location: Location, *, agent: str = "") -> Finding:
    """Build a finding for the catalog rule called ``name`` at its default level."""
    rule = rule_by_name(name)
    return Finding(rule.id, message, location, rule.level, agent)


class TwsrtError(Exception):
    """Bad input or environment: reported as findings, exit 2, nothing written."""

    def __init__(self, findings: list[Finding] | Finding) -> None:
        self.findings = findings if isinstance(findings, list) else [findings]
        super().__init__("\n".join(f.render() for f in self.findings))


def fail(name: str, message: str, location: Location) -> TwsrtError:
    return TwsrtError(finding(name, message, location))
