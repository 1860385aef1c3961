"""``--format json``: a versioned, stable document of the whole run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twsrt import __version__
from twsrt.findings import MESSAGE_LIMIT, Finding, quoted
from twsrt.jsonedit import dump as dump_json
from twsrt.locations import Location
from twsrt.report import REPORT_VERSION, CheckReport, selection_members

if TYPE_CHECKING:
    from twsrt.config import Selection
    from twsrt.reports import RenderOptions


def location_json(location: Location) -> dict[str, Any]:
    """A location as every JSON report of twsrt writes it."""
    return {
        "path": location.path,
        "line": location.line,
        "column": location.column,
        "pointer": quoted(location.pointer, MESSAGE_LIMIT),
    }


def selection_json(selection: Selection) -> dict[str, Any]:
    """The ``"profile"`` member of every JSON report of a run that composed a profile."""
    return {
        key: location_json(value) if isinstance(value, Location) else value
        for key, value in selection_members(selection).items()
    }


def _finding(item: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rule_id": item.rule_id,
        "rule_name": item.rule.name,
        "level": item.level.value,
        "message": item.message,
        "location": location_json(item.location),
        "agent": item.agent,
        "related": [location_json(r) for r in item.related],
        "fingerprint": item.fingerprint,
    }
    if item.diff:
        out["diff"] = item.diff
    return out


def header(version: int) -> dict[str, Any]:
    """The members every JSON report of twsrt starts with: its format version and the tool."""
    return {"version": version, "tool": {"name": "twsrt", "version": __version__}}


def dump(document: dict[str, Any] | list[Any]) -> str:
    """A JSON report's text: indented by two spaces, UTF-8 as it is but for what a terminal
    acts on (``escaping.json_text``), one final newline."""
    from twsrt.escaping import json_text

    return json_text(dump_json(document, "  ")) + "\n"


def render(report: CheckReport, _options: RenderOptions) -> str:
    return render_json(report)


def render_json(report: CheckReport) -> str:
    document = {
        **header(REPORT_VERSION),
        # only a run that composed a profile has one, so a config without profiles reads as before
        **({"profile": selection_json(report.selection)} if report.selection else {}),
        "summary": {
            **report.counts(),
            "suppressed": len(report.suppressed),
            "files": len(report.checked),
            "fail_on": report.fail_on.value,
            "exit_code": report.exit_code,
            # an aborted run (exit code 2) compiled nothing, so it has no sandbox mode
            **({} if report.aborted else {"sandbox_mode": report.sandbox_mode}),
            **({} if report.aborted or report.scope == "user" else {"scope": report.scope}),
        },
        "findings": [_finding(item) for item in report.findings],
        "suppressed": [
            {**_finding(item), "reason": rule.reason, "ignore_index": rule.index}
            for item, rule in report.suppressed
        ],
        "checked": [{"path": f.path, "kind": f.kind, "agent": f.agent} for f in report.checked],
    }
    return dump(document)
