"""SARIF and JUnit reports: valid against the vendored schemas, complete, deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.reports import parse_junit, validate_sarif
from support.sample_report import DIFF, _find, make_report

from twsrt import rules
from twsrt.agents.codex import rules as codex_rules
from twsrt.locations import Location
from twsrt.report import CheckedFile, CheckReport
from twsrt.reports import write_reports
from twsrt.reports.junit import SUITE_NAME, junit_xml
from twsrt.reports.sarif import FINGERPRINT_KEY, SRCROOT_TEXT, _to_json, sarif_log, sarif_text
from twsrt.rules import CATALOG, Level

FIXTURES = Path(__file__).parent / "fixtures"


def _results(log: dict) -> list[dict]:
    return log["runs"][0]["results"]


def test_sarif_validates_against_githubs_schema(tmp_path: Path) -> None:
    log = sarif_log(make_report(tmp_path))
    validate_sarif(log)
    assert log["$schema"].startswith("https://")
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1


def test_sarif_written_file_validates_and_is_utf8(tmp_path: Path) -> None:
    out = tmp_path / "out" / "twsrt.sarif"
    write_reports(make_report(tmp_path), {"sarif": str(out)})
    text = out.read_text(encoding="utf-8")
    validate_sarif(json.loads(text))
    assert "重复 ✓" in text  # unicode kept as text, not \u escapes
    assert text.endswith("}\n")


def test_sarif_for_an_empty_report_is_valid(tmp_path: Path) -> None:
    log = sarif_log(CheckReport(root=tmp_path))
    validate_sarif(log)
    assert _results(log) == []
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == len(CATALOG)


def test_sarif_lists_every_catalog_rule(tmp_path: Path) -> None:
    driver = sarif_log(CheckReport(root=tmp_path))["runs"][0]["tool"]["driver"]
    assert driver["name"] == "twsrt"
    assert driver["version"]
    assert driver["informationUri"].startswith("https://")
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    assert set(by_id) == set(CATALOG)
    for rule_id, rule in CATALOG.items():
        entry = by_id[rule_id]
        assert entry["name"] == rule.name
        assert entry["shortDescription"]["text"] == rule.short
        assert entry["fullDescription"]["text"] == (rule.help or rule.short)
        assert entry["helpUri"].endswith(f"/docs/rules.md#{rule.anchor}")
        assert entry["defaultConfiguration"]["level"] == rule.level.value
        severity = entry["properties"]["security-severity"]
        assert isinstance(severity, str) and 0.0 <= float(severity) <= 10.0
        assert "security" in entry["properties"]["tags"]


def test_sarif_results_point_at_their_rules(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    log = sarif_log(report, suppressed=True)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    results = _results(log)
    every = report.findings + [item for item, _ in report.suppressed]  # suppressed ones last
    assert [r["ruleId"] for r in results] == [f.rule_id for f in every]
    for result, item in zip(results, every, strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == item.level.value
        # SARIF's plain text: a literal bracket is escaped (3.11.6), never an embedded link
        assert result["message"]["text"] == item.message.replace("[", "\\[").replace("]", "\\]")
        assert result["partialFingerprints"] == {FINGERPRINT_KEY: item.fingerprint}
        assert len(result["locations"]) == 1


def test_sarif_warning_keeps_its_explicit_level(tmp_path: Path) -> None:
    warning = _find(codex_rules.LOSSY_GLOB_SNAPSHOT, "dup", Location("srt.json", 1, 1))
    assert warning.level == CATALOG[warning.rule_id].level == Level.WARNING  # equals the default
    text = sarif_text(CheckReport(findings=[warning], root=tmp_path))
    (result,) = _results(json.loads(text))
    assert result["level"] == "warning"
    assert '"level": "warning"' in text


def test_serializer_writes_values_equal_to_sarif_om_defaults() -> None:
    import sarif_om as om

    # sarif_om's own defaults: level "warning", kind "fail", enabled True.
    result = om.Result(message=om.Message(text="m"), level="warning", kind="fail")
    data = _to_json(result)
    assert data["level"] == "warning" and data["kind"] == "fail"
    assert _to_json(om.ReportingConfiguration(level="warning"))["enabled"] is True


def test_sarif_every_result_level_is_explicit(tmp_path: Path) -> None:
    results = _results(sarif_log(make_report(tmp_path)))
    assert {r["level"] for r in results} == {"error", "warning", "note"}
    assert all("level" in r for r in results)


def test_sarif_leaves_out_suppressed_findings(tmp_path: Path) -> None:
    """Code scanning does not honour an uploaded file's suppressions: by default they are not
    results at all, so an accepted finding is never an open alert."""
    report = make_report(tmp_path)
    text = sarif_text(report)
    assert "SECRET-SUPPRESSED" not in text
    assert len(_results(json.loads(text))) == len(report.findings)


def test_sarif_suppressed_marks_suppressed_findings(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    log = sarif_log(report, suppressed=True)
    validate_sarif(log)
    ((hidden, rule),) = report.suppressed
    results = _results(log)
    assert len(results) == len(report.findings) + 1
    assert all("suppressions" not in r for r in results[:-1])
    last = results[-1]
    assert last["partialFingerprints"] == {FINGERPRINT_KEY: hidden.fingerprint}
    assert last["suppressions"] == [{"kind": "external", "justification": rule.reason}]


def test_sarif_uris_are_repo_relative(tmp_path: Path) -> None:
    log = sarif_log(make_report(tmp_path))
    run = log["runs"][0]
    # no absolute path of the machine: code scanning resolves %SRCROOT% against its checkout
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"description": {"text": SRCROOT_TEXT}}}
    artifacts = [
        loc["physicalLocation"]["artifactLocation"]
        for result in run["results"]
        for loc in result["locations"] + result.get("relatedLocations", [])
    ]
    assert artifacts
    for artifact in artifacts:
        assert artifact["uriBaseId"] == "%SRCROOT%"
        assert not artifact["uri"].startswith(("/", "file:")), artifact
    uris = {artifact["uri"] for artifact in artifacts}
    assert {"srt.json", ".claude/settings.json", "bash.json", "my%20dir/srt.json"} <= uris


def test_sarif_paths_outside_the_repo(tmp_path: Path) -> None:
    report = CheckReport(
        findings=[
            _find(rules.TARGET_MISSING, "gone", Location("/etc/codex/config.toml", 2, 1)),
            _find(rules.TARGET_MISSING, "gone", Location("~/.codex/config.toml", 2, 1)),
        ],
        root=tmp_path,
    )
    log = sarif_log(report)
    validate_sarif(log)
    first, second = (
        r["locations"][0]["physicalLocation"]["artifactLocation"] for r in _results(log)
    )
    assert first == {"uri": "file:///etc/codex/config.toml"}
    assert second == {"uri": ".codex/config.toml", "uriBaseId": "HOME"}


def test_sarif_regions_are_one_based(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    every = report.findings + [item for item, _ in report.suppressed]
    for result, item in zip(_results(sarif_log(report, True)), every, strict=True):
        region = result["locations"][0]["physicalLocation"]["region"]
        where = item.location
        if where.line and where.column:  # only the start known: its one character
            assert region == {
                "startLine": where.line,
                "startColumn": where.column,
                "endLine": where.line,
                "endColumn": where.column + 1,
            }
        elif where.line:  # a line without a column: the whole line
            assert region == {"startLine": where.line}
        else:  # unknown line: the start of the file, no column
            assert region == {"startLine": 1}


def test_sarif_related_locations_and_properties(tmp_path: Path) -> None:
    report = make_report(tmp_path)
    by_rule = {r["ruleId"]: r for r in _results(sarif_log(report))}
    drift = by_rule[rules.DRIFT_UNAPPLIED.id]
    related = drift["relatedLocations"]
    assert [r["id"] for r in related] == [1, 2]
    assert related[0]["message"]["text"] == "/filesystem/denyRead/0"
    assert related[0]["physicalLocation"]["region"] == {
        "startLine": 5,
        "startColumn": 9,
        "endLine": 5,
        "endColumn": 10,
    }
    assert related[1]["physicalLocation"]["region"] == {"startLine": 1}
    assert "message" not in related[1]
    assert drift["properties"] == {"agent": "claude", "pointer": "/permissions/deny", "diff": DIFF}
    missing = by_rule[rules.TARGET_MISSING.id]
    assert "properties" not in missing and "relatedLocations" not in missing


def test_sarif_is_byte_identical_for_the_same_report(tmp_path: Path) -> None:
    first, second = tmp_path / "a.sarif", tmp_path / "b.sarif"
    write_reports(make_report(tmp_path), {"sarif": str(first)})
    write_reports(make_report(tmp_path), {"sarif": str(second)})  # built again from scratch
    assert first.read_bytes() == second.read_bytes()
    assert "TimeUtc" not in first.read_text(encoding="utf-8")  # no start/end times


# --- JUnit ------------------------------------------------------------------------------------


def _cases(root) -> list:  # noqa: ANN001
    return root.findall("./testsuite/testcase")


def test_junit_validates_against_the_xsd(tmp_path: Path) -> None:
    root = parse_junit(junit_xml(make_report(tmp_path)))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    assert suites[0].get("name") == SUITE_NAME


def test_junit_for_an_empty_report_is_valid(tmp_path: Path) -> None:
    root = parse_junit(junit_xml(CheckReport(root=tmp_path)))
    assert len(root.findall("testsuite")) == 1
    assert _cases(root) == []


def test_junit_written_file_validates(tmp_path: Path) -> None:
    out = tmp_path / "reports" / "junit.xml"
    write_reports(make_report(tmp_path), {"junit": str(out)})
    root = parse_junit(out.read_text(encoding="utf-8"))
    assert "重复 ✓" in out.read_text(encoding="utf-8")
    assert len(_cases(root)) == 5 + len(make_report(tmp_path).findings)


def test_junit_classname_and_name_are_unique(tmp_path: Path) -> None:
    for fail_on in Level:
        cases = _cases(parse_junit(junit_xml(make_report(tmp_path, fail_on))))
        keys = [(case.get("classname"), case.get("name")) for case in cases]
        assert len(keys) == len(set(keys))


def test_junit_passing_testcase_per_checked_file(tmp_path: Path) -> None:
    cases = _cases(parse_junit(junit_xml(make_report(tmp_path))))
    files = [(c.get("classname"), c.get("name"), c.get("file")) for c in cases[:5]]
    assert files == [
        ("twsrt.config", "twsrt.toml", "twsrt.toml"),
        ("twsrt.source", "srt.json", "srt.json"),
        ("twsrt.source", "bash.json", "bash.json"),
        ("twsrt.target.claude", ".claude/settings.json", ".claude/settings.json"),
        ("twsrt.target.codex", ".codex/x.toml", ".codex/x.toml"),
    ]
    assert all(len(case) == 0 for case in cases[:5])  # no failure, no output: passed


def test_junit_failures_for_findings_at_or_above_fail_on(tmp_path: Path) -> None:
    report = make_report(tmp_path)  # fail_on error
    root = parse_junit(junit_xml(report))
    cases = _cases(root)[5:]
    assert len(cases) == len(report.findings)
    failing = report.failing()
    assert root.find("testsuite").get("failures") == str(len(failing))
    for case, item in zip(cases, report.findings, strict=True):
        assert case.get("classname") == f"twsrt.{item.rule_id}"
        assert case.get("file") == item.location.path
        assert case.get("line") == (str(item.location.line) if item.location.line else None)
        failure = case.find("failure")
        if item.level == Level.ERROR:
            assert failure is not None
            assert failure.get("type") == "error"
            assert failure.get("message") == item.render().replace("\x1b", "")
            assert item.message.replace("\x1b", "") in failure.text
        else:  # below the threshold: reported in system-out, not failed
            assert failure is None
            assert item.message in case.find("system-out").text


def test_junit_fail_on_note_fails_every_finding(tmp_path: Path) -> None:
    report = make_report(tmp_path, Level.NOTE)
    cases = _cases(parse_junit(junit_xml(report)))[5:]
    assert [case.find("failure").get("type") for case in cases] == [
        item.level.value for item in report.findings
    ]


def test_junit_failure_text_has_the_diff_and_related_locations(tmp_path: Path) -> None:
    cases = _cases(parse_junit(junit_xml(make_report(tmp_path))))
    (drift,) = [c for c in cases if c.get("classname") == "twsrt.TWS302"]
    text = drift.find("failure").text
    assert DIFF in text
    assert "related: srt.json:5:9 (/filesystem/denyRead/0)" in text
    assert drift.get("name").startswith(".claude/settings.json /permissions/deny TWS302 claude ")


def test_junit_leaves_out_suppressed_findings(tmp_path: Path) -> None:
    assert "SECRET-SUPPRESSED" not in junit_xml(make_report(tmp_path))


def test_junit_is_byte_identical_for_the_same_report(tmp_path: Path) -> None:
    first, second = tmp_path / "a.xml", tmp_path / "b.xml"
    write_reports(make_report(tmp_path), {"junit": str(first)})
    write_reports(make_report(tmp_path), {"junit": str(second)})
    assert first.read_bytes() == second.read_bytes()
    assert b"timestamp" not in first.read_bytes() and b"hostname" not in first.read_bytes()


@pytest.mark.parametrize("level", list(Level))
def test_both_reports_validate_for_each_single_level(tmp_path: Path, level: Level) -> None:
    item = _find(rules.DUPLICATE_ENTRY, "x", Location("srt.json", 1, 1), level=level)
    report = CheckReport(
        findings=[item], checked=[CheckedFile("srt.json", "source")], root=tmp_path
    )
    validate_sarif(sarif_log(report))
    root = parse_junit(junit_xml(report))
    assert root.find("testsuite").get("failures") == ("1" if level == Level.ERROR else "0")


def test_junit_suite_times_of_measured_runs_validate() -> None:
    """`twsrt test` measures its probes: the suites' summed times must still match the
    schema's time pattern (at most three decimals); a real srt run summed to 4.826248524012044."""
    from junit_xml import TestCase, TestSuite

    from twsrt.reports.junit import xml_text

    cases = [TestCase(f"p{n}", classname="twsrt.test.srt", elapsed_sec=0.4216751) for n in range(3)]
    root = parse_junit(xml_text([TestSuite("twsrt test srt", cases)]))
    assert root.get("time") == "1.265" and root.find("testsuite").get("time") == "1.265"
