"""Codex's trusted projects and the policy's write roots: where the next Codex would load a
project layer that a sandboxed command could have planted (TWS625).

Observed with Codex 0.171.0 (tests/real/test_codex_planted_layer.py): Codex loads
``.codex/config.toml`` of every directory between a trusted project's root and where it starts;
a command under the twsrt profile writes ``sub/.codex/config.toml`` (only the top of a write
root is kept read-only, TWS465), and the next Codex started in ``sub`` runs with its
``default_permissions`` and starts its MCP servers. Untrusted (no entry, or ``"untrusted"``),
nothing of it loads. A write root reaches a trusted directory when it is relative (it hangs
from wherever Codex starts, which is the point of trusting a project) or lies inside, above or
at it, ``~`` expanded with this machine's home: these are facts of this machine, findings only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from twsrt.agents.codex.rules import CODEX_TRUSTED_PROJECT_PLANTABLE
from twsrt.effective import Layer, report
from twsrt.findings import Finding, quoted
from twsrt.policy import PathRule, Policy, is_glob

NAME = "codex"
TRUSTED = "trusted"


def trusted_entries(user: Layer) -> Iterator[str]:
    """The ``[projects."<dir>"]`` keys of ``user`` whose trust_level is trusted, in file order."""
    projects = user.value.get("projects")
    if not isinstance(projects, dict):
        return
    for key, entry in projects.items():
        if isinstance(entry, dict) and entry.get("trust_level") == TRUSTED:
            yield key


def reaching_root(policy: Policy, directory: str, home: Path) -> PathRule | None:
    """The first write root of ``policy`` from which a command could plant a layer that a Codex
    started in or below ``directory`` loads; None when none reaches it."""
    target = Path(directory)
    for rule in policy.allow_write:
        path = rule.path.removesuffix("/**")
        if not (path.startswith("/") or path == "~" or path.startswith("~/")):
            return rule  # relative: below wherever Codex starts
        if path in ("~", "/") or (is_glob(path) and not rule.literal):
            continue  # Codex takes no such write root (TWS408)
        expanded = Path(str(home).rstrip("/") + path[1:] if path.startswith("~") else path)
        for root in {expanded, Path(os.path.realpath(expanded))}:
            if root == target or root in target.parents or target in root.parents:
                return rule
    return None


def planted_findings(
    user: Layer, policy: Policy, home: Path, keys: list[str], *, project: bool = False
) -> list[Finding]:
    """TWS625 at each trusted entry of ``keys`` that a write root reaches (``project``: the
    entry is the one a twsrt project layer needs)."""
    out = []
    for key in keys:
        root = reaching_root(policy, key, home)
        if root is None:
            continue
        advice = (
            "twsrt's project layer needs this trust: start Codex only in the project root, "
            "where Codex keeps .codex read-only"
            if project
            else "the twsrt profile needs no trust: remove the entry or set trust_level = "
            '"untrusted"'
        )
        out.append(
            report(
                CODEX_TRUSTED_PROJECT_PLANTABLE,
                f"Codex trusts '{quoted(key)}', so started in it or below it loads every "
                ".codex/config.toml (its profile, rules, hooks, MCP servers) between the "
                f"project's root and where it starts, and write root '{quoted(root.path)}' lets "
                f"a command plant one there (TWS465); {advice}",
                user,
                f"/projects/{_escaped(key)}/trust_level",
                NAME,
                [root.origin],
            )
        )
    return out


def _escaped(key: str) -> str:
    """A JSON pointer token for a key (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")
