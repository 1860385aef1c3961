"""Claude Code's project file: ``.claude/settings.json`` under the project root (project
scope, see ``twsrt.scopes``).

The same translation as the user file, with two differences that Claude's loading rules make:
a relative policy path anchors at the project root (``sandbox.filesystem`` paths resolve
against the settings source, and ``Read(/P)``/``Edit(/P)`` rules too), so ``**/*.pem`` covers
the project for Bash and for the file tools; and the sandbox keys Claude reads only from user,
managed or ``--settings`` files are left out and reported at the policy key (TWS445, TWS446).
Claude reads the file only when it starts in the project root (observed; TWS449).
A project file applies in every approval mode: there is no yolo twin and no settings link.
"""

from __future__ import annotations

from typing import Any

from twsrt.agents.base import Context, Result, value_at
from twsrt.agents.claude.declaration import HANDLED_SRT_KEYS, NAME, PROJECT_KEY, REASONS, Managed
from twsrt.agents.claude.modes import mode_findings
from twsrt.agents.claude.rules import (
    CLAUDE_PROJECT_GRANT_IGNORED,
    CLAUDE_PROJECT_KEY_IGNORED,
    CLAUDE_PROJECT_LAUNCH_ROOT,
)
from twsrt.agents.claude.settings import SETTINGS_FILE, settings_members
from twsrt.agents.claude.translate import PROJECT_ANCHOR, translate
from twsrt.agents.srtkeys import dotted, is_set, unhandled_key_findings
from twsrt.agents.targetfiles import TargetFiles
from twsrt.agents.targets import launch_root_finding
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump
from twsrt.policy import Policy

# Sandbox keys Claude Code honours only from user, managed or --settings files (agents-formats
# §2.3), as srt pointers: True when the key opens the sandbox up (leaving it out is stricter).
USER_ONLY_KEYS: dict[str, bool] = {
    "/network/strictAllowlist": False,
    "/network/tlsTerminate": False,
    "/ripgrep": False,
    "/credentials/awsPairs": False,
    "/credentials/sigv4": False,
    "/allowAppleEvents": True,
    "/allowNestedUserNamespaces": True,
    "/credentials/allowPlaintextInject": True,
}


def compile_project(ctx: Context) -> Result:
    """The project file of one run: full-mode rules (the file applies in every approval mode)."""
    overrides = ctx.config.overrides.get("full", {})
    managed, findings = translate(ctx.policy, False, overrides, ctx.sandbox_mode, PROJECT_ANCHOR)
    findings += mode_findings(ctx)
    findings += unhandled_key_findings(ctx.policy, NAME, HANDLED_SRT_KEYS, REASONS)
    findings += drop_user_only_keys(managed, ctx.policy)

    def preview() -> str:
        return dump(managed.fragment(), "  ") + "\n"

    target = ctx.config.targets.get(PROJECT_KEY)
    if target is None:
        return Result(NAME, preview, findings=findings, target_configured=False)
    rest = "; started in a subdirectory, only the user's settings bind"
    findings.append(
        launch_root_finding(
            ctx.config, PROJECT_KEY, CLAUDE_PROJECT_LAUNCH_ROOT, NAME, "Claude Code", rest
        )
    )
    files = TargetFiles(ctx.config, ctx.documents)
    members = settings_members(managed.sandbox_keys)
    files.settings(PROJECT_KEY, target, SETTINGS_FILE, managed, members)
    return files.result(NAME, preview, findings, origins=managed.origins)


def drop_user_only_keys(managed: Managed, policy: Policy) -> list[Finding]:
    """Remove the keys a project file cannot carry from ``managed``; one finding per key the
    policy sets (a missing, false or empty one asks for nothing)."""
    findings = []
    for pointer, grants in USER_ONLY_KEYS.items():
        value = value_at(policy.srt, pointer)
        _remove(managed.sandbox, pointer)
        if not is_set(value, pointer):
            continue
        rule = CLAUDE_PROJECT_GRANT_IGNORED if grants else CLAUDE_PROJECT_KEY_IGNORED
        effect = (
            "stricter: the project's commands do not get it"
            if grants
            else "the project file enforces less than the policy; the user or managed "
            "settings must carry it"
        )
        findings.append(
            finding(
                rule,
                f"'{dotted(pointer)}' is read by Claude Code from user, managed or --settings "
                f"files only; left out of the project file ({effect})",
                policy.srt_location(pointer, key=True),
                agent=NAME,
            )
        )
    return findings


def _remove(sandbox: dict[str, Any], pointer: str) -> None:
    """Delete ``pointer`` from the generated sandbox section (an emptied sub-object stays: the
    merge treats it as the policy's, as for the user file)."""
    *parents, last = pointer.strip("/").split("/")
    node: Any = sandbox
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)
