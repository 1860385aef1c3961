"""``--format github``: workflow commands that annotate the exact line of a pull request.

The runner reads every line twsrt prints (stdout and stderr) as a possible workflow command: a
line that starts with ``::name ...::`` after leading whitespace, or holds the legacy ``##[name]``
anywhere. Paths, messages, reasons and diff lines come from the pull request, so nothing but
twsrt's own annotations may ever read as a command:

- annotations escape their data and properties the way the runner unescapes them;
- the text report after them is wrapped in ``::stop-commands::TOKEN`` ... ``::TOKEN::``; the
  token is a hash of the wrapped text, so the text cannot contain it (and output stays
  deterministic);
- every control character is shown as an escape, so no field can start a line of its own;
- stderr (which the runner reads concurrently, so a wrap could interleave) is defused line by
  line with ``escaping.defuse``, as every line for a person is (``escaping.terminal``).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from twsrt.escaping import printable
from twsrt.findings import Finding, Level
from twsrt.report import CheckReport, selection_text

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions

_COMMAND = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "notice"}


def _escape_data(text: str) -> str:
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


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


def stop_commands(text: str) -> str:
    """``text`` (control characters escaped) between ``::stop-commands::`` and its resume."""
    body = printable(text)
    if body and not body.endswith("\n"):
        body += "\n"
    token = "twsrt-" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]
    return f"::stop-commands::{token}\n{body}::{token}::\n"


def render(report: CheckReport, options: RenderOptions) -> str:
    """``--format github``: the annotations, then the full text report (never coloured, never
    shortened by -q: the log is its only reader), inert."""
    from twsrt.reports.text import render_text

    text = render_text(report, verbose=options.verbose, quiet=False, colour=False)
    return render_github(report, text)


def render_github(report: CheckReport, text: str = "") -> str:
    """The annotations (GitHub shows 10 per level), then ``text`` (the text report) inert."""
    annotations = "".join(annotation(item) + "\n" for item in report.findings)
    if report.selection:  # the profile first, as a notice of the whole run (no file)
        notice = f"profile {selection_text(report.selection)}"
        annotations = f"::notice title=twsrt profile::{_escape_data(notice)}\n" + annotations
    return annotations + (stop_commands(text) if text else "")
