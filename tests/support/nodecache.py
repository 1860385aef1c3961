"""One Node compile cache per test session for the agents that run on Node (Qwen Code, Gemini
CLI): every headless run starts from a fresh HOME and TMPDIR, so a cache of their own would be
cold each time. With ``NODE_COMPILE_CACHE`` naming one directory that outlives the run, a
bundle is compiled once: measured on the 2-core test machine, one Qwen run's CPU fell from
2.5 s to 2.1 s and one Gemini run's (on Node 22) from 1.0 s to 0.85 s (1.4 s to 1.2 s with its
tool sandbox on). Only speed changes: Node checks each entry against the source's hash and
recompiles what does not match.

The pytest process that starts the xdist workers makes the directory (``start_session_cache``,
from tests/conftest.py) and names it in ``TWSRT_NODE_COMPILE_CACHE``, so the workers share it and
only the first runs of the session fill it (runs started together are all cold: Node writes
the cache when a process exits, each entry to a temporary file renamed into place, so runs in
parallel never read a half-written one). A process without that variable makes its own.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable
from functools import cache

ENV = "TWSRT_NODE_COMPILE_CACHE"


def _make() -> str:
    return tempfile.mkdtemp(prefix="twsrt-node-cache-", dir="/var/tmp")


@cache
def compile_cache_dir() -> str:
    """The session's cache directory, else this process's own (made on first use, removed at
    exit)."""
    shared = os.environ.get(ENV)
    if shared and os.path.isdir(shared):
        return shared
    path = _make()
    atexit.register(shutil.rmtree, path, True)
    return path


def start_session_cache() -> Callable[[], None] | None:
    """Make the session's directory and export it to the processes started from here (the
    xdist workers); returns what removes it, or None when one is already named."""
    if os.environ.get(ENV):
        return None
    path = os.environ[ENV] = _make()

    def drop() -> None:
        shutil.rmtree(path, ignore_errors=True)
        os.environ.pop(ENV, None)

    return drop
