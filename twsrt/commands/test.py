"""``twsrt test``: the policy's probes run in the chosen engines (``testing.run.run_tests``),
the report as text or JSON on stdout, a JUnit file, and the report's exit code."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from twsrt.invocation import open_invocation
from twsrt.outcome import EXIT_USAGE, Outcome
from twsrt.records import record
from twsrt.request import Request
from twsrt.testing.engines import EngineUnavailable
from twsrt.testing.progress import Progress
from twsrt.testing.run import run_tests
from twsrt.testing.selection import Requested


@record
class ProbeOptions:
    engine: Requested = ()  # --engine, as given (none: every engine that can run here)
    keyword: str | None = None  # -k: only probes whose name contains it
    timeout: float = 60.0  # seconds for one probe run
    strict: bool = False  # exit 1 on GAP, UNENFORCED and UNMODELLED verdicts too
    as_json: bool = False  # the JSON report on stdout instead of text
    junit: str | None = None  # also a JUnit XML report there


def run(
    request: Request,
    options: ProbeOptions,
    *,
    colour: bool = False,
    progress: TextIO | None = None,
) -> Outcome:
    """What ``twsrt test`` prints: the report (text or JSON; ``colour``: with ANSI colours,
    ``request.verbose``: passing probes too) on stdout, the JUnit file, the report's exit
    code; an engine that cannot run here is named on stderr, exit 2. ``progress``: the
    terminal that shows the probes done per engine while they run (erased at the end)."""
    from twsrt.reports.probes import junit_xml, render_json, render_text

    outcome = Outcome()
    with outcome.stopping() as out:
        try:
            ctx = open_invocation(request).context
            shown = Progress(progress) if progress is not None else None
            report = run_tests(
                ctx,
                options.engine,
                options.keyword,
                options.timeout,
                options.strict,
                progress=shown,
            )
        except EngineUnavailable as exc:
            out.err(f"twsrt test: {exc.engine} cannot run here: {exc.problem}")
            if exc.hint:
                out.err(f"twsrt test: {exc.hint}")
            out.exit_code = EXIT_USAGE
            return outcome
        if options.as_json:
            out.out(render_json(report), encoded=True)
        else:
            out.out(render_text(report, colour=colour, verbose=request.verbose), colour=colour)
        if options.junit:
            from twsrt.locations import repo_root
            from twsrt.reports import print_streams
            from twsrt.reports.files import write_report_files

            texts = [(options.junit, junit_xml(report))]
            write_report_files(texts, (repo_root(Path.cwd()),))  # never through a link
            print_streams(texts, out)
        out.exit_code = report.exit_code
    return outcome
