"""The result of one ``twsrt check`` run, as the reporters consume it."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.findings import LEVEL_ORDER, Finding, Level, quoted
from twsrt.records import record

if TYPE_CHECKING:
    from twsrt.config import Selection
    from twsrt.locations import Location

REPORT_VERSION = 1


@record
class Suppression:
    """One ``[[check.ignore]]`` entry of the config."""

    rule: str
    reason: str
    path: str = ""
    pointer: str = ""
    agent: str = ""
    index: int = 0


@record
class CheckedFile:
    """A file the run looked at (a source, the config, or a target of one agent)."""

    path: str  # repo-relative POSIX path, as in finding locations
    kind: str  # "config" | "source" | "target"
    agent: str = ""


@record(frozen=False)
class CheckReport:
    findings: list[Finding] = field(default_factory=list)  # active, sorted
    suppressed: list[tuple[Finding, Suppression]] = field(default_factory=list)
    checked: list[CheckedFile] = field(default_factory=list)
    fail_on: Level = Level.ERROR
    root: Path = field(default_factory=Path.cwd)  # paths in locations are relative to it
    sandbox_mode: str = "workspace-write"  # the resolved sandbox axis the targets were compiled for
    # The run stopped at an input it cannot check with (a broken or missing config): the
    # findings say why, nothing else was checked, and the exit code is 2, in every format.
    aborted: bool = False
    # the profile the run composed (None: the config has no [profiles]; nothing is shown)
    selection: Selection | None = None
    # where the checked files take effect (agents.base.Scope); only a project or managed run
    # says so, so a user-scope report reads as before
    scope: str = "user"

    def failing(self) -> list[Finding]:
        threshold = LEVEL_ORDER[self.fail_on]
        return [f for f in self.findings if LEVEL_ORDER[f.level] >= threshold]

    @property
    def exit_code(self) -> int:
        if self.aborted:
            return 2
        return 1 if self.failing() else 0

    def counts(self) -> dict[str, int]:
        out = {level.value: 0 for level in (Level.ERROR, Level.WARNING, Level.NOTE)}
        for item in self.findings:
            out[item.level.value] += 1
        return out


def selection_text(selection: Selection) -> str:
    """How every report names a run's profile and what chose it, with the config line that
    made the choice: ``work (selected by --profile, twsrt.toml:7:1)``; a hosts entry also names
    this machine's host and the pattern it matched."""
    why = selection.chosen_by
    if selection.host or selection.pattern:
        why += f': host "{quoted(selection.host)}" matches "{quoted(selection.pattern)}"'
    return f"{quoted(selection.name)} (selected by {why}, {selection.origin})"


def selection_members(selection: Selection) -> dict[str, str | Location]:
    """What every report for programs says of a run's profile, in this order (the JSON
    report's ``"profile"``, SARIF's run properties, JUnit's suite properties): the name, what
    chose it, the config line, and for a hosts match the host and the pattern."""
    out: dict[str, str | Location] = {
        "name": selection.name,
        "selected_by": selection.chosen_by,
        "location": selection.origin,
    }
    if selection.host or selection.pattern:
        out["host"] = selection.host
        out["pattern"] = selection.pattern
    return out


def profile_clause(selection: Selection | None) -> str:
    """``, profile work (selected by ...)`` for a line that lists a run's modes; empty without
    profiles, so such a line stays as it was."""
    return f", profile {selection_text(selection)}" if selection else ""
