"""Qwen Code in managed scope: what the user's ``~/.qwen/settings.json`` on this machine still
widens under the system settings twsrt generates.

Observed with Qwen Code 0.24.4 (tests/real/test_qwen_managed_observed.py): the system file's
``tools.executionSandbox`` replaces the user's (row 29), and the permission rules of every
scope are unioned, a deny before an ask before an allow, so a system deny holds against a user
allow (row 30). What the system file cannot bind: a user's shell allow rule for a command the
policy neither allows, asks about nor denies runs it unattended (TWS636), and a user's
``tools.approvalMode: "yolo"`` approves the system's ask rules (TWS632).

The other way round, a user-scope check on a machine with system settings
(``effective.host_path``: under ``$TWSRT_MANAGED_ROOT`` when set) reads them as Qwen does
above the user's file: a system sandbox wider than the one twsrt compiles, or a system shell
allow rule beyond the policy, widens the run (TWS637). Findings only, about this machine;
imported only in a managed-scope run or when the system file exists.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from twsrt.agents.base import Context
from twsrt.agents.qwen.declaration import ALLOW_TOOL, DENY_TOOL, INSTALL_PATHS, NAME, SANDBOX_KEY
from twsrt.agents.qwen.rules import (
    QWEN_APPROVAL_MODE_YOLO,
    QWEN_MANAGED_USER_ALLOW,
    QWEN_SYSTEM_LAYER_GRANT,
)
from twsrt.bashrules import command_within
from twsrt.effective import Layer, PolicyView, child, host_path, load_layer, report, strings
from twsrt.findings import Finding, quoted
from twsrt.policy import Entry
from twsrt.rules.model import Rule

SHELL_TOOLS = (ALLOW_TOOL, DENY_TOOL, "run_shell_command")


def user_settings_path(home: Path) -> Path:
    """The user's settings on this machine: ``$QWEN_HOME/settings.json``, else ~/.qwen."""
    qwen_home = os.environ.get("QWEN_HOME")
    return Path(qwen_home) / "settings.json" if qwen_home else home / ".qwen" / "settings.json"


def findings(ctx: Context) -> list[Finding]:
    # the user's file lies outside the managed tree: read it where it is, unconfined
    config = replace(ctx.config, scope="user", confine_root=None)
    path = user_settings_path(ctx.config.home)
    layer, out = load_layer(path, "json", NAME, config, ctx.documents)
    if layer is None:
        return out
    if child(layer.value, "tools", "approvalMode") == "yolo":
        message = (
            'tools.approvalMode "yolo" starts every Qwen session as --yolo does, which the '
            "system settings do not bind: the commands the policy asks about run without a prompt"
        )
        out.append(report(QWEN_APPROVAL_MODE_YOLO, message, layer, "/tools/approvalMode", NAME))
    return out + allow_findings(ctx, layer)


def system_findings(ctx: Context) -> list[Finding]:
    """A user-scope check: what this machine's system settings grant beyond the policy."""
    config = ctx.config.confined(None)  # a system file, outside any repository
    layer, out = load_layer(host_path(INSTALL_PATHS), "json", NAME, config, ctx.documents)
    if layer is None:
        return out
    view = PolicyView(ctx)
    sandbox = child(layer.value, "tools", SANDBOX_KEY)
    if view.sandboxed and isinstance(sandbox, dict):
        wider = []
        if sandbox.get("network") == "open":
            wider.append("opens the network")
        if sandbox.get("filesystem") == "workspace-write" and not view.cwd_writable:
            wider.append("makes the workspace writable")
        if wider:
            message = (
                f"the system settings' tools.executionSandbox {' and '.join(wider)}, which the "
                "policy does not; Qwen takes it in place of the user's"
            )
            pointer = f"/tools/{SANDBOX_KEY}"
            out.append(report(QWEN_SYSTEM_LAYER_GRANT, message, layer, pointer, NAME))
    return out + allow_findings(ctx, layer, QWEN_SYSTEM_LAYER_GRANT, "system settings'")


def allow_findings(
    ctx: Context, layer: Layer, rule_of: Rule = QWEN_MANAGED_USER_ALLOW, whose: str = "user's"
) -> list[Finding]:
    """Each shell allow rule of ``layer`` that lets a command run the policy does not allow
    and no deny or ask rule of the policy catches first (TWS636 for the user's file under
    the system settings, TWS637 for the system file itself)."""
    policy = ctx.policy
    held = [*policy.bash_deny, *policy.bash_ask]
    out: list[Finding] = []
    allowed = child(layer.value, "permissions", "allow")
    for rule, pointer in strings(allowed, "/permissions/allow"):
        command = shell_command(rule)
        if command is None:
            continue
        if command and (_holds(policy.bash_allow, command) or _holds(held, command)):
            continue
        what = f"'{quoted(command)}'" if command else "every command"
        out.append(
            report(
                rule_of,
                f"the {whose} allow rule '{quoted(rule)}' lets {what} run without a prompt, "
                "also headless: Qwen unions the rules of every settings file, and neither the "
                "policy's allow list nor a deny or ask rule of the policy holds it",
                layer,
                pointer,
                NAME,
                key=False,
            )
        )
    return out


def shell_command(rule: str) -> str | None:
    """The command a shell rule names, its trailing `` *`` (or ``:*``) dropped (``""`` for the
    whole tool), None for a rule of another tool. A ``*`` inside stays: only a policy rule that
    holds the text before it holds the rule."""
    rule = rule.strip()
    tool, _, rest = rule.partition("(")
    if tool.strip() not in SHELL_TOOLS:
        return None
    if not rest:
        return ""
    spec = rest.removesuffix(")").strip()
    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    spec = spec.removesuffix(" *").strip()
    return "" if spec == "*" else spec


def _holds(entries: list[Entry], command: str) -> bool:
    return any(command_within(command, entry.value) for entry in entries)
