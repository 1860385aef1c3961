"""``--format json``: a versioned, stable document of the whole run."""

from __future__ import annotations

import json
from json.encoder import encode_basestring as _encode_string
from typing import TYPE_CHECKING, Any

from twsrt import __version__
from twsrt.findings import MESSAGE_LIMIT, Finding, quoted
from twsrt.locations import Location
from twsrt.report import REPORT_VERSION, CheckReport

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions


def location_json(location: Location) -> dict[str, Any]:
    """A location as every JSON report of twsrt writes it."""
    return {
        "path": location.path,
        "line": location.line,
        "column": location.column,
        "pointer": quoted(location.pointer, MESSAGE_LIMIT),
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


def dump(document: dict[str, Any]) -> str:
    """A JSON report's text: indented, UTF-8 as it is, one final newline.

    The text of ``json.dumps(document, indent=2, ensure_ascii=False)``, written without the
    standard library's indenting encoder: that one is pure Python with a generator per level,
    so every piece of a deep document (a SARIF result is eight levels down) passes through
    each of them. Strings are still encoded by json's C function.
    """
    out: list[str] = []
    _write(document, "\n", out)
    out.append("\n")
    return "".join(out)


def _write(value: Any, newline: str, out: list[str]) -> None:
    """Append ``value`` to ``out``; ``newline`` is a line break and the current indentation."""
    if isinstance(value, str):
        out.append(_encode_string(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            out.append(separator + _key(key) + ": ")
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:
        out.append(_scalar(value))


def _scalar(value: Any) -> str:
    """A number, boolean or null as json writes it (a type json refuses raises its error)."""
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key(key: Any) -> str:
    """A member name as json writes it (a number, boolean or null key becomes its text)."""
    if isinstance(key, str):
        return _encode_string(key)
    return _encode_string(_scalar(key))


def render(report: CheckReport, _options: RenderOptions) -> str:
    return render_json(report)


def render_json(report: CheckReport) -> str:
    document = {
        **header(REPORT_VERSION),
        "summary": {
            **report.counts(),
            "suppressed": len(report.suppressed),
            "files": len(report.checked),
            "fail_on": report.fail_on.value,
            "exit_code": report.exit_code,
            # an aborted run (exit code 2) compiled nothing, so it has no sandbox mode
            **({} if report.aborted else {"sandbox_mode": report.sandbox_mode}),
        },
        "findings": [_finding(item) for item in report.findings],
        "suppressed": [
            {**_finding(item), "reason": rule.reason, "ignore_index": rule.index}
            for item, rule in report.suppressed
        ],
        "checked": [{"path": f.path, "kind": f.kind, "agent": f.agent} for f in report.checked],
    }
    return dump(document)
