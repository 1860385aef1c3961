"""Claude Code between launches: a layer a sandboxed command plants below the launch directory
(TWS628), and srt's mandatory set below another write root (TWS629).

Claude loads ``.claude/settings.json``, ``.claude/settings.local.json`` and ``.mcp.json`` of
the directory it starts in, and its sandbox lets a command create them in any subdirectory of
the launch directory or a write root (observed, tests/real/test_claude_layers.py); the
settings twsrt writes cannot stop that on Linux (agents/claude/layers.py says what they do
stop). Only the managed settings bind the next launch, so the finding stays away on a machine
whose managed layer sets all of ``BINDS``, and is an error everywhere else.
"""

from __future__ import annotations

from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.claude.rules import CLAUDE_NESTED_UNPROTECTED, CLAUDE_PLANTED_LAYERS
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location

NAME = "claude"

# what a planted layer is kept from by the managed settings (each observed with a real run)
BINDS: dict[str, Any] = {
    "/sandbox/enabled": True,
    "/allowManagedHooksOnly": True,
    "/allowedMcpServers": [],
}


def planted_layers(ctx: Context, managed: Any, target: Location | None) -> list[Finding]:
    """TWS628 for a user or project run whose Claude sandbox is on, unless this machine's
    managed layer (``managed``: effective_managed.ManagedLayers, or None) binds every
    launch. ``target``: the Claude file of the run, a related location."""
    if ctx.config.scope == "managed" or not ctx.policy.enabled or ctx.full_access:
        return []
    missing = [p for p, v in BINDS.items() if managed is None or managed.value(p) != v]
    if not missing:
        return []
    machine = (
        "this machine has no Claude managed settings"
        if managed is None or not managed.layers
        else "this machine's managed settings do not set "
        + ", ".join(f"{p.strip('/').replace('/', '.')}: {_json(BINDS[p])}" for p in missing)
    )
    policy = ctx.policy
    has_roots = "allowWrite" in (policy.srt.get("filesystem") or {})
    where = policy.srt_location("/filesystem/allowWrite" if has_roots else "", key=has_roots)
    return [
        finding(
            CLAUDE_PLANTED_LAYERS,
            "a sandboxed command can create .claude/settings.json, .claude/settings.local.json "
            "or .mcp.json in any subdirectory of the directory Claude Code starts in (or of a "
            "write root), and a Claude started there later loads it: a planted "
            "sandbox.enabled false switches the sandbox off, a planted hook or MCP server runs "
            "outside it. No user or project setting stops this on Linux, and " + machine + "; "
            "deploy the managed settings (twsrt generate --managed DIR, docs/managed.md), "
            "whose sandbox.enabled, allowManagedHooksOnly and allowedMcpServers bind every "
            "launch",
            where,
            agent=NAME,
            related=() if target is None else (target,),
        )
    ]


def below_other_roots(ctx: Context) -> list[Finding]:
    """TWS629 at every write root but the launch directory: srt applies its mandatory set (a
    repository's hooks and config, shell rc files, .vscode/) in the launch directory only, and
    the names twsrt adds at a root's top do not reach deeper (Linux skips glob write denies)."""
    if ctx.config.scope == "managed" or not ctx.policy.enabled or ctx.full_access:
        return []
    if ctx.sandbox_mode == "read-only":
        return []
    return [
        finding(
            CLAUDE_NESTED_UNPROTECTED,
            f"below the top of write root '{quoted(root.path)}', Claude Code's sandbox lets a "
            "command create or change what srt protects in the launch directory only: a nested "
            "repository's .git/hooks and .git/config, .vscode/, .idea/, shell rc files, "
            ".gitconfig, .gitmodules, .ripgreprc, .mcp.json, which git, an editor or a shell "
            "runs later outside any sandbox; keep other repositories and projects out of the "
            "write root, or suppress with that reason",
            root.origin,
            agent=NAME,
        )
        for root in ctx.policy.allow_write
        if root.path not in (".", "./") and not root.glob
    ]


def _json(value: Any) -> str:
    import json

    return json.dumps(value)
