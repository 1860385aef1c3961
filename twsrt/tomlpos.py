"""Parse TOML and find the line and column of each key and value, on request.

``tomllib`` parses (and reports syntax errors); on the first question a line scanner records
the positions of table headers and ``key = value`` pairs, which is all a config file needs to
point at its mistakes.
"""

from __future__ import annotations

import re
import tomllib
from functools import cached_property
from typing import Any, ClassVar

from twsrt.locations import pointer_join
from twsrt.positions import Extent, PositionedDocument, SourceSyntaxError, load_text

_ERROR_AT = re.compile(r"^(.*?)\s*\(at line (\d+), column (\d+)\)$")
# a bare key part, or a quoted one (a basic string's escapes unrolled: no alternation per char)
_BARE_OR_QUOTED = r'(?:[A-Za-z0-9_-]+|"[^"\\]*(?:\\.[^"\\]*)*"|\'[^\']*\')'
_KEY = re.compile(rf"^(\s*)({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*=\s*")
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*\]\]?")
_PART = re.compile(_BARE_OR_QUOTED)
_BRACKETS = re.compile(r"[\[\]{}]")

Position = tuple[int, int]


class TomlSyntaxError(SourceSyntaxError):
    pass


class PositionedToml(PositionedDocument):
    """Positions of every table header and ``key = value`` line, found by one scan of the
    text on the first question."""

    parent_keys: ClassVar[bool] = True

    def value_position(self, pointer: str) -> Position | None:
        return self.values.get(pointer)

    def key_position(self, pointer: str) -> Position | None:
        return self.keys.get(pointer)

    def value_extent(self, pointer: str) -> Extent | None:
        """A pair's value (an array or inline table to its closing bracket, a multi-line
        string to its closing quotes), or a table header's name; found in the text from the
        value's start, only when asked."""
        start = self.values.get(pointer)
        if start is None:
            return None
        offset = self._offset(start)
        if self.keys.get(pointer) == start:  # a [table] or [[array]] header
            line_start = offset - start[1] + 1
            line_end = self.text.find("\n", offset)
            header = _HEADER.match(self.text[line_start : line_end if line_end >= 0 else None])
            end = line_start + header.end(2) if header else offset + 1
        else:
            end = value_end(self.text, offset)
        return self.span_extent(offset, end)

    def key_extent(self, pointer: str) -> Extent | None:
        """A ``key = value`` pair from its key to the end of its value; a header's name."""
        start = self.keys.get(pointer)
        value = self.value_extent(pointer)
        if start is None or value is None or start == (value[0], value[1]):
            return value
        return (*start, value[2], value[3])

    def _offset(self, at: Position) -> int:
        return self.index.starts[at[0] - 1] + at[1] - 1

    @property
    def values(self) -> dict[str, Position]:
        return self._scanned[1]

    @property
    def keys(self) -> dict[str, Position]:
        return self._scanned[0]

    @cached_property
    def _scanned(self) -> tuple[dict[str, Position], dict[str, Position]]:
        return _scan(self.text)


def _decode_error(exc: tomllib.TOMLDecodeError) -> tuple[str, int, int]:
    match = _ERROR_AT.match(str(exc))
    if match:
        return match[1], int(match[2]), int(match[3])
    return str(exc), 1, 1


def parse_toml(text: str) -> PositionedToml:
    value = load_text(text, loads, tomllib.TOMLDecodeError, _decode_error, TomlSyntaxError)
    return PositionedToml(value, text)


