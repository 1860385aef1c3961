"""Reports of ``twsrt check``: text, JSON, GitHub workflow commands, SARIF 2.1.0, JUnit XML and
GitLab Code Quality.

``REPORTERS`` is the one list of output formats: ``check --format`` offers each of them on
stdout, and each with ``file_help`` is also a ``check --<name> FILE`` option. A reporter is a
module of this package with ``render(report, options) -> str``, imported only when used (the
pre-commit hook must start fast), so this module imports nothing heavy. ``probes`` renders
``twsrt test``'s ProbeReport (not a ``check`` format, so not listed) with the same helpers.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.outcome import Line
from twsrt.records import record
from twsrt.reports.files import stream_of, write_report_files

if TYPE_CHECKING:
    from twsrt.outcome import Outcome
    from twsrt.report import CheckReport


@record
class RenderOptions:
    """What the command line says about the look of a report; formats for programs ignore it."""

    verbose: bool = False  # notes and suppressed findings too
    quiet: bool = False  # only failing findings, no summary
    colour: bool = False  # ANSI colours (text on a terminal, FORCE_COLOR)


@record
class Reporter:
    name: str  # the --format value
    module: str  # twsrt.reports.<module>.render(report, options) renders it
    file_help: str = ""  # set: also a `--<name> FILE` option of check, with this help
    for_programs: bool = False  # on stdout, an aborted run also says why on stderr, for a person
    coloured: bool = False  # follows the terminal (NO_COLOR, FORCE_COLOR)
    encoded: bool = True  # escapes what it holds itself; else printed by escaping.terminal
    function: str = "render"  # the module's function: one module may render two variants


REPORTERS: dict[str, Reporter] = {
    reporter.name: reporter
    for reporter in (
        Reporter("text", "text", coloured=True, encoded=False),
        Reporter(
            "json",
            "json_report",
            file_help="Also write the JSON report here (for CI summaries).",
            for_programs=True,
        ),
        Reporter("github", "github"),
        Reporter(
            "sarif",
            "sarif",
            file_help="Also write SARIF 2.1.0 here (suppressed findings left out).",
            for_programs=True,
        ),
        Reporter(
            "sarif-suppressed",
            "sarif",
            file_help="Also write SARIF 2.1.0 with the suppressed findings (as suppressions).",
            for_programs=True,
            function="render_with_suppressed",
        ),
        Reporter(
            "junit",
            "junit",
            file_help="Also write a JUnit XML report (file and line on each testcase).",
            for_programs=True,
        ),
        Reporter(
            "junit-strict",
            "junit",
            file_help="Also write JUnit XML valid against junit-10.xsd (Jenkins xUnit).",
            for_programs=True,
            function="render_strict",
        ),
        Reporter(
            "gitlab",
            "gitlab",
            file_help="Also write a GitLab Code Quality report (artifacts:reports:codequality).",
            for_programs=True,
        ),
    )
}


def render(name: str, report: CheckReport, options: RenderOptions) -> str:
    """The report in the format ``name`` (a key of ``REPORTERS``)."""
    reporter = REPORTERS[name]
    module = importlib.import_module(f"{__name__}.{reporter.module}")
    # exits.start has paused the garbage collector
    text: str = getattr(module, reporter.function)(report, options)
    return text


def write_reports(
    report: CheckReport,
    files: Mapping[str, str],
    out: Outcome | None = None,
    protected: Sequence[Path] = (),
) -> None:
    """Write the report to each file (format name -> path) in registry order, never through a
    link inside ``protected`` (the repository) or at the path (``reports.files``); a report
    named ``-``/``/dev/stdout`` or ``/dev/stderr`` goes to that stream of ``out``, last."""

    texts = [
        (files[name], render(name, report, RenderOptions()))
        for name in REPORTERS
        if files.get(name)
    ]
    write_report_files(texts, protected)
    if out is not None:
        print_streams(texts, out)


def print_streams(texts: Sequence[tuple[str, str]], out: Outcome) -> None:
    """The reports named by a stream (``-``, ``/dev/stdout``, ``/dev/stderr``), printed there."""

    for name, text in texts:
        stream = stream_of(name)
        if stream == "stdout":
            out.out(text)
        elif stream == "stderr":
            out.lines.append(Line(text, err=True))
