"""A parsed document that knows where its values and keys sit: the base of the JSON and TOML
position finders (``jsonpos``, ``tomlpos``).

The parser of the format (``json``, ``tomllib``) reads the value and reports syntax errors; the
format's finder then answers, for a JSON pointer (TOML key paths are written as pointers too),
the character offset of the value or its key in the same, already-valid text. Offsets become
1-based line and column by counting ``\\n`` only, as both parsers count lines
(``str.splitlines`` would also split at U+2028 inside a string).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable
from functools import cached_property
from itertools import accumulate, count
from operator import add
from typing import Any, ClassVar, TypeVar

_MAX_DIGITS = sys.get_int_max_str_digits() or 4300
_DIGITS = re.compile(rf"\d{{{_MAX_DIGITS + 1},}}")

T = TypeVar("T")
# (line, column, end line, end column): 1-based, the end column one past the last character
Extent = tuple[int, int, int, int]


class SourceSyntaxError(ValueError):
    """Text the format's parser refused, at a 1-based line and column."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class LineIndex:
    """Character offsets of one text as 1-based (line, column). The first few are counted
    in the text; after that an index of line starts answers each by a binary search."""

    counted = 8  # lookups answered by counting newlines, before the index is built

    def __init__(self, text: str) -> None:
        self.text = text
        self.lookups = 0

    @cached_property
    def starts(self) -> list[int]:
        # line n + 1 starts after the lengths of lines 1..n and their n newlines (all in C)
        lengths = accumulate(map(len, self.text.split("\n")[:-1]))
        return [0, *map(add, lengths, count(1))]

    def line_col(self, offset: int) -> tuple[int, int]:
        if self.lookups < self.counted:
            self.lookups += 1
            line_start = self.text.rfind("\n", 0, offset) + 1
            return self.text.count("\n", 0, line_start) + 1, offset - line_start + 1
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


class PositionedDocument:
    """The parsed ``value`` of ``text``, with the (line, column) of each value and object key
    by pointer and the pointers of keys that appear twice in one object. The formats answer
    ``value_position``/``key_position`` (``None`` where the pointer is not in the text)."""

    # Where a pointer is not in the text, fall back to the parent's key before its value?
    # TOML: yes (a key inside an inline table is not scanned; its table's key names the line).
    parent_keys: ClassVar[bool] = False

    def __init__(self, value: Any, text: str) -> None:
        self.value = value
        self.text = text
        self.duplicate_keys: list[str] = []

    @cached_property
    def index(self) -> LineIndex:
        return LineIndex(self.text)

    def value_position(self, pointer: str) -> tuple[int, int] | None:
        raise NotImplementedError

    def key_position(self, pointer: str) -> tuple[int, int] | None:
        raise NotImplementedError

    def value_extent(self, pointer: str) -> Extent | None:
        raise NotImplementedError

    def key_extent(self, pointer: str) -> Extent | None:
        raise NotImplementedError

    def extent(self, pointer: str, *, key: bool = False) -> Extent:
        """Where the value at ``pointer`` starts and ends, as ``position`` finds it: (line,
        column, end line, end column), the end column one past the value's last character.
        With ``key`` it is the member, from its key to the end of its value. A pointer not in
        the text takes its nearest parent's extent, as ``position`` does; the empty pointer
        not in the text either (no text) is the first character."""
        return self._nearest(pointer, key, self.key_extent, self.value_extent, (1, 1, 1, 2))

    def span_extent(self, start: int, end: int) -> Extent:
        """The extent of the characters ``start`` up to (not including) ``end``: on one line
        (the usual value) the end column is counted from the start, at C speed."""
        line, column = self.index.line_col(start)
        if self.text.find("\n", start, end) < 0:
            return line, column, line, column + max(end - start, 1)
        return (line, column, *self.index.line_col(end))

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        """Position of the value (or its key) at ``pointer``, else of the nearest parent."""
        return self._nearest(pointer, key, self.key_position, self.value_position, (1, 1))

    def _nearest(
        self,
        pointer: str,
        key: bool,
        by_key: Callable[[str], T | None],
        by_value: Callable[[str], T | None],
        root: T,
    ) -> T:
        """What ``by_key`` (with ``key``) or else ``by_value`` finds for ``pointer``, else for
        its nearest parent that is in the text (its key too where ``parent_keys``); ``root``
        when not even the empty pointer is."""
        want_key = key
        while True:
            if want_key and (found := by_key(pointer)) is not None:
                return found
            if (found := by_value(pointer)) is not None:
                return found
            if not pointer:
                return root
            # "" when no "/" is left: a pointer that does not start with one ends at the root
            pointer = pointer.rpartition("/")[0]
            want_key = key and self.parent_keys


def long_number(text: str, exc: ValueError) -> tuple[str, int, int]:
    """Message and position for Python's int/str digit limit (JSON and TOML parsers alike)."""
    match = _DIGITS.search(text)
    if match is None:
        return str(exc), 1, 1
    message = f"number with more than {_MAX_DIGITS} digits"
    return (message, *LineIndex(text).line_col(match.start()))


Error = TypeVar("Error", bound=SourceSyntaxError)


def load_text(
    text: str,
    loads: Callable[[str], Any],
    decode_error: type[ValueError],
    where: Callable[[Any], tuple[str, int, int]],
    error: type[Error],
) -> Any:
    """``loads(text)``, every failure raised as ``error`` at its line and column: the parser's
    own error (placed by ``where``), nesting beyond Python's recursion limit, and a number
    beyond Python's int/str digit limit."""
    try:
        return loads(text)
    except decode_error as exc:
        raise error(*where(exc)) from None
    except RecursionError:
        raise error("nesting too deep", 1, 1) from None
    except ValueError as exc:  # Python's int/str digit limit
        raise error(*long_number(text, exc)) from None
