"""The twsrt config as a value: ``Config`` (what a ``twsrt.toml`` says, where this run stands),
the ``Selection`` of a profile and its ``Fragment`` files, and the modes. Frozen: a stage that
needs another view of the config makes one with ``dataclasses.replace``. Finding, reading and
validating the file is ``configload.py``'s job, above the registry."""

from __future__ import annotations

import os
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from twsrt.findings import Finding
from twsrt.locations import Location, display_path, located
from twsrt.records import record
from twsrt.tomlpos import PositionedToml

MODES = ("full", "yolo")  # approval modes
# What sandboxed commands may touch, orthogonal to the approval mode (Codex's and DeepCode's axis).
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
DEFAULT_SANDBOX_MODE = "workspace-write"
PROFILE_ENV = "TWSRT_PROFILE"


@record
class Selection:
    """Which profile a run composes its policy from, and what chose it (shown in every report)."""

    name: str
    chosen_by: str  # "--profile", "$TWSRT_PROFILE", "hosts" or "default"
    origin: Location  # the config line that made the choice (the profile, or the hosts entry)
    # chosen_by "hosts": this machine's host name and the hosts pattern it matched (reports
    # name both, so a reader sees why this machine got this profile)
    host: str = ""
    pattern: str = ""


@record
class Fragment:
    """One ``[fragments.<name>]`` table: an srt file and/or a bash rules file."""

    name: str
    srt: Path | None
    bash_rules: Path | None

    def files(self) -> list[tuple[str, Path]]:
        """(kind, path) of each file it names: kind "srt" or "bash_rules"."""
        named = (("srt", self.srt), ("bash_rules", self.bash_rules))
        return [(kind, path) for kind, path in named if path is not None]


@record
class Config:
    path: Path
    display: str
    home: Path
    srt: Path
    bash_rules: Path
    targets: dict[str, Path] = field(default_factory=dict)
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    positions: PositionedToml | None = None
    pinned_home: str | None = None
    # where this policy repository is checked out where the agents run, as written (~/... or
    # absolute; None: not set): the protected set write-denies it (protection.py)
    checkout: str | None = None
    check: dict[str, Any] = field(default_factory=dict)  # the [check] table
    sandbox_mode: str | None = None  # [sandbox] mode, None when the config does not set it
    # Where a run stands, passed down with the config instead of held in globals: files are
    # named relative to ``display_root`` (the repository root when ``check`` or the CLI works
    # in repo mode; None: the working directory), and reads stay inside ``confine_root`` (the
    # real repository directory in repo mode, see ``safeio``; None: anywhere).
    display_root: Path | None = None
    confine_root: Path | None = None
    # the profile this run composes (None: the config has no [profiles], one policy as before)
    selection: Selection | None = None
    # where this run's targets take effect (agents.base.Scope) and the directory their relative
    # defaults hang from: the project root in "project" scope, the output tree in "managed"
    scope: str = "user"
    scope_root: Path | None = None
    # a scoped run (scopes.py): the agents it compiles, the notes of those left out (TWS448),
    # and whether --project/--managed chose the scope (else the config's table)
    scope_agents: tuple[str, ...] = ()
    scope_findings: tuple[Finding, ...] = ()
    scope_by_option: bool = False
    # with [profiles]: the selected profile's fragments in `extends` order, and every fragment
    # the config defines (placement checks them all); empty without [profiles]
    fragments: tuple[Fragment, ...] = ()
    all_fragments: dict[str, Fragment] = field(default_factory=dict)
    # `check --user-config FILE`: the user policy a project-scope check compares with, named
    # on the command line (read wherever it lies); None: [project] user_config, confined
    user_config_option: Path | None = None
    # config pointers answered at another entry: a profile's own [profiles.P.targets] key
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def output_home(self) -> str:
        """The home that ``~`` expands to inside generated files (pinned, else this machine's)."""
        return self.pinned_home or str(self.home)

    def location(self, pointer: str) -> Location:
        pointer = self.aliases.get(pointer, pointer)
        if self.positions is None:
            return Location(self.display, pointer=pointer)
        return located(self.display, self.positions, pointer, at=self._placed(pointer))

    def _placed(self, pointer: str) -> str:
        """Where a pointer stands in the config text: a scoped target taken from its default
        (not in [targets]) stands at the scope's table (at the file without one)."""
        if self.scope == "user" or not pointer.startswith("/targets/") or not self.positions:
            return pointer
        document = self.positions.value
        if pointer.removeprefix("/targets/") in document.get("targets", {}):
            return pointer
        return f"/{self.scope}" if self.scope in document else ""

    def resolve(self, raw: str) -> Path:
        return resolve_path(raw, self.path.parent, self.home)

    def display_path(self, path: Path) -> str:
        """How this run names ``path`` in messages and reports."""
        return display_path(path, self.display_root)

    @property
    def target_confine(self) -> Path | None:
        """Where target files (and the files beside them) may be read: in a confined scoped
        run the scope root (a project may lie outside the repository that holds the policy),
        else ``confine_root`` (None: anywhere, as ``confined(None)`` asks)."""
        if self.scope != "user" and self.scope_root is not None and self.confine_root:
            return Path(os.path.realpath(self.scope_root))
        return self.confine_root

    def confined(self, root: Path | None) -> Config:
        """This config with reads confined to the repository ``root`` (None: not confined)."""
        return replace(self, confine_root=Path(os.path.realpath(root)) if root else None)


def resolve_path(raw: str, base: Path, home: Path) -> Path:
    """``~``, ``~/x``, absolute or config-relative; ``..`` folded so reports name clean paths."""
    if raw == "~":
        return home
    if raw.startswith("~/"):
        path = home / raw[2:]
    else:
        path = Path(raw)
        path = path if path.is_absolute() else base / path
    return Path(os.path.normpath(path))
