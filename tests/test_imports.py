"""The import graph of the package (issue 27): no circles, no import that runs back up a floor
(docs/architecture.md, "Floors"), every module on a floor. Imports inside functions and under
``TYPE_CHECKING`` count as any other (tests/support/imports.py says why).

The known debt below is what stood when this test came; it may only shrink: a circle or an
upward import that is gone must leave the list (the test says which), and nothing may join it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.imports import (
    Edge,
    circle_edges,
    circles,
    edges,
    floor_of,
    floors_from_markdown,
    modules,
    upward,
)
from support.sandbox import REPO_ROOT

PACKAGE = REPO_ROOT / "twsrt"

# Circles still open, each a set of modules: a measured circle must lie inside one of them.
KNOWN_CIRCLES: list[set[str]] = []

# Imports that still run back up a floor, as (importer, imported).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _floors() -> dict[str, int]:
    return floors_from_markdown((REPO_ROOT / "docs" / "architecture.md").read_text("utf-8"))


def _listed(found: list[Edge]) -> str:
    return "\n".join(f"  {edge}" for edge in found)


def test_every_module_stands_on_a_floor() -> None:
    table = _floors()
    unplaced = [module for module in modules(PACKAGE) if floor_of(module, table) is None]
    assert unplaced == [], f"add each to the floors table of docs/architecture.md: {unplaced}"


def test_no_new_import_circle() -> None:
    graph = edges(PACKAGE)
    measured = circles(graph)
    new = [c for c in measured if not any(set(c) <= known for known in KNOWN_CIRCLES)]
    assert new == [], "new import circles:\n" + "\n\n".join(
        f"{circle}:\n{_listed(circle_edges(graph, circle))}" for circle in new
    )
    closed = [known for known in KNOWN_CIRCLES if not any(set(c) <= known for c in measured)]
    assert closed == [], f"circles now gone: remove them from KNOWN_CIRCLES: {closed}"
    shrunk = [(sorted(known), c) for known in KNOWN_CIRCLES for c in measured if set(c) < known]
    assert shrunk == [], f"circles now smaller: shrink KNOWN_CIRCLES to them: {shrunk}"


def test_no_new_import_runs_back_up() -> None:
    table = _floors()
    found = upward(edges(PACKAGE), table)
    new = [edge for edge in found if (edge.source, edge.target) not in KNOWN_UPWARD]
    assert new == [], "imports from a lower floor to a higher one:\n" + _listed(
        [edge for edge in new]
    )
    gone = sorted(KNOWN_UPWARD - {(edge.source, edge.target) for edge in found})
    assert gone == [], f"upward imports now gone: remove them from KNOWN_UPWARD: {gone}"


def test_the_graph_sees_function_level_imports_and_circles(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "low.py").write_text("def f():\n    from pkg.high import x\n")
    (package / "high.py").write_text("from pkg import low\nx = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "part.py").write_text("from pkg.sub import y\n")
    graph = edges(package)
    assert [str(e) for e in graph] == [
        "high -> low (line 1)",
        "low -> high (line 2) (in a function)",
        "sub.part -> sub (line 1)",
    ]
    assert circles(graph) == [["high", "low"]]
    table = {"low": 0, "high": 1, "sub.*": 0, "sub": 0, "sub.*.engine": 2}
    assert [str(e) for e in upward(graph, table)] == ["low -> high (line 2) (in a function)"]
    assert floor_of("sub.part", table) == 0 and floor_of("other", table) is None
    assert floor_of("sub.a.engine", table) == 2 and floor_of("sub.a.other", table) == 0


def test_the_config_values_are_frozen() -> None:
    """A stage that needs another view of the config makes one (``dataclasses.replace``)."""
    import dataclasses

    from twsrt.config import Config, Fragment, Selection

    for value in (Config, Fragment, Selection):
        instance = value.__new__(value)
        name = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(instance, name, None)


# check_report on the shipped example in a fresh interpreter, then list what it imported
_CHECK_AND_LIST = """
import json, sys
from twsrt.checking import check_report
from twsrt.request import Request
report = check_report(Request())
print(json.dumps({"checked": len(report.checked), "modules": sorted(sys.modules)}))
"""


def test_check_starts_without_the_probe_model() -> None:
    """check runs on every hook: the engines' gaps it reports (testing.gaps) come without the
    probe model (~5 ms of dataclasses and enums) or anything else of twsrt test."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", _CHECK_AND_LIST],
        cwd=REPO_ROOT / "examples" / "dotfiles",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["checked"] > 2
    testing = sorted(m for m in seen["modules"] if m.startswith("twsrt.testing."))
    assert testing == ["twsrt.testing.gaps"]  # not the model, globs, hostrun or the runner


def test_the_gaps_name_the_host_program_keys_hostrun_does() -> None:
    """static_gaps imports hostrun only for a policy that sets one of its keys."""
    from twsrt.testing.gaps import HOST_PROGRAM_KEYS
    from twsrt.testing.hostrun import SRT_HOST_PROGRAMS

    assert tuple(SRT_HOST_PROGRAMS) == HOST_PROGRAM_KEYS


def test_srt_gaps_are_made_once_when_first_asked_for() -> None:
    import twsrt.testing.gaps as gaps
    from twsrt.testing.globs import srt_skips_write_glob

    assert gaps.SRT_GAPS is gaps.SRT_GAPS and len(gaps.SRT_GAPS) == 3
    for path in ("a/**", "a/*", "a/**/b", "a/b", "*", "a/[x]/**"):
        assert gaps.srt_skips_write_glob(path) == srt_skips_write_glob(path)
