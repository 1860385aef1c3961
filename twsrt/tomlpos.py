"""Parse TOML and remember the line and column of each key and value.

``tomllib`` parses (and reports syntax errors); a line scanner records positions of table
headers and ``key = value`` pairs, which is all a config file needs to point at its mistakes.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any, ClassVar

from twsrt.locations import pointer_join
from twsrt.positions import PositionedDocument, SourceSyntaxError, load_text

_ERROR_AT = re.compile(r"^(.*?)\s*\(at line (\d+), column (\d+)\)$")
_BARE_OR_QUOTED = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_KEY = re.compile(rf"^(\s*)({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*=\s*")
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*\]\]?")
_PART = re.compile(_BARE_OR_QUOTED)


class TomlSyntaxError(SourceSyntaxError):
    pass


class PositionedToml(PositionedDocument):
    """Positions of every table header and ``key = value`` line, recorded by the scanner."""

    parent_keys: ClassVar[bool] = True

    def __init__(self, value: Any, text: str) -> None:
        super().__init__(value, text)
        self.values: dict[str, tuple[int, int]] = {}
        self.keys: dict[str, tuple[int, int]] = {}

    def value_position(self, pointer: str) -> tuple[int, int] | None:
        return self.values.get(pointer)

    def key_position(self, pointer: str) -> tuple[int, int] | None:
        return self.keys.get(pointer)

    def mark_value(self, pointer: str, offset: int) -> None:
        self.values[pointer] = self.index.line_col(offset)

    def mark_key(self, pointer: str, offset: int) -> None:
        self.keys[pointer] = self.index.line_col(offset)


def _decode_error(exc: tomllib.TOMLDecodeError) -> tuple[str, int, int]:
    match = _ERROR_AT.match(str(exc))
    if match:
        return match[1], int(match[2]), int(match[3])
    return str(exc), 1, 1


def parse_toml(text: str) -> PositionedToml:
    value = load_text(text, tomllib.loads, tomllib.TOMLDecodeError, _decode_error, TomlSyntaxError)
    result = PositionedToml(value, text)
    _scan(result)
    return result


def _split_key(raw: str) -> list[str]:
    parts = []
    for match in _PART.finditer(raw):
        token = match.group(0)
        parts.append(tomllib.loads(f"k = {token}")["k"] if token[0] in "\"'" else token)
    return parts


def _scan(out: PositionedToml) -> None:
    """Record each table header and ``key = value`` pair, line by line (only ``\\n`` ends a
    line, as for ``tomllib``; keys inside a multi-line value are skipped)."""
    table = ""
    arrays: dict[str, int] = {}
    depth = 0  # open brackets of a multi-line value; keys inside it are not top-level keys
    start = 0  # offset of the line in the text
    for line in out.text.split("\n"):
        line_start, start = start, start + len(line) + 1
        if depth:
            depth = max(depth + _bracket_balance(line), 0)
            continue
        header = _HEADER.match(line)
        if header:
            table = _header_pointer(header, arrays)
            position = out.index.line_col(line_start + header.start(2))
            out.keys.setdefault(table, position)
            out.values.setdefault(table, position)
            continue
        key = _KEY.match(line)
        if key:
            pointer = table
            for part in _split_key(key[2]):
                pointer = pointer_join(pointer, part)
            out.mark_key(pointer, line_start + key.start(2))
            out.mark_value(pointer, line_start + key.end())
            depth = max(_bracket_balance(line[key.end() :]), 0)


def _header_pointer(header: re.Match[str], arrays: dict[str, int]) -> str:
    """The pointer of a ``[table]`` or ``[[array]]`` header (counting array entries)."""
    table = ""
    for part in _split_key(header[2]):
        table = pointer_join(table, part)
    if header[1] == "[[":
        index = arrays.get(table, -1) + 1
        arrays[table] = index
        table = pointer_join(table, index)
    return table


def _bracket_balance(fragment: str) -> int:
    balance = 0
    quote = ""
    index = 0
    while index < len(fragment):
        char = fragment[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            break
        elif char in "[{":
            balance += 1
        elif char in "]}":
            balance -= 1
        index += 1
    return balance
