"""Find the third-party tools of the real-tool tests (tests/real, mark `real`) and of the tests
marked `tool` (pre-commit, zizmor, actionlint, shellcheck).

A missing tool skips the test, unless TWSRT_REQUIRE_REAL_TOOLS=1 (as in CI),
where it fails it instead.
"""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_ENV = "TWSRT_REQUIRE_REAL_TOOLS"


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def locate_tool(name: str, env_var: str, *defaults: str) -> str | None:
    """Path of a tool: $env_var if set (taken as is), else the first
    executable default, else `name` on PATH; None if none is found."""
    explicit = os.environ.get(env_var)
    if explicit:
        return explicit
    for cand in defaults:
        if _is_executable(cand):
            return cand
    return shutil.which(name)


def require_tool(name: str, path: str | None) -> str:
    """Return `path` if it is an executable file; else skip the test, or fail
    it when TWSRT_REQUIRE_REAL_TOOLS=1."""
    if path and _is_executable(path):
        return path
    msg = f"real tool {name!r} not found" + (f" at {path}" if path else "")
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{msg} ({REQUIRE_ENV}=1 requires it)", pytrace=False)
    pytest.skip(f"{msg} (the install scripts are in .ci/)")
