"""Gemini CLI target: a policy file twsrt writes whole (``~/.gemini/policies/twsrt.toml``) and
the sandbox keys of ``~/.gemini/settings.json``, spliced into the user's file with every other
byte kept.

One pair of files serves every launch, with or without ``--yolo``: Gemini reads no per-mode
file, so both approval modes compile the same bytes (as Codex's do) and the yolo-only losses
are findings. The package: ``declaration`` (keys, layers, priorities), ``rules``, ``translate``
(the pure translation), ``effective`` (the files beside twsrt's that Gemini also loads); this
module compiles one run (shared machinery: ``agents.targets``, ``agents.targetfiles``).
"""

from __future__ import annotations

import tomllib
from typing import Any

from twsrt.agents.abspaths import unpinned_home
from twsrt.agents.base import Context, DeclaredAgent, DriftItem, Result
from twsrt.agents.gemini.declaration import AGENT_SPEC, NAME, POLICY_KEY, SETTINGS_KEY
from twsrt.agents.gemini.rules import GEMINI_POLICY_NOT_WRITTEN, GEMINI_SANDBOX_NOT_WRITTEN
from twsrt.agents.gemini.translate import Compiled, translate
from twsrt.agents.settingsmerge import copy_for_merge
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import JsonSettings, TargetFiles
from twsrt.agents.targets import Members
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump

# the settings members twsrt owns, by object; every other key of the file is the user's
OWNED = {
    "security": ("toolSandboxing", "disableAlwaysAllow", "enablePermanentToolApproval"),
    "tools": ("sandboxNetworkAccess", "sandboxAllowedPaths"),
}

SETTINGS = Members({section: dict.fromkeys(keys, True) for section, keys in OWNED.items()})


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the objects twsrt owns members of (pure); their other keys are kept."""
    updates: dict[str, Any] = {}
    for section, keys in OWNED.items():
        current = existing.get(section)
        part = copy_for_merge(current if isinstance(current, dict) else {}, replaced=keys)
        for key in keys:
            value = compiled.settings[section][key]
            part[key] = list(value) if isinstance(value, list) else value
        updates[section] = part
    return updates


SETTINGS_FILE = JsonSettings(merge, {"/security": dict, "/tools": dict}, SETTINGS)


def policy_items(text: str) -> list[DriftItem]:
    """Each rule of a policy file as ``decision@priority -> what it matches``, so drift names
    the rule that changed; a file that does not parse is its lines."""
    try:
        rules = tomllib.loads(text).get("rule", [])
    except tomllib.TOMLDecodeError:
        return [DriftItem("line", line) for line in text.splitlines() if line.strip()]
    items = []
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict):
            continue
        subject = rule.get("commandPrefix", rule.get("argsPattern", rule.get("toolName")))
        key = f"{rule.get('decision')}@{rule.get('priority')}"
        items.append(DriftItem(key, subject if isinstance(subject, str) else str(subject)))
    return items


class GeminiAgent(DeclaredAgent):
    spec = AGENT_SPEC

    def compile_user(self, ctx: Context) -> Result:
        home, mode = ctx.config.output_home, ctx.sandbox_mode
        compiled, findings = ctx.once((NAME, home, mode), lambda: translate(ctx.policy, home, mode))
        findings = list(findings)
        if ctx.full_access:
            what = "security.toolSandboxing is false and the policy file's deny rules stay"
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        policy_path = ctx.config.targets.get(POLICY_KEY)
        settings_path = ctx.config.targets.get(SETTINGS_KEY)
        if compiled.home_used and ctx.config.pinned_home is None and policy_path is not None:
            findings.append(unpinned_home(ctx.config, POLICY_KEY))
        findings += _missing_targets(ctx, policy_path is None, settings_path is None)
        text = compiled.policy_text()

        def preview() -> str:
            fragment = dump(compiled.settings, "  ")
            commented = "".join(f"# {line}\n" for line in fragment.splitlines())
            where = (
                "settings.json" if settings_path is None else ctx.config.display_path(settings_path)
            )
            return f"{text}\n# {where} (managed keys only)\n{commented}"

        if policy_path is None and settings_path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)
        if policy_path is not None:
            files.add(POLICY_KEY, policy_path, text, policy_items, form=True)
        if settings_path is not None:
            files.settings(SETTINGS_KEY, settings_path, SETTINGS_FILE, compiled)
        return files.result(NAME, preview, findings, origins=compiled.origins)


def _missing_targets(ctx: Context, no_policy: bool, no_settings: bool) -> list[Finding]:
    """One of the pair left out: what that loses (neither: the agent is not a target)."""
    if no_policy == no_settings:
        return []
    if no_settings and not ctx.full_access:
        message = (
            "no gemini_settings target is configured, so Gemini's tool sandbox stays off "
            "(security.toolSandboxing defaults to false); add one to [targets]"
        )
        return [
            finding(
                GEMINI_SANDBOX_NOT_WRITTEN,
                message,
                ctx.config.location(f"/targets/{POLICY_KEY}"),
                agent=NAME,
            )
        ]
    if no_policy:
        message = (
            "no gemini_policy target is configured, so the bash rules and the file- and "
            "web-tool denies are not written for Gemini; add one to [targets]"
        )
        return [
            finding(
                GEMINI_POLICY_NOT_WRITTEN,
                message,
                ctx.config.location(f"/targets/{SETTINGS_KEY}"),
                agent=NAME,
            )
        ]
    return []


AGENT = GeminiAgent()
