"""Source locations: every value twsrt reads knows where it came from; how a run names a
file (``display_path``) and where the repository around it stands (``git_root``)."""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import Protocol

from twsrt.records import record


@record(order=True)
class Location:
    """A 1-based line/column position in a file, plus the JSON pointer or TOML key path, and
    where the value there ends when the location was found in a parsed document (``located``):
    ``end_column`` is one past its last character, 0 (with ``end_line``) when not known. The
    end takes no part in equality, order or hash: one place is one place, however much of it
    a finding marks."""

    path: str
    line: int = 0
    column: int = 0
    pointer: str = ""
    end_line: int = field(default=0, compare=False)
    end_column: int = field(default=0, compare=False)

    def __str__(self) -> str:
        if self.line:
            return f"{self.path}:{self.line}:{self.column}"
        return self.path


class Positioned(Protocol):
    """A parsed document that knows where each pointer's value starts and ends
    (``positions.PositionedDocument``)."""

    def extent(self, pointer: str, *, key: bool = False) -> tuple[int, int, int, int]: ...


def located(
    path: str, document: Positioned, pointer: str, *, key: bool = False, at: str | None = None
) -> Location:
    """Where ``pointer`` (its member, from the key, with ``key``) stands in ``document``, named
    ``path``, start and end; ``at`` is the pointer to look up when it is not ``pointer``."""
    line, column, end_line, end_column = document.extent(pointer if at is None else at, key=key)
    return Location(path, line, column, pointer, end_line, end_column)


def pointer_join(pointer: str, token: str | int) -> str:
    """Append one reference token to a JSON pointer (RFC 6901 escaping)."""
    text = str(token).replace("~", "~0").replace("/", "~1")
    return f"{pointer}/{text}"


def home_dir() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def display_path(path: Path, base: Path | None = None) -> str:
    """How a file is named in messages: relative to ``base`` (default: the working directory)
    when inside it, else from ``~/``, else absolute."""
    try:
        return path.relative_to(base or Path.cwd()).as_posix()
    except ValueError:
        pass
    try:
        return "~/" + path.relative_to(home_dir()).as_posix()
    except ValueError:
        return path.as_posix()


def ancestors(start: Path) -> list[Path]:
    """``start`` and its parents, stopping below any of git's ``GIT_CEILING_DIRECTORIES``."""
    ceilings = {
        Path(item) for item in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":") if item
    }
    chain = []
    for directory in [start, *start.parents]:
        if directory in ceilings:
            break
        chain.append(directory)
    return chain or [start]


def git_root(path: Path) -> Path | None:
    """The git root containing ``path`` (a file or directory); None outside a repository."""
    start = path if path.is_dir() else path.parent
    for directory in ancestors(start):
        if (directory / ".git").exists():
            return directory
    return None


def repo_root(path: Path) -> Path:
    """The git root containing ``path`` (a file or directory), else its directory."""
    return git_root(path) or (path if path.is_dir() else path.parent)
