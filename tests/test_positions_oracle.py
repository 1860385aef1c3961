"""The lazy position finders answer exactly as the eager scanners they replaced
(``support/oracle_positions.py``), on generated texts that hit the hard cases: odd whitespace,
escapes (also of ``/`` and ``~`` in keys), U+2028, nesting, empty containers and repeated keys."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.oracle_positions import (
    OldDocument,
    old_parse_json,
    old_parse_toml,
    old_refusal,
    old_replace_members,
)

from twsrt.jsonedit import replace_members
from twsrt.jsonpos import JsonSyntaxError, PositionedJson, parse_json
from twsrt.tomlpos import parse_toml

ws = st.text(alphabet=" \t\r\n", max_size=3)
# raw pieces of a JSON string: plain text and escapes, among them a lone surrogate
string_piece = st.sampled_from(
    ["a", "b", "é", "\u2028", "~", "/", "😀", " ", ":", ",", "[", "{", "0", "~1"]
    + ["\\n", "\\u00e9", "\\/", "\\\\", '\\"', "\\u0061", "\\ud83d\\ude00", "\\udc00", "\\uD800"]
)
string = st.lists(string_piece, max_size=4).map(lambda pieces: '"' + "".join(pieces) + '"')
# few distinct keys, so objects repeat them (also spelled differently: "a" and "\u0061")
key = st.sampled_from(['"a"', '"\\u0061"', '"b"', '""', '"a/b"', '"~0"', '"0"', '"é"'])
scalar = st.one_of(
    string,
    st.sampled_from(["0", "-1", "1.5e3", "-0.0E-0", "12345678901234567890", "true", "null"]),
    st.sampled_from(["false", "1e400", "-1e999", "NaN", "-Infinity", "Infinity"]),
)


def _array(items: list[tuple[str, str, str]]) -> str:
    return "[" + ",".join(f"{before}{item}{after}" for before, item, after in items) + "]"


def _object(members: list[tuple[str, str, str, str]]) -> str:
    inner = ",".join(f"{pad}{name}{mid}:{mid}{item}{pad}" for pad, name, mid, item in members)
    return "{" + inner + "}"


def _containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(st.tuples(ws, children, ws), max_size=4).map(_array),
        st.lists(st.tuples(ws, key, ws, children), max_size=4).map(_object),
        ws.map(lambda inside: "[" + inside + "]"),
        ws.map(lambda inside: "{" + inside + "}"),
    )


def _nested(depth: int) -> st.SearchStrategy[str]:
    """A value text: a scalar, or containers nested up to ``depth`` deep."""
    if depth == 0:
        return scalar
    return st.one_of(scalar, _containers(_nested(depth - 1)))


json_text = st.tuples(ws, _nested(4), ws).map("".join)


def _questions(old: OldDocument) -> set[str]:
    """Every pointer the old scanner recorded, and pointers that are not in the text."""
    pointers = set(old.values) | set(old.keys) | {"", "/", "/zz", "/a/9/x"}
    return pointers | {f"{p}/{child}" for p in old.values for child in ("0", "1", "01", "zz")}


def _compare(new: PositionedJson, old: OldDocument) -> None:
    assert new.duplicate_keys == old.duplicate_keys
    for pointer in _questions(old):
        for key in (False, True):
            assert new.position(pointer, key=key) == old.position(pointer, key=key), pointer
        assert new.span(pointer) == old.spans.get(pointer), pointer
        _compare_items(new, old, pointer)


def _compare_items(new: PositionedJson, old: OldDocument, pointer: str) -> None:
    """``item_positions`` places every item of the array at ``pointer`` (the value that
    counts, the last of repeated keys) where ``position`` places each one."""
    span = new.span(pointer)
    if span is None or new.text[span[0]] != "[":
        assert new.item_positions(pointer) == [], pointer
        return
    count = len(json.loads(new.text[span[0] : span[1]]))
    expected = [old.position(f"{pointer}/{index}") for index in range(count)]
    assert new.item_positions(pointer) == expected, pointer


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(json_text)
def test_lazy_json_positions_equal_the_eager_scanner(text: str) -> None:
    try:
        old = old_parse_json(text)
    except json.JSONDecodeError:
        assume(False)
        raise
    refused = old_refusal(old)
    if refused is not None:
        with pytest.raises(JsonSyntaxError) as caught:
            parse_json(text)
        assert (caught.value.message, caught.value.line, caught.value.column) == refused
        return
    _compare(parse_json(text), old)


object_text = st.tuples(ws, st.lists(st.tuples(ws, key, ws, json_text), max_size=4), ws).map(
    lambda parts: parts[0] + _object(parts[1]) + parts[2]
)
member_value = st.integers() | st.text(max_size=3)
updates = st.dictionaries(
    st.sampled_from(["a", "b", "", "a/b", "~0", "new", "é"]),
    member_value | st.lists(member_value, max_size=2),
    max_size=3,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(object_text, updates)
def test_spliced_members_equal_the_eager_splice(text: str, changes: dict[str, Any]) -> None:
    try:
        old = old_parse_json(text)
    except json.JSONDecodeError:
        assume(False)
        raise
    assume(old_refusal(old) is None)
    assert replace_members(text, changes) == old_replace_members(text, changes)


# ---------------------------------------------------------------- TOML

toml_space = st.sampled_from(["", " ", "\t", "  "])
toml_key_part = st.sampled_from(
    ["a", "b-1", "_x", "0", '"a"', '"a.b"', '"q\\"t"', '"\\u00e9"', '"\\\\"', '"é\u2028"']
    + ["'lit'", "'a\\b'", '""', '"/~"', '"tab\\t"', '"a b"']
)
toml_key = st.lists(toml_key_part, min_size=1, max_size=3).map(".".join)
toml_scalar = st.sampled_from(
    ['"x"', "'y'", "1", "-2.5", "true", '"[{#"', "'#'", '"a\\"]"', '"\u2028"', "1979-05-27"]
)
toml_value = st.one_of(
    toml_scalar,
    st.lists(toml_scalar, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    st.lists(toml_scalar, max_size=2).map(lambda items: "[\n  " + ",\n  ".join(items) + "\n]"),
    st.lists(st.tuples(toml_key, toml_scalar), max_size=2).map(
        lambda pairs: "{ " + ", ".join(f"{k} = {v}" for k, v in pairs) + " }"
    ),
    st.just('"""\nmulti = "line"\n"""'),
    st.just("[ [1, 2],\n  [3], # ]\n]"),
)
toml_line = st.one_of(
    st.tuples(toml_space, toml_key, toml_space, toml_value).map(
        lambda parts: f"{parts[0]}{parts[1]}{parts[2]}={parts[2]}{parts[3]}"
    ),
    st.tuples(st.sampled_from(["[", "[[", "[ "]), toml_key).map(
        lambda parts: f"{parts[0]}{parts[1]}{']]' if parts[0] == '[[' else ']'}"
    ),
    st.sampled_from(["", "# [not] a = table", "  # x = 1"]),
)
toml_text = st.tuples(st.lists(toml_line, max_size=8), st.sampled_from(["\n", "\r\n"])).map(
    lambda parts: parts[1].join(parts[0]) + parts[1]
)


@settings(
    max_examples=400, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(toml_text)
def test_lazy_toml_positions_equal_the_line_scanner(text: str) -> None:
    try:
        old = old_parse_toml(text)
    except tomllib.TOMLDecodeError:
        assume(False)
        raise
    new = parse_toml(text)
    assert (new.keys, new.values) == (old.keys, old.values)
    for pointer in set(old.values) | {"", "/zz", "/a/zz"}:
        for key in (False, True):
            assert new.position(pointer, key=key) == old.position(pointer, key=key), pointer
