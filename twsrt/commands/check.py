"""``twsrt check``: the report of the request (``checking.check_report``), rendered on stdout in
the requested format, written to each report file, and its exit code, whatever the format."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.checking import check_report
from twsrt.locations import repo_root
from twsrt.outcome import Outcome
from twsrt.request import Request

if TYPE_CHECKING:
    from twsrt.report import CheckReport


def run(
    request: Request,
    *,
    colour: bool = False,
    no_ignores: bool = False,
    user_config: Path | None = None,
) -> tuple[CheckReport, Outcome]:
    """The report and what ``check`` prints and writes. ``colour``: stdout takes ANSI colours
    (for a format that has them); ``no_ignores`` and ``user_config``: as for
    ``checking.check_report``."""
    from twsrt.reports import REPORTERS, RenderOptions, render, write_reports

    report = check_report(request, no_ignores, user_config)
    options = RenderOptions(verbose=request.verbose, quiet=request.quiet, colour=colour)
    outcome = Outcome()
    with outcome.stopping() as out:
        reporter = REPORTERS[request.output_format]
        out.out(
            render(request.output_format, report, options),
            colour=options.colour if reporter.coloured else None,  # FORCE_COLOR off a pipe too
            encoded=reporter.encoded,
        )
        if report.aborted and reporter.for_programs:  # stdout is for a program: tell the person
            for item in report.findings:
                out.err(item.render())
        # links inside the checkout (or, before a config is found, the working repository) are
        # never followed to a report
        files = dict(request.report_files)
        write_reports(report, files, out, (report.root, repo_root(Path.cwd())))
        out.exit_code = report.exit_code
    return report, outcome
