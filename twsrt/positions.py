"""A parsed document that knows where its values and keys sit: the base the JSON and TOML
scanners (``jsonpos``, ``tomlpos``) fill in.

The parser of the format (``json``, ``tomllib``) reads the value and reports syntax errors; a
scanner then walks the same, already-valid text and records the character offset of each value
and key by JSON pointer (TOML key paths are written as pointers too). Offsets become 1-based
line and column through one index of line starts built once per text; lines end at ``\\n``
only, as both parsers count them (``str.splitlines`` would also split at U+2028 inside a
string).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, TypeVar

_MAX_DIGITS = sys.get_int_max_str_digits() or 4300
_DIGITS = re.compile(rf"\d{{{_MAX_DIGITS + 1},}}")


class SourceSyntaxError(ValueError):
    """Text the format's parser refused, at a 1-based line and column."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class LineIndex:
    """Character offsets of one text as 1-based (line, column), each a binary search."""

    def __init__(self, text: str) -> None:
        self.starts = [0]
        self.starts.extend(index + 1 for index, char in enumerate(text) if char == "\n")

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


@dataclass
class PositionedDocument:
    """The parsed ``value`` of ``text``, with the (line, column) of each value and object key
    by pointer and the pointers of keys that appear twice in one object."""

    value: Any
    text: str = field(repr=False)
    values: dict[str, tuple[int, int]] = field(default_factory=dict)
    keys: dict[str, tuple[int, int]] = field(default_factory=dict)
    duplicate_keys: list[str] = field(default_factory=list)
    # Where a pointer is not in the text, fall back to the parent's key before its value?
    # TOML: yes (a key inside an inline table is not scanned; its table's key names the line).
    parent_keys: ClassVar[bool] = False

    @cached_property
    def index(self) -> LineIndex:
        return LineIndex(self.text)

    def mark_value(self, pointer: str, offset: int) -> None:
        self.values[pointer] = self.index.line_col(offset)

    def mark_key(self, pointer: str, offset: int) -> None:
        self.keys[pointer] = self.index.line_col(offset)

    def position(self, pointer: str, *, key: bool = False) -> tuple[int, int]:
        """Position of the value (or its key) at ``pointer``, else of the nearest parent."""
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
