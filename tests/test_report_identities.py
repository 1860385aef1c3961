"""Stable identities (issue 29, item 3): a finding's JUnit testcase name and its fingerprint
(SARIF ``partialFingerprints``, the JSON report's and GitLab's ``fingerprint``) name the rule,
file, pointer and agent, never a line: a line inserted above every finding renames nothing, so
a merge request's test diff and code scanning's alerts do not churn."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.reports import parse_junit

from twsrt.checking import check_report
from twsrt.report import CheckReport
from twsrt.reports import REPORTERS, RenderOptions, render
from twsrt.reports.sarif import FINGERPRINT_KEY
from twsrt.request import Request

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "dotfiles"
# a policy with findings that quote another place by its line (TWS204, TWS208, Codex's TWS408)
POLICY = ROOT / "tests" / "golden" / "copilot" / "paths-and-globs" / "srt.json"


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    repo = home / "dotfiles"
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    (repo / ".git").mkdir()
    (repo / "policy" / "srt-settings.json").write_text(POLICY.read_text("utf-8"), "utf-8")
    for key in ("TWSRT_CONFIG", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.chdir(repo)
    return repo


def _identities(report: CheckReport) -> dict[str, list[str]]:
    """Every identity a report carries, per format, in report order."""
    sarif = json.loads(render("sarif", report, RenderOptions()))
    junit = parse_junit(render("junit", report, RenderOptions()))
    out = {
        "junit": [case.get("name") for case in junit.iter("testcase")],
        "sarif": [
            result["partialFingerprints"][FINGERPRINT_KEY] for result in sarif["runs"][0]["results"]
        ],
        "json": [
            item["fingerprint"]
            for item in json.loads(render("json", report, RenderOptions()))["findings"]
        ],
    }
    if "gitlab" in REPORTERS:
        gitlab = json.loads(render("gitlab", report, RenderOptions()))
        out["gitlab"] = [issue["fingerprint"] for issue in gitlab]
    return out


def test_a_line_inserted_above_every_finding_changes_no_name_or_fingerprint(
    example: Path,
) -> None:
    source = example / "policy" / "srt-settings.json"
    before = check_report(Request())
    moved = [item for item in before.findings if item.location.path.endswith("srt-settings.json")]
    # the findings that quote a place by its line are among them
    assert {"TWS204", "TWS208"} <= {item.rule_id for item in moved}
    assert any(":" in item.message and item.rule_id == "TWS204" for item in moved)

    source.write_text("\n" + source.read_text("utf-8"), "utf-8")  # every finding one line down
    after = check_report(Request())
    lines = {(item.rule_id, item.location.pointer, item.agent): item for item in after.findings}
    for item in moved:  # each one did move, message and all
        shifted = lines[item.rule_id, item.location.pointer, item.agent]
        assert shifted.location.line == item.location.line + 1, item
    assert len(moved) >= 10

    first, second = _identities(before), _identities(after)
    assert first == second
    for name in first["junit"]:  # no line:col in a testcase name
        assert ":" not in name.split(" ")[0], name
    assert len(set(first["sarif"])) == len(first["sarif"])  # still one per finding
