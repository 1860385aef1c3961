"""JUnit that strict consumers accept (issue 29, item 2), checked by real readers: lxml's and
xmlschema's XSD validators, junitparser and junit2html.

``--junit-strict`` validates against the Jenkins xUnit plugin's junit-10.xsd as it is (no
``disabled`` counts, no testcase ``file``/``line``: a finding's ``file:line:col`` starts its
failure message instead); ``--junit`` keeps ``file`` and ``line`` on each testcase, where GitLab
and the annotation actions read them, and validates against junit-10.xsd plus exactly those
two attributes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.sample_report import make_report

from twsrt.findings import Level
from twsrt.reports import REPORTERS, RenderOptions, render

FIXTURES = Path(__file__).parent / "fixtures" / "junit"
STRICT_XSD = FIXTURES / "junit-10.xsd"
PLUS_XSD = FIXTURES / "junit-10-plus-file-line.xsd"


def _lxml_valid(text: str, xsd: Path) -> bool:
    from lxml import etree

    return etree.XMLSchema(etree.parse(str(xsd))).validate(etree.fromstring(text.encode()))


def _xmlschema_valid(text: str, xsd: Path) -> bool:
    import xmlschema

    return xmlschema.XMLSchema10(str(xsd)).is_valid(text)


@pytest.fixture(params=list(Level))
def reports(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    report = make_report(tmp_path, request.param)
    return {name: render(name, report, RenderOptions()) for name in ("junit", "junit-strict")}


def test_both_flavours_are_registered_formats() -> None:
    assert REPORTERS["junit-strict"].file_help and REPORTERS["junit-strict"].for_programs


@pytest.mark.parametrize("valid", [_lxml_valid, _xmlschema_valid], ids=["lxml", "xmlschema"])
def test_strict_validates_against_junit_10(reports: dict[str, str], valid) -> None:  # noqa: ANN001
    assert valid(reports["junit-strict"], STRICT_XSD)
    assert valid(reports["junit-strict"], PLUS_XSD)
    # the default flavour carries file and line, which junit-10 itself has no place for
    assert valid(reports["junit"], PLUS_XSD)
    assert not valid(reports["junit"], STRICT_XSD)
    assert "disabled=" not in reports["junit"] + reports["junit-strict"]


def _parsed(tmp_path: Path, name: str, report):  # noqa: ANN001, ANN202
    """The report as junitparser reads a written file (as a CI step would)."""
    from junitparser import JUnitXml

    path = tmp_path / f"{name}.xml"
    path.write_text(render(name, report, RenderOptions()), "utf-8")
    return JUnitXml.fromfile(str(path))


def test_junitparser_reads_the_same_results_and_file_line(tmp_path: Path) -> None:
    from junitparser import Attr, IntAttr, TestCase

    class Located(TestCase):  # how a reader that wants file/line declares them
        file = Attr()
        line = IntAttr()

    report = make_report(tmp_path)
    parsed = {name: _parsed(tmp_path, name, report) for name in ("junit", "junit-strict")}
    results = {}
    for name, xml in parsed.items():
        (suite,) = list(xml)
        cases = [Located.fromelem(case) for case in suite]
        assert suite.tests == len(cases) == len(report.checked) - 1 + len(report.findings)
        assert suite.failures == len(report.failing())
        results[name] = [(c.classname, c.name, [type(r).__name__ for r in c.result]) for c in cases]
        if name == "junit":  # file and line where the reader looks for them
            findings = cases[-len(report.findings) :]
            assert [c.file for c in findings] == [f.location.path for f in report.findings]
            assert [c.line for c in findings] == [f.location.line or None for f in report.findings]
        else:
            assert all(c.file is None and c.line is None for c in cases)
    assert results["junit"] == results["junit-strict"]  # the same tests and verdicts


def test_strict_keeps_file_line_in_the_failure_message(tmp_path: Path) -> None:
    from junitparser import Failure

    report = make_report(tmp_path)
    (suite,) = list(_parsed(tmp_path, "junit-strict", report))
    failing = [case for case in suite if any(isinstance(r, Failure) for r in case.result)]
    messages = [next(r.message for r in case.result if isinstance(r, Failure)) for case in failing]
    expected = [str(item.location) for item in report.failing()]
    assert len(messages) == len(expected)
    assert all(m.startswith(f"{where}: ") for m, where in zip(messages, expected, strict=True))


@pytest.mark.parametrize("name", ["junit", "junit-strict"])
def test_junit2html_renders_every_testcase(tmp_path: Path, name: str) -> None:
    from junit2htmlreport.parser import Junit

    report = make_report(tmp_path)
    html = Junit(xmlstring=render(name, report, RenderOptions())).html()
    for item in report.findings:
        assert item.rule_id in html
    assert "twsrt check" in html
