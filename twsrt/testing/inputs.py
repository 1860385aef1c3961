"""Each engine's input, built from the policy with its paths mapped into the fixture tree."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from twsrt.policy import PathRule, Policy, normalize_path
from twsrt.testing.globs import engine_path
from twsrt.testing.model import SRT_REQUIRED


def _map_entry(item: Any, mapper: Any) -> Any:
    if isinstance(item, dict) and "path" in item:
        return {**item, "path": mapper(item["path"])}
    return mapper(item) if isinstance(item, str) else item


def srt_settings(policy: Policy, root: str) -> dict[str, Any]:
    """The canonical srt settings with every path made absolute inside the fixture tree."""
    settings = json.loads(json.dumps(policy.srt))  # deep copy; only paths change

    def mapper(path: str) -> str:
        return engine_path(normalize_path(path), root)

    # twsrt lets a policy omit lists that srt requires; an absent list and an empty one mean
    # the same, and srt refuses to start without them
    for section, keys in SRT_REQUIRED.items():
        part = settings.setdefault(section, {})
        if isinstance(part, dict):
            for key in keys:
                part.setdefault(key, [])
    filesystem = settings.get("filesystem")
    if isinstance(filesystem, dict):
        for key in ("denyRead", "allowRead", "allowWrite", "denyWrite"):
            if isinstance(filesystem.get(key), list):
                filesystem[key] = [_map_entry(item, mapper) for item in filesystem[key]]
    network = settings.get("network")
    if isinstance(network, dict) and isinstance(network.get("allowUnixSockets"), list):
        network["allowUnixSockets"] = [_map_entry(p, mapper) for p in network["allowUnixSockets"]]
    return settings


def codex_policy(policy: Policy, root: str) -> Policy:
    """The policy with absolute paths re-rooted into the tree; Codex anchors ``~`` at the
    temporary HOME and relative paths at its workspace (the working directory) itself."""

    def mapper(path: str) -> str:
        return engine_path(path, root) if path.startswith("/") else path

    def rules(items: list[PathRule]) -> list[PathRule]:
        return [replace(rule, path=normalize_path(mapper(rule.path))) for rule in items]

    srt = json.loads(json.dumps(policy.srt))
    network = srt.get("network")
    if isinstance(network, dict) and isinstance(network.get("allowUnixSockets"), list):
        network["allowUnixSockets"] = [_map_entry(p, mapper) for p in network["allowUnixSockets"]]
    return replace(
        policy,
        srt=srt,
        deny_read=rules(policy.deny_read),
        allow_read=rules(policy.allow_read),
        allow_write=rules(policy.allow_write),
        deny_write=rules(policy.deny_write),
    )
