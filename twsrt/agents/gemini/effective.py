"""Gemini CLI: what it loads beside twsrt's files that can undo them. Every ``*.toml`` in the
policy file's directory is a peer at the same tier (an ``auto-saved.toml`` among them), and a
``policyPaths`` key in the settings replaces that directory altogether (both observed with
0.61.0, docs/agents/gemini.md)."""

from __future__ import annotations

from pathlib import Path

from twsrt.agents.base import Context
from twsrt.agents.gemini.declaration import (
    ASK_PRIORITY,
    NAME,
    POLICY_KEY,
    PROJECT_KEY,
    SETTINGS_KEY,
)
from twsrt.agents.gemini.rules import GEMINI_PEER_POLICY_RULE, GEMINI_POLICY_PATHS
from twsrt.effective import Layer, child, load_layer, report
from twsrt.findings import Finding, quoted


def findings(ctx: Context) -> list[Finding]:
    from twsrt.agents.gemini.effective_system import system_findings

    out: list[Finding] = system_findings(ctx) if ctx.config.scope != "project" else []
    if ctx.config.scope == "managed":
        return out  # the tree's own files are generated whole or owned key by key
    key = PROJECT_KEY if ctx.config.scope == "project" else SETTINGS_KEY
    settings = ctx.config.targets.get(key)
    if settings is not None:
        layer, problems = load_layer(settings, "json", NAME, ctx.config, ctx.documents)
        out += problems
        if layer is not None and child(layer.value, "policyPaths"):
            out.append(
                report(
                    GEMINI_POLICY_PATHS,
                    "policyPaths makes Gemini load the files it names instead of "
                    "~/.gemini/policies, so twsrt's policy file is not loaded",
                    layer,
                    "/policyPaths",
                    NAME,
                )
            )
    target = ctx.config.targets.get(POLICY_KEY)
    if target is not None:
        for peer in _peers(target):
            layer, problems = load_layer(peer, "toml", NAME, ctx.config, ctx.documents)
            out += problems
            if layer is not None:
                out += _outranking(layer)
    return out


def _peers(target: Path) -> list[Path]:
    """The other policy files Gemini loads from the target's directory, in name order."""
    try:
        names = sorted(entry.name for entry in target.parent.iterdir())
    except OSError:
        return []
    return [target.parent / n for n in names if n.endswith(".toml") and n != target.name]


def _outranking(layer: Layer) -> list[Finding]:
    """The allow and ask rules of a peer file at a priority that can beat twsrt's asks."""
    rules = child(layer.value, "rule")
    out = []
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(rule, dict) or rule.get("decision") not in ("allow", "ask_user"):
            continue
        priority = rule.get("priority")
        if not isinstance(priority, int) or isinstance(priority, bool) or priority < ASK_PRIORITY:
            continue
        out.append(
            report(
                GEMINI_PEER_POLICY_RULE,
                f"this {quoted(str(rule.get('decision')))} rule at priority {priority} can "
                f"outrank twsrt's deny and ask rules (deny 999, ask {ASK_PRIORITY})",
                layer,
                f"/rule/{index}/priority",
                NAME,
            )
        )
    return out
