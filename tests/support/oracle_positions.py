"""Test oracle: the eager JSON and TOML position scanners twsrt used before issue 17.

They walked every character (JSON) or split every quoted key with ``tomllib`` (TOML) and
recorded the position of every value and key up front. The lazy scanners in
``twsrt.jsonpos``/``twsrt.tomlpos`` must answer every ``position()``, span and duplicate-key
question exactly as these do (``tests/test_positions_oracle.py``).
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from twsrt.locations import pointer_join

_WS = " \t\r\n"


class OldLineIndex:
    def __init__(self, text: str) -> None:
        self.starts = [0]
        self.starts.extend(index + 1 for index, char in enumerate(text) if char == "\n")

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


@dataclass
class OldDocument:
    value: Any
    text: str = field(repr=False)
    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    duplicate_keys: list[str] = field(default_factory=list)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    parent_keys: ClassVar[bool] = False

    @cached_property
    def index(self) -> OldLineIndex:
        return OldLineIndex(self.text)

    def mark_value(self, pointer: str, offset: int) -> None:
        self.values[pointer] = self.index.line_col(offset)

    def mark_key(self, pointer: str, offset: int) -> None:
        self.keys[pointer] = self.index.line_col(offset)

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        want_key = key
        while True:
            if want_key and pointer in self.keys:
                return self.keys[pointer]
            if pointer in self.values:
                return self.values[pointer]
            if not pointer:
                return (1, 1)
            pointer = pointer.rsplit("/", 1)[0]
            want_key = key and self.parent_keys


class OldToml(OldDocument):
    parent_keys: ClassVar[bool] = True


def old_refusal(parsed: OldDocument) -> tuple[str, int, int] | None:
    """The error the old ``parse_json`` raised after scanning: the first lone surrogate or
    non-finite number in ``walk`` order, at its position."""
    from twsrt.jsonpos import walk

    for pointer, is_key, node in walk(parsed.value):
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                what = "key" if is_key else "string"
                message = f"{what} is not valid Unicode (a lone surrogate)"
                return (message, *parsed.position(pointer, key=is_key))
        if isinstance(node, float) and not math.isfinite(node):
            message = "number is not finite (NaN, Infinity or out of range)"
            return (message, *parsed.position(pointer))
    return None


def old_parse_json(text: str) -> OldDocument:
    """The old scanner's positions for a text ``json.loads`` accepts."""
    result = OldDocument(json.loads(text), text)
    _JsonScanner(result).scan()
    return result


class _JsonScanner:
    def __init__(self, out: OldDocument) -> None:
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


_BARE_OR_QUOTED = r'(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_KEY = re.compile(rf"^(\s*)({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*=\s*")
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*)\s*\]\]?")
_PART = re.compile(_BARE_OR_QUOTED)


def old_parse_toml(text: str) -> OldToml:
    """The old line scanner's positions for a text ``tomllib.loads`` accepts."""
    result = OldToml(tomllib.loads(text), text)
    _toml_scan(result)
    return result


def _split_key(raw: str) -> list[str]:
    parts = []
    for match in _PART.finditer(raw):
        token = match.group(0)
        parts.append(tomllib.loads(f"k = {token}")["k"] if token[0] in "\"'" else token)
    return parts


def _toml_scan(out: OldToml) -> None:
    table = ""
    arrays: dict[str, int] = {}
    depth = 0
    start = 0
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


def old_replace_members(text: str, updates: dict[str, Any]) -> str:
    """The old ``jsonedit.replace_members``, reading spans from the eager scanner."""
    from twsrt.jsonedit import detect_indent, dump

    indent = detect_indent(text)
    for key, value in updates.items():
        parsed = old_parse_json(text)
        pointer = pointer_join("", key)
        rendered = dump(value, indent, depth=1)
        if pointer in parsed.spans:
            start, end = parsed.spans[pointer]
            text = text[:start] + rendered + text[end:]
            continue
        children = [p for p in parsed.spans if p.count("/") == 1]
        member = f"{json.dumps(key, ensure_ascii=False)}: {rendered}"
        root_start, root_end = parsed.spans[""]
        if children:
            last_end = max(parsed.spans[p][1] for p in children)
            text = text[:last_end] + f",\n{indent}{member}" + text[last_end:]
        else:
            close = root_end - 1
            text = text[: root_start + 1] + f"\n{indent}{member}\n" + text[close:]
    if not text.endswith("\n"):
        text += "\n"
    return text
