"""Parse JSON and find where any value or key sits in the text, on request.

``json.loads`` does the parsing (and reports syntax errors) at C speed; its hooks notice what
the text must not hold (a repeated key, NaN or a number beyond a double) as it goes, so the
usual valid file is never walked in Python. Positions are found lazily: the first question
about a pointer indexes the members of each container along its path (the C scanner skips
each member), so a file of 100,000 values answers one position for the cost of the siblings on
that path, and the index is kept for the next question.

``parse_jsonc`` reads the canonical sources, which may hold ``//`` and ``/* */`` comments (JSONC,
as editors and the other PyPI ``twsrt`` read them): a text the plain parse accepts costs nothing
more; otherwise a hand scanner blanks each comment with spaces (its newlines kept), so every
offset, line and column of the blanked text is the original's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from functools import cached_property
from json.scanner import make_scanner
from typing import Any, TypeVar

from twsrt.locations import pointer_join
from twsrt.positions import Extent, PositionedDocument, SourceSyntaxError, load_text

T = TypeVar("T")

_WS = re.compile(r"[ \t\n\r]*")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# deeper than the recursive scanner this module had could go; jsonschema recurses too
_MAX_DEPTH = 450


class JsonSyntaxError(SourceSyntaxError):
    pass


# A value in the text: (start, end, key) character offsets, key -1 for an array item or the root
Node = tuple[int, int, int]
_START, _END, _KEY = 0, 1, 2


class PositionedJson(PositionedDocument):
    def __init__(self, value: Any, text: str) -> None:
        super().__init__(value, text)
        # the members of each container indexed so far, by the container's start offset
        self._arrays: dict[int, list[tuple[int, int]]] = {}
        self._objects: dict[int, list[tuple[str, Node]]] = {}
        self._by_key: dict[int, dict[str, list[Node]]] = {}
        self._parents: dict[str, list[Node]] = {}  # the values at each parent pointer asked
        # the (start, end) offsets of each comment that parse_jsonc blanked, in text order
        self.comments: list[tuple[int, int]] = []

    @cached_property
    def root(self) -> Node:
        """The whole document's value: the text without the whitespace around it."""
        start = _WS.match(self.text).end()  # type: ignore[union-attr]
        return (start, len(self.text.rstrip(" \t\n\r")), -1)

    def value_position(self, pointer: str) -> tuple[int, int] | None:
        nodes = self._nodes(pointer)
        return self.index.line_col(nodes[-1][_START]) if nodes else None

    def key_position(self, pointer: str) -> tuple[int, int] | None:
        keyed = [node for node in self._nodes(pointer) if node[_KEY] >= 0]
        return self.index.line_col(keyed[-1][_KEY]) if keyed else None

    def value_extent(self, pointer: str) -> Extent | None:
        nodes = self._nodes(pointer)
        return self.span_extent(nodes[-1][_START], nodes[-1][_END]) if nodes else None

    def key_extent(self, pointer: str) -> Extent | None:
        """The member at ``pointer``: from its key's opening quote to the end of its value."""
        keyed = [node for node in self._nodes(pointer) if node[_KEY] >= 0]
        return self.span_extent(keyed[-1][_KEY], keyed[-1][_END]) if keyed else None

    def item_extents(self, pointer: str) -> list[Extent]:
        """``item_positions`` with the end of each item (``extent`` of each, in one pass)."""
        nodes = self._nodes(pointer)
        if not nodes or self.text[nodes[-1][_START]] != "[":
            return []
        spans = self._array(nodes[-1])
        text, line_col = self.text, self.index.line_col
        if not spans:
            return []
        if text.find("\n", *nodes[-1][:2]) < 0:  # one line: columns by subtraction
            line, column = line_col(spans[0][0])
            base = spans[0][0] - column
            return [(line, start - base, line, end - base) for start, end in spans]
        out: list[Extent] = []
        for start, end in spans:  # only an array or object item can hold a line break
            line, column = line_col(start)
            if text[start] in "[{" and text.find("\n", start, end) >= 0:
                out.append((line, column, *line_col(end)))
            else:
                out.append((line, column, line, column + end - start))
        return out

    def span(self, pointer: str) -> tuple[int, int] | None:
        """The (start, end) character offsets of the value at ``pointer``, for splicing."""
        nodes = self._nodes(pointer)
        return (nodes[-1][_START], nodes[-1][_END]) if nodes else None

    def member_spans(self, pointer: str) -> list[tuple[int, int]]:
        """The spans of the members of the container at ``pointer``, in text order."""
        nodes = self._nodes(pointer)
        members = self.members(pointer, nodes[-1]) if nodes else []
        return [(node[_START], node[_END]) for _, node in members]

    def item_positions(self, pointer: str) -> list[tuple[int, int]]:
        """The (line, column) of each item of the array at ``pointer``, by index, as
        ``position`` gives them one by one (none when no array is there): a policy's rule
        lists are placed in one pass."""
        nodes = self._nodes(pointer)
        if not nodes or self.text[nodes[-1][_START]] != "[":
            return []
        line_col = self.index.line_col
        return [line_col(start) for start, _ in self._array(nodes[-1])]

    def members(self, pointer: str, node: Node) -> list[tuple[str, Node]]:
        """The pointer and node of each member of the container ``node`` (whose pointer is
        ``pointer``), in text order; none for a scalar."""
        opening = self.text[node[_START]]
        if opening == "{":
            return [(f"{pointer}/{name}", member) for name, member in self._object(node)]
        if opening == "[":
            spans = self._array(node)
            return [(f"{pointer}/{index}", (*span, -1)) for index, span in enumerate(spans)]
        return []

    def _nodes(self, pointer: str) -> list[Node]:
        """Every value whose pointer is ``pointer``, in text order: one, or several where a
        repeated key makes two values share a pointer (the last one is the one that counts,
        as in the parsed value). The parent's values are kept: the next question is usually
        about a sibling."""
        if not pointer:
            return [self.root]
        if pointer[0] != "/":
            return []
        parent, token = pointer.rsplit("/", 1)
        parents = self._parents.get(parent)
        if parents is None:
            parents = [self.root]
            for step in parent.split("/")[1:]:
                # children of earlier nodes come first, so the list stays in text order
                parents = [child for node in parents for child in self._children(node, step)]
                if not parents:
                    break
            self._parents[parent] = parents
        return [child for node in parents for child in self._children(node, token)]

    def _children(self, node: Node, token: str) -> list[Node]:
        opening = self.text[node[_START]]
        if opening == "{":
            by_key = self._by_key.get(node[_START])
            if by_key is None:
                by_key = self._by_key[node[_START]] = {}
                for name, member in self._object(node):
                    by_key.setdefault(name, []).append(member)
            return by_key.get(token, [])
        if opening == "[" and _is_index(token):
            spans = self._array(node)
            if len(token) <= len(str(len(spans))) and int(token) < len(spans):
                return [(*spans[int(token)], -1)]
        return []

    def _object(self, node: Node) -> list[tuple[str, Node]]:
        found = self._objects.get(node[_START])
        if found is None:
            found = self._objects[node[_START]] = _object_members(self.text, node[_START])
        return found

    def _array(self, node: Node) -> list[tuple[int, int]]:
        found = self._arrays.get(node[_START])
        if found is None:
            found = self._arrays[node[_START]] = _array_items(self.text, *node[:2])
        return found


