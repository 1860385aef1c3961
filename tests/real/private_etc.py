"""Run a real tool with system files of the test's own, never the real /etc.

``private_etc(tool, {"codex": DIR})`` yields the path of a wrapper script that starts ``tool``
under bubblewrap in a private mount namespace: ``/`` as it is, except ``/etc``, which is a
tmpfs holding every entry of the real /etc (bound one by one, symlinks recreated) plus each
named directory bound at ``/etc/<name>``. Nothing is created in the real /etc and parallel tests
cannot see each other's files. The wrapper takes the tool's own arguments (``extra`` are put
first), so the harnesses that take a tool path (``codex_client``) use it unchanged.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from support.tools import require_tool


def bwrap_argv(dirs: Mapping[str, Path]) -> list[str]:
    """bwrap's arguments for the private /etc (without the command)."""
    argv = [require_tool("bwrap", shutil.which("bwrap")), "--dev-bind", "/", "/", "--tmpfs", "/etc"]
    for entry in sorted(os.listdir("/etc")):
        if entry in dirs:
            continue
        path = os.path.join("/etc", entry)
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        else:
            argv += ["--dev-bind", path, path]
    for name, directory in sorted(dirs.items()):
        argv += ["--bind", str(directory), f"/etc/{name}"]
    return argv


@contextmanager
def private_etc(tool: str, dirs: Mapping[str, Path], extra: Sequence[str] = ()) -> Iterator[str]:
    """A wrapper that runs ``tool`` (with ``extra`` arguments first) seeing ``dirs`` as
    ``/etc/<name>``."""
    argv = [*bwrap_argv(dirs), tool, *extra]
    with tempfile.TemporaryDirectory(prefix="twsrt-etc-") as tmp:
        wrapper = Path(tmp) / "tool"
        wrapper.write_text(f'#!/bin/sh\nexec {shlex.join(argv)} "$@"\n', encoding="utf-8")
        wrapper.chmod(0o700)
        yield str(wrapper)
