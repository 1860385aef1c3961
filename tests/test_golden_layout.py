"""Every golden directory has a harness and every registered agent has golden cases: a case
directory no test names would be bytes nobody compares (the add-an-agent trap of issue 27)."""

from __future__ import annotations

import ast
from pathlib import Path

from support.golden import GOLDEN_ROOT

from twsrt.agents import REGISTRY

TESTS = Path(__file__).resolve().parent


def harness_names(tests: Path = TESTS) -> set[str]:
    """The string constants of every test module that uses the golden harness (a case set is
    named by its directory: ``case_names("claude")``, ``GoldenCase("codex-project", ...)``,
    ``GOLDEN_ROOT / "show"``, a table keyed by the name)."""
    names: set[str] = set()
    for path in sorted(tests.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if "support.golden" not in text or path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
    return names


def golden_sets(root: Path = GOLDEN_ROOT) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir())


def test_every_golden_directory_has_a_harness() -> None:
    unread = [name for name in golden_sets() if name not in harness_names()]
    assert unread == [], f"tests/golden/ directories no test module names: {unread}"


def test_every_registered_agent_has_golden_cases() -> None:
    missing = [name for name in REGISTRY if not (GOLDEN_ROOT / name).is_dir()]
    assert missing == [], f"registered agents without tests/golden/<agent>/: {missing}"
    empty = [name for name in REGISTRY if not any((GOLDEN_ROOT / name).iterdir())]
    assert empty == [], f"agents whose golden directory holds no case: {empty}"


def test_the_check_sees_a_directory_no_harness_names(tmp_path: Path) -> None:
    (tmp_path / "golden" / "orphan" / "case").mkdir(parents=True)
    (tmp_path / "golden" / "named" / "case").mkdir(parents=True)
    (tmp_path / "test_named.py").write_text(
        "from support.golden import case_names\nCASES = case_names('named')\n", encoding="utf-8"
    )
    sets = golden_sets(tmp_path / "golden")
    assert [name for name in sets if name not in harness_names(tmp_path)] == ["orphan"]
