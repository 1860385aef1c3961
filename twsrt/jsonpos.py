"""Parse JSON and remember where every value and key sits in the text.

``json.loads`` does the parsing (and reports syntax errors); a small scanner walks the same,
already-valid text to record the position of each value and object key by JSON pointer.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from twsrt.locations import pointer_join

_WS = " \t\r\n"


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass
class PositionedJson:
    value: Any
    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    duplicate_keys: list[str] = field(default_factory=list)

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        """Position of the value (or its key) at ``pointer``, else of the nearest parent."""
        table = self.keys if key else self.values
        if pointer in table:
            return table[pointer]
        while pointer:
            if pointer in self.values:
                return self.values[pointer]
            pointer = pointer.rsplit("/", 1)[0]
        return self.values.get("", (1, 1))


def parse_json(text: str) -> PositionedJson:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonSyntaxError("nesting too deep", 1, 1) from None
    result = PositionedJson(value)
    try:
        _Scanner(text, result).scan()
    except RecursionError:
        raise JsonSyntaxError("nesting too deep", 1, 1) from None
    return result


class _Scanner:
    def __init__(self, text: str, out: PositionedJson) -> None:
        self.text = text
        self.pos = 0
        self.out = out
        # newline offsets, so each position is a binary search, not a count from the start
        self.newlines = [i for i, char in enumerate(text) if char == "\n"]

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_left(self.newlines, offset)
        start = self.newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def skip_ws(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _WS:
            pos += 1
        self.pos = pos

    def scan(self) -> None:
        self.skip_ws()
        self.value("")

    def value(self, pointer: str) -> None:
        start = self.pos
        self.out.values[pointer] = self.line_col(start)
        char = self.text[start]
        if char == "{":
            self.obj(pointer)
        elif char == "[":
            self.arr(pointer)
        elif char == '"':
            self.string()
        else:
            self.scalar()
        self.out.spans[pointer] = (start, self.pos)

    def obj(self, pointer: str) -> None:
        self.pos += 1
        self.skip_ws()
        seen: set[str] = set()
        if self.text[self.pos] == "}":
            self.pos += 1
            return
        while True:
            self.skip_ws()
            key_pos = self.line_col(self.pos)
            key = self.string()
            child = pointer_join(pointer, key)
            if key in seen:
                self.out.duplicate_keys.append(child)
            seen.add(key)
            self.out.keys[child] = key_pos
            self.skip_ws()
            self.pos += 1  # ':'
            self.skip_ws()
            self.value(child)
            self.skip_ws()
            if self.text[self.pos] == ",":
                self.pos += 1
                continue
            self.pos += 1  # '}'
            return

    def arr(self, pointer: str) -> None:
        self.pos += 1
        self.skip_ws()
        if self.text[self.pos] == "]":
            self.pos += 1
            return
        index = 0
        while True:
            self.skip_ws()
            self.value(pointer_join(pointer, index))
            index += 1
            self.skip_ws()
            if self.text[self.pos] == ",":
                self.pos += 1
                continue
            self.pos += 1  # ']'
            return

    def string(self) -> str:
        start = self.pos
        pos = start + 1
        text = self.text
        while True:
            char = text[pos]
            if char == "\\":
                pos += 2
                continue
            pos += 1
            if char == '"':
                break
        self.pos = pos
        return json.loads(text[start:pos])

    def scalar(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] not in _WS + ",]}":
            pos += 1
        self.pos = pos
