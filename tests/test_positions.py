"""The positioned-document base shared by the JSON and TOML scanners."""

from __future__ import annotations

import json
import sys

import pytest

from twsrt.jsonpos import JsonSyntaxError, parse_json, walk
from twsrt.positions import LineIndex, SourceSyntaxError
from twsrt.tomlpos import TomlSyntaxError, parse_toml


def test_line_index_counts_newlines_only() -> None:
    index = LineIndex("ab\ncd\u2028e\r\nf")
    expected = [(1, 1), (1, 2), (1, 3), (2, 1), (2, 4), (2, 5), (3, 1)]
    offsets = (0, 1, 2, 3, 6, 7, 9)
    # the first lookups count newlines in the text, later ones search the index of line starts
    assert [index.line_col(offset) for offset in offsets * 3] == expected * 3
    assert index.lookups == LineIndex.counted and index.starts == [0, 3, 9]


def test_toml_line_numbers_do_not_split_at_unicode_line_separators() -> None:
    # U+2028 is allowed in a TOML string and is a line break to str.splitlines, not to tomllib
    parsed = parse_toml('a = "x\u2028y" # \x85\nb = 1\n[t]\nc = 2\n')
    assert parsed.keys == {"/a": (1, 1), "/b": (2, 1), "/t": (3, 2), "/t/c": (4, 1)}
    assert parsed.values == {"/a": (1, 5), "/b": (2, 5), "/t": (3, 2), "/t/c": (4, 5)}


def test_toml_positions_of_array_tables_and_crlf() -> None:
    parsed = parse_toml("[[arr]]\r\nx = 1\r\n[[arr]]\r\n  x = [\r\n [1],\r\n ]\r\n  z = 3\r\n")
    assert parsed.keys == {
        "/arr/0": (1, 3),
        "/arr/0/x": (2, 1),
        "/arr/1": (3, 3),
        "/arr/1/x": (4, 3),
        "/arr/1/z": (7, 3),
    }


def test_missing_pointer_falls_back_per_format() -> None:
    # JSON records every key, so a missing key points at the object that lacks it; TOML does
    # not scan inline tables, so a key inside one points at the key of its table
    json_doc = parse_json('{\n  "sandbox": {"x": 1}\n}')
    assert json_doc.position("/sandbox/missing", key=True) == (2, 14)
    assert json_doc.position("/sandbox/x", key=True) == (2, 15)
    assert json_doc.position("/sandbox/x") == (2, 20)
    toml_doc = parse_toml("[t]\nsandbox = { x = 1 }\n")
    assert toml_doc.position("/t/sandbox/x", key=True) == (2, 1)
    assert toml_doc.position("/t/sandbox/x") == (2, 11)
    assert toml_doc.position("/nowhere") == (1, 1)
    assert parse_json("[1]").position("/9") == (1, 1)
    # a pointer without a leading "/" names nothing: the root, not an endless walk up
    assert json_doc.position("sandbox") == (1, 1)
    assert toml_doc.position("t/sandbox", key=True) == (1, 1)


def test_every_json_key_and_value_position_points_at_its_text() -> None:
    text = '{"a": [1, {"b\\u00e9": "x"}],\r\n  "c\u2028": {"d": null},\n"e": -1.5e3}'
    parsed = parse_json(text)
    lines = text.split("\n")
    nodes = {pointer: node for pointer, is_key, node in walk(parsed.value) if not is_key}
    assert len(nodes) == 8
    for pointer, node in nodes.items():
        line, col = parsed.position(pointer)
        start, end = parsed.span(pointer) or (-1, -1)
        assert sum(len(part) + 1 for part in lines[: line - 1]) + col - 1 == start, pointer
        assert json.loads(text[start:end]) == node, pointer
        if pointer.count("/") and not pointer.rsplit("/", 1)[1].isdigit():
            line, col = parsed.position(pointer, key=True)
            key = pointer.rsplit("/", 1)[1]
            assert json.loads(lines[line - 1][col - 1 :].split(":", 1)[0]) == key


@pytest.mark.parametrize(
    ("parse", "error", "text"),
    [
        (parse_json, JsonSyntaxError, '{\n  "a": 1' + "1" * 5000 + "}"),
        (parse_toml, TomlSyntaxError, "x = 1\n a = " + "1" * 5000 + "\n"),
    ],
)
def test_long_numbers_are_placed_where_they_start(parse, error, text) -> None:  # type: ignore[no-untyped-def]
    limit = sys.get_int_max_str_digits() or 4300
    with pytest.raises(error) as caught:
        parse(text)
    assert isinstance(caught.value, SourceSyntaxError)
    assert (caught.value.message, caught.value.line, caught.value.column) == (
        f"number with more than {limit} digits",
        2,
        8 if parse is parse_json else 6,
    )


def test_syntax_errors_keep_the_parsers_positions() -> None:
    with pytest.raises(JsonSyntaxError) as json_error:
        parse_json('{\n  "a": }')
    assert (json_error.value.line, json_error.value.column) == (2, 8)
    with pytest.raises(TomlSyntaxError) as toml_error:
        parse_toml("a = 1\nb = \n")
    assert (toml_error.value.line, toml_error.value.column) == (2, 5)
    with pytest.raises(JsonSyntaxError, match="nesting too deep"):
        parse_json("[" * 100_000 + "]" * 100_000)


def test_json_nesting_is_refused_beyond_the_limit_json_loads_itself_would_accept() -> None:
    assert parse_json("[" * 450 + "]" * 450).value is not None
    json.loads("[" * 451 + "]" * 451)  # the parser takes it; twsrt does not
    with pytest.raises(JsonSyntaxError, match="nesting too deep") as caught:
        parse_json('{"a":' * 300 + "[" * 151 + "]" * 151 + "}" * 300)
    assert (caught.value.line, caught.value.column) == (1, 1)
