"""The findings of a sandbox mode and of the ``[sandbox_overrides]`` it sets aside, for each
Claude Code scope (user, project, managed): what the mode costs, and an override that switches
the sandbox off against the policy."""

from __future__ import annotations

import json

from twsrt.agents.base import Context
from twsrt.agents.claude.declaration import ESCAPE_HATCH, MODE_DROPPED, MODE_FORCED, NAME
from twsrt.agents.claude.rules import LOSSY_READONLY_WORKSPACE
from twsrt.findings import Finding, finding
from twsrt.locations import Location
from twsrt.rules import AGENT_SANDBOX_OFF, LOSSY_UNSUPPORTED_KEY, UNCOMPILED_KEY_NOTE


def mode_findings(ctx: Context) -> list[Finding]:
    """What the sandbox mode costs in Claude Code, and overrides the mode sets aside."""
    findings: list[Finding] = []
    origin = ctx.sandbox_origin or Location(ctx.config.display)
    if ctx.read_only:
        findings.append(
            finding(
                LOSSY_READONLY_WORKSPACE,
                "sandbox mode read-only: Claude Code's sandbox always lets commands write the "
                "directory it starts in; Edit is denied and no path is granted for writing, but "
                "a sandboxed shell command can still write the workspace",
                origin,
                agent=NAME,
            )
        )
    if ctx.full_access:
        findings.append(
            ctx.full_access_finding(
                NAME, "sandbox.enabled is false and the permission deny rules stay in force"
            )
        )
    return findings + _override_findings(ctx)


def _override_findings(ctx: Context) -> list[Finding]:
    """The ``[sandbox_overrides]`` the sandbox mode or the yolo file sets aside, and a sandbox
    switched off or kept on against the policy."""
    findings: list[Finding] = []
    forced = MODE_FORCED.get(ctx.sandbox_mode, {})
    dropped = MODE_DROPPED.get(ctx.sandbox_mode, ())
    overrides = ctx.config.overrides.get(ctx.mode, {})
    if ctx.policy.enabled and overrides.get("enabled") is False and "enabled" not in forced:
        findings.append(
            finding(
                AGENT_SANDBOX_OFF,
                f"[sandbox_overrides.{ctx.mode}] enabled = false switches Claude Code's sandbox "
                "off while the policy's is on: Bash commands run without the policy's "
                'filesystem and network rules; remove the override, or set "enabled": false '
                "in the policy if that is really meant",
                ctx.config.location(f"/sandbox_overrides/{ctx.mode}/enabled"),
                agent=NAME,
                related=(ctx.policy.srt_location(""),),
            )
        )
    if not ctx.policy.enabled and forced.get("enabled") is True:
        findings.append(
            finding(
                UNCOMPILED_KEY_NOTE,
                f"'enabled' is false in the policy, but sandbox mode {ctx.sandbox_mode} keeps "
                "Claude Code's sandbox on (stricter than the policy)",
                ctx.policy.srt_location("/enabled", key=True),
                agent=NAME,
            )
        )
    if ctx.yolo and ctx.sandbox_mode == "workspace-write" and overrides.get(ESCAPE_HATCH) is True:
        findings.append(
            finding(
                LOSSY_UNSUPPORTED_KEY,
                f"[sandbox_overrides.yolo] {ESCAPE_HATCH} = true is set aside: a yolo file runs "
                "without prompts, so nobody would approve a command leaving the sandbox; twsrt "
                "writes false",
                ctx.config.location(f"/sandbox_overrides/yolo/{ESCAPE_HATCH}"),
                agent=NAME,
            )
        )
    for key, value in overrides.items():
        if (key in forced and forced[key] != value) or key in dropped:
            findings.append(
                finding(
                    LOSSY_UNSUPPORTED_KEY,
                    f"[sandbox_overrides.{ctx.mode}] {key} is set aside under sandbox mode "
                    f"{ctx.sandbox_mode}"
                    + (f", which forces {json.dumps(forced[key])}" if key in forced else ""),
                    ctx.config.location(f"/sandbox_overrides/{ctx.mode}/{key}"),
                    agent=NAME,
                )
            )
    return findings
