"""GitLab Code Quality (issue 29, item 1): ``check --gitlab FILE`` and ``--format gitlab`` write
the JSON array GitLab reads from ``artifacts:reports:codequality``, every issue valid against
GitLab's own schema (tests/fixtures/gitlab, the one its parser checks each issue with) and its
documented field table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from support.cli import run_here
from support.sample_report import make_report

from twsrt import rules
from twsrt.findings import Finding, Level
from twsrt.locations import Location
from twsrt.report import CheckReport
from twsrt.reports import REPORTERS, RenderOptions, render
from twsrt.reports.gitlab import SEVERITY

FIXTURES = Path(__file__).parent / "fixtures" / "gitlab"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles"
# GitLab's documented severities (doc/ci/testing/code_quality.md), lowest first
SEVERITIES = ("info", "minor", "major", "critical", "blocker")


def gitlab_issues(text: str) -> list[dict]:
    """The report as GitLab's parser reads it: a JSON array, each issue checked against the
    published schema (the parser stops at the first invalid one, so every issue must pass),
    and the documented fields with their documented types and values."""
    schema = json.loads((FIXTURES / "codeclimate.json").read_text("utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    issues = json.loads(text)
    assert isinstance(issues, list)
    for issue in issues:
        validator.validate(issue)
        assert isinstance(issue["check_name"], str) and issue["check_name"]
        assert issue["severity"] in SEVERITIES
        assert isinstance(issue["location"]["path"], str) and issue["location"]["path"]
        begin = issue["location"]["lines"]["begin"]
        assert isinstance(begin, int) and begin >= 1
    # GitLab keeps one issue per fingerprint: two would silently become one
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(fingerprints) == len(set(fingerprints))
    return issues


def test_gitlab_is_a_registered_check_format_and_file_option() -> None:
    reporter = REPORTERS["gitlab"]
    assert reporter.file_help and reporter.for_programs


def test_every_issue_validates_and_names_its_finding(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    issues = gitlab_issues(render("gitlab", report, RenderOptions()))
    distinct = list({item.fingerprint: item for item in report.findings}.values())
    assert len(issues) == len(distinct) == len(report.findings) - 1  # one finding is listed twice
    for issue, item in zip(issues, distinct, strict=True):
        assert issue["check_name"] == f"{item.rule_id} {item.rule.name}"
        assert issue["description"] == item.message + item.tail()
        assert issue["fingerprint"] == item.fingerprint
        assert issue["severity"] == SEVERITY[item.level]
        assert issue["location"]["path"] == item.location.path
        assert issue["location"]["lines"]["begin"] == max(item.location.line, 1)
        if item.agent:
            assert f"agent {item.agent}" in issue["description"]


def test_severity_ranks_errors_above_warnings_above_notes() -> None:
    assert [SEVERITIES.index(SEVERITY[level]) for level in Level] == [3, 1, 0]


def test_suppressed_findings_and_an_empty_report(tmp_path: Path) -> None:
    text = render("gitlab", make_report(tmp_path), RenderOptions())
    assert "SECRET-SUPPRESSED" not in text
    assert gitlab_issues(render("gitlab", CheckReport(root=tmp_path), RenderOptions())) == []


def test_unknown_line_is_the_first_line(tmp_path: Path) -> None:
    item = Finding(rules.TARGET_MISSING.id, "gone", Location(".codex/config.toml"))
    (issue,) = gitlab_issues(render("gitlab", CheckReport([item], root=tmp_path), RenderOptions()))
    assert issue["location"] == {"path": ".codex/config.toml", "lines": {"begin": 1}}


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bundled example, with one target edited by hand: drift, an error."""
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


def test_check_gitlab_file_on_the_example(example: Path) -> None:
    result = run_here("check", "--format", "gitlab", "--gitlab", "gl-code-quality.json")
    assert result.returncode == 1, result.stderr  # the drift; the format never changes it
    assert result.stdout == (example / "gl-code-quality.json").read_text("utf-8")
    issues = gitlab_issues(result.stdout)
    drift = [issue for issue in issues if issue["check_name"].startswith("TWS30")]
    assert drift and all(issue["severity"] == "critical" for issue in drift)
    assert {issue["location"]["path"] for issue in drift} == {"home/.codex/config.toml"}
    # paths are the repository's, as GitLab links them to the blob of the commit
    assert all(not issue["location"]["path"].startswith("/") for issue in issues)


def test_an_aborted_run_is_an_issue_too(example: Path) -> None:
    result = run_here("check", "--format", "gitlab", "-c", "missing.toml")
    assert result.returncode == 2
    (issue,) = gitlab_issues(result.stdout)
    assert issue["check_name"].startswith("TWS001") and issue["severity"] == "critical"
    assert "TWS001" in result.stderr  # stdout is for a program: the person is told on stderr


def test_the_documented_gitlab_job_writes_both_reports(example: Path) -> None:
    """docs/ci.md's `.gitlab-ci.yml`: its `twsrt check` line, run on the example, writes the
    two files its `artifacts:reports` name, each as its consumer reads it."""
    import re
    import shlex

    import yaml
    from support.reports import parse_junit

    doc = (Path(__file__).resolve().parent.parent / "docs" / "ci.md").read_text("utf-8")
    (block,) = [
        body
        for body in re.findall(r"^```yaml\n(.*?)^```$", doc, re.M | re.S)
        if "codequality" in body
    ]
    job = yaml.safe_load(block)["twsrt"]
    (command,) = [line for line in job["script"] if line.startswith("twsrt check")]
    reports = job["artifacts"]["reports"]
    assert job["artifacts"]["when"] == "always"
    result = run_here(*shlex.split(command)[1:])
    assert result.returncode == 1, result.stderr  # the example's drift
    assert gitlab_issues((example / reports["codequality"]).read_text("utf-8"))
    suite = parse_junit((example / reports["junit"]).read_text("utf-8"))
    assert suite.find("testsuite").get("failures") != "0"
