"""The `real` and `tool` markers: registered, and a skip under TWSRT_REQUIRE_REAL_TOOLS=1 (as CI
sets it) is a failure, so a missing tool cannot pass CI silently."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SKIPPING = """
import pytest
from support.tools import require_tool

@pytest.mark.tool
def test_needs_a_tool():
    require_tool("no-such-tool", None)

@pytest.mark.real
def test_skips_itself():
    pytest.skip("the sandbox is not here")

def test_passes():
    pass
"""


def test_markers_are_registered() -> None:
    pyproject = tomllib.loads((TESTS.parent / "pyproject.toml").read_text(encoding="utf-8"))
    markers = pyproject["tool"]["pytest"]["ini_options"]["markers"]
    assert {m.split(":", 1)[0] for m in markers} >= {"real", "tool"}


@pytest.mark.parametrize(("required", "outcomes"), [("", (1, 2, 0)), ("1", (1, 0, 2))])
def test_skips_fail_when_tools_are_required(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    required: str,
    outcomes: tuple[int, int, int],
) -> None:
    pytester.makeconftest((TESTS / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_skipping=SKIPPING)
    pytester.syspathinsert(TESTS)
    monkeypatch.setenv("TWSRT_REQUIRE_REAL_TOOLS", required)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:xdist")
    passed, skipped, failed = outcomes
    result.assert_outcomes(passed=passed, skipped=skipped, failed=failed)
    if required:
        result.stdout.fnmatch_lines(["*TWSRT_REQUIRE_REAL_TOOLS=1 forbids skips*"])
