"""A passing run uploads no alerts (issue 29, item 4): the clean example exits 0, and its SARIF
holds no result, though the example accepts findings with ``[[check.ignore]]``. GitHub code
scanning does not honour ``suppressions`` in an uploaded file (it would show them as open
alerts); ``--sarif-suppressed`` keeps them, marked, for tools that do read them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.cli import run_here
from support.reports import validate_sarif

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    repo = home / "dotfiles"
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    (repo / ".git").mkdir()
    for key in ("TWSRT_CONFIG", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(repo)
    return repo


def test_a_passing_run_uploads_no_accepted_finding(example: Path) -> None:
    result = run_here("check", "--sarif", "out.sarif", "--sarif-suppressed", "all.sarif")
    assert result.returncode == 0, result.stdout + result.stderr
    upload = json.loads((example / "out.sarif").read_text("utf-8"))
    validate_sarif(upload)
    active = upload["runs"][0]["results"]
    # no accepted finding for code scanning to open as an alert: the example's notes only
    assert {r["level"] for r in active} == {"note"}
    assert all("suppressions" not in r for r in active)

    kept = json.loads((example / "all.sarif").read_text("utf-8"))
    validate_sarif(kept)
    results = kept["runs"][0]["results"]
    assert results[: len(active)] == active
    hidden = results[len(active) :]
    assert hidden and all(r["suppressions"][0]["kind"] == "external" for r in hidden)
    assert "error" in {r["level"] for r in hidden}  # what the upload used to open as alerts
    assert kept["runs"][0]["tool"] == upload["runs"][0]["tool"]


def test_sarif_suppressed_on_stdout_is_the_file(example: Path) -> None:
    result = run_here("check", "--format", "sarif-suppressed", "--sarif-suppressed", "f.sarif")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (example / "f.sarif").read_text("utf-8")
