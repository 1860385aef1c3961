"""Kilo Code CLI's managed config (managed scope): the ``kilo.jsonc`` an administrator deploys in
Kilo's managed directory (``/etc/kilo`` on Linux; keys ``kilo_managed_linux``/``_macos``/
``_windows``, one file per OS in the managed output tree, same bytes).

The file carries the permission members (``bash`` always) and ``$schema``, without the
sandbox: Kilo 7.7.7 holds a managed deny against a user's and a project's allow (row 31 of
docs/agents/opencode-observed.md), but whether it takes a sandbox from there was not observed
(TWS674); ``KILO_PERMISSION`` and the key-by-key merge still beat it (TWS673).
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.kilo.declaration import LABEL, MANAGED_TARGETS, NAME
from twsrt.agents.kilo.rules import KILO_MANAGED_NO_SANDBOX
from twsrt.agents.kilo.settings import PROJECT_MEMBERS, merged_text, project_drift_items
from twsrt.agents.kilo.translate import translate
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.opencodelayers import not_final
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import MANAGED_FILE_MODE
from twsrt.findings import finding
from twsrt.jsonedit import dump


def compile_managed(ctx: Context) -> Result:
    """One managed run: the same rules-only file at each OS's place in the managed tree."""
    compiled, found = translate(ctx.policy, ctx.sandbox_mode, True, ctx.config.output_home)
    findings = list(found)
    if ctx.full_access:
        what = "the managed file carries the permission rules only"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
    elif ctx.policy.enabled:
        findings.append(
            finding(
                KILO_MANAGED_NO_SANDBOX,
                "the managed kilo.jsonc carries the permission rules only (whether Kilo takes a "
                "sandbox from it was not observed): it does not confine a command's writes to "
                "the policy's write roots or close the network; each user's kilo.jsonc must "
                "carry the sandbox",
                write_roots_location(ctx.policy),
                agent=NAME,
            )
        )

    def preview() -> str:
        return dump({k: v for k, v in compiled.settings().items() if k != "sandbox"}, "  ")

    configured = [spec.key for spec in MANAGED_TARGETS if spec.key in ctx.config.targets]
    if not configured:
        return Result(NAME, preview, findings=findings, target_configured=False)
    findings.append(not_final(ctx.config, configured[0], NAME, LABEL, "KILO"))
    files = TargetFiles(ctx.config, ctx.documents, mode=MANAGED_FILE_MODE)

    def text(disk: str | None, display: str) -> str:
        return merged_text(disk, display, compiled, sandbox=False)

    members = PROJECT_MEMBERS.using(ctx.documents)
    for key in configured:
        files.add(key, ctx.config.targets[key], text, project_drift_items, members.view)
    return files.result(NAME, preview, findings, origins=compiled.origins)