# A table header of bare key parts that each start with a letter (so the line is no array
# element either: not a number, date, boolean, inf or nan), followed by BULK or more lines of
# `"key" = "value"`, both basic strings without an escape, a tab or another control character
# (the characters between the quotes are the string). Codex's config.toml is such runs
# (100,000 lines at 50k rules); read by a regex, they skip tomllib's per-character loop.
_PAIR = r'"([^"\\\x00-\x1f\x7f]*)" = "([^"\\\x00-\x1f\x7f]*)"\n'
BULK = 64
_RUN = re.compile(
    rf"^\[([A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*)\]\n((?:{_PAIR}){{{BULK},}})",
    re.MULTILINE,
)
_PAIRS = re.compile(_PAIR)
_VALUES = frozenset(("true", "false", "inf", "nan"))


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads(text)``, the same value and the same errors (they are tomllib's own), with
    each run (``_RUN``) cut from the text tomllib reads and its pairs set in the table its
    header declares. Only where that cannot differ: no multi-line string (a run inside one
    would be its text) and the table empty in what tomllib read (no key of it from elsewhere,
    whose order or clash the cut would change); a duplicate pair, or any error, makes the whole
    text tomllib's."""
    if len(text) < BULK * 8 or '"""' in text or "'''" in text:
        return tomllib.loads(text)
    runs: list[tuple[str, str]] = []

    def cut(match: re.Match[str]) -> str:
        runs.append((match[1], match[2]))
        return f"[{match[1]}]\n"

    reduced = _RUN.sub(cut, text)
    if not runs or any(header in _VALUES for header, _ in runs):
        return tomllib.loads(text)
    try:
        value = tomllib.loads(reduced)
    except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return tomllib.loads(text)
    for header, body in runs:
        table: Any = value
        for part in header.split("."):
            table = table.get(part) if isinstance(table, dict) else None
        pairs = dict(_PAIRS.findall(body))
        if not isinstance(table, dict) or table or len(pairs) != body.count("\n"):
            return tomllib.loads(text)
        table.update(pairs)
    return value


def _key_part(token: str) -> str:
    """One bare or quoted part of a dotted key, as TOML reads it."""
    if token[0] == "'" or (token[0] == '"' and "\\" not in token):
        return token[1:-1]  # literal, or basic without an escape: the text between the quotes
    if token[0] == '"':
        key: str = tomllib.loads(f"k = {token}")["k"]  # escapes: the exact decoder (rare)
        return key
    return token


def _pointer(table: str, raw: str) -> str:
    for token in _PART.findall(raw):
        table = pointer_join(table, _key_part(token))
    return table


def _scan(text: str) -> tuple[dict[str, Position], dict[str, Position]]:
    """The (key, value) positions of each table header and ``key = value`` pair, line by
    line (only ``\\n`` ends a line, as for ``tomllib``; keys inside a multi-line value are
    skipped)."""
    keys: dict[str, Position] = {}
    values: dict[str, Position] = {}
    table = ""
    arrays: dict[str, int] = {}
    depth = 0  # open brackets of a multi-line value; keys inside it are not top-level keys
    header_match, key_match = _HEADER.match, _KEY.match
    for number, line in enumerate(text.split("\n"), 1):
        if depth:
            depth = max(depth + _bracket_balance(line), 0)
            continue
        header = header_match(line)
        if header:
            table = _header_pointer(header, arrays)
            keys.setdefault(table, (number, header.start(2) + 1))
            values.setdefault(table, (number, header.start(2) + 1))
            continue
        key = key_match(line)
        if key:
            pointer = _pointer(table, key[2])
            keys[pointer] = (number, key.start(2) + 1)
            values[pointer] = (number, key.end() + 1)
            depth = max(_bracket_balance(line, key.end()), 0)
    return keys, values


# a TOML string of each kind (valid text: tomllib read it), a comment, a bracket
_ML_BASIC = r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*""""{0,2}'
_ML_LITERAL = r"'''[\s\S]*?''''{0,2}"
_STRINGS = rf"{_ML_BASIC}|{_ML_LITERAL}|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"
_TOKEN = re.compile(rf"{_STRINGS}|#[^\n]*|[\[\]{{}}]")
# a string, else a bare value: a number, boolean or date (a date-time may hold one space)
_SCALAR = re.compile(rf"{_STRINGS}|[^\s#,\[\]{{}}]+(?: [0-9][^\s#,\]}}]*)?")


def value_end(text: str, offset: int) -> int:
    """The offset after the TOML value that starts at ``offset``: an array or inline table
    ends at its closing bracket (strings and comments skipped), anything else is one token."""
    if text[offset] not in "[{":
        scalar = _SCALAR.match(text, offset)
        return scalar.end() if scalar else offset + 1
    depth = 0
    for token in _TOKEN.finditer(text, offset):
        char = token[0]
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if not depth:
                return token.end()
    return len(text)


def _header_pointer(header: re.Match[str], arrays: dict[str, int]) -> str:
    """The pointer of a ``[table]`` or ``[[array]]`` header (counting array entries)."""
    table = _pointer("", header[2])
    if header[1] == "[[":
        index = arrays.get(table, -1) + 1
        arrays[table] = index
        table = pointer_join(table, index)
    return table


def _bracket_balance(line: str, start: int = 0) -> int:
    """Brackets opened minus closed in ``line[start:]``, outside strings and comments."""
    if not _BRACKETS.search(line, start):
        return 0  # the usual value: a string or a number on one line
    balance = 0
    quote = ""
    index = start
    while index < len(line):
        char = line[index]
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
