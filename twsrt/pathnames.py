"""What a path a config or the command line names may hold, checked before it is first used.

Every ``stat``, ``open`` and ``realpath`` of a name with a NUL fails (Python raises before the
system call), and of a component over NAME_MAX or a path at PATH_MAX fails with
ENAMETOOLONG; a name with a control character (ESC, a newline, DEL, C1) can be created, but
then reaches every report and terminal as it is and would let a pull request forge a line or
start a terminal command. So each such name is refused where it is written, with the key, as a
located error (exit code 2), before anything is read or written. A tab is allowed, as in the
policy's own strings (``sources.control_characters``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# C0 but the tab, DEL and C1: the characters a terminal or a CI log may act on
CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
PATH_MAX = 4096
_NAME_MAX = 255


def control_problem(text: str) -> str:
    """Why ``text`` (a path as written, a home) may not name a file ("" when it may)."""
    match = CONTROL.search(text)
    if match is None:
        return ""
    what = "a NUL byte" if match[0] == "\0" else f"the control character U+{ord(match[0]):04X}"
    return f"holds {what}; twsrt refuses file names with control characters"


def length_problem(path: Path) -> str:
    """Why no file can have this name (every ``stat`` of it fails: ENAMETOOLONG), else ""."""
    limit = name_max()
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > limit:
            return f"file name is {size} bytes, longer than the file system allows ({limit})"
    size = len(os.fsencode(path))
    if size >= PATH_MAX:
        return f"path is {size:,} bytes, longer than the file system allows ({PATH_MAX} bytes)"
    return ""


def name_problem(path: Path) -> str:
    """``control_problem`` of the path, else its ``length_problem``."""
    return control_problem(str(path)) or length_problem(path)


def name_max() -> int:
    try:
        return os.pathconf("/", "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return _NAME_MAX
