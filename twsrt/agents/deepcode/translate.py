"""Pure translation of the canonical policy into DeepCode's permission rules and sandbox
object, with the findings for what its Linux and macOS sandboxes do not enforce."""

from __future__ import annotations

from typing import Any

from twsrt.agents.abspaths import HomePaths, deny_path, grant_path
from twsrt.agents.deepcode.declaration import (
    FS_KEYS,
    HANDLED_SRT_KEYS,
    LABEL,
    NAME,
    REASONS,
    SPEC,
    Managed,
    _lossy,
)
from twsrt.agents.deepcode.overlaps import first_mounts, first_overlaps
from twsrt.agents.deepcode.rules import (
    DEEPCODE_DENIED_DOMAINS_BLOCKED,
    DEEPCODE_LINUX_DENY_UNMOUNTED,
    DEEPCODE_MANDATORY_NAMES_OPEN,
    LOSSY_DENIED_DOMAINS,
    LOSSY_LINUX_DENY,
    LOSSY_MACOS_NETWORK,
)
from twsrt.agents.lossy import without_port, write_roots_location
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import disabled_sandbox, strict_allowlist_note, unique
from twsrt.bashrules import bash_rules
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, Policy
from twsrt.rules import LOSSY_UNIX_SOCKET


def translate(
    policy: Policy, yolo: bool, sandbox_mode: str, home: str
) -> tuple[Managed, list[Finding]]:
    """Pure translation of the canonical policy into DeepCode's managed content."""
    if not policy.enabled and sandbox_mode != "danger-full-access":
        raise disabled_sandbox(
            policy,
            NAME,
            f"write a DeepCode sandbox in mode {sandbox_mode}",
            " (sandbox mode danger-full-access says what the policy means)",
        )
    findings: list[Finding] = []
    managed = Managed(mode=sandbox_mode)

    def note(values: list[str], origin: Location) -> None:
        for value in values:
            managed.origins.setdefault(value, origin)

    deny: list[str] = []
    for entry in policy.bash_deny:
        emitted = bash_rules(entry.value, entry.origin, NAME, LABEL)
        deny += emitted
        note(emitted, entry.origin)
    managed.deny = unique(deny)
    # yolo: an explicit [] — the --settings layer replaces the user's list with it
    ask: list[str] = []
    if not yolo:
        for entry in policy.bash_ask:
            emitted = bash_rules(entry.value, entry.origin, NAME, LABEL)
            ask += emitted
            note(emitted, entry.origin)
    managed.ask = unique(ask)
    paths = HomePaths(home)
    managed.filesystem = _filesystem(policy, sandbox_mode, paths, findings, managed.origins)
    managed.network = _network(policy, findings, managed.origins)
    if sandbox_mode == "workspace-write":
        findings.append(_mandatory_names_open(policy))
    managed.home_used = paths.used
    findings += strict_allowlist_note(
        policy, NAME, "DeepCode's sandbox: its allow-list refuses every other host without asking"
    )
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return managed, findings


def _mandatory_names_open(policy: Policy) -> Finding:
    """TWS472: DeepCode's Linux sandbox writes srt's mandatory-deny set (at the write roots)."""
    return _lossy(
        DEEPCODE_MANDATORY_NAMES_OPEN,
        "DeepCode's Linux sandbox protects none of srt's mandatory-deny set: in its workspace "
        "and under every allowWrite root a command may create .git/hooks/*, .git/config, "
        ".bashrc, .vscode/, .mcp.json or another agent's config layer (sub/.claude/settings.json), "
        "which git, an editor, a shell or the next agent runs outside any sandbox, and its "
        "sandbox applies no write deny there; run DeepCode under srt on Linux, which "
        "protects the set in its working directory",
        write_roots_location(policy),
    )


def _filesystem(
    policy: Policy,
    sandbox_mode: str,
    paths: HomePaths,
    findings: list[Finding],
    origins: dict[str, Location],
) -> dict[str, list[str]]:
    """The filesystem lists for the keys the srt settings have (an empty list stays)."""
    srt_fs = policy.srt.get("filesystem", {})
    rules = {
        "allowWrite": policy.allow_write,
        "denyWrite": policy.deny_write,
        "allowRead": policy.allow_read,
        "denyRead": policy.deny_read,
    }
    out: dict[str, list[str]] = {}
    denies: list[tuple[str, str, Location]] = []
    for key in FS_KEYS:
        if key not in srt_fs:
            continue
        if key == "allowWrite" and sandbox_mode == "read-only":
            continue  # read-only never carries a write grant
        values: list[str] = []
        seen: set[str] = set()
        for rule in rules[key]:
            if key.startswith("deny"):
                path = deny_path(rule, key, paths, findings, SPEC)
                if path is not None:
                    denies.append((key, path, rule.origin))
            elif not rule.literal and rule.path in (".", "./"):
                # DeepCode adds the working directory itself (to allowRead in every sandboxed
                # mode, to allowWrite in workspace-write)
                continue
            else:
                path = grant_path(rule, key, paths, findings, SPEC)
            if path is None:
                continue
            if path not in seen:
                seen.add(path)
                values.append(path)
            origins.setdefault(path, rule.origin)
        out[key] = values
    findings += _linux_deny_findings(denies, out)
    return out


# What DeepCode's bubblewrap sandbox mounts besides the grants and the working directory
# (buildLinuxBwrapArgs): the system directories read-only, a fresh /proc, /dev and /tmp.
LINUX_MOUNTS = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/dev")


