"""GitLab Code Quality for ``twsrt check --gitlab FILE`` (``artifacts:reports:codequality``).

The report is a JSON array of issues, the subset of the Code Climate spec that GitLab reads
(docs: ``ci/testing/code_quality``; its parser validates each issue against
``app/validators/json_schemas/codeclimate.json``): ``description``, ``check_name``,
``fingerprint``, ``severity`` and ``location.path`` with ``location.lines.begin``. GitLab shows
them in the merge request widget, new ones against the target branch, matched by fingerprint.

What GitLab's parser does decides two choices here. It keeps one issue per fingerprint, so an
identical finding listed twice is written once; and it stops at the first issue that fails the
schema, so every issue is complete. The fingerprint is ``Finding.fingerprint`` (no line in it),
so a line inserted above a finding leaves it the same issue. Suppressed findings are left out:
GitLab has no way to show an issue as accepted.

Severity: GitLab's scale is info, minor, major, critical, blocker. An error (an agent granted more
than the policy, or a check that could not be made; code scanning's 7.5, "high") is
``critical``; a warning (an agent enforces less than the policy says) ``minor``; a note ``info``.
``blocker`` and ``major`` are not used: twsrt has three levels, and ``critical`` keeps an error
above everything a general linter in the same pipeline reports as ``major``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twsrt.findings import Finding, Level
from twsrt.report import CheckReport
from twsrt.reports.json_report import dump

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions

SEVERITY = {Level.ERROR: "critical", Level.WARNING: "minor", Level.NOTE: "info"}


def issue(item: Finding) -> dict[str, Any]:
    """One Code Quality issue: the finding's message with its pointer and agent, at its line
    (the file's first when twsrt does not know the line)."""
    return {
        "description": f"{item.message}{item.tail()}",
        "check_name": f"{item.rule_id} {item.rule.name}",
        "fingerprint": item.fingerprint,
        "severity": SEVERITY[item.level],
        "location": {
            "path": item.location.path,
            "lines": {"begin": item.location.line if item.location.line > 0 else 1},
        },
    }


def issues(report: CheckReport) -> list[dict[str, Any]]:
    """The report's active findings as issues, one per fingerprint, in report order."""
    out: dict[str, dict[str, Any]] = {}
    for item in report.findings:
        out.setdefault(item.fingerprint, issue(item))
    return list(out.values())


def render(report: CheckReport, _options: RenderOptions) -> str:
    return dump(issues(report))
