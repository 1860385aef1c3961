"""Qwen Code target: ``~/.qwen/settings.json``, with the members twsrt owns spliced into the
user's file and every other byte kept (a new file is written 0600).

twsrt owns ``permissions.deny``, ``permissions.ask``, ``permissions.allow``,
``tools.executionSandbox`` and the top-level ``"$version"``. One file serves every launch, with
or without ``--yolo`` (Qwen reads no per-mode file), so both approval modes compile the same
bytes and the yolo-only loss is a finding. The package: ``declaration`` (key, layers, owned
members), ``rules``, ``translate`` (the pure translation), ``effective`` (the user's keys beside
twsrt's that grant more); this module compiles one run.
"""

from __future__ import annotations

from typing import Any

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.qwen.declaration import (
    AGENT_SPEC,
    NAME,
    PERMISSION_KEYS,
    SANDBOX_KEY,
    SETTINGS_KEY,
    SETTINGS_VERSION,
    VERSION_KEY,
)
from twsrt.agents.qwen.translate import Compiled, translate
from twsrt.agents.settingsmerge import copy_for_merge
from twsrt.agents.srtkeys import unenforced_suffix
from twsrt.agents.targetfiles import JsonSettings, TargetFiles
from twsrt.agents.targets import Members
from twsrt.jsonedit import dump


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the members twsrt owns (pure); the objects' other keys are kept."""
    current = existing.get("permissions")
    permissions = copy_for_merge(current if isinstance(current, dict) else {}, PERMISSION_KEYS)
    for key, rules in compiled.lists().items():
        permissions[key] = list(rules)
    current = existing.get("tools")
    tools = copy_for_merge(current if isinstance(current, dict) else {}, (SANDBOX_KEY,))
    if compiled.sandbox is None:
        tools.pop(SANDBOX_KEY, None)
    else:
        tools[SANDBOX_KEY] = dict(compiled.sandbox)
    updates: dict[str, Any] = {VERSION_KEY: SETTINGS_VERSION, "permissions": permissions}
    if tools or "tools" in existing:
        updates["tools"] = tools
    return updates


SETTINGS = Members(
    {
        VERSION_KEY: True,
        "permissions": dict.fromkeys(PERMISSION_KEYS, True),
        "tools": {SANDBOX_KEY: True},
    },
    rule_lists=tuple(f"permissions.{key}" for key in PERMISSION_KEYS),
)

SHAPES: dict[str, type] = {
    "/permissions": dict,
    **{f"/permissions/{key}": list for key in PERMISSION_KEYS},
    "/tools": dict,
    f"/tools/{SANDBOX_KEY}": dict,
}

SETTINGS_FILE = JsonSettings(merge, SHAPES, SETTINGS)


class QwenAgent(DeclaredAgent):
    spec = AGENT_SPEC

    def compile_user(self, ctx: Context) -> Result:
        compiled, found = translate(ctx.policy, ctx.sandbox_mode, ctx.yolo)
        findings = list(found)
        if ctx.full_access:
            what = "tools.executionSandbox is removed and the permission rules stay"
            findings.append(ctx.full_access_finding(NAME, what + unenforced_suffix(ctx.policy)))
        path = ctx.config.targets.get(SETTINGS_KEY)

        def preview() -> str:  # the managed members alone, as JSON (as Claude's preview)
            return dump(compiled.settings(), "  ")

        if path is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        files = TargetFiles(ctx.config, ctx.documents)
        files.settings(SETTINGS_KEY, path, SETTINGS_FILE, compiled)
        return files.result(NAME, preview, findings, origins=compiled.origins)


AGENT = QwenAgent()
