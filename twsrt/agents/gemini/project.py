"""Gemini CLI's project file: the workspace ``.gemini/settings.json`` under the project root
(project scope, see ``twsrt.scopes``).

Gemini CLI 0.61.0 merges the workspace settings over the user's (the system settings over
both) once the folder is trusted, and only from the directory it starts in (observed,
tests/real/test_gemini_scopes.py): the sandbox keys twsrt owns hold from there, and
``tools.exclude`` takes the web tools (and in read-only mode the write tools) out of the run,
which the user file does with policy rules. Workspace policy files are switched off in that
version, so the bash rules and the file-tool denies have no place here (TWS489).
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.gemini.declaration import (
    HANDLED_SRT_KEYS,
    NAME,
    PROJECT_KEY,
    REASONS,
    WEB_TOOLS,
    WRITE_FILE_TOOLS,
)
from twsrt.agents.gemini.rules import GEMINI_PROJECT_LAUNCH_ROOT, GEMINI_PROJECT_RULES_LOST
from twsrt.agents.gemini.settings import PROJECT_SETTINGS_FILE
from twsrt.agents.gemini.translate import sandbox_findings, settings_of
from twsrt.agents.srtkeys import unenforced_suffix, unhandled_key_findings
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import disabled_sandbox, launch_root_finding
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump
from twsrt.policy import Policy


def compile_project(ctx: Context) -> Result:
    """The workspace settings of one run (they apply in every approval mode)."""
    policy = ctx.policy
    if not policy.enabled and not ctx.full_access:
        raise disabled_sandbox(policy, NAME, "write a Gemini sandbox")
    settings = settings_of(ctx.sandbox_mode)
    settings["tools"]["exclude"] = [*WEB_TOOLS, *(WRITE_FILE_TOOLS if ctx.read_only else ())]
    findings = [] if ctx.full_access else sandbox_findings(policy, ctx.sandbox_mode)
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    findings += rules_lost(policy)
    if ctx.full_access:
        what = "the workspace file sets security.toolSandboxing to false"
        findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(policy)))

    def preview() -> str:
        return dump(settings, "  ") + "\n"

    target = ctx.config.targets.get(PROJECT_KEY)
    if target is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    rest = (
        " of a trusted folder; started in a subdirectory only the user's and system settings "
        "bind, and headless in an untrusted folder it does not start"
    )
    at_root = launch_root_finding(
        ctx.config,
        PROJECT_KEY,
        GEMINI_PROJECT_LAUNCH_ROOT,
        NAME,
        "Gemini",
        rest,
    )
    findings.append(at_root)
    files = TargetFiles(ctx.config, ctx.documents)
    files.settings(PROJECT_KEY, target, PROJECT_SETTINGS_FILE, settings)
    return files.result(NAME, preview, findings)


def rules_lost(policy: Policy) -> list[Finding]:
    """TWS489 at each policy list the workspace file cannot carry: the bash deny and ask rules
    (an allow left out is stricter) and the denyRead/denyWrite paths of the file tools."""
    lists = [
        (f"bash {name}", policy.bash_location(f"/{name}", key=True))
        for name, entries in (("deny", policy.bash_deny), ("ask", policy.bash_ask))
        if entries
    ]
    lists += [
        (f"filesystem.{key}", policy.srt_location(f"/filesystem/{key}", key=True))
        for key, rules in (("denyRead", policy.deny_read), ("denyWrite", policy.deny_write))
        if any(not rule.echo for rule in rules)
    ]
    return [
        finding(
            GEMINI_PROJECT_RULES_LOST,
            f"{what}: Gemini 0.61.0 ignores workspace policy files, so the project file cannot "
            "carry these rules; keep them in the user-scope gemini_policy target or the managed "
            "admin policy",
            where,
            agent=NAME,
        )
        for what, where in lists
    ]