def _is_index(token: str) -> bool:
    # the tokens pointer_join writes for array items: "0", "1", ... (no sign, no leading 0)
    return token.isdigit() and token.isascii() and (token[0] != "0" or token == "0")


# typeshed types the scanner's context as the scanner itself (a TODO there); it is a decoder
_scan_once = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
_S = r"[ \t\n\r]*"  # JSON's whitespace (``\s`` would also take U+2028)
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
# one item of an array that holds no array or object, with the comma after it
_FLAT_ITEM = re.compile(rf"{_S}({_STRING}|[-0-9A-Za-z][-+.0-9A-Za-z]*){_S},?")
_SCALARS = {str, int, float, bool, type(None)}


def _array_items(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The span of each item of the array ``text[start:end]``. In a flat array (strings and
    numbers: the usual rule list) one regular expression matches item after item; otherwise
    the C scanner reads (and so skips) each item."""
    array, _ = _scan_once(text, start)
    if set(map(type, array)) <= _SCALARS:
        return [item.span(1) for item in _FLAT_ITEM.finditer(text, start + 1, end - 1)]

    def item(pos: int) -> tuple[tuple[int, int], int]:
        end = _scan_once(text, pos)[1]
        return (pos, end), end

    return _elements(text, start, "]", item)


def _object_members(text: str, start: int) -> list[tuple[str, Node]]:
    """The escaped key and the node of each member of the object that opens at ``start``;
    the C scanner reads (and so skips) each key and value."""
    ws = _WS.match

    def member(key: int) -> tuple[tuple[str, Node], int]:
        raw, pos = _scan_once(text, key)
        value_start = ws(text, ws(text, pos).end() + 1).end()  # type: ignore[union-attr]
        end = _scan_once(text, value_start)[1]
        return (raw.replace("~", "~0").replace("/", "~1"), (value_start, end, key)), end

    return _elements(text, start, "}", member)


def _elements(text: str, start: int, close: str, read: Callable[[int], tuple[T, int]]) -> list[T]:
    """Each element of the array or object that opens at ``start``, as ``read`` (given where
    one starts) makes it and says where it ends; ``close`` ends an empty one."""
    found: list[T] = []
    ws = _WS.match
    pos = ws(text, start + 1).end()  # type: ignore[union-attr]
    if text[pos] == close:
        return found
    while True:
        element, end = read(pos)
        found.append(element)
        pos = ws(text, end).end()  # type: ignore[union-attr]
        if text[pos] != ",":
            return found
        pos = ws(text, pos + 1).end()  # type: ignore[union-attr]


def _decode_error(exc: json.JSONDecodeError) -> tuple[str, int, int]:
    return exc.msg, exc.lineno, exc.colno


class _Watch:
    """Hooks for ``json.loads`` that note, as it parses, what must be looked at afterwards."""

    def __init__(self) -> None:
        self.repeated_key = False
        self.not_finite = False
        self.objects = 0

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.objects += 1
        members = dict(pairs)
        if len(members) != len(pairs):
            self.repeated_key = True
        return members

    def number(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self.not_finite = True
        return value

    def constant(self, name: str) -> float:
        self.not_finite = True
        return float(name)

    def loads(self, text: str) -> Any:
        return json.loads(
            text,
            object_pairs_hook=self.pairs,
            parse_float=self.number,
            parse_constant=self.constant,
        )


def parse_json(text: str) -> PositionedJson:
    watch = _Watch()
    value = load_text(text, watch.loads, json.JSONDecodeError, _decode_error, JsonSyntaxError)
    result = PositionedJson(value, text)
    # nesting deeper than the limit takes more arrays and objects than that
    if watch.objects + text.count("[") > _MAX_DEPTH and _depth(value) > _MAX_DEPTH:
        raise JsonSyntaxError("nesting too deep", 1, 1)
    if watch.repeated_key:
        result.duplicate_keys = _duplicate_keys(result)
    if watch.not_finite or _may_hold_surrogate(text):
        _refuse_unencodable(result)
    return result


def parse_jsonc(text: str) -> PositionedJson:
    """``parse_json`` of JSON with comments: the value and positions of ``text`` with every
    ``//`` and ``/* */`` comment read as whitespace (``comments`` says where each was, ``text``
    is the blanked text: same length, same lines); a trailing comma is an error at the comma,
    as JSONC has none. A text without a comment is parsed once, as ``parse_json`` parses it."""
    try:
        return parse_json(text)
    except JsonSyntaxError as exc:
        plain_error = exc
    blanked, comments = blank_comments(text) if "/" in text else (text, [])
    if not comments:
        raise _trailing_comma(text, plain_error)
    try:
        parsed = parse_json(blanked)
    except JsonSyntaxError as exc:
        raise _trailing_comma(blanked, exc) from None
    parsed.comments = comments
    return parsed


# what the comment scanner stops at: a string's opening quote, or a slash that may open a comment
_QUOTE_OR_SLASH = re.compile(r'["/]')
_STRING_STOP = re.compile(r'["\\\n]')  # a string's close, an escape, or a line it cannot cross
_NOT_NEWLINE = re.compile(r"[^\n\r]")


def blank_comments(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with each comment outside a string replaced by spaces (line breaks kept), and
    the span of each. A hand scanner: fixed patterns only, each match a single character, so
    no input can make it backtrack; a string or comment left open ends the scan (the parse then
    reports it where it starts)."""
    comments: list[tuple[int, int]] = []
    pos = 0
    while (found := _QUOTE_OR_SLASH.search(text, pos)) is not None:
        start = found.start()
        if text[start] == '"':
            pos = _string_end(text, start + 1)
            if pos < 0:
                break
            continue
        follower = text[start + 1 : start + 2]
        if follower == "/":
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
        elif follower == "*":
            end = text.find("*/", start + 2)
            if end < 0:
                raise JsonSyntaxError("comment is not closed (no */)", *_line_col(text, start))
            end += 2
        else:
            pos = start + 1  # a lone slash: not JSON, which the parse reports
            continue
        comments.append((start, end))
        pos = end
    if not comments:
        return text, comments
    pieces, last = [], 0
    for start, end in comments:
        pieces += [text[last:start], _NOT_NEWLINE.sub(" ", text[start:end])]
        last = end
    pieces.append(text[last:])
    return "".join(pieces), comments


