"""JUnit XML for ``twsrt check --junit FILE``: one testsuite that CI test tabs can show.

A passing testcase per checked file (so a clean run still lists what was checked), and a
testcase per active finding: failing when the finding is at or above ``--fail-on``, as the exit
code is, otherwise passing with the finding in its system-out.

Two flavours. ``--junit`` gives each testcase ``file`` and ``line`` attributes, where GitLab's
test report and the JUnit annotation actions read them (valid against junit-10.xsd plus those
two attributes). ``--junit-strict`` validates against the Jenkins xUnit plugin's junit-10.xsd
itself, which has no place for them on a testcase: there the finding's ``file:line:col`` starts
its failure message and text (and a checked file's testcase is named by its path), as Jenkins
shows them. Neither writes junit_xml's ``disabled`` counts, which no consumer reads and the
schema refuses.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from twsrt.escaping import no_commands
from twsrt.findings import LEVEL_ORDER, MESSAGE_LIMIT, Finding, quoted
from twsrt.report import CheckedFile, CheckReport, selection_members

if TYPE_CHECKING:
    from twsrt.config import Selection
    from twsrt.reports import RenderOptions

SUITE_NAME = "twsrt check"


def junit_xml(report: CheckReport, strict: bool = False) -> str:
    """The JUnit report's text: same report, same bytes (no timestamps, no host names);
    ``strict``: the junit-10.xsd flavour (no ``file``/``line`` attributes)."""
    return xml_text([report_suite(report)], strict)


def report_suite(report: CheckReport) -> Any:
    """The report as one junit_xml TestSuite."""
    from junit_xml import TestCase, TestSuite

    cases: list[Any] = []
    seen: set[tuple[str, str]] = set()
    for checked in report.checked:
        classname = _file_class(checked)
        if (classname, checked.path) in seen:  # the same file listed twice: one testcase
            continue
        seen.add((classname, checked.path))
        cases.append(TestCase(checked.path, classname=classname, file=checked.path))
    threshold = LEVEL_ORDER[report.fail_on]
    for item in report.findings:
        classname = f"twsrt.{item.rule_id}"
        name = unique_name(seen, classname, _finding_name(item))
        line = str(item.location.line) if item.location.line > 0 else None
        case = TestCase(name, classname=classname, file=item.location.path, line=line)
        if LEVEL_ORDER[item.level] >= threshold:  # failing exactly when the exit code says so
            case.add_failure_info(item.render(), _details(item), item.level.value)
        else:
            case.stdout = _details(item)  # below --fail-on: reported, but not a failure
        cases.append(case)
    return TestSuite(SUITE_NAME, cases, properties=selection_properties(report.selection))


def selection_properties(selection: Selection | None) -> dict[str, str] | None:
    """The suite's ``<properties>`` naming the run's profile (None without one: no element)."""
    if selection is None:
        return None
    return {
        "twsrt.profile" if key == "name" else f"twsrt.profile.{key}": str(value)
        for key, value in selection_members(selection).items()
    }


def xml_text(suites: list[Any], strict: bool = False) -> str:
    """The JUnit XML of test suites, as every JUnit report of twsrt writes it.

    The text of junit_xml's ``to_xml_report_string(suites, prettyprint=True,
    encoding="utf-8")``: its elements (``TestSuite.build_xml_doc``), written here. junit_xml
    serializes them, strips the characters XML cannot hold, parses the text again with
    minidom and prints that; at 10,000 findings the round trip took seconds. Its effects on
    the data are kept: characters junit_xml strips are dropped (a carriage return survives in
    an attribute, escaped on the way, but not in text), and minidom's escaping and layout; and
    no line starts a workflow command.
    Differences: a suite's time with more than three decimals (``twsrt test``'s measured
    probes) is rounded to three, as the JUnit schema's time pattern requires; no ``disabled``
    counts; ``strict`` leaves out the testcases' ``file`` and ``line`` (junit-10.xsd).
    """
    from xml.etree.ElementTree import Element

    elements = [suite.build_xml_doc(encoding="utf-8") for suite in suites]
    for element in elements:
        element.attrib.pop("disabled", None)
        if strict:
            for case in element.iter("testcase"):
                case.attrib.pop("file", None)
                case.attrib.pop("line", None)
    root = Element("testsuites")
    if elements:
        totals = {
            key: str(sum(int(e.get(key, 0)) for e in elements))
            for key in ("errors", "failures", "tests")
        }
        totals["time"] = str(sum(float(e.get("time", 0)) for e in elements))
        root.attrib.update(totals)
    for element in (root, *elements):
        if "time" in element.attrib:
            element.set("time", _schema_time(element.get("time", "")))
    root.extend(elements)
    out = ['<?xml version="1.0" encoding="utf-8"?>\n']
    _write_element(root, "", out)
    # a line of a message or an old file's content is in the text of an element, never a tag:
    # printed to a CI log it must not start a workflow command (escaping.no_commands)

    return no_commands("".join(out))


_SCHEMA_TIME = re.compile(r"[0-9]*(\.[0-9]{0,3})?")


def _schema_time(text: str) -> str:
    """A suite time as the JUnit schema takes it (at most three decimals); one it takes
    already (``check``'s ``0.0``) stays as it is."""
    return text if _SCHEMA_TIME.fullmatch(text) else f"{float(text):.3f}"


# What junit_xml strips from the serialized XML: code points XML 1.0 cannot hold, and its
# noncharacters. A carriage return is in the range, but in an attribute it was escaped first.
_STRIPPED = "\x00-\x08\x0b-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufdd0-\ufddf\ufffe\uffff" + "".join(
    f"{chr(plane << 16 | 0xFFFE)}-{chr(plane << 16 | 0xFFFF)}" for plane in range(1, 17)
)
_STRIPPED_TEXT = re.compile(f"[{_STRIPPED}]")
_STRIPPED_ATTRIBUTE = re.compile(f"(?!\r)[{_STRIPPED}]")


def _stripped(text: str, pattern: re.Pattern[str]) -> str:
    """``text`` without what ``pattern`` matches; printable text (the common case, also with
    line breaks and tabs) holds nothing it could match, and skips the slow search."""
    if text.isprintable() or text.replace("\n", " ").replace("\t", " ").isprintable():
        return text
    return pattern.sub("", text)


def _escaped(text: str) -> str:
    """minidom's escaping, for text and attribute values alike."""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;").replace(">", "&gt;")
    )


