"""JUnit XML for ``twsrt check --junit FILE``: one testsuite that CI test tabs can show.

A passing testcase per checked file (so a clean run still lists what was checked), and a
testcase per active finding: failing when the finding is at or above ``--fail-on``, as the exit
code is, otherwise passing with the finding in its system-out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twsrt.findings import LEVEL_ORDER, MESSAGE_LIMIT, Finding, quoted
from twsrt.report import CheckedFile, CheckReport

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions

SUITE_NAME = "twsrt check"


def junit_xml(report: CheckReport) -> str:
    """The JUnit report's text: same report, same bytes (no timestamps, no host names)."""
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
    return xml_text([TestSuite(SUITE_NAME, cases)])


def xml_text(suites: list[Any]) -> str:
    """The JUnit XML of test suites, as every JUnit report of twsrt writes it."""
    from junit_xml import to_xml_report_string

    return to_xml_report_string(suites, prettyprint=True, encoding="utf-8")


def render(report: CheckReport, _options: RenderOptions) -> str:
    return junit_xml(report)


def _file_class(checked: CheckedFile) -> str:
    if checked.kind == "target" and checked.agent:
        return f"twsrt.target.{checked.agent}"
    return f"twsrt.{checked.kind}"


def _finding_name(item: Finding) -> str:
    # The fingerprint tells apart findings of one rule at one place (another agent or message).
    return f"{item.location} {item.rule_id} {item.fingerprint[:8]}"


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
