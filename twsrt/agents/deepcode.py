"""DeepCode target: ``permissions.deny``/``ask`` and the ``sandbox`` object of its settings file.

DeepCode (oratis/deepcode) reads ``~/.deepcode/settings.json`` (or, while that file does not
exist, ``~/.claude/settings.json``), then the project and local layers, then ``--settings
<file>``. Layers are deep-merged, but a list in a later layer replaces the earlier list whole.
twsrt writes the user file in full mode and a ``--settings`` file in yolo mode; both carry the
whole managed content, so the yolo layer restates every list (its ``permissions.ask`` is ``[]``,
which switches the user's ask rules off).

What the target can hold, from DeepCode's source (agents-formats §5):

- permission rules are string prefixes on the tool's primary input: ``Bash(cmd)`` and
  ``Bash(cmd *)`` work, path rules match nothing, so only the bash rules are compiled;
- ``sandbox.mode`` (read-only / workspace-write / danger-full-access) wins over the legacy
  ``sandbox.enabled``, which twsrt removes;
- ``sandbox.filesystem`` takes absolute paths without wildcards (Linux does not expand ``~``),
  so ``~`` is expanded with the config's home; denyRead/denyWrite bind only on macOS;
- ``sandbox.network.allowedDomains``: absent = every host, ``[]`` = none, a list = a DNS
  allow-list on Linux only; ``deniedDomains`` is not enforced; ``allowUnixSockets`` is a
  boolean for every socket.

Translation is pure; the merge splices only the top-level ``permissions`` and ``sandbox``
members into the user's file and keeps every other byte.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twsrt.agents.abspaths import (
    HomePaths,
    PathTarget,
    deny_path,
    grant_path,
    inside,
    unpinned_home,
)
from twsrt.agents.base import (
    AgentSpec,
    Context,
    Drift,
    Result,
    TargetSpec,
    merge_sections,
    read_target,
    splice_settings,
)
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import (
    Members,
    agent_finding,
    compare,
    disabled_sandbox,
    mode_target,
    strict_allowlist_note,
    target_write,
    unique,
)
from twsrt.bashrules import bash_rules
from twsrt.domains import split_port
from twsrt.findings import Finding
from twsrt.jsonedit import dump
from twsrt.locations import Location
from twsrt.policy import Policy

NAME = "deepcode"
LABEL = "DeepCode"
SETTINGS_KEY, YOLO_KEY = "deepcode_settings", "deepcode_settings_yolo"
AGENT_SPEC = AgentSpec(
    NAME,
    LABEL,
    (
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "DeepCode settings.json whose permissions.deny/ask and sandbox twsrt manages, e.g. "
            "~/.deepcode/settings.json (creating it ends DeepCode's fallback to "
            "~/.claude/settings.json).",
            "~/.deepcode/settings.json",
            r"\.deepcode/settings[^/]*\.json",
            home_dependent=True,
        ),
        TargetSpec(
            YOLO_KEY,
            "json-settings",
            "DeepCode settings for yolo mode, passed with `deepcode --settings` (default: .yolo "
            "inserted before the extension).",
            "~/.deepcode/settings.yolo.json",
            r"\.deepcode/settings[^/]*\.json",
            yolo_of=SETTINGS_KEY,
            home_dependent=True,
            scaffold=False,
        ),
    ),
)
# DeepCode's user settings file; while it is missing DeepCode reads ~/.claude/settings.json
USER_DIR, USER_FILE = ".deepcode", "settings.json"

# The managed keys, in DeepCode's declaration order (config/types.ts). Every other key of
# `permissions` (allow, defaultMode, additionalDirectories) and of `sandbox` (excludedCommands)
# is the user's and kept.
PERMISSION_KEYS = ("deny", "ask")
FS_KEYS = ("allowWrite", "denyWrite", "allowRead", "denyRead")
NET_KEYS = ("allowedDomains", "deniedDomains", "allowUnixSockets", "allowLocalBinding")
# the legacy switch: `mode` wins over it, so a stale one is only confusing
LEGACY_KEYS = ("enabled",)

SPEC = PathTarget(NAME, LABEL, {key: f"sandbox.filesystem.{key}" for key in FS_KEYS})

# The srt keys DeepCode compiles or reports itself (srtkeys reports every other key it is set).
# strictAllowlist needs no key: DeepCode's allow-list never asks.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/strictAllowlist",
    "/network/allowUnixSockets",
    "/network/allowAllUnixSockets",
    "/network/allowLocalBinding",
    "/filesystem/denyRead",
    "/filesystem/allowRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)
# DeepCode's own reasons for srt keys it has no faithful key for; the generic reason from
# srtkeys serves the rest.
REASONS = {
    "/network/allowMachLookup": "DeepCode has no Mach service grant",
    "/network/deniedResolvedAddresses": "DeepCode cannot deny resolved addresses",
    "/network": "DeepCode filters the network by DNS only and has no HTTP proxy",
    "/credentials": "DeepCode has no credential masking",
    "/filesystem/disabled": "DeepCode always isolates the filesystem when its sandbox is on",
}


@dataclass
class Managed:
    """The content twsrt owns in a DeepCode settings file, for one mode."""

    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    mode: str = "workspace-write"
    filesystem: dict[str, list[str]] = field(default_factory=dict)  # only the keys emitted
    network: dict[str, Any] = field(default_factory=dict)
    home_used: bool = False
    origins: dict[str, Location] = field(default_factory=dict)

    def sandbox(self) -> dict[str, Any]:
        out: dict[str, Any] = {"mode": self.mode}
        if self.filesystem:
            out["filesystem"] = deepcopy(self.filesystem)
        out["network"] = deepcopy(self.network)
        return out

    def fragment(self) -> dict[str, Any]:
        return {
            "permissions": {"deny": list(self.deny), "ask": list(self.ask)},
            "sandbox": self.sandbox(),
        }


_lossy = agent_finding(NAME)


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
        emitted = bash_rules(entry.value, entry.origin, NAME)
        deny += emitted
        note(emitted, entry.origin)
    managed.deny = unique(deny)
    # yolo: an explicit [] — the --settings layer replaces the user's list with it
    ask: list[str] = []
    if not yolo:
        for entry in policy.bash_ask:
            emitted = bash_rules(entry.value, entry.origin, NAME)
            ask += emitted
            note(emitted, entry.origin)
    managed.ask = unique(ask)
    paths = HomePaths(home)
    managed.filesystem = _filesystem(policy, sandbox_mode, paths, findings, managed.origins)
    managed.network = _network(policy, findings, managed.origins)
    managed.home_used = paths.used
    findings += strict_allowlist_note(
        policy, NAME, "DeepCode's sandbox: its allow-list refuses every other host without asking"
    )
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return managed, findings


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
            if path not in values:
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
    findings = []
    for key, path, origin in denies:
        mounts = writable if key == "denyWrite" else readable
        mount = next((m for m in mounts if inside(path, m) or inside(m, path)), None)
        if mount is not None:
            findings.append(
                _lossy(
                    "lossy-linux-deny",
                    f"DeepCode applies sandbox.filesystem.{key} '{path}' on macOS only; its "
                    f"Linux sandbox (bubblewrap) mounts '{mount}' and ignores the deny there (on "
                    "Linux run DeepCode under srt to enforce it)",
                    origin,
                )
            )
        else:
            kind, verb = ("writable ", "write") if key == "denyWrite" else ("", "read")
            findings.append(
                _lossy(
                    "deepcode-linux-deny-unmounted",
                    f"DeepCode's Linux sandbox ignores sandbox.filesystem.{key} '{path}' but "
                    f"mounts nothing {kind}that holds it, so commands cannot {verb} it unless "
                    "DeepCode is started in a directory that contains it",
                    origin,
                )
            )
    return findings


def _overlap(a: str, b: str) -> bool:
    """Whether two host patterns (ports ignored) can name the same host; ``*.x`` is taken to
    cover ``x`` too, so that a doubt counts as an overlap."""
    a, b = split_port(a)[0].lower(), split_port(b)[0].lower()
    if "*" in (a, b):
        return True

    def covers(pattern: str, host: str) -> bool:
        base = pattern.removeprefix("*.")
        return host == base or (pattern.startswith("*.") and host.endswith("." + base))

    return covers(a, b.removeprefix("*.")) or covers(b, a.removeprefix("*."))


def _network(
    policy: Policy, findings: list[Finding], origins: dict[str, Location]
) -> dict[str, Any]:
    srt_net = policy.srt.get("network", {})
    allowed: list[str] = []
    for entry in policy.allowed_domains:
        _host, port = split_port(entry.value)
        if port is not None:
            findings.append(
                _lossy(
                    "lossy-port-domain",
                    f"DeepCode's allowedDomains take no port; '{entry.value}' is left out "
                    "(allowing the host on every port would be wider)",
                    entry.origin,
                )
            )
            continue
        if entry.value not in allowed:
            allowed.append(entry.value)
        origins.setdefault(entry.value, entry.origin)
    # srt: absent or empty means no network; DeepCode: absent means every host, [] means none
    out: dict[str, Any] = {"allowedDomains": allowed}
    if allowed:
        findings.append(
            _lossy(
                "lossy-macos-network",
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
        for entry in policy.denied_domains:
            # the Linux allow-list blocks a denied host unless an allowed pattern admits it
            # (macOS lets every host through, TWS434)
            hit = next((a for a in allowed if _overlap(a, entry.value)), None)
            if hit is not None:
                findings.append(
                    _lossy(
                        "lossy-denied-domains",
                        f"DeepCode does not enforce deniedDomains entry '{entry.value}', and "
                        f"allowedDomains entry '{hit}' admits it: sandboxed commands can reach "
                        "it (run DeepCode under srt to enforce the deny)",
                        entry.origin,
                    )
                )
            else:
                findings.append(
                    _lossy(
                        "deepcode-denied-domains-blocked",
                        f"DeepCode does not enforce deniedDomains entry '{entry.value}', but no "
                        "allowedDomains entry admits it, so its allow-list blocks it on Linux",
                        entry.origin,
                    )
                )
    all_sockets = srt_net.get("allowAllUnixSockets")
    if isinstance(all_sockets, bool):
        out["allowUnixSockets"] = all_sockets  # both mean every Unix socket
    if srt_net.get("allowUnixSockets") and all_sockets is not True:
        findings.append(
            _lossy(
                "lossy-unix-socket",
                "'network.allowUnixSockets' is not granted: DeepCode's allowUnixSockets is one "
                "switch for every Unix socket, so the socket paths listed here stay closed (the "
                "switch would open all of them)",
                policy.srt_location("/network/allowUnixSockets", key=True),
            )
        )
    if "allowLocalBinding" in srt_net:
        out["allowLocalBinding"] = srt_net["allowLocalBinding"]
    return out


# ---------------------------------------------------------------- merge


def merge(existing: dict[str, Any], managed: Managed) -> dict[str, Any]:
    """New values of the top-level ``permissions`` and ``sandbox`` members (pure)."""
    current_permissions = existing.get("permissions")
    permissions = deepcopy(current_permissions) if current_permissions is not None else {}
    permissions["deny"] = list(managed.deny)
    permissions["ask"] = list(managed.ask)
    generated = managed.sandbox()
    current = existing.get("sandbox")
    if current is None:
        return {"permissions": permissions, "sandbox": generated}
    sandbox = deepcopy(current)
    for key in LEGACY_KEYS:
        sandbox.pop(key, None)
    if "mode" in sandbox:
        sandbox["mode"] = managed.mode
    else:
        sandbox = {"mode": managed.mode, **sandbox}
    merge_sections(sandbox, generated, (("filesystem", FS_KEYS), ("network", NET_KEYS)))
    return {"permissions": permissions, "sandbox": sandbox}


# Managed members whose type must be right before twsrt can merge into the file.
SETTINGS_SHAPES = {
    "/permissions": dict,
    "/permissions/deny": list,
    "/permissions/ask": list,
    "/sandbox": dict,
    "/sandbox/filesystem": dict,
    "/sandbox/network": dict,
}


def merged_text(base_text: str | None, display: str, managed: Managed) -> str:
    """The whole new file: the base with only the managed members spliced in."""
    return splice_settings(base_text, display, SETTINGS_SHAPES, lambda doc: merge(doc, managed))


# ---------------------------------------------------------------- drift


# The members twsrt owns, for drift and for reports (diffs.py); hooks, MCP servers, env and
# every other key are the user's and elided. An empty list is an item of its own: ``[]`` and a
# missing key mean different things to DeepCode (no network against every host; no ask rules
# against the user layer's).
SETTINGS = Members(
    {
        "permissions": dict.fromkeys(PERMISSION_KEYS, True),
        "sandbox": {
            **dict.fromkeys(("mode", *LEGACY_KEYS), True),
            "filesystem": dict.fromkeys(FS_KEYS, True),
            "network": dict.fromkeys(NET_KEYS, True),
        },
    },
    rule_lists=tuple(f"permissions.{key}" for key in PERMISSION_KEYS),
    empty_list=True,
)
SETTINGS_SPEC = SETTINGS.spec


def drift(display: str, disk_text: str | None, new_text: str, key: str) -> Drift:
    return compare(display, key, disk_text, new_text, SETTINGS.text_items, SETTINGS.view)


# ---------------------------------------------------------------- files


def target(ctx: Context) -> tuple[str, Path] | None:
    """The ``[targets]`` key and the file for this mode; None when nothing is configured."""
    return mode_target(ctx.config.targets, SETTINGS_KEY, YOLO_KEY, ctx.yolo)


def _configured_key(ctx: Context) -> str:
    """``deepcode_settings``, or the yolo key when only that one is configured."""
    return SETTINGS_KEY if SETTINGS_KEY in ctx.config.targets else YOLO_KEY


def layer_findings(ctx: Context) -> list[Finding]:
    """What writing DeepCode's settings layers costs: the Claude fallback and list layering."""
    findings: list[Finding] = []
    full = ctx.config.targets.get(SETTINGS_KEY)
    # the full-mode file is created by this run (yolo runs create it only as a companion)
    creates = not ctx.yolo or YOLO_KEY in ctx.config.targets
    if (
        full is not None
        and creates
        and full.name == USER_FILE
        and full.parent.name == USER_DIR
        and not full.exists()
        and not full.is_symlink()
    ):
        findings.append(
            _lossy(
                "deepcode-claude-fallback",
                f"{ctx.config.display_path(full)} does not exist yet: DeepCode reads "
                "~/.claude/settings.json in its place, and once twsrt writes it nothing from the "
                "Claude Code file (hooks, MCP servers, model settings) reaches DeepCode; copy "
                "what you still need into it",
                ctx.config.location(f"/targets/{SETTINGS_KEY}"),
            )
        )
    findings.append(
        _lossy(
            "deepcode-array-layers",
            "DeepCode's project and local settings layers replace lists instead of extending "
            "them: a .deepcode/settings.json that sets permissions.deny, permissions.ask or a "
            "sandbox list drops what twsrt writes here",
            ctx.config.location(f"/targets/{_configured_key(ctx)}"),
        )
    )
    return findings


class DeepCodeAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        managed, findings = translate(
            ctx.policy, ctx.yolo, ctx.sandbox_mode, ctx.config.output_home
        )
        if ctx.full_access:
            findings.append(
                ctx.full_access_finding(
                    NAME,
                    "sandbox.mode is danger-full-access and the permission deny rules stay "
                    "in force",
                )
            )
        preview = dump(managed.fragment(), "  ") + "\n"
        located = target(ctx)
        if located is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        key, path = located
        if managed.home_used and ctx.config.pinned_home is None:
            # the lint's text and place when deepcode_settings is configured: reported once
            findings.append(unpinned_home(ctx.config, _configured_key(ctx)))
        findings += layer_findings(ctx)
        display = ctx.config.display_path(path)
        disk_text = read_target(path, display, ctx.config)
        new_text = merged_text(disk_text, display, managed)
        change = target_write(path, display, new_text, disk_text)
        return Result(
            NAME,
            preview,
            changes=[change],
            findings=findings,
            drift=[drift(display, disk_text, new_text, key)],
            origins=managed.origins,
        )


AGENT = DeepCodeAgent()