def _write_element(element: Any, indent: str, out: list[str]) -> None:
    """``element`` as minidom's ``toprettyxml`` prints it (tab indentation, one per line)."""
    out.append(f"{indent}<{element.tag}")
    for name, value in element.attrib.items():
        out.append(f' {name}="{_escaped(_stripped(value, _STRIPPED_ATTRIBUTE))}"')
    text = _stripped(element.text or "", _STRIPPED_TEXT)
    children = list(element)
    if not children:
        out.append(f">{_escaped(text)}</{element.tag}>\n" if text else "/>\n")
        return
    out.append(">\n")
    if text:
        out.append(f"{indent}\t{_escaped(text)}\n")
    for child in children:
        _write_element(child, indent + "\t", out)
        tail = _stripped(child.tail or "", _STRIPPED_TEXT)
        if tail:
            out.append(f"{indent}\t{_escaped(tail)}\n")
    out.append(f"{indent}</{element.tag}>\n")


def render(report: CheckReport, _options: RenderOptions) -> str:
    return junit_xml(report)


def render_strict(report: CheckReport, _options: RenderOptions) -> str:
    """``--junit-strict``: valid against junit-10.xsd as it is."""
    return junit_xml(report, strict=True)


def _file_class(checked: CheckedFile) -> str:
    if checked.kind == "target" and checked.agent:
        return f"twsrt.target.{checked.agent}"
    return f"twsrt.{checked.kind}"


def _finding_name(item: Finding) -> str:
    """``FILE[ POINTER] RULE[ AGENT] FINGERPRINT8``: what the finding is about, never its line
    (a line inserted above would rename every testcase, and a merge request's test diff would
    show them all as new); the fingerprint tells apart findings of one rule at one place."""
    where = item.location.path
    if item.location.pointer:
        where += " " + quoted(item.location.pointer)
    agent = f" {item.agent}" if item.agent else ""
    return f"{where} {item.rule_id}{agent} {item.fingerprint[:8]}"


def unique_name(seen: set[tuple[str, str]], scope: str, name: str) -> str:
    """``name``, or ``name #2``, ``#3``... when ``name`` is already used in ``scope`` (a
    classname or a suite); the name returned is then marked used."""
    candidate, n = name, 1
    while (scope, candidate) in seen:
        n += 1
        candidate = f"{name} #{n}"
    seen.add((scope, candidate))
    return candidate


def _details(item: Finding) -> str:
    """The rendered finding, its related locations, its rule summary and its diff."""
    lines = [item.render()]
    lines += [
        f"related: {where}"
        + (f" ({quoted(where.pointer, MESSAGE_LIMIT)})" if where.pointer else "")
        for where in item.related
    ]
    lines.append(f"rule: {item.rule_id} {item.rule.name}: {item.rule.short}")
    text = "\n".join(lines) + "\n"
    if item.diff:
        text += "\n" + item.diff + ("" if item.diff.endswith("\n") else "\n")
    return text
