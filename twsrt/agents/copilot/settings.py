"""Copilot's ``sandbox`` settings: compiled from the policy (absolute paths, hosts), merged
into the user's settings.json, and the members drift compares and reports show."""

from __future__ import annotations

from typing import Any

from twsrt.agents.abspaths import HomePaths, PathIndex, deny_path, grant_path
from twsrt.agents.copilot.declaration import (
    FS_KEYS,
    NAME,
    NET_KEYS,
    PATHS,
    TOP_KEYS,
    URL_KEYS,
    Compiled,
    _lossy,
)
from twsrt.agents.copilot.flags import _domain
from twsrt.agents.copilot.rules import COPILOT_MANDATORY_NAMES_OPEN
from twsrt.agents.lossy import write_roots_location
from twsrt.agents.rootnames import under
from twsrt.agents.settingsmerge import copy_for_merge
from twsrt.agents.targetfiles import JsonSettings
from twsrt.agents.targets import Members, disabled_sandbox, unique
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy
from twsrt.records import record
from twsrt.rules import LOSSY_PORT_DOMAIN, LOSSY_WRITE_ROOT


def compile_sandbox(
    policy: Policy,
    home: str,
    origins: dict[str, Location],
    sandbox_mode: str = "workspace-write",
) -> tuple[dict[str, Any], dict[str, list[str]], bool, list[Finding]]:
    """The managed ``sandbox`` object, the URL lists, whether ``~`` was expanded, findings.

    read-only grants no read-write path (not even the working directory); danger-full-access
    writes the same object switched off, so the deny flags are all that stays."""
    findings: list[Finding] = []
    read_only = sandbox_mode == "read-only"
    if not policy.enabled and sandbox_mode != "danger-full-access":
        raise disabled_sandbox(policy, NAME, "write a Copilot sandbox")
    paths = HomePaths(home)
    denies = _denied_paths(policy, paths, findings, origins)
    denied = denies.denied
    read_grants = _read_grants(policy, paths, set(denied), findings)
    grants = [] if read_only else policy.allow_write  # read-only: nothing writable
    readwrite, cwd_writable = _writable(grants, paths, denies, findings, origins)
    if any(rule.path == "." for rule in [*policy.deny_read, *policy.deny_write]):
        cwd_writable = False
    readonly = _readonly(read_grants, PathIndex(readwrite), denies, origins)
    readonly += _protected_names(policy, readwrite, readonly, denies)
    if sandbox_mode != "danger-full-access" and (cwd_writable or readwrite):
        findings.append(_unprotected_names(policy))
    allowed_hosts, blocked_hosts = _hosts(policy, findings, origins)
    sandbox: dict[str, Any] = {
        "enabled": sandbox_mode != "danger-full-access",
        "addCurrentWorkingDirectory": cwd_writable,
        "allowDevToolAccess": False,
        "allowBypass": False,
        "sandboxMcpServers": True,
        "sandboxLspServers": True,
        "userPolicy": {
            "filesystem": {
                "readwritePaths": readwrite,
                "readonlyPaths": readonly,
                "deniedPaths": denied,
            },
            "network": {
                # an empty allowedHosts list means "every host" to Copilot, "none" to srt
                "allowOutbound": bool(allowed_hosts),
                "allowLocalNetwork": False,
                "allowedHosts": allowed_hosts,
                "blockedHosts": blocked_hosts,
            },
        },
    }
    urls = {
        "allowedUrls": unique([e.value for e in policy.allowed_domains]),
        "deniedUrls": unique(
            [v for e in policy.denied_domains for v in (e.value, f"http://{e.value}")]
        ),
    }
    return sandbox, urls, paths.used, findings


def _read_grants(
    policy: Policy, paths: HomePaths, denied: set[str], findings: list[Finding]
) -> list[tuple[str, Location]]:
    """The allowRead paths with their origins. One inside a denied path stays on purpose:
    srt's allowRead re-opens reads there, as does Copilot's more specific grant; a path equal
    to a denied one stays denied (the stricter reading)."""
    read_grants: list[tuple[str, Location]] = []
    for rule in policy.allow_read:
        path = grant_path(rule, "allowRead", paths, findings, PATHS)
        if path is not None and path not in denied:
            read_grants.append((path, rule.origin))
    return read_grants


