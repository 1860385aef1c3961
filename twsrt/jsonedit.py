"""Rewrite chosen top-level members of a JSON document and leave every other byte alone.

Agents' settings files are hand-edited; twsrt owns a few top-level keys. Splicing only those
values keeps the user's formatting, comments-free layout, key order and non-ASCII text intact.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from twsrt.jsonpos import PositionedJson, parse_json
from twsrt.locations import pointer_join

_INDENT = re.compile(r"\n([ \t]+)\S")


def detect_indent(text: str) -> str:
    match = _INDENT.search(text)
    return match[1] if match else "  "


def dump(value: Any, indent: str, depth: int = 0) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``, its lines indented ``depth``
    more levels, byte for byte."""
    return _dump(value, indent, "\n" + indent * depth)


def _dump(value: Any, indent: str, newline: str) -> str:
    # json.dumps with an indent runs the pure-Python encoder, one call per item (a third of a
    # 13k-rule check's own time); this writes the same bytes with one C call per string
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, dict) and value and all(type(key) is str for key in value):
        inner = newline + indent
        members = [f"{encode_basestring(k)}: {_dump(v, indent, inner)}" for k, v in value.items()]
        return "{" + inner + ("," + inner).join(members) + newline + "}"
    if isinstance(value, list) and value:
        inner = newline + indent
        try:  # the common case, a list of strings: one C call per item
            items = list(map(encode_basestring, value))
        except TypeError:
            items = [_dump(v, indent, inner) for v in value]
        return "[" + inner + ("," + inner).join(items) + newline + "]"
    text = json.dumps(value, indent=indent, ensure_ascii=False)  # scalars, {} and [], odd keys
    return text.replace("\n", newline)


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
