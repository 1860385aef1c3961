"""The test suite's own layout: helpers come from ``tests/support/`` (or a helper module of
``tests/real/``), never from ``conftest`` or from another test module."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def is_test_module(name: str) -> bool:
    return name == "conftest" or name.startswith("test_")


def forbidden_imports(path: Path, root: Path = TESTS) -> list[str]:
    """Each import statement of ``path`` that reaches conftest or a test module."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        bad = [n for n in names if any(is_test_module(part) for part in n.split("."))]
        if bad:
            out.append(f"{path.relative_to(root)}:{node.lineno}: {bad[0]}")
    return out


def test_no_test_imports_from_conftest_or_a_test_module() -> None:
    found = [line for path in sorted(TESTS.rglob("*.py")) for line in forbidden_imports(path)]
    assert found == []


def test_the_import_check_sees_every_form(tmp_path: Path) -> None:
    """The check above has teeth: each way of reaching a test module is reported."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import conftest\n"
        "from conftest import Sandbox\n"
        "from test_precommit import isolated_env\n"
        "from .test_claude_client import DEFAULT_BIN\n"
        "from . import test_twsrt_test\n"
        "from support.sandbox import Sandbox\n"
        "import json\n",
        encoding="utf-8",
    )
    found = forbidden_imports(probe, tmp_path)
    assert [line.split(": ", 1)[0] for line in found] == [f"probe.py:{n}" for n in range(1, 6)]
