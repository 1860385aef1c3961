"""Kilo Code CLI's project file: ``kilo.jsonc`` at the project root (project scope, see
``twsrt.scopes``).

The user translation's ``permission`` members (``bash`` always among them) merged into the
project's own file as into the user's, without the sandbox: Kilo 7.7.7 takes from a project's
``sandbox`` no more than a switch on and a closed network, not its ``writable_paths`` (row 40
of docs/agents/opencode-observed.md), so the user's file must carry it (TWS672). Kilo finds the
file as OpenCode finds ``opencode.json`` and merges it the same way (TWS670, TWS671).
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.kilo.declaration import LABEL, NAME, PROJECT_KEY
from twsrt.agents.kilo.rules import KILO_PROJECT_NO_SANDBOX
from twsrt.agents.kilo.settings import PROJECT_MEMBERS, merged_text, project_drift_items
from twsrt.agents.kilo.translate import translate
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.opencodelayers import project_findings
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump


def compile_project(ctx: Context) -> Result:
    """The project file of one run: the permission rules only."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, True, ctx.config.output_home)
    findings = list(found)
    if ctx.full_access:
        what = "the project file carries the permission rules only"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
    elif ctx.policy.enabled:
        findings.append(no_sandbox(ctx))

    def preview() -> str:  # the members the file gets: no sandbox
        return dump({k: v for k, v in compiled.settings().items() if k != "sandbox"}, "  ")

    path = ctx.config.targets.get(PROJECT_KEY)
    if path is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    findings += project_findings(ctx.config, PROJECT_KEY, NAME, LABEL, "KILO")
    files = TargetFiles(ctx.config, ctx.documents)

    def text(disk: str | None, display: str) -> str:
        return merged_text(disk, display, compiled, sandbox=False)

    members = PROJECT_MEMBERS.using(ctx.documents)
    files.add(PROJECT_KEY, path, text, project_drift_items, members.view)
    return files.result(NAME, preview, findings, origins=compiled.origins)


def no_sandbox(ctx: Context) -> Finding:
    """The policy's sandbox cannot go into a project file (TWS672), at its write roots."""
    return finding(
        KILO_PROJECT_NO_SANDBOX,
        "Kilo takes no writable_paths from a project's sandbox (only a switch on and a closed "
        "network), so the project file carries the permission rules only: it does not confine "
        "a command's writes to the policy's write roots or close the network; the user's "
        "kilo.jsonc must carry the sandbox",
        write_roots_location(ctx.policy),
        agent=NAME,
    )
