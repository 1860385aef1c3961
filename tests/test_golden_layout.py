"""Every golden directory has a harness and every registered agent has golden cases: a case
directory no test names would be bytes nobody compares (the add-an-agent trap of issue 27).
tests/test_golden.py finds the sets of the registered agents by directory; the project sets
are read by their scope's tests (tests/test_project_scope.py, tests/test_codex_project.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.golden import GOLDEN_ROOT
from support.golden_sets import agent_sets
from support.sandbox import make_sandbox

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
    """tests/test_golden.py checks every set of a registered agent it finds (``agent_sets``);
    any other set must be named by a test module that uses the harness."""
    found = set(agent_sets()) | harness_names()
    unread = [name for name in golden_sets() if name not in found]
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


def test_the_golden_test_finds_every_registered_agents_sets() -> None:
    """Each registered agent's own set, and each scope's set with a check of its own, is one
    of the sets tests/test_golden.py runs; a scope's set without one is left to its tests."""
    sets = agent_sets()
    assert set(REGISTRY) <= set(sets)
    assert {"claude-managed", "codex-managed"} <= set(sets)
    assert not {"claude-project", "codex-project", "deepcode-project"} & set(sets)


def test_a_new_agents_cases_are_checked_with_no_test_edit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The toy agent (tests/test_add_agent.py), registered with a golden case of its own and
    no module in support/golden_sets/, is one of the golden test's sets and its case is checked
    from its declaration: the bytes it wrote pass, a changed byte fails."""
    from support import golden, golden_sets

    root = tmp_path / "golden"
    (root / "toy" / "deny-ssh").mkdir(parents=True)
    case_dir = root / "toy" / "deny-ssh"
    (case_dir / "srt.json").write_text('{"filesystem": {"denyRead": ["~/.ssh"]}}\n')
    (case_dir / "bash.json").write_text('{"deny": ["sudo"]}\n')
    monkeypatch.setattr(golden, "GOLDEN_ROOT", root)
    monkeypatch.setattr(golden_sets, "GOLDEN_ROOT", root)
    monkeypatch.setitem(REGISTRY, "toy", "support.toyagent")
    assert golden_sets.agent_sets() == ["toy"]
    check = golden_sets.harness("toy").check
    case = golden.GoldenCase("toy", "deny-ssh")
    runs = iter(range(3))

    def run() -> None:  # each in a fresh sandbox, as each parametrised case is
        where = tmp_path / f"run{next(runs)}"
        where.mkdir()
        check(case, "workspace-write", make_sandbox(where), where)

    monkeypatch.setenv("UPDATE_GOLDEN", "1")  # the case's expected files, written once
    run()
    monkeypatch.delenv("UPDATE_GOLDEN")
    expected = case_dir / "expected.sandbox.json"
    assert '"enabled": true' in expected.read_text()
    run()
    expected.write_text(expected.read_text().replace("true", "false"))
    with pytest.raises(AssertionError):
        run()
