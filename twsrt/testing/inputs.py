"""Each engine's input: the file it loads on disk, with its paths mapped into the fixture tree.

Only paths change: every other byte of meaning (a deny missing, a grant added by hand, a user
key that undoes the profile) reaches the sandbox as it is on disk.
"""

from __future__ import annotations

import json
from typing import Any

from twsrt.policy import Policy, normalize_path
from twsrt.testing.globs import engine_path
from twsrt.testing.model import SRT_REQUIRED


def _map_entry(item: Any, mapper: Any) -> Any:
    if isinstance(item, dict) and "path" in item:
        return {**item, "path": mapper(item["path"])}
    return mapper(item) if isinstance(item, str) else item


def srt_settings(
    policy: Policy, root: str, sandbox_mode: str = "workspace-write"
) -> dict[str, Any]:
    """The canonical srt settings (the source file as parsed) with every path made absolute
    inside the fixture tree; read-only grants no write root (as every agent's read-only files);
    the keys naming a program srt starts outside its sandbox are left out (``hostrun``)."""
    from twsrt.testing.hostrun import without_host_programs

    # deep copy; only paths change, and no program srt would start on the host is named
    settings = without_host_programs(json.loads(json.dumps(policy.srt)))
    if sandbox_mode == "read-only" and isinstance(settings.get("filesystem"), dict):
        settings["filesystem"]["allowWrite"] = []

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