@record(frozen=False)
class _Denies:
    """The denied paths, the read-only ones (denyWrite), each once, and one index of both (the
    denied first), for the questions the grants ask."""

    denied: list[str]
    write_denied: list[str]
    index: PathIndex

    def blocker(self, path: str) -> tuple[str, str] | None:
        """The first deny that holds ``path`` and its kind, as a scan of both lists finds it."""
        first = self.index.first_holding(path)
        if first is None:
            return None
        return self.index.roots[first], "denied" if first < len(self.denied) else "read-only"

    def in_denied(self, path: str) -> bool:
        first = self.index.first_holding(path)
        return first is not None and first < len(self.denied)


def _denied_paths(
    policy: Policy, paths: HomePaths, findings: list[Finding], origins: dict[str, Location]
) -> _Denies:
    denied: dict[str, None] = {}  # a dict keeps the first-seen order and looks up in O(1)
    for rule in policy.deny_read:
        path = deny_path(rule, "denyRead", paths, findings, PATHS)
        if path is not None and path not in denied:
            denied[path] = None
            origins.setdefault(path, rule.origin)
    index = PathIndex(denied)
    write_denied: dict[str, None] = {}
    for rule in policy.deny_write:
        path = deny_path(rule, "denyWrite", paths, findings, PATHS)
        # read-only inside a denied path would re-open reads there: the deny already covers it
        if path is None or index.holds(path) or path in write_denied:
            continue
        write_denied[path] = None
        origins.setdefault(path, rule.origin)
    for path in write_denied:  # added after the loop: the loop asks about denyRead only
        index.add(path)
    return _Denies(list(denied), list(write_denied), index)


def _readonly(
    read_grants: list[tuple[str, Location]],
    readwrite: PathIndex,
    denies: _Denies,
    origins: dict[str, Location],
) -> list[str]:
    """The read-only paths: the denyWrite ones, then the read grants that take no write away."""
    readonly = dict.fromkeys(denies.write_denied)
    for path, origin in read_grants:
        # srt's allowRead never takes writes away: inside a write root (and outside every
        # deny) a read-only entry would, so it is left out there
        in_root = readwrite.holds(path)
        if path in readonly or (in_root and not denies.in_denied(path)):
            continue
        readonly[path] = None
        origins.setdefault(path, origin)
    return list(readonly)


def _protected_names(
    policy: Policy, readwrite: list[str], readonly: list[str], denies: _Denies
) -> list[str]:
    """srt's mandatory-deny names and every agent's project layers under each write root,
    read-only (agents/rootnames.py): Copilot protects none of them by itself. Copilot 1.0.102
    skips an entry that does not exist when it starts (observed), so they hold for what is
    there; a name inside a denied path stays denied (read-only there would re-open reads)."""
    seen = set(readonly)
    extra: list[str] = []
    index = denies.index
    for root in readwrite:
        if index.holds(root):  # every name under it is denied too
            continue
        # else a name under it is denied only when some deny stands at or below the root
        below = index.may_hold_below(root)
        for path in under(root, policy):
            if path not in seen and not (below and index.holds(path)):
                seen.add(path)
                extra.append(path)
    return extra


def _unprotected_names(policy: Policy) -> Finding:
    """TWS471: what Copilot's sandbox leaves writable for a later launch, at the write roots."""
    return _lossy(
        COPILOT_MANDATORY_NAMES_OPEN,
        "Copilot's sandbox protects none of srt's mandatory-deny set: in the directory it starts "
        "in, and under a write root wherever the name does not exist yet when it starts, a "
        "command may create .git/hooks/*, .git/config, .bashrc, .vscode/, .mcp.json or another "
        "agent's config layer (.claude/settings.json, .codex/config.toml), which git, an editor, "
        "a shell or the next agent runs outside any sandbox; twsrt makes the names read-only "
        "under each write root, which holds for what exists at the start. Start Copilot in a "
        "directory whose repository and tool settings already exist, or run it under srt, "
        "which protects the set in its working directory",
        write_roots_location(policy),
    )


