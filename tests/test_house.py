"""House limits from issue 16 that keep the package easy to extend: no module past 500 lines, and
ruff's complexity check on at 12 (ruff itself runs in tests/run.sh and CI)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from support.sandbox import REPO_ROOT

MAX_MODULE_LINES = 500


def oversized_modules(package: Path, limit: int = MAX_MODULE_LINES) -> list[str]:
    """``path: lines`` for every Python module under ``package`` longer than ``limit`` lines."""
    found = []
    for path in sorted(package.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{path.relative_to(package.parent)}: {lines}")
    return found


def test_no_module_of_the_package_is_over_500_lines() -> None:
    found = oversized_modules(REPO_ROOT / "twsrt")
    assert found == []


def test_the_size_check_reports_a_long_module(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "short.py").write_text("x = 1\n" * MAX_MODULE_LINES)
    (package / "sub" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert oversized_modules(package) == ["pkg/sub/long.py: 501"]


def test_ruff_checks_complexity_at_12() -> None:
    lint = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert "C90" in lint["select"]
    assert lint["mccabe"]["max-complexity"] == 12


def unmapped(package: Path, architecture: str) -> list[str]:
    """Top-level modules and subpackages of ``package`` that the architecture map never names."""
    names = [f"{p.name}" for p in package.glob("*.py") if not p.name.startswith("__")]
    names += [f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()]
    return sorted(
        name for name in names if f"`{name}" not in architecture and name not in architecture
    )


def test_the_architecture_map_names_every_module() -> None:
    """docs/architecture.md is the map: a new module or package must appear in it."""
    architecture = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert unmapped(REPO_ROOT / "twsrt", architecture) == []


def test_the_map_check_sees_a_new_module(tmp_path: Path) -> None:
    (tmp_path / "known.py").write_text("")
    (tmp_path / "fresh.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    assert unmapped(tmp_path, "`known.py` does one job") == ["fresh.py", "pkg/"]
