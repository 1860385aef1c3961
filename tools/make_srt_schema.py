"""Regenerate schemas/srt-settings.schema.json from the key facts of the sandbox runtime schema.

Usage: python tools/make_srt_schema.py ../shared/reference/srt-settings-0.0.83.schema.json

Keeps structure, types and constraints (public format facts), drops upstream prose, converts to
draft 2020-12, and adds twsrt's own rules: the top-level ``enabled`` and ``$schema`` keys, no
``~user`` paths, non-blank strings, and no required sections (seed files omit deniedDomains).
"""

from __future__ import annotations

import json
import sys
from typing import Any

PATH_STRING = {
    "type": "string",
    "minLength": 1,
    "pattern": r"^(?!~[^/])(?!\s*$)",
    "description": "Absolute, ~/-relative or working-directory-relative path or glob.",
}

OWN_DESCRIPTIONS = {
    "": "Canonical sandbox policy for twsrt: the sandbox runtime (srt) settings file.",
    "/enabled": "twsrt extension: false marks the canonical sandbox as disabled (srt ignores it).",
    "/network": "Network policy: an allow list of domains, checked after the deny list.",
    "/network/allowedDomains": "Domains commands may reach; empty means no network.",
    "/network/deniedDomains": "Domains that are always refused, even when allowed.",
    "/filesystem": "Filesystem policy.",
    "/filesystem/denyRead": "Paths no agent may read.",
    "/filesystem/allowRead": "Paths re-allowed for reading inside a denied path.",
    "/filesystem/allowWrite": "Paths commands may write to.",
    "/filesystem/denyWrite": "Paths no agent may write, even inside a write root.",
}


def convert(node: Any, pointer: str) -> Any:
    if isinstance(node, list):
        return [convert(item, pointer) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("description", "$schema", "title", "default"):
            continue
        if key == "properties":
            out[key] = {
                name: convert(child, f"{pointer}/{name}")
                for name, child in value.items()
                if name != "filterRequest"  # a library callback, not settable from a file
            }
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = convert(value, pointer)
            out["items"] = False
        elif key == "required":
            continue
        else:
            out[key] = convert(value, pointer)
    if out.get("type") == "object" and pointer.count("/") >= 1 and "properties" in out:
        # nested objects whose own required keys srt enforces (e.g. ripgrep.command)
        required = [
            k for k in node.get("required", []) if pointer not in ("/network", "/filesystem")
        ]
        if required:
            out["required"] = required
    if pointer in OWN_DESCRIPTIONS:
        out["description"] = OWN_DESCRIPTIONS[pointer]
    return out


def main(source: str) -> None:
    with open(source, encoding="utf-8") as handle:
        upstream = json.load(handle)
    schema = convert(upstream, "")
    fs = schema["properties"]["filesystem"]["properties"]
    for name in ("denyRead", "allowRead", "allowWrite", "denyWrite"):
        entry = fs[name]["items"]
        entry["anyOf"][0] = PATH_STRING
        entry["anyOf"][1]["properties"]["path"] = dict(PATH_STRING)
    for name in ("allowedDomains", "deniedDomains"):
        schema["properties"]["network"]["properties"][name]["items"] = {
            "type": "string",
            "minLength": 1,
            "pattern": r"^\S+$",
        }
    props = {
        "$schema": {"type": "string"},
        "enabled": {"type": "boolean", "description": OWN_DESCRIPTIONS["/enabled"]},
    }
    props.update(schema["properties"])
    schema["properties"] = props
    final = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://twsrt.dev/schemas/srt-settings.schema.json",
        "title": "twsrt canonical sandbox settings (srt settings file)",
    }
    final.update(schema)
    json.dump(final, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
