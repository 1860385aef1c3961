"""Rewrite chosen top-level members of a JSON document and leave every other byte alone.

Agents' settings files are hand-edited; twsrt owns a few top-level keys. Splicing only those
values keeps the user's formatting, comments-free layout, key order and non-ASCII text intact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any

from twsrt.jsonpos import PositionedJson, parse_json
from twsrt.locations import pointer_join

_INDENT = re.compile(r"\n([ \t]+)\S")


def detect_indent(text: str) -> str:
    match = _INDENT.search(text)
    return match[1] if match else "  "


def dump(value: Any, indent: str, depth: int = 0) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``, its lines indented ``depth``
    more levels, byte for byte (the settings twsrt writes and every JSON report).

    Written without the standard library's indenting encoder, which is pure Python with a
    generator per level: this is one pass over the document and one C call per string (a list
    of strings, the usual rule list, in one ``map``)."""
    out: list[str] = []
    _write(value, indent, "\n" + indent * depth, out)
    return "".join(out)


def _write(value: Any, indent: str, newline: str, out: list[str]) -> None:
    """Append ``value`` to ``out``; ``newline`` is a line break and the current indentation."""
    if isinstance(value, str):
        out.append(encode_basestring(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + indent
        separator = "{" + inner
        for key, item in value.items():
            out.append(separator + _key(key) + ": ")
            _write(item, indent, inner, out)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + indent
        if all(type(item) is str for item in value):
            items = ("," + inner).join(map(encode_basestring, value))
            out.append("[" + inner + items + newline + "]")
            return
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, indent, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:
        out.append(_scalar(value))


def _scalar(value: Any) -> str:
    """A number, boolean or null as json writes it (a type json refuses raises its error)."""
    if type(value) is int:  # json writes an int (not a bool, no subclass) as int.__repr__
        return int.__repr__(value)
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: Any) -> str:
    """A member name as json writes it (a number, boolean or null key becomes its text)."""
    if isinstance(key, str):
        return encode_basestring(key)
    return encode_basestring(_scalar(key))


def render_new(document: dict[str, Any]) -> str:
    return dump(document, "  ") + "\n"


def replace_members(
    text: str, updates: dict[str, Any], parse: Callable[[str], PositionedJson] = parse_json
) -> str:
    """``text`` with each top-level key in ``updates`` set to its new value (``parse``: the
    run's parser, which has the text read from disk parsed already).

    Existing members are replaced in place; missing ones are appended at the end of the object.
    """
    indent = detect_indent(text)
    for key, value in updates.items():
        parsed = parse(text)
        rendered = dump(value, indent, depth=1)
        span = parsed.span(pointer_join("", key))
        if span is not None:
            start, end = span
            text = text[:start] + rendered + text[end:]
            continue
        children = parsed.member_spans("")
        member = f"{json.dumps(key, ensure_ascii=False)}: {rendered}"
        root_start, root_end, _ = parsed.root
        if children:
            last_end = max(end for _, end in children)
            text = text[:last_end] + f",\n{indent}{member}" + text[last_end:]
        else:
            close = root_end - 1
            text = text[: root_start + 1] + f"\n{indent}{member}\n" + text[close:]
    if not text.endswith("\n"):
        text += "\n"
    return text
