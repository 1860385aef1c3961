"""Claude Code's managed settings (managed scope): the ``managed-settings.json`` an
administrator deploys, so users cannot lower the policy's floor.

The file carries what the user settings carry (the policy's deny and ask rules, the WebFetch
allow rules, the sandbox section; ask rules always, as managed settings apply in every approval
mode) plus the keys that make them binding (``BINDING``), each observed with Claude Code
2.1.332: ``allowManagedPermissionRulesOnly`` (other files' permission rules and
``--allowedTools`` are ignored), ``allowManagedDomainsOnly`` and ``allowManagedReadPathsOnly``
(only the managed hosts and allowRead paths count), ``disableBypassPermissionsMode`` (no
``bypassPermissions`` mode, which approves a sandbox escape unasked), ``allowManagedHooksOnly``
and ``allowedMcpServers: []`` (no hook and no MCP server of another layer runs: a sandboxed
command could have planted it below the launch directory, TWS628), and in the sandbox
``failIfUnavailable`` and ``allowUnsandboxedCommands: false`` unless ``[sandbox_overrides.full]``
names them. Claude reads managed-only keys (``bwrapPath``, ``socatPath``) here.

Paths: Claude expands ``~`` in managed settings with the home of the user who runs it, and
anchors a relative sandbox path at the working directory as srt does, so the file holds the
policy's paths as written: one file for every user and OS. Claude has no switch that binds
write roots (TWS450).

One file per OS under the managed output tree (``DIR/<os>/<path from the filesystem root>``,
``MANAGED_TARGETS``), same bytes; the admin's other keys in it survive (selective merge).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from twsrt.agents.base import Context, Result, read_target
from twsrt.agents.claude.declaration import (
    HANDLED_SRT_KEYS,
    MANAGED_TARGETS,
    NAME,
    REASONS,
    Managed,
)
from twsrt.agents.claude.modes import mode_findings
from twsrt.agents.claude.rules import (
    CLAUDE_MANAGED_SANDBOX_LEFT_TO_USERS,
    CLAUDE_MANAGED_WRITE_ROOTS_OPEN,
)
from twsrt.agents.claude.settings import SETTINGS_SHAPES, managed_spec, merge
from twsrt.agents.claude.translate import translate
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.rulepaths import CWD_ANCHOR
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import MANAGED_FILE_MODE, Members, compare, target_write
from twsrt.diffs import Spec
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump
from twsrt.locations import Location

# The keys that bind the floor, as JSON pointers, with the value the file sets.
BINDING: dict[str, Any] = {
    "/allowManagedPermissionRulesOnly": True,
    # no hook and no MCP server from a layer a sandboxed command could plant (TWS628): both
    # run outside the sandbox; servers the organisation delivers (managed-mcp.json,
    # managedMcpServers) need no entry
    "/allowManagedHooksOnly": True,
    "/allowedMcpServers": [],
    "/permissions/disableBypassPermissionsMode": "disable",
    "/sandbox/network/allowManagedDomainsOnly": True,
    "/sandbox/filesystem/allowManagedReadPathsOnly": True,
}

# Claude-only sandbox keys a managed file sets unless [sandbox_overrides.full] names them:
# the sandbox must start (no silent fallback to running unsandboxed) and has no escape hatch.
SANDBOX_DEFAULTS: dict[str, Any] = {"failIfUnavailable": True, "allowUnsandboxedCommands": False}

# srt keys Claude reads from managed settings only (user scope reports them, REASONS).
MANAGED_ONLY_KEYS = ("bwrapPath", "socatPath")


def managed_translation(ctx: Context) -> tuple[Managed, list[Finding]]:
    """The policy as a managed file's sections (pure): the full mode's rules and sandbox,
    the sandbox defaults, and the managed-only keys the policy sets."""
    policy = ctx.policy
    overrides = dict(ctx.config.overrides.get("full", {}))
    if policy.enabled and not ctx.full_access:
        overrides = {**SANDBOX_DEFAULTS, **overrides}
    managed, findings = translate(policy, False, overrides, ctx.sandbox_mode, CWD_ANCHOR)
    for key in MANAGED_ONLY_KEYS:
        if key in policy.srt:
            managed.sandbox[key] = policy.srt[key]
    if managed.sandbox.get("enabled") is False:  # a managed false would forbid a user's sandbox
        del managed.sandbox["enabled"]
        findings.append(sandbox_left_note(ctx))
    return managed, findings


def sandbox_left_note(ctx: Context) -> Finding:
    """The policy's sandbox is off: the managed file leaves ``sandbox.enabled`` out (TWS451)."""
    if ctx.full_access:
        where = ctx.sandbox_origin or Location(ctx.config.display)
    else:
        where = ctx.policy.srt_location("/enabled", key=True)
    return finding(
        CLAUDE_MANAGED_SANDBOX_LEFT_TO_USERS,
        "the policy's sandbox is off, so the managed file leaves sandbox.enabled out: a managed "
        "false would switch off every user's own sandbox; Claude's sandbox stays off unless a "
        "user turns it on",
        where,
        agent=NAME,
    )


