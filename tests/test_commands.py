"""Every command is one sibling module of ``twsrt.commands`` and none imports another (issue 27):
what two commands share stands below the package, so a command can change, or a new one
arrive, without touching its siblings. Imports inside functions and under ``TYPE_CHECKING``
count (tests/support/imports.py reads them all)."""

from __future__ import annotations

from pathlib import Path

from support.imports import Edge, edges, modules
from support.sandbox import REPO_ROOT

PACKAGE = REPO_ROOT / "twsrt"
COMMANDS = ("generate", "diff", "edit", "check", "show", "test", "init", "explain", "schema")


def sibling_imports(package: Path) -> list[Edge]:
    """Imports of one module below ``commands`` by another (the package's ``__init__`` too)."""
    found = edges(package)
    return [
        edge
        for edge in found
        if edge.source.startswith("commands.")
        and (edge.target == "commands" or edge.target.startswith("commands."))
    ]


def test_every_command_is_a_module_of_the_package() -> None:
    names = {name.partition(".")[2] for name in modules(PACKAGE) if name.startswith("commands.")}
    assert set(COMMANDS) <= names


def test_no_command_imports_another() -> None:
    assert sibling_imports(PACKAGE) == [], "share it below twsrt.commands instead"


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "commands").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "commands" / "__init__.py").write_text("")
    (package / "commands" / "one.py").write_text("def run():\n    from pkg.commands import two\n")
    (package / "commands" / "two.py").write_text("")
    found = sibling_imports(package)
    assert [(e.source, e.target, e.in_function) for e in found] == [
        ("commands.one", "commands.two", True)
    ]
