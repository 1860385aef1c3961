"""The members twsrt owns in a Gemini settings file and their merge (pure), for every scope:
the user's ``~/.gemini/settings.json``, the system settings of the managed tree and the
workspace's ``.gemini/settings.json`` (which also owns ``tools.exclude``); and the drift items of
a policy file twsrt writes whole."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from twsrt.agents.base import DriftItem
from twsrt.agents.settingsmerge import copy_for_merge
from twsrt.agents.targetfiles import JsonSettings
from twsrt.agents.targets import Members

Owned = Mapping[str, tuple[str, ...]]

# the settings members twsrt owns, by object; every other key of the file is the user's
OWNED: Owned = {
    "security": ("toolSandboxing", "disableAlwaysAllow", "enablePermanentToolApproval"),
    "tools": ("sandboxNetworkAccess", "sandboxAllowedPaths"),
}
# a workspace file has no policy file beside it: it excludes the tools the policy file denies;
# the project's own exclusions stay beside twsrt's (a list merged, not replaced)
PROJECT_OWNED: Owned = {**OWNED, "tools": (*OWNED["tools"], "exclude")}
MERGED_LISTS = ("exclude",)


def settings_file(owned: Owned) -> JsonSettings:
    """The JSON-settings kit of a file whose ``owned`` members twsrt replaces (a list of
    ``MERGED_LISTS``: keeps the file's own entries and adds twsrt's)."""

    def merge(existing: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
        """New values of the objects twsrt owns members of; their other keys are kept."""
        updates: dict[str, Any] = {}
        for section, keys in owned.items():
            current = existing.get(section)
            current = current if isinstance(current, dict) else {}
            part = copy_for_merge(current, replaced=keys)
            for key in keys:
                value = settings[section][key]
                own = current.get(key) if key in MERGED_LISTS else None
                if isinstance(own, list):
                    value = [*own, *(item for item in value if item not in own)]
                part[key] = list(value) if isinstance(value, list) else value
            updates[section] = part
        return updates

    members = Members({section: dict.fromkeys(keys, True) for section, keys in owned.items()})
    return JsonSettings(merge, {"/security": dict, "/tools": dict}, members)


SETTINGS_FILE = settings_file(OWNED)
PROJECT_SETTINGS_FILE = settings_file(PROJECT_OWNED)


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