def _writable(
    grants: list[PathRule],
    paths: HomePaths,
    denies: _Denies,
    findings: list[Finding],
    origins: dict[str, Location],
) -> tuple[list[str], bool]:
    """The read-write paths, and whether the working directory is writable (``.``)."""
    readwrite: dict[str, None] = {}
    cwd_writable = False
    for rule in grants:
        if rule.path == "." and not rule.literal:
            cwd_writable = True  # Copilot's addCurrentWorkingDirectory, not a path
            continue
        path = grant_path(rule, "allowWrite", paths, findings, PATHS)
        if path is None or path in readwrite:
            continue
        blocker = denies.blocker(path)
        if blocker is not None:
            # Copilot lets the more specific grant win; srt lets the deny win
            findings.append(
                _lossy(
                    LOSSY_WRITE_ROOT,
                    f"allowWrite '{quoted(rule.path)}' lies inside {blocker[1]} path "
                    f"'{quoted(blocker[0])}'; Copilot would let the more specific grant override "
                    "it, so it is not granted",
                    rule.origin,
                )
            )
            continue
        readwrite[path] = None
        origins.setdefault(path, rule.origin)
    return list(readwrite), cwd_writable


def _hosts(
    policy: Policy, findings: list[Finding], origins: dict[str, Location]
) -> tuple[list[str], list[str]]:
    allowed: dict[str, None] = {}
    for entry in policy.allowed_domains:
        host, port = _domain(entry)
        if port is not None:
            findings.append(
                _lossy(
                    LOSSY_PORT_DOMAIN,
                    f"Copilot host rules take no port; '{quoted(entry.value)}' is left out of "
                    "allowedHosts (allowing the host on every port would be wider)",
                    entry.origin,
                )
            )
            continue
        allowed.setdefault(host)
        origins.setdefault(host, entry.origin)
    blocked: dict[str, None] = {}
    for entry in policy.denied_domains:
        host, port = _domain(entry)
        if port is not None:
            every = " — every host, so sandboxed commands reach none" if host == "*" else ""
            findings.append(
                _lossy(
                    LOSSY_PORT_DOMAIN,
                    f"Copilot host rules take no port; '{quoted(entry.value)}' blocks "
                    f"'{quoted(host)}' on every port{every}",
                    entry.origin,
                )
            )
        blocked.setdefault(host)
        origins.setdefault(host, entry.origin)
    return list(allowed), list(blocked)


# Managed members whose type must be right before twsrt can merge into the file.
SETTINGS_SHAPES: dict[str, type] = {
    "/sandbox": dict,
    "/sandbox/userPolicy": dict,
    "/sandbox/userPolicy/filesystem": dict,
    "/sandbox/userPolicy/network": dict,
    "/allowedUrls": list,
    "/deniedUrls": list,
}


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the top-level members twsrt owns (pure); other sandbox keys are kept.

    The user's old managed lists (as long as the policy) are dropped, not deep-copied first
    (``copy_for_merge``)."""
    generated = compiled.sandbox
    current = existing.get("sandbox")
    if current is None:
        sandbox = _copy(generated)
    else:
        sandbox = copy_for_merge(current, replaced=TOP_KEYS, rebuilt=("userPolicy",))
        for key in TOP_KEYS:
            sandbox[key] = _copy(generated[key])
        sections = (("filesystem", FS_KEYS), ("network", NET_KEYS))
        user_policy = copy_for_merge(
            sandbox.get("userPolicy") or {}, rebuilt=[name for name, _ in sections]
        )
        for section, keys in sections:
            part = copy_for_merge(user_policy.get(section) or {}, replaced=keys)
            for key in keys:
                part[key] = _copy(generated["userPolicy"][section][key])
            user_policy[section] = part
        sandbox["userPolicy"] = user_policy
    updates: dict[str, Any] = {"sandbox": sandbox}
    for key in URL_KEYS:
        wanted = compiled.urls.get(key, [])
        # a list that left the policy is emptied, not deleted: same meaning, simpler splice
        if wanted or existing.get(key):
            updates[key] = list(wanted)
    return updates


def _copy(value: Any) -> Any:
    """A compiled value with new containers: its lists hold only strings, so a list copy is
    enough (``deepcopy`` costs a call per path)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    return list(value) if isinstance(value, list) else value


# The members twsrt owns in the settings file, for drift and reports (diffs.py); the user's
# other sandbox keys (auth, credentials, proxy) and every other key are elided.
SETTINGS = Members(
    {
        "sandbox": {
            **dict.fromkeys(TOP_KEYS, True),
            "userPolicy": {
                "filesystem": dict.fromkeys(FS_KEYS, True),
                "network": dict.fromkeys(NET_KEYS, True),
            },
        },
        **dict.fromkeys(URL_KEYS, True),
    }
)


SETTINGS_SPEC = SETTINGS.spec


settings_items = SETTINGS.items


SETTINGS_FILE = JsonSettings(merge, SETTINGS_SHAPES, SETTINGS)
merged_settings = SETTINGS_FILE.merged_text
