"""``twsrt diff``: each selected agent's drift against the files on disk, and the exit code that
says whether there is any (0 none, 1 drift, 2 a target file missing)."""

from __future__ import annotations

from twsrt.agents.base import Drift, Result
from twsrt.drift import drift_report
from twsrt.findings import Finding
from twsrt.invocation import Invocation, open_invocation
from twsrt.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Outcome
from twsrt.request import Request
from twsrt.run import compile_invocation, notices, require_targets
from twsrt.suppressions import unsuppressed


def run(request: Request) -> Outcome:
    """``twsrt diff``: each target's drift on stdout, exit code by ``diff_exit_code``."""
    from twsrt.rules import DANGER_FULL_ACCESS

    outcome = Outcome()
    with outcome.stopping() as out:
        invocation = open_invocation(request)
        compiled = compile_invocation(invocation)
        results = require_targets(compiled, request.agent)
        out.err(compiled.mode_line)
        # danger-full-access is loud on every run, diff included
        loud = [f for f in compiled.findings if f.rule_id == DANGER_FULL_ACCESS.id]
        out.findings(loud, False)
        out.findings(_effective(invocation, results), False)
        notices(compiled.results, out)
        fix = invocation.fix_command()
        for result in results:
            for drift in result.drift:
                out.out(f"{result.agent}: {drift_report(drift, compiled.config, fix)}")
        out.exit_code = diff_exit_code([d for r in results for d in r.drift])
    return outcome


def diff_exit_code(drifts: list[Drift]) -> int:
    """0: no drift, 1: drift, 2: a target file is missing (wins over drift)."""
    if any(d.missing_file for d in drifts):
        return EXIT_USAGE
    return EXIT_FINDINGS if any(d.drifted for d in drifts) else EXIT_OK


def _effective(invocation: Invocation, results: list[Result]) -> list[Finding]:
    """User keys that undo the policy (TWS6xx), minus the config's suppressions; diff prints
    them but keeps its drift exit code."""
    found = [f for r in results for f in invocation.effective(r.agent)]
    return unsuppressed(invocation.config, list(dict.fromkeys(found)))[0]
