"""``--format github``: workflow commands that annotate the exact line of a pull request."""

from __future__ import annotations

from twsrt.findings import Finding, Level
from twsrt.report import CheckReport

_COMMAND = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(item: Finding) -> str:
    props = [f"file={_escape_property(item.location.path)}"]
    if item.location.line:
        props.append(f"line={item.location.line}")
        if item.location.column:
            props.append(f"col={item.location.column}")
    props.append(f"title={_escape_property(f'{item.rule_id} {item.rule.name}')}")
    message = item.message + (f" (agent {item.agent})" if item.agent else "")
    return f"::{_COMMAND[item.level]} {','.join(props)}::{_escape_data(message)}"


def render_github(report: CheckReport) -> str:
    return "".join(annotation(item) + "\n" for item in report.findings)