def _linux_deny_findings(
    denies: list[tuple[str, str, Location]], out: dict[str, list[str]]
) -> list[Finding]:
    """DeepCode's Linux sandbox applies no deny, but it mounts only the system directories, the
    grants and the working directory: a deny that overlaps a mount (a writable one, for
    denyWrite) is lost there; one outside every mount stays out of reach unless DeepCode is
    started in a directory that holds it."""
    writable = out.get("allowWrite", [])
    readable = [*LINUX_MOUNTS, *out.get("allowRead", []), *writable]
    write_denies = [path for key, path, _ in denies if key == "denyWrite"]
    read_denies = [path for key, path, _ in denies if key != "denyWrite"]
    hits = {
        "write": iter(first_mounts(writable, write_denies)),
        "read": iter(first_mounts(readable, read_denies)),
    }
    findings = []
    for key, path, origin in denies:
        mount = next(hits["write" if key == "denyWrite" else "read"])
        if mount is not None:
            findings.append(
                _lossy(
                    LOSSY_LINUX_DENY,
                    f"DeepCode applies sandbox.filesystem.{key} '{quoted(path)}' on macOS only; "
                    f"its Linux sandbox (bubblewrap) mounts '{quoted(mount)}' and ignores the deny "
                    "there (on Linux run DeepCode under srt to enforce it)",
                    origin,
                )
            )
        else:
            kind, verb = ("writable ", "write") if key == "denyWrite" else ("", "read")
            findings.append(
                _lossy(
                    DEEPCODE_LINUX_DENY_UNMOUNTED,
                    f"DeepCode's Linux sandbox ignores sandbox.filesystem.{key} '{quoted(path)}' "
                    f"but mounts nothing {kind}that holds it, so commands cannot {verb} it unless "
                    "DeepCode is started in a directory that contains it",
                    origin,
                )
            )
    return findings


def _network(
    policy: Policy, findings: list[Finding], origins: dict[str, Location]
) -> dict[str, Any]:
    srt_net = policy.srt.get("network", {})
    allowed = _allowed_domains(policy, findings, origins)
    # srt: absent or empty means no network; DeepCode: absent means every host, [] means none
    out: dict[str, Any] = {"allowedDomains": allowed}
    if allowed:
        findings.append(
            _lossy(
                LOSSY_MACOS_NETWORK,
                "DeepCode filters allowedDomains on Linux only; on macOS a non-empty list lets "
                "sandboxed commands reach every host (on macOS run DeepCode under srt to keep the "
                "allow-list)",
                policy.srt_location("/network/allowedDomains", key=True),
            )
        )
    if "deniedDomains" in srt_net:
        out["deniedDomains"] = list(srt_net["deniedDomains"])
        for entry in policy.denied_domains:
            origins.setdefault(entry.value, entry.origin)
        findings += _denied_domain_findings(policy, allowed)
    all_sockets = srt_net.get("allowAllUnixSockets")
    if isinstance(all_sockets, bool):
        out["allowUnixSockets"] = all_sockets  # both mean every Unix socket
    if srt_net.get("allowUnixSockets") and all_sockets is not True:
        findings.append(
            _lossy(
                LOSSY_UNIX_SOCKET,
                "'network.allowUnixSockets' is not granted: DeepCode's allowUnixSockets is one "
                "switch for every Unix socket, so the socket paths listed here stay closed (the "
                "switch would open all of them)",
                policy.srt_location("/network/allowUnixSockets", key=True),
            )
        )
    if "allowLocalBinding" in srt_net:
        out["allowLocalBinding"] = srt_net["allowLocalBinding"]
    return out


def _port_left_out(entry: Entry, _port: str) -> str:
    return (
        f"DeepCode's allowedDomains take no port; '{quoted(entry.value)}' is left out "
        "(allowing the host on every port would be wider)"
    )


def _allowed_domains(
    policy: Policy, findings: list[Finding], origins: dict[str, Location]
) -> list[str]:
    """The allow-list as written, each entry once; an entry with a port is left out."""
    allowed: dict[str, None] = {}  # a dict keeps the order and finds a repeat in one lookup
    for entry, _host in without_port(policy.allowed_domains, NAME, _port_left_out, findings):
        allowed[entry.value] = None
        origins.setdefault(entry.value, entry.origin)
    return list(allowed)


def _denied_domain_findings(policy: Policy, allowed: list[str]) -> list[Finding]:
    """DeepCode enforces no deniedDomains; its Linux allow-list blocks a denied host unless an
    allowed pattern admits it (macOS lets every host through, TWS434)."""
    findings: list[Finding] = []
    hits = first_overlaps(allowed, [entry.value for entry in policy.denied_domains])
    for entry, hit in zip(policy.denied_domains, hits, strict=True):
        if hit is not None:
            findings.append(
                _lossy(
                    LOSSY_DENIED_DOMAINS,
                    f"DeepCode does not enforce deniedDomains entry '{quoted(entry.value)}', "
                    f"and allowedDomains entry '{quoted(hit)}' admits it: sandboxed commands "
                    "can reach it (run DeepCode under srt to enforce the deny)",
                    entry.origin,
                )
            )
        else:
            findings.append(
                _lossy(
                    DEEPCODE_DENIED_DOMAINS_BLOCKED,
                    f"DeepCode does not enforce deniedDomains entry '{quoted(entry.value)}', "
                    "but no allowedDomains entry admits it, so its allow-list blocks it on "
                    "Linux",
                    entry.origin,
                )
            )
    return findings
