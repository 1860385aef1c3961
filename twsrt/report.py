"""The result of one ``twsrt check`` run, as the reporters consume it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from twsrt.findings import LEVEL_ORDER, Finding, Level

REPORT_VERSION = 1


@dataclass(frozen=True)
class Suppression:
    """One ``[[check.ignore]]`` entry of the config."""

    rule: str
    reason: str
    path: str = ""
    pointer: str = ""
    agent: str = ""
    index: int = 0


@dataclass(frozen=True)
class CheckedFile:
    """A file the run looked at (a source, the config, or a target of one agent)."""

    path: str  # repo-relative POSIX path, as in finding locations
    kind: str  # "config" | "source" | "target"
    agent: str = ""


@dataclass
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
