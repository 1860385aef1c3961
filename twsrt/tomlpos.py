"""Parse TOML and remember the line and column of each key and value.

``tomllib`` parses (and reports syntax errors); a line scanner records positions of table
headers and ``key = value`` pairs, which is all a config file needs to point at its mistakes.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from twsrt.locations import pointer_join

_ERROR_AT = re.compile(r"^(.*?)\s*\(at line (\d+), column (\d+)\)$")
_BARE_OR_QUOTED = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_KEY = re.compile(rf"^(\s*)({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*=\s*")
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*\]\]?")
_PART = re.compile(_BARE_OR_QUOTED)


class TomlSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass
class PositionedToml:
    value: dict[str, Any]
    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        table = self.keys if key else self.values
        while True:
            if pointer in table:
                return table[pointer]
            if pointer in self.values:
                return self.values[pointer]
            if not pointer:
                return (1, 1)
            pointer = pointer.rsplit("/", 1)[0]


def parse_toml(text: str) -> PositionedToml:
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _ERROR_AT.match(str(exc))
        if match:
            raise TomlSyntaxError(match[1], int(match[2]), int(match[3])) from None
        raise TomlSyntaxError(str(exc), 1, 1) from None
    except RecursionError:
        raise TomlSyntaxError("nesting too deep", 1, 1) from None
    except ValueError as exc:  # Python's int/str digit limit
        from twsrt.jsonpos import long_number

        raise TomlSyntaxError(*long_number(text, exc)) from None
    result = PositionedToml(value)
    _scan(text, result)
    return result


def _split_key(raw: str) -> list[str]:
    parts = []
    for match in _PART.finditer(raw):
        token = match.group(0)
        parts.append(tomllib.loads(f"k = {token}")["k"] if token[0] in "\"'" else token)
    return parts


def _scan(text: str, out: PositionedToml) -> None:
    table = ""
    arrays: dict[str, int] = {}
    depth = 0  # open brackets of a multi-line value; keys inside it are not top-level keys
    for number, line in enumerate(text.splitlines(), start=1):
        if depth == 0:
            header = _HEADER.match(line)
            if header:
                table = ""
                for part in _split_key(header[2]):
                    table = pointer_join(table, part)
                if header[1] == "[[":
                    index = arrays.get(table, -1) + 1
                    arrays[table] = index
                    table = pointer_join(table, index)
                column = header.start(2) + 1
                out.keys.setdefault(table, (number, column))
                out.values.setdefault(table, (number, column))
                continue
            key = _KEY.match(line)
            if key:
                pointer = table
                for part in _split_key(key[2]):
                    pointer = pointer_join(pointer, part)
                out.keys[pointer] = (number, key.start(2) + 1)
                out.values[pointer] = (number, key.end() + 1)
                depth += _bracket_balance(line[key.end() :])
                continue
        else:
            depth += _bracket_balance(line)
        depth = max(depth, 0)


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
