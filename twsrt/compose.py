"""Compose a profile's fragment files into one document that still knows where each part was
written (pure: parsed fragments in, composed value and its locator out).

Fragments are merged in ``extends`` order: lists are concatenated (each item keeps its own
fragment's file:line:col), objects merge key by key, and a single value set to two different
values by two fragments is an error naming both (TWS016). Nothing is added that a fragment
does not list.
"""

from __future__ import annotations

from typing import Any

from twsrt.findings import Finding, finding, quoted
from twsrt.jsonpos import PositionedJson
from twsrt.locations import Location, located, pointer_join
from twsrt.records import record
from twsrt.rules import FRAGMENT_VALUE_CONFLICT


@record
class Part:
    """One fragment's parsed file."""

    fragment: str
    display: str
    parsed: PositionedJson

    def location(self, pointer: str, *, key: bool = False) -> Location:
        return located(self.display, self.parsed, pointer, key=key)


class ComposedSource:
    """The parts of a profile merged in order; a composed pointer (``/filesystem/denyRead/7``)
    is located at the fragment file, line and column that wrote it."""

    def __init__(self, parts: list[Part]) -> None:
        self.parts = parts
        self.value: dict[str, Any] = {}
        # composed pointer -> (part, its pointer there) for every subtree one part wrote whole;
        # a deeper pointer is located through its longest written prefix
        self.owners: dict[str, tuple[Part, str]] = {}
        self.conflicts: list[Finding] = []
        self.fragments = {part.display: part.fragment for part in parts}
        if parts:
            self.owners[""] = (parts[0], "")
        for part in parts:
            if isinstance(part.parsed.value, dict):
                self._merge(self.value, part.parsed.value, "", part)

    @property
    def display(self) -> str:
        return self.parts[0].display if self.parts else ""

    def _merge(
        self, into: dict[str, Any], source: dict[str, Any], pointer: str, part: Part
    ) -> None:
        for key, value in source.items():
            here = pointer_join(pointer, key)
            if key not in into:
                into[key] = _copy(value)
                self.owners[here] = (part, here)
                continue
            present = into[key]
            if isinstance(present, dict) and isinstance(value, dict):
                self._merge(present, value, here, part)
            elif isinstance(present, list) and isinstance(value, list):
                start = len(present)
                for index, item in enumerate(value):
                    present.append(_copy(item))
                    self.owners[f"{here}/{start + index}"] = (part, f"{here}/{index}")
            elif not _same(present, value):
                earlier = self.location(here)
                message = (
                    f"'{quoted(here)}' is {_shown(value)} in fragment '{quoted(part.fragment)}' "
                    f"but {_shown(present)} in fragment "
                    f"'{quoted(self.fragments[earlier.path])}' (at {earlier}); a profile's "
                    "fragments must agree on every single value"
                )
                where = part.location(here)
                self.conflicts.append(
                    finding(FRAGMENT_VALUE_CONFLICT, message, where, related=(earlier,))
                )

    def _owner(self, pointer: str) -> tuple[Part, str]:
        """The part that wrote ``pointer`` and the pointer there."""
        probe = pointer
        while probe not in self.owners:
            probe = probe.rpartition("/")[0]
        part, local = self.owners[probe]
        return part, local + pointer[len(probe) :]

    def location(self, pointer: str, *, key: bool = False) -> Location:
        if not self.parts:
            return Location("", pointer=pointer)
        part, local = self._owner(pointer)
        return located(part.display, part.parsed, local, key=key)

    def item_locations(self, pointer: str) -> list[Location]:
        node: Any = self.value
        for token in pointer.split("/")[1:]:
            node = node.get(token) if isinstance(node, dict) else None
        if not isinstance(node, list):
            return []
        return [self.location(f"{pointer}/{index}") for index in range(len(node))]


def _copy(value: Any) -> Any:
    """A copy that later merges may extend without touching the fragment's own value."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _same(left: Any, right: Any) -> bool:
    """Equal and of one JSON type (``1`` is not ``true``, ``1`` is ``1.0``)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return left == right and (isinstance(left, str) == isinstance(right, str))


def _shown(value: Any) -> str:
    import json

    return quoted(json.dumps(value, ensure_ascii=False))
