"""What a rule is: its level, the basis that fixes the level, and the family its id belongs to."""

from __future__ import annotations

from enum import Enum, StrEnum

from twsrt.records import record


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Basis(StrEnum):
    """Why a rule has its level: the level policy of docs/rules.md, one category per rule."""

    WIDENS = "widens"  # the agent may get more than the policy
    CANNOT_CHECK = "cannot-check"  # the policy or a file could not be checked or compiled
    DROPS = "drops"  # an agent enforces less than the policy says
    STRICTER = "stricter"  # an agent enforces more than the policy says
    INFO = "info"  # nothing is lost or gained; worth knowing

    @property
    def level(self) -> Level:
        return BASIS_LEVEL[self]


BASIS_LEVEL = {
    Basis.WIDENS: Level.ERROR,
    Basis.CANNOT_CHECK: Level.ERROR,
    Basis.DROPS: Level.WARNING,
    Basis.STRICTER: Level.NOTE,
    Basis.INFO: Level.NOTE,
}


class Family(Enum):
    """A group of rules: the hundreds digit of their ids, their heading in docs/rules.md and
    their SARIF tag (for filtering in code scanning)."""

    LOADING = ("0", "Loading and parsing", "parse")
    SCHEMA = ("1", "Schema", "schema")
    POLICY = ("2", "Policy", "policy")
    DRIFT = ("3", "Drift", "drift")
    TRANSLATION = ("4", "Translation", "translation")
    ENGINE = ("5", "Engine gaps (twsrt test)", "engine-gap")
    EFFECTIVE = ("6", "Effective configuration", "effective-config")

    def __init__(self, digit: str, heading: str, tag: str) -> None:
        self.digit = digit
        self.heading = heading
        self.tag = tag

    @property
    def suppressible(self) -> bool:
        """Loading, parse, config, file-safety and schema errors mean the policy was not checked
        as written; no ``[[check.ignore]]`` may hide them."""
        return self not in (Family.LOADING, Family.SCHEMA)


@record
class Rule:
    """One catalog entry. Ids never change once released; names are for humans and configs.
    ``basis`` says why the rule has its ``level`` (a test keeps the two consistent); the id's
    hundreds digit is its family's (checked when the rule is made)."""

    id: str
    name: str
    family: Family
    level: Level
    basis: Basis
    short: str
    help: str = ""

    def __post_init__(self) -> None:
        if not (len(self.id) == 6 and self.id.startswith(f"TWS{self.family.digit}")):
            raise ValueError(f"rule {self.id} is not in the {self.family.name} family")

    @property
    def anchor(self) -> str:
        return f"{self.id.lower()}-{self.name}"

    @property
    def constant(self) -> str:
        """The name of the module constant that holds this rule (``twsrt.rules.<CONSTANT>``)."""
        return self.name.upper().replace("-", "_")

    @property
    def suppressible(self) -> bool:
        """No ``[[check.ignore]]`` may hide a rule of an unsuppressible family, nor a domain
        srt refuses (TWS215)."""
        return self.family.suppressible and self.id not in UNSUPPRESSIBLE

    @property
    def security_severity(self) -> str:
        """GitHub code scanning's numeric severity, as the string SARIF properties carry."""
        return {Level.ERROR: "7.5", Level.WARNING: "5.0", Level.NOTE: "2.0"}[self.level]


UNSUPPRESSIBLE = ("TWS215",)  # beyond the TWS0xx and TWS1xx families