def managed_merge(existing: dict[str, Any], managed: Managed) -> dict[str, Any]:
    """New values of the members twsrt owns in a managed file (pure)."""
    updates = merge(existing, managed)
    sandbox = updates["sandbox"]
    for key in MANAGED_ONLY_KEYS:
        if key in managed.sandbox:
            sandbox[key] = deepcopy(managed.sandbox[key])
        else:
            sandbox.pop(key, None)  # left the policy
    switches: dict[str, Any] = {}
    for pointer, value in BINDING.items():
        *parents, last = pointer.strip("/").split("/")
        if not parents:
            switches[last] = deepcopy(value)
            continue
        node = updates[parents[0]]
        for part in parents[1:]:
            node = node.setdefault(part, {})
        node[last] = value
    # the top-level switches lead a new file, in BINDING order; an existing file keeps its own
    return {**updates, **switches} if existing else {**switches, **updates}


def members(sandbox_keys: tuple[str, ...]) -> Members:
    """The members twsrt owns in a managed file: the user file's, the binding keys and the
    managed-only sandbox keys."""
    spec: Spec = deepcopy(managed_spec((*sandbox_keys, *MANAGED_ONLY_KEYS)))
    for pointer in BINDING:
        *parents, last = pointer.strip("/").split("/")
        node = spec
        for part in parents:
            child = node.setdefault(part, {})
            assert isinstance(child, dict)  # the spec's sections are nested specs
            node = child
        node[last] = True
    rules = ("permissions.deny", "permissions.ask", "permissions.allow")
    return Members(spec, rule_lists=rules)


def write_roots_note(ctx: Context) -> Finding:
    """What the managed file cannot bind (TWS450), at the policy's write roots."""
    policy = ctx.policy
    return finding(
        CLAUDE_MANAGED_WRITE_ROOTS_OPEN,
        "Claude Code has no managed-only switch for write roots: a user's "
        "sandbox.filesystem.allowWrite, permissions.additionalDirectories or Edit(...) allow "
        "rule still makes a directory writable for sandboxed commands under this managed file",
        write_roots_location(policy),
        agent=NAME,
    )


def compile_managed(ctx: Context) -> Result:
    """One managed run: the same file at each OS's place in the managed output tree."""
    from twsrt.agents.settingsmerge import splice_settings

    managed, findings = managed_translation(ctx)
    findings += mode_findings(ctx)
    handled = (*HANDLED_SRT_KEYS, *(f"/{key}" for key in MANAGED_ONLY_KEYS))
    reasons = {k: v for k, v in REASONS.items() if k.strip("/") not in MANAGED_ONLY_KEYS}
    findings += unhandled_key_findings(ctx.policy, NAME, handled, reasons)
    if managed.sandbox.get("enabled"):
        findings.append(write_roots_note(ctx))
    owned = members(managed.sandbox_keys).using(ctx.documents)

    def preview() -> str:
        return dump(managed_merge({}, managed), "  ") + "\n"

    configured = [spec for spec in MANAGED_TARGETS if spec.key in ctx.config.targets]
    if not configured:
        return Result(NAME, preview, findings=findings, target_configured=False)
    result = Result(NAME, preview, findings=findings, origins=managed.origins)
    documents = ctx.documents
    for spec in configured:
        path = ctx.config.targets[spec.key]
        display = ctx.config.display_path(path)
        disk_text = read_target(path, display, ctx.config, ctx.documents)
        new_text = splice_settings(
            disk_text, display, SETTINGS_SHAPES, lambda doc: managed_merge(doc, managed), documents
        )
        write = target_write(path, display, new_text, disk_text, mode=MANAGED_FILE_MODE)
        result.changes.append(write)
        result.drift.append(
            compare(display, spec.key, disk_text, new_text, owned.text_items, owned.view)
        )
    return result
