"""The reporter registry (`twsrt/reports/__init__.py`) drives `check --format` and the report file
options."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import click
import pytest
from support.cli import run_here

from twsrt.checking import check_report
from twsrt.cli import cli
from twsrt.findings import Level
from twsrt.report import CheckReport
from twsrt.reports import REPORTERS, RenderOptions, render
from twsrt.request import Request

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"
FILE_FORMATS = [name for name, reporter in REPORTERS.items() if reporter.file_help]


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled example in a git repository inside a temporary HOME, as the working
    directory, with one target edited by hand so the report has drift (an error) too."""
    home = tmp_path / "home"
    repo = home / "dotfiles"
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    (repo / ".git").mkdir()
    codex = repo / "home" / ".codex" / "config.toml"
    codex.write_text(codex.read_text(encoding="utf-8").replace('"~/.ssh"', '"~/.sshx"', 1))
    for key in ("TWSRT_CONFIG", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(repo)
    return repo


@pytest.fixture
def report(example: Path) -> CheckReport:
    found = check_report(Request())
    levels = {item.level for item in found.findings}
    assert Level.ERROR in levels and Level.NOTE in levels, levels  # the example's findings
    assert found.suppressed
    return found


def invoke(*args: str) -> tuple[int, str, str]:
    result = run_here(*args)
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout, result.stderr


def test_cli_choices_are_the_registry() -> None:
    check = cli.commands["check"]
    options = {p.name: p for p in check.params if isinstance(p, click.Option)}
    output_format = options["output_format"]
    assert isinstance(output_format.type, click.Choice)
    assert tuple(output_format.type.choices) == tuple(REPORTERS)
    file_options = [p.opts for p in check.params if p.name and p.name.endswith("_file")]
    assert file_options == [[f"--{name}"] for name in FILE_FORMATS]
    assert {"json", "sarif", "junit"} <= set(FILE_FORMATS)  # the files CI has always written


@pytest.mark.parametrize("name", list(REPORTERS))
def test_every_format_renders_the_example_findings(report: CheckReport, name: str) -> None:
    text = render(name, report, RenderOptions(verbose=True))
    assert text == render(name, report, RenderOptions(verbose=True))  # deterministic
    for item in report.findings:
        assert item.rule_id in text, (name, item.rule_id)
        assert item.location.path in text, (name, item.location.path)
    if name in ("text", "json", "sarif-suppressed"):  # the formats that list suppressed findings
        assert all(item.rule_id in text for item, _ in report.suppressed), name
    if name in ("json", "sarif", "sarif-suppressed"):
        json.loads(text)
    if name == "junit":
        ET.fromstring(text)


@pytest.mark.parametrize("name", FILE_FORMATS)
def test_format_on_stdout_is_the_file_option_report(example: Path, name: str) -> None:
    code, out, err = invoke("check", "--format", name, f"--{name}", "report.out")
    assert code == 1, err  # the drift; the format never changes the exit code
    assert out == (example / "report.out").read_text(encoding="utf-8")
    assert err == ""


def test_every_file_option_writes_its_own_format(example: Path) -> None:
    args = [arg for name in FILE_FORMATS for arg in (f"--{name}", f"out.{name}")]
    code, out, _ = invoke("check", "-q", *args)
    assert code == 1 and "error[TWS30" in out
    written = {name: (example / f"out.{name}").read_text(encoding="utf-8") for name in FILE_FORMATS}
    assert json.loads(written["json"])["version"] == 1
    assert json.loads(written["sarif"])["version"] == "2.1.0"
    assert ET.fromstring(written["junit"]).tag == "testsuites"


@pytest.mark.parametrize(
    ("name", "for_programs"),
    [("text", False), ("json", True), ("github", False), ("sarif", True), ("junit", True)],
)
def test_an_aborted_run_says_why_on_stderr_only_for_programs(
    example: Path, name: str, for_programs: bool
) -> None:
    code, out, err = invoke("check", "--format", name, "-c", "missing.toml")
    assert code == 2 and "TWS001" in out
    # stdout for a program: the person reading the log is told on stderr too
    assert ("TWS001" in err) is for_programs, err
