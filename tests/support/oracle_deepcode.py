"""The DeepCode and Claude code as it was before issue 17, kept as the test oracle for what
replaced it: the pairwise searches (now indexed in ``twsrt.agents.deepcode.overlaps``) and the
settings merges that deep-copied the whole user object (now ``settingsmerge.copy_for_merge``)."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from twsrt.agents.claude import declaration as claude_declaration
from twsrt.agents.claude.declaration import Managed as ClaudeManaged
from twsrt.agents.deepcode import declaration as deepcode_declaration
from twsrt.agents.deepcode.declaration import Managed as DeepCodeManaged
from twsrt.domains import split_port


def inside(path: str, root: str) -> bool:
    """``twsrt.agents.abspaths.inside`` as the old search used it (pinned here)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def overlap(a: str, b: str) -> bool:
    """Whether two host patterns (ports ignored) can name the same host; ``*.x`` is taken to
    cover ``x`` too, so that a doubt counts as an overlap."""
    a, b = split_port(a)[0].lower(), split_port(b)[0].lower()
    if "*" in (a, b):
        return True

    def covers(pattern: str, host: str) -> bool:
        base = pattern.removeprefix("*.")
        return host == base or (pattern.startswith("*.") and host.endswith("." + base))

    return covers(a, b.removeprefix("*.")) or covers(b, a.removeprefix("*."))


def first_overlaps(allowed: list[str], denied: list[str]) -> list[str | None]:
    """For each denied entry, the first allowed entry that overlaps it, by trying each one."""
    return [next((a for a in allowed if overlap(a, d)), None) for d in denied]


def first_mounts(mounts: list[str], paths: list[str]) -> list[str | None]:
    """For each path, the first mount that holds it or lies inside it, by trying each one."""
    return [next((m for m in mounts if inside(p, m) or inside(m, p)), None) for p in paths]


def merge_sections(
    target: dict[str, Any],
    generated: dict[str, Any],
    sections: tuple[tuple[str, tuple[str, ...]], ...],
) -> None:
    """``twsrt.agents.settingsmerge.merge_sections`` as the old merges used it (pinned here)."""
    for section, keys in sections:
        part = deepcopy(target.get(section) or {})
        wanted = generated.get(section, {})
        for key in keys:
            if key in wanted:
                part[key] = deepcopy(wanted[key])
            else:
                part.pop(key, None)
        if part or section in target:
            target[section] = part


def claude_merge(existing: dict[str, Any], managed: ClaudeManaged) -> dict[str, Any]:
    """Claude's settings merge before issue 17: the whole user object deep-copied first."""
    permissions = deepcopy(existing.get("permissions") or {})
    permissions["deny"] = list(managed.deny)
    if managed.ask is None:
        permissions.pop("ask", None)
    else:
        permissions["ask"] = list(managed.ask)
    webfetch = claude_declaration.WEBFETCH_PREFIX
    kept = [
        rule
        for rule in (permissions.get("allow") or [])
        if not (isinstance(rule, str) and rule.startswith(webfetch))
    ]
    allow = kept + [rule for rule in managed.webfetch_allow if rule not in kept]
    if allow or "allow" in permissions:
        permissions["allow"] = allow
    generated = managed.sandbox
    sandbox = deepcopy(existing["sandbox"] if existing.get("sandbox") is not None else generated)
    top_keys = claude_declaration.TOP_KEYS
    for key in (*top_keys, *managed.sandbox_keys):
        if key in generated:
            sandbox[key] = deepcopy(generated[key])
        elif key in top_keys or key in managed.dropped_keys:
            sandbox.pop(key, None)
    sections = (
        ("network", claude_declaration.NETWORK_KEYS),
        ("filesystem", claude_declaration.FILESYSTEM_KEYS),
    )
    merge_sections(sandbox, generated, sections)
    return {"permissions": permissions, "sandbox": sandbox}


def deepcode_merge(existing: dict[str, Any], managed: DeepCodeManaged) -> dict[str, Any]:
    """DeepCode's settings merge before issue 17: the whole user object deep-copied first."""
    current_permissions = existing.get("permissions")
    permissions = deepcopy(current_permissions) if current_permissions is not None else {}
    permissions["deny"] = list(managed.deny)
    permissions["ask"] = list(managed.ask)
    generated = managed.sandbox()
    current = existing.get("sandbox")
    if current is None:
        return {"permissions": permissions, "sandbox": generated}
    sandbox = deepcopy(current)
    for key in deepcode_declaration.LEGACY_KEYS:
        sandbox.pop(key, None)
    if "mode" in sandbox:
        sandbox["mode"] = managed.mode
    else:
        sandbox = {"mode": managed.mode, **sandbox}
    sections = (
        ("filesystem", deepcode_declaration.FS_KEYS),
        ("network", deepcode_declaration.NET_KEYS),
    )
    merge_sections(sandbox, generated, sections)
    return {"permissions": permissions, "sandbox": sandbox}