def _string_end(text: str, pos: int) -> int:
    """The offset after the string whose body starts at ``pos``; -1 when it is not closed."""
    while (stop := _STRING_STOP.search(text, pos)) is not None:
        char = stop[0]
        if char == '"':
            return stop.end()
        if char == "\n":
            return -1
        pos = stop.end() + 1  # an escape: the next character is the escaped one
    return -1


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, line_start) + 1, offset - line_start + 1


def _trailing_comma(text: str, exc: JsonSyntaxError) -> JsonSyntaxError:
    """The parse's error, or when it stopped at a closing bracket right after a comma (the
    parser's "Expecting value" / "Expecting property name"; Python 3.13 names the comma
    itself), that comma as the error: one message and place on every Python."""
    if exc.message.startswith("Illegal trailing comma"):  # Python 3.13 finds it itself
        return JsonSyntaxError(_TRAILING_COMMA, exc.line, exc.column)
    if exc.message not in ("Expecting value", "Expecting property name enclosed in double quotes"):
        return exc
    lines = text.split("\n", exc.line)  # only the lines up to the error's
    offset = sum(map(len, lines[: exc.line - 1])) + exc.line - 1 + exc.column - 1
    if text[offset : offset + 1] not in ("]", "}"):
        return exc
    comma = len(text[:offset].rstrip(" \t\n\r")) - 1
    if comma < 0 or text[comma] != ",":
        return exc
    return JsonSyntaxError(_TRAILING_COMMA, *_line_col(text, comma))


_TRAILING_COMMA = "trailing comma (JSON allows none): remove it"


def _may_hold_surrogate(text: str) -> bool:
    """Could a string in ``text`` hold a lone surrogate? Only through a ``\\uD800``-``\\uDFFF``
    escape, or one already in the text (then it does not encode); each test runs at C speed."""
    if "\\" in text and _SURROGATE_ESCAPE.search(text):
        return True
    return not text.isascii() and not _encodable(text)


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in ``value`` (``[[]]`` is 2)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in node)
    return deepest


def _duplicate_keys(parsed: PositionedJson) -> list[str]:
    """The pointer of each key that repeats one before it in its object, in text order
    (also inside a value that a later repeat overrides)."""
    found: list[str] = []
    stack = [("", parsed.root, False)]
    while stack:
        pointer, node, repeated = stack.pop()
        if repeated:
            found.append(pointer)
        seen: set[str] = set()
        members = []
        for child, member in parsed.members(pointer, node):
            members.append((child, member, child in seen))
            seen.add(child)
        stack.extend(reversed(members))
    return found


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
    number beyond a double) is not JSON: refuse them where they sit instead of failing later.
    Only called when the parse saw such a number or the text may hold a surrogate."""
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
