"""Parse JSON and remember where every value and key sits in the text.

``json.loads`` does the parsing (and reports syntax errors); a small scanner walks the same,
already-valid text to record the position of each value and object key by JSON pointer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from twsrt.locations import pointer_join
from twsrt.positions import PositionedDocument, SourceSyntaxError, load_text

_WS = " \t\r\n"


class JsonSyntaxError(SourceSyntaxError):
    pass


@dataclass
class PositionedJson(PositionedDocument):
    # (start, end) character offsets of each value, for splicing members into the text
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)


def _decode_error(exc: json.JSONDecodeError) -> tuple[str, int, int]:
    return exc.msg, exc.lineno, exc.colno


def parse_json(text: str) -> PositionedJson:
    value = load_text(text, json.loads, json.JSONDecodeError, _decode_error, JsonSyntaxError)
    result = PositionedJson(value, text)
    try:
        _Scanner(result).scan()
    except RecursionError:
        raise JsonSyntaxError("nesting too deep", 1, 1) from None
    _refuse_unencodable(result)
    return result


def walk(value: Any) -> Iterator[tuple[str, bool, Any]]:
    """Every node as ``(pointer, is_key, node)``; object keys come as strings with
    ``is_key`` set. Iterative, so any depth ``json.loads`` accepted is fine."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        yield pointer, False, node
        if isinstance(node, dict):
            for key, item in node.items():
                child = pointer_join(pointer, key)
                yield child, True, key
                stack.append((child, item))
        elif isinstance(node, list):
            stack.extend((pointer_join(pointer, i), item) for i, item in enumerate(node))


def _refuse_unencodable(parsed: PositionedJson) -> None:
    """A lone surrogate (``"\\udc00"``) cannot be written as UTF-8 and NaN/Infinity (or a
    number beyond a double) is not JSON: refuse them where they sit instead of failing later."""
    for pointer, is_key, node in walk(parsed.value):
        if isinstance(node, str) and not _encodable(node):
            line, col = parsed.position(pointer, key=is_key)
            what = "key" if is_key else "string"
            raise JsonSyntaxError(f"{what} is not valid Unicode (a lone surrogate)", line, col)
        if isinstance(node, float) and not math.isfinite(node):
            line, col = parsed.position(pointer)
            raise JsonSyntaxError("number is not finite (NaN, Infinity or out of range)", line, col)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Scanner:
    def __init__(self, out: PositionedJson) -> None:
        self.text = out.text
        self.pos = 0
        self.out = out

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
        self.out.mark_value(pointer, start)
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
            key_start = self.pos
            key = self.string()
            child = pointer_join(pointer, key)
            if key in seen:
                self.out.duplicate_keys.append(child)
            seen.add(key)
            self.out.mark_key(child, key_start)
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
