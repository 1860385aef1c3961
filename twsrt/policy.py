"""The canonical policy: the single normalized model every agent target compiles from."""

from __future__ import annotations

from dataclasses import field
from functools import cached_property
from typing import Any, Protocol

from twsrt.jsonpos import PositionedJson
from twsrt.locations import Location, located
from twsrt.records import record

GLOB_CHARS = frozenset("*?[]")  # srt's (containsGlobChars): a brace is literal for every agent


def is_glob(path: str) -> bool:
    return not GLOB_CHARS.isdisjoint(path)  # one C loop over the characters


def fold_dots(path: str) -> str:
    """Fold ``.`` and ``..`` components lexically where that has one meaning: ``~/a/./b/../c``
    is ``~/a/c`` and ``/..`` is ``/``, as srt resolves them (``path.resolve`` for a relative
    path, realpath for an absolute one, which agrees unless a symlink precedes the ``..``; the
    symlinked-path check reports those). A ``..`` that climbs above the launch directory or the
    home directory, or follows a glob, depends on where the agent runs: the path is returned as
    written and every agent that cannot name it refuses it (see ``has_dots``)."""
    if not has_dots(path):
        return path  # the common case; a leading "./" alone is left as written
    parts = path.split("/")
    anchor, rest = (parts[0] or "/", parts[1:]) if parts[0] in ("", "~", ".") else ("", parts)
    kept: list[str] = []
    for part in rest:
        if part in ("", "."):
            continue
        if part != "..":
            kept.append(part)
        elif kept and not is_glob(kept[-1]):
            kept.pop()
        elif anchor != "/" or kept:  # POSIX: /.. is /
            return path
    body = "/".join(kept)
    if anchor == "/":
        return f"/{body}"
    if anchor == "~":
        return f"~/{body}" if body else "~"
    if anchor == ".":
        return f"./{body}" if body else "."
    return body or "."


def has_dots(path: str) -> bool:
    """Whether a ``.`` or ``..`` component is left (after fold_dots: an ambiguous ``..``); a
    leading ``.`` is none. Substring tests, not a split: every policy path is asked, twice."""
    return (
        "/./" in path
        or "/../" in path
        or path.endswith(("/.", "/.."))
        or path == ".."
        or path.startswith("../")
    )


def normalize_path(path: str) -> str:
    """Drop trailing slashes (``~/.aws/`` is ``~/.aws``) but keep ``/`` and ``~/`` meaningful,
    and fold ``.``/``..`` where that is unambiguous (fold_dots)."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/"
    if stripped == "~":
        return "~"
    return fold_dots(stripped)


@record
class PathRule:
    path: str
    origin: Location
    literal: bool = False
    # a write deny that restates a denyRead entry (protection.py): where an agent cannot take
    # it, the read deny's finding at the same entry already says so, and none is repeated
    echo: bool = False

    @cached_property
    def glob(self) -> bool:
        return not self.literal and is_glob(self.path)


@record
class Entry:
    """A string rule (domain or command) and where it was written."""

    value: str
    origin: Location


class Locator(Protocol):
    """Where a pointer of a composed source was written (``compose.ComposedSource``: the
    fragment file, line, column and pointer there)."""

    def location(self, pointer: str, *, key: bool = False) -> Location: ...


@record(frozen=False)
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
    # a composed profile: where each srt pointer was written (None: the one srt file), and the
    # fragment each file display belongs to (empty without profiles)
    srt_locator: Locator | None = None
    fragments: dict[str, str] = field(default_factory=dict)
    # the bash rules file's positions (one file), or where a composed profile's bash pointer
    # was written; neither: whole-file locations
    bash_positions: PositionedJson | None = None
    bash_locator: Locator | None = None
    # the names no command may create under a write root (srt's mandatory-deny set and every
    # registered agent's project layers, ``agents/rootnames.py``), set by
    # ``protection.protected_policy``; None on a policy as the sources write it, which no
    # translation that protects write roots takes (fail closed)
    root_names: tuple[tuple[str, bool], ...] | None = field(default=None, compare=False, repr=False)

    def srt_location(self, pointer: str, *, key: bool = False) -> Location:
        """The file, line and column that wrote ``pointer`` of the (composed) srt settings."""
        if self.srt_locator is not None:
            return self.srt_locator.location(pointer, key=key)
        return located(self.srt_display, self.srt_positions, pointer, key=key)

    def bash_location(self, pointer: str, *, key: bool = False) -> Location:
        """The file, line and column that wrote ``pointer`` of the (composed) bash rules."""
        if self.bash_locator is not None:
            return self.bash_locator.location(pointer, key=key)
        if self.bash_positions is None:
            return Location(self.bash_display, pointer=pointer)
        return located(self.bash_display, self.bash_positions, pointer, key=key)

    def list_origin(self, pointer: str) -> Location:
        """Where a whole srt list is named (a probe about no single entry): the srt file, or in
        a composed profile the key in the first fragment that lists it."""
        if self.srt_locator is not None:
            return self.srt_locator.location(pointer, key=True)
        return Location(self.srt_display, pointer=pointer)

    def fragment_of(self, origin: Location) -> str:
        """The fragment whose file holds ``origin`` ("" without profiles)."""
        return self.fragments.get(origin.path, "")

    @property
    def enabled(self) -> bool:
        return self.srt.get("enabled", True) is not False
