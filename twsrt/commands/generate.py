"""``twsrt generate``: previews on stdout, or every target written (all or nothing); what the
run found and did on stderr, as an ``Outcome`` the CLI prints."""

from __future__ import annotations

from twsrt.invocation import open_invocation
from twsrt.outcome import EXIT_FINDINGS, Outcome
from twsrt.records import record
from twsrt.request import Request
from twsrt.run import (
    Compiled,
    change_display,
    compile_invocation,
    dry_run_report,
    notices,
    require_targets,
    write,
    write_plan,
)


@record
class GenerateOptions:
    write: bool = False  # write the targets, else print previews
    dry_run: bool = False  # with write: show what would change, write nothing
    verbose: bool = False  # list every finding, not only the count line
    exit_code: bool = False  # with write: exit 1 when a file was changed (the pre-commit hook)


def run(request: Request, options: GenerateOptions) -> Outcome:
    """``twsrt generate``: previews on stdout, or the writes (all or nothing) and what each did
    on stderr; findings and notices on stderr, the count line last."""
    outcome = Outcome()
    with outcome.stopping():
        invocation = open_invocation(request, recover=options.write and not options.dry_run)
        compiled = compile_invocation(invocation, companions=options.write)
        for line in compiled.recovered:
            outcome.err(f"twsrt: {line}")
        _generate(compiled, request.agent, options, outcome)
    return outcome


def _generate(
    compiled: Compiled, agent: str | None, options: GenerateOptions, out: Outcome
) -> None:
    # previews name the pair they were compiled for; a write, the profile whose files it writes
    if not options.write or options.dry_run or compiled.config.selection:
        out.err(compiled.mode_line)
    counted = _translation_findings(compiled, options.verbose, out)
    notices(compiled.results, out)
    if not options.write:
        many = len(compiled.results) > 1
        for result in compiled.results:
            if many:
                out.out(f"# {result.agent}\n")
            out.out(result.preview)
    else:
        _write_targets(compiled, agent, options, out)
    if counted:
        out.err(counted)


def _write_targets(
    compiled: Compiled, agent: str | None, options: GenerateOptions, out: Outcome
) -> None:
    results = require_targets(compiled, agent, printed=True)
    for result in compiled.results:
        if not result.target_configured and not result.stdout:
            out.err(f"twsrt: {result.agent}: no target configured, skipped")
    changes = write_plan(results, compiled.companions)
    if options.dry_run:
        out.out(dry_run_report(changes, compiled.views))
        for result in compiled.results:  # "stdout if omitted": a dry run prints what -w would
            out.out(result.stdout)
        return
    done = write(changes, compiled.config.path.parent)  # the journal beside the config
    for change in changes:
        out.err(f"twsrt: {'wrote' if change in done else 'unchanged'} {change_display(change)}")
    for result in compiled.results:  # only once every file is written: a refused run prints none
        out.out(result.stdout)
    if options.exit_code and done:
        out.exit_code = EXIT_FINDINGS


def _translation_findings(compiled: Compiled, verbose: bool, out: Outcome) -> str:
    """generate's findings: the list only with -v (check lists them), and the count line it
    returns for the end of the run, when it has a warning or an error to count (notes alone
    stay quiet, as in check) or with -v. Errors, and a danger-full-access sandbox (as in diff),
    are printed on every run."""
    from twsrt.findings import Level
    from twsrt.reports.text import count_line
    from twsrt.rules import DANGER_FULL_ACCESS
    from twsrt.suppressions import unsuppressed

    active, suppressed = unsuppressed(compiled.config, compiled.findings)
    loud = [
        f for f in active if verbose or f.level is Level.ERROR or f.rule_id == DANGER_FULL_ACCESS.id
    ]
    out.findings(loud, True)
    if verbose or any(f.level is not Level.NOTE for f in active):
        return count_line("generate", active, suppressed, listed=verbose)
    return ""
