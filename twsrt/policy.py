"""The canonical policy: the single normalized model every agent target compiles from."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from twsrt.jsonpos import PositionedJson
from twsrt.locations import Location

GLOB_CHARS = frozenset("*?[]{}")


def is_glob(path: str) -> bool:
    return any(char in GLOB_CHARS for char in path)


def normalize_path(path: str) -> str:
    """Drop trailing slashes (``~/.aws/`` is ``~/.aws``) but keep ``/`` and ``~/`` meaningful."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/"
    if stripped == "~":
        return "~"
    return stripped


@dataclass(frozen=True)
class PathRule:
    path: str
    origin: Location
    literal: bool = False

    @cached_property
    def glob(self) -> bool:
        return not self.literal and is_glob(self.path)


@dataclass(frozen=True)
class Entry:
    """A string rule (domain or command) and where it was written."""

    value: str
    origin: Location


@dataclass
class Policy:
    srt_display: str
    bash_display: str
    srt: dict[str, Any]
    srt_positions: PositionedJson
    deny_read: list[PathRule] = field(default_factory=list)
    allow_read: list[PathRule] = field(default_factory=list)
    allow_write: list[PathRule] = field(default_factory=list)
    deny_write: list[PathRule] = field(default_factory=list)
    allowed_domains: list[Entry] = field(default_factory=list)
    denied_domains: list[Entry] = field(default_factory=list)
    bash_allow: list[Entry] = field(default_factory=list)
    bash_deny: list[Entry] = field(default_factory=list)
    bash_ask: list[Entry] = field(default_factory=list)

    def srt_location(self, pointer: str, *, key: bool = False) -> Location:
        line, col = self.srt_positions.position(pointer, key=key)
        return Location(self.srt_display, line, col, pointer)

    @property
    def enabled(self) -> bool:
        return self.srt.get("enabled", True) is not False
