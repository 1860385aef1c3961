"""Human text report: findings grouped by file, coloured on a TTY or with FORCE_COLOR, never
with NO_COLOR."""

from __future__ import annotations

import os
from itertools import groupby
from typing import TYPE_CHECKING, TextIO

from twsrt.findings import Finding, Level
from twsrt.report import CheckReport, selection_text

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions

_COLOURS = {Level.ERROR: "31", Level.WARNING: "33", Level.NOTE: "36"}


def use_colour(stream: TextIO) -> bool:
    """no-color.org and force-color.org: each variable counts only when non-empty, and
    NO_COLOR wins over FORCE_COLOR; otherwise colour on a terminal that is not dumb."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, code: str, colour: bool) -> str:
    """``text`` in the ANSI colour ``code`` when ``colour``, else as it is."""
    return f"\x1b[{code}m{text}\x1b[0m" if colour else text


def render(report: CheckReport, options: RenderOptions) -> str:
    """``--format text``: the report a person reads."""
    return render_text(report, verbose=options.verbose, quiet=options.quiet, colour=options.colour)


def render_text(report: CheckReport, *, verbose: bool, quiet: bool, colour: bool) -> str:
    """Findings grouped by file; notes only with -v; -q keeps only failing findings."""
    shown = (
        report.failing()
        if quiet
        else [f for f in report.findings if verbose or f.level is not Level.NOTE]
    )
    out: list[str] = []
    if report.selection and not quiet:  # the profile first: every finding below is about it
        out.append(f"profile: {selection_text(report.selection)}")
    for path, group in groupby(shown, key=lambda f: f.location.path):
        if not quiet:
            out.append(paint(path, "1", colour))
        for item in group:
            out.append(_line(item, colour))
            if item.diff and not quiet:
                out.append(_diff(item.diff, colour))
    if verbose:
        for item, rule in report.suppressed:
            out.append(f"{item.render()} [suppressed: {rule.reason}]")
    if not quiet:
        out.append(summary(report, hidden_notes=not verbose))
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def _line(item: Finding, colour: bool) -> str:
    level = paint(f"{item.level.value}[{item.rule_id}]", _COLOURS[item.level], colour)
    text = f"{item.location}: {level} {item.message}{item.tail()}"
    for related in item.related:
        text += f"\n  related: {related}"
    return text


def _diff(diff: str, colour: bool) -> str:
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            lines.append(paint(line, "1", colour))
        elif line.startswith("+"):
            lines.append(paint(line, "32", colour))
        elif line.startswith("-"):
            lines.append(paint(line, "31", colour))
        elif line.startswith("@@"):
            lines.append(paint(line, "36", colour))
        else:
            lines.append(line)
    return "\n".join(lines)


def summary(report: CheckReport, *, hidden_notes: bool = False) -> str:
    counts = report.counts()
    parts = [
        _plural(counts["error"], "error"),
        _plural(counts["warning"], "warning"),
        _plural(counts["note"], "note"),
    ]
    text = f"twsrt check: {', '.join(parts)}"
    if report.aborted:  # no file, mode or suppression was looked at: say only that
        return text + "; could not check, nothing else was checked (exit code 2)"
    if hidden_notes and counts["note"]:
        text += " (notes hidden, -v shows them)"
    if report.suppressed:
        text += f"; {len(report.suppressed)} suppressed"
    files = len(report.checked)
    text += f"; {files} file{'s' if files != 1 else ''} checked"
    scope = "" if report.scope == "user" else f"{report.scope} scope, "
    return text + f" ({scope}sandbox mode {report.sandbox_mode})"


def count_line(command: str, findings: list[Finding], suppressed: int, *, listed: bool) -> str:
    """``twsrt generate: 0 errors, 2 warnings, 5 notes``: what a command that is not ``check``
    prints instead of repeating check's report (the list itself only with -v)."""
    counts = {level: 0 for level in (Level.ERROR, Level.WARNING, Level.NOTE)}
    for item in findings:
        counts[item.level] += 1
    text = f"twsrt {command}: " + ", ".join(_plural(n, lvl.value) for lvl, n in counts.items())
    if suppressed:
        text += f"; {suppressed} suppressed"
    if findings and not listed:
        text += " (twsrt check or -v for the list)"
    return text


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"
