"""The Copilot translation as it was before issue 17, kept as the oracle of its property tests.

The sandbox compile scanned lists (``inside`` against every denied path, ``in`` on growing lists:
quadratic in the number of rules) and the flag snippet was read back with ``shlex.split`` (pure
Python per character). ``tests/test_copilot_speed.py`` checks that the indexed versions in
``twsrt.agents.copilot`` give the same output, findings and origins on generated inputs.
Do not edit to follow the product: this is the reference the new code must equal.
"""

from __future__ import annotations

import shlex
from copy import deepcopy
from typing import Any

from twsrt.agents.abspaths import HomePaths, deny_path, grant_path
from twsrt.agents.base import DriftItem
from twsrt.agents.copilot.declaration import (
    FS_KEYS,
    NET_KEYS,
    PATHS,
    TOP_KEYS,
    URL_KEYS,
    Compiled,
    _lossy,
)
from twsrt.agents.copilot.flags import _domain
from twsrt.agents.targets import disabled_sandbox, unique
from twsrt.findings import Finding
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy
from twsrt.rules import LOSSY_PORT_DOMAIN, LOSSY_WRITE_ROOT

NAME = "copilot"


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


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
    denied, write_denied = _denied_paths(policy, paths, findings, origins)
    read_grants: list[tuple[str, Location]] = []
    for rule in policy.allow_read:
        path = grant_path(rule, "allowRead", paths, findings, PATHS)
        # inside a denied path on purpose: srt's allowRead re-opens reads there, as does
        # Copilot's more specific grant; an equal path stays denied (the stricter reading)
        if path is not None and path not in denied:
            read_grants.append((path, rule.origin))
    blockers = [(d, "denied") for d in denied] + [(w, "read-only") for w in write_denied]
    grants = [] if read_only else policy.allow_write  # read-only: nothing writable
    readwrite, cwd_writable = _writable(grants, paths, blockers, findings, origins)
    if any(rule.path == "." for rule in [*policy.deny_read, *policy.deny_write]):
        cwd_writable = False
    readonly = list(write_denied)
    for path, origin in read_grants:
        # srt's allowRead never takes writes away: inside a write root (and outside every
        # deny) a read-only entry would, so it is left out there
        in_root = any(inside(path, root) for root in readwrite)
        if path in readonly or (in_root and not any(inside(path, d) for d in denied)):
            continue
        readonly.append(path)
        origins.setdefault(path, origin)
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


def _denied_paths(
    policy: Policy, paths: HomePaths, findings: list[Finding], origins: dict[str, Location]
) -> tuple[list[str], list[str]]:
    """The denied paths and the read-only ones (denyWrite), each once."""
    denied: list[str] = []
    for rule in policy.deny_read:
        path = deny_path(rule, "denyRead", paths, findings, PATHS)
        if path is not None and path not in denied:
            denied.append(path)
            origins.setdefault(path, rule.origin)
    write_denied: list[str] = []
    for rule in policy.deny_write:
        path = deny_path(rule, "denyWrite", paths, findings, PATHS)
        # read-only inside a denied path would re-open reads there: the deny already covers it
        if path is None or any(inside(path, d) for d in denied) or path in write_denied:
            continue
        write_denied.append(path)
        origins.setdefault(path, rule.origin)
    return denied, write_denied


def _writable(
    grants: list[PathRule],
    paths: HomePaths,
    blockers: list[tuple[str, str]],
    findings: list[Finding],
    origins: dict[str, Location],
) -> tuple[list[str], bool]:
    """The read-write paths, and whether the working directory is writable (``.``)."""
    readwrite: list[str] = []
    cwd_writable = False
    for rule in grants:
        if rule.path == "." and not rule.literal:
            cwd_writable = True  # Copilot's addCurrentWorkingDirectory, not a path
            continue
        path = grant_path(rule, "allowWrite", paths, findings, PATHS)
        if path is None or path in readwrite:
            continue
        blocker = next(((b, kind) for b, kind in blockers if inside(path, b)), None)
        if blocker is not None:
            # Copilot lets the more specific grant win; srt lets the deny win
            findings.append(
                _lossy(
                    LOSSY_WRITE_ROOT,
                    f"allowWrite '{rule.path}' lies inside {blocker[1]} path '{blocker[0]}'; "
                    "Copilot would let the more specific grant override it, so it is not granted",
                    rule.origin,
                )
            )
            continue
        readwrite.append(path)
        origins.setdefault(path, rule.origin)
    return readwrite, cwd_writable


def _hosts(
    policy: Policy, findings: list[Finding], origins: dict[str, Location]
) -> tuple[list[str], list[str]]:
    allowed: list[str] = []
    for entry in policy.allowed_domains:
        host, port = _domain(entry)
        if port is not None:
            findings.append(
                _lossy(
                    LOSSY_PORT_DOMAIN,
                    f"Copilot host rules take no port; '{entry.value}' is left out of allowedHosts "
                    "(allowing the host on every port would be wider)",
                    entry.origin,
                )
            )
            continue
        if host not in allowed:
            allowed.append(host)
        origins.setdefault(host, entry.origin)
    blocked: list[str] = []
    for entry in policy.denied_domains:
        host, port = _domain(entry)
        if port is not None:
            every = " — every host, so sandboxed commands reach none" if host == "*" else ""
            findings.append(
                _lossy(
                    LOSSY_PORT_DOMAIN,
                    f"Copilot host rules take no port; '{entry.value}' blocks '{host}' on every "
                    f"port{every}",
                    entry.origin,
                )
            )
        if host not in blocked:
            blocked.append(host)
        origins.setdefault(host, entry.origin)
    return allowed, blocked


def parse_snippet(text: str) -> list[str]:
    """The argv a shell would see: continuation lines joined, then shlex-split."""
    return shlex.split(text.replace("\\\n", ""))


def _flag_items(text: str) -> list[DriftItem]:
    try:
        argv = parse_snippet(text)
    except ValueError:
        return [DriftItem("line", line) for line in text.splitlines() if line.strip()]
    items: list[DriftItem] = []
    index = 0
    while index < len(argv):
        flag = argv[index]
        if flag.startswith("--") and flag != "--yolo" and index + 1 < len(argv):
            items.append(DriftItem(flag, argv[index + 1]))
            index += 2
        else:
            items.append(DriftItem(flag, ""))
            index += 1
    return items


def merge(existing: dict[str, Any], compiled: Compiled) -> dict[str, Any]:
    """New values of the top-level members twsrt owns (pure); other sandbox keys are kept."""
    generated = compiled.sandbox
    current = existing.get("sandbox")
    if current is None:
        sandbox = deepcopy(generated)
    else:
        sandbox = deepcopy(current)
        for key in TOP_KEYS:
            sandbox[key] = deepcopy(generated[key])
        user_policy = sandbox.get("userPolicy") or {}
        for section, keys in (("filesystem", FS_KEYS), ("network", NET_KEYS)):
            part = user_policy.get(section) or {}
            for key in keys:
                part[key] = deepcopy(generated["userPolicy"][section][key])
            user_policy[section] = part
        sandbox["userPolicy"] = user_policy
    updates: dict[str, Any] = {"sandbox": sandbox}
    for key in URL_KEYS:
        wanted = compiled.urls.get(key, [])
        # a list that left the policy is emptied, not deleted: same meaning, simpler splice
        if wanted or existing.get(key):
            updates[key] = list(wanted)
    return updates
