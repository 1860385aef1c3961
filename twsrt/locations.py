"""Source locations: every value twsrt reads knows where it came from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based line/column position in a file, plus the JSON pointer or TOML key path."""

    path: str
    line: int = 0
    column: int = 0
    pointer: str = ""

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.column}"
        return self.path


def pointer_join(pointer: str, token: str | int) -> str:
    """Append one reference token to a JSON pointer (RFC 6901 escaping)."""
    text = str(token).replace("~", "~0").replace("/", "~1")
    return f"{pointer}/{text}"
