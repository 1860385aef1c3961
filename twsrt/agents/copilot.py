"""GitHub Copilot CLI target: a launch-flag snippet and the native ``sandbox`` settings.

Copilot CLI reads two things twsrt can compile: per-launch flags (``--allow-tool``,
``--deny-tool``, ``--allow-url``, ``--deny-url``, ``--yolo``), written as a shell snippet to
stdout or ``copilot_output``; and the ``sandbox`` object of ``~/.copilot/settings.json`` (plus
the ``allowedUrls`` / ``deniedUrls`` lists), spliced into the user's file with every other byte
kept. Translation is pure; the sandbox side takes only absolute paths, whole subtrees and no
wildcards, so ``~`` is expanded with the config's home and every rule it cannot express is a
finding at the source rule — never a wider grant.

Facts pinned by the real-client tests against Copilot CLI 1.0.102:

- a flag value is split at top-level commas and parsed as ``kind(argument)``; an argument
  holding ``)`` is rejected ("Invalid rule format"), a value starting with ``-`` is read as an
  option. URL patterns without a scheme mean ``https://`` only.
- ``userPolicy.network`` host rules take a hostname, an IP, ``*.example.com`` or ``*`` — no
  port and no URL; one bad entry makes Copilot load the whole settings file as ``{}``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
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
    DriftItem,
    Result,
    TargetSpec,
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
from twsrt.domains import split_port
from twsrt.findings import Finding, TwsrtError
from twsrt.jsonedit import dump
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy
from twsrt.writes import Change

NAME = "copilot"
FLAGS_KEY, FLAGS_YOLO_KEY, SETTINGS_KEY = (
    "copilot_output",
    "copilot_output_yolo",
    "copilot_settings",
)
AGENT_SPEC = AgentSpec(
    NAME,
    "Copilot",
    (
        TargetSpec(
            FLAGS_KEY,
            "flags-text",
            "Copilot CLI flag snippet (stdout when omitted).",
            "~/.config/twsrt/copilot-flags.txt",
            r"copilot-flags[^/]*\.txt",
        ),
        TargetSpec(
            FLAGS_YOLO_KEY,
            "flags-text",
            "Copilot CLI flag snippet for yolo mode (default: .yolo inserted before the "
            "extension).",
            "~/.config/twsrt/copilot-flags.yolo.txt",
            r"copilot-flags[^/]*\.txt",
            yolo_of=FLAGS_KEY,
            scaffold=False,
        ),
        TargetSpec(
            SETTINGS_KEY,
            "json-settings",
            "Copilot CLI settings.json whose sandbox object (and allowedUrls/deniedUrls) twsrt "
            "manages, e.g. ~/.copilot/settings.json. ~ in paths expands with the pinned home.",
            "~/.copilot/settings.json",
            r"\.copilot/settings\.json",
            home_dependent=True,
        ),
    ),
)
# The seed's full-mode grant when anything is writable. Copilot 1.0.102 has no `edit` kind (the
# pattern names an MCP server and approves nothing); it stays for seed compatibility.
ALLOW_TOOLS = ("shell(*)", "read", "edit", "write")
WRITE_TOOLS = ("edit", "write")
# read-only denies the file-writing tool outright: --yolo would allow it, and Copilot's sandbox
# covers shell commands only.
READ_ONLY_DENY_TOOL = "write"

# sandbox keys twsrt owns; the rest of the object (auth, credentials, proxy, seatbelt, ...) is
# the user's and kept. Fail-safe values for keys the policy has no word for:
# - addCurrentWorkingDirectory follows "." in allowWrite (Copilot defaults it to true);
# - allowDevToolAccess off: its default grants writes to shared caches the policy never named;
# - allowBypass off: one settings file serves every launch, and a bypass request goes through
#   the permission flow that --yolo answers with yes;
# - MCP and LSP servers stay inside the sandbox like every other spawned command.
TOP_KEYS = (
    "enabled",
    "addCurrentWorkingDirectory",
    "allowDevToolAccess",
    "allowBypass",
    "sandboxMcpServers",
    "sandboxLspServers",
)
FS_KEYS = ("readwritePaths", "readonlyPaths", "deniedPaths")
# allowLocalNetwork stays off: Copilot's switch opens the whole LAN, SRT has no such grant.
NET_KEYS = ("allowOutbound", "allowLocalNetwork", "allowedHosts", "blockedHosts")
URL_KEYS = ("allowedUrls", "deniedUrls")
PATHS = PathTarget(NAME, "Copilot", {"denyRead": "deniedPaths", "denyWrite": "readonlyPaths"})

# The srt keys Copilot compiles or reports itself (srtkeys reports every other key it is set).
# strictAllowlist needs no key: a non-empty allowedHosts list blocks every other host unasked.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/strictAllowlist",
    "/filesystem/denyRead",
    "/filesystem/allowRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
)
# Without copilot_settings only the launch flags are written: URLs and the deny rules.
FLAGS_ONLY_SRT_KEYS = ("/enabled", "/network/allowedDomains", "/network/deniedDomains")
# Copilot's own reasons for srt keys it has no faithful key for (each would widen or differs
# in meaning); the generic reason from srtkeys serves the rest.
REASONS = {
    "/network/allowLocalBinding": "Copilot's allowLocalNetwork would open the whole LAN",
    "/network/allowUnixSockets": "Copilot has no per-socket grant",
    "/network/allowAllUnixSockets": "Copilot has no Unix socket switch",
    "/network/httpProxyPort": "Copilot's proxy setting is an upstream, not a filter",
    "/network/socksProxyPort": "Copilot's proxy setting is an upstream, not a filter",
    "/network/deniedResolvedAddresses": "Copilot host rules cannot name resolved addresses",
    "/credentials": "Copilot's credential masking has a different shape",
    "/filesystem/disabled": "Copilot always isolates the filesystem when its sandbox is on",
}
NO_SETTINGS = (
    "no copilot_settings target is configured, so Copilot's sandbox is not written (add one "
    "to [targets])"
)

_LABEL = r"[\w-]+"
_DOMAIN = re.compile(
    rf"(?P<host>\*|(?:\*\.)?{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]+\])(?::(?P<port>\d{{1,5}}))?"
)


@dataclass
class Compiled:
    """Everything twsrt writes for Copilot in one mode."""

    argv: list[str] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)
    urls: dict[str, list[str]] = field(default_factory=dict)
    home_used: bool = False
    origins: dict[str, Location] = field(default_factory=dict)

    def settings_fragment(self) -> dict[str, Any]:
        return {"sandbox": self.sandbox, **{k: v for k, v in self.urls.items() if v}}


_lossy = agent_finding(NAME)


# ---------------------------------------------------------------- flags


def quote(value: str) -> str:
    """``shlex.quote``, but always quoted, as the seed prints every value ('read')."""
    quoted = shlex.quote(value)
    return quoted if quoted != value else f"'{value}'"


def render_snippet(argv: list[str]) -> str:
    """One flag (with its value) per line, ` \\` on every line but the last."""
    lines: list[str] = []
    index = 0
    while index < len(argv):
        flag = argv[index]
        if flag == "--yolo":
            lines.append(flag)
            index += 1
            continue
        lines.append(f"{flag} {quote(argv[index + 1])}")
        index += 2
    return " \\\n".join(lines) + "\n" if lines else ""


def parse_snippet(text: str) -> list[str]:
    """The argv a shell would see: continuation lines joined, then shlex-split."""
    return shlex.split(text.replace("\\\n", ""))


def _domain(entry: Any) -> tuple[str, str | None]:
    """Host and port of a policy domain; anything Copilot could misread is refused."""
    value = entry.value
    match = _DOMAIN.fullmatch(value)
    port = match["port"] if match else None
    if match is None or value.startswith("-") or (port is not None and not 0 < int(port) < 65536):
        raise TwsrtError(
            _lossy(
                "unexpressible-domain",
                f"'{value}' is not a host pattern Copilot can take (a hostname, IP, "
                "*.example.com or *, optionally with :port); fix the entry",
                entry.origin,
            )
        )
    return split_port(value)


def _shell(entry: Any) -> str:
    if ")" in entry.value:
        raise TwsrtError(
            _lossy(
                "unexpressible-command",
                f"command '{entry.value}' contains ')', which Copilot's shell(...) tool pattern "
                "rejects; rewrite the rule without it",
                entry.origin,
            )
        )
    return f"shell({entry.value})"


def compile_flags(
    policy: Policy,
    yolo: bool,
    origins: dict[str, Location],
    sandbox_mode: str = "workspace-write",
) -> tuple[list[str], list[Finding]]:
    """The argv of the launch flags: grants (full mode only), then denies, then URLs."""
    findings: list[Finding] = []
    for entry in [*policy.allowed_domains, *policy.denied_domains]:
        _domain(entry)  # refused in every mode, so full and yolo agree on bad input
    pairs: dict[tuple[str, str], None] = {}
    for flag, value, origin in _flags(policy, yolo, sandbox_mode == "read-only", findings):
        pairs.setdefault((flag, value))
        if origin is not None:
            origins.setdefault(value, origin)
    argv = ["--yolo"] if yolo else []
    for flag, value in pairs:
        argv += [flag, value]
    return argv, findings


def _flags(
    policy: Policy, yolo: bool, read_only: bool, findings: list[Finding]
) -> Iterator[tuple[str, str, Location | None]]:
    """Every flag with its value and the source rule behind it, in order, repeats included."""
    if not yolo and policy.allow_write:
        for tool in ALLOW_TOOLS:
            if not (read_only and tool in WRITE_TOOLS):
                yield "--allow-tool", tool, None
    if read_only:
        yield "--deny-tool", READ_ONLY_DENY_TOOL, None
    for entry in policy.bash_deny:
        yield "--deny-tool", _shell(entry), entry.origin
    if not yolo:  # yolo skips ask rules, as for every agent
        for entry in policy.bash_ask:
            yield "--deny-tool", _shell(entry), entry.origin
            findings.append(
                _lossy(
                    "lossy-ask-as-deny",
                    f"Copilot has no ask tier; bash ask '{entry.value}' is denied outright",
                    entry.origin,
                )
            )
        for entry in policy.allowed_domains:
            yield "--allow-url", entry.value, entry.origin
    for entry in policy.denied_domains:
        # a pattern without a scheme means https:// only; deny http:// too, or --yolo
        # (which allows every URL) would still reach the denied host over plain http
        yield "--deny-url", entry.value, entry.origin
        yield "--deny-url", f"http://{entry.value}", entry.origin


# ---------------------------------------------------------------- sandbox settings


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
                    "lossy-write-root",
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
                    "lossy-port-domain",
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
                    "lossy-port-domain",
                    f"Copilot host rules take no port; '{entry.value}' blocks '{host}' on every "
                    f"port{every}",
                    entry.origin,
                )
            )
        if host not in blocked:
            blocked.append(host)
        origins.setdefault(host, entry.origin)
    return allowed, blocked


def translate(
    policy: Policy,
    yolo: bool,
    home: str,
    with_settings: bool,
    sandbox_mode: str = "workspace-write",
) -> tuple[Compiled, list[Finding]]:
    """Pure translation: the flags for the mode and, when wanted, the sandbox settings."""
    out = Compiled()
    out.argv, findings = compile_flags(policy, yolo, out.origins, sandbox_mode)
    if with_settings:
        out.sandbox, out.urls, out.home_used, more = compile_sandbox(
            policy, home, out.origins, sandbox_mode
        )
        findings += more
    return out, findings


# ---------------------------------------------------------------- settings merge


# Managed members whose type must be right before twsrt can merge into the file.
SETTINGS_SHAPES = {
    "/sandbox": dict,
    "/sandbox/userPolicy": dict,
    "/sandbox/userPolicy/filesystem": dict,
    "/sandbox/userPolicy/network": dict,
    "/allowedUrls": list,
    "/deniedUrls": list,
}


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


def merged_settings(base_text: str | None, display: str, compiled: Compiled) -> str:
    """The whole new settings file: the user's text with only the owned members spliced in."""
    return splice_settings(base_text, display, SETTINGS_SHAPES, lambda doc: merge(doc, compiled))


# ---------------------------------------------------------------- drift


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


# ---------------------------------------------------------------- files


def srt_key_findings(policy: Policy, with_settings: bool) -> list[Finding]:
    """Findings for the srt keys Copilot does not take, and the note for strictAllowlist."""
    findings: list[Finding] = []
    if not with_settings:
        reasons = {**REASONS, "/filesystem": NO_SETTINGS, "/network": NO_SETTINGS}
        return unhandled_key_findings(policy, NAME, FLAGS_ONLY_SRT_KEYS, reasons)
    findings += strict_allowlist_note(
        policy,
        NAME,
        "Copilot's sandbox: a non-empty allowedHosts list already refuses every other host "
        "without asking",
    )
    return findings + unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)


def flags_target(ctx: Context) -> tuple[str, Path] | None:
    return mode_target(ctx.config.targets, FLAGS_KEY, FLAGS_YOLO_KEY, ctx.yolo)


class CopilotAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        settings_path = ctx.config.targets.get(SETTINGS_KEY)
        compiled, findings = translate(
            ctx.policy,
            ctx.yolo,
            ctx.config.output_home,
            settings_path is not None,
            ctx.sandbox_mode,
        )
        if ctx.full_access:
            what = "the --deny-tool and --deny-url flags stay in force"
            if settings_path is not None:
                what = "sandbox.enabled is false and " + what
            findings.append(ctx.full_access_finding(NAME, what))
        if compiled.home_used and ctx.config.pinned_home is None:
            findings.append(unpinned_home(ctx.config, SETTINGS_KEY))
        findings += srt_key_findings(ctx.policy, settings_path is not None)
        snippet = render_snippet(compiled.argv)
        preview = snippet
        flags = flags_target(ctx)
        printed = snippet if flags is None else ""  # no copilot_output: stdout, as the seed says
        if flags is None and settings_path is None:
            return Result(NAME, preview, findings=findings, target_configured=False, stdout=printed)
        changes: list[Change] = []
        drift: list[Drift] = []
        if flags is not None:
            key, path = flags
            display = ctx.config.display_path(path)
            disk = read_target(path, display, ctx.config)
            changes.append(target_write(path, display, snippet, disk))
            # generated whole: a change of form drifts too (a lost continuation breaks the paste)
            drift.append(compare(display, key, disk, snippet, _flag_items, form=True))
        if settings_path is not None:
            display = ctx.config.display_path(settings_path)
            disk = read_target(settings_path, display, ctx.config)
            new_text = merged_settings(disk, display, compiled)
            changes.append(target_write(settings_path, display, new_text, disk))
            drift.append(
                compare(display, SETTINGS_KEY, disk, new_text, SETTINGS.text_items, SETTINGS.view)
            )
            fragment = dump(compiled.settings_fragment(), "  ")
            preview += f"\n# {display} (managed keys only)\n"
            preview += "".join(f"# {line}\n" for line in fragment.splitlines())
        return Result(
            NAME,
            preview,
            changes=changes,
            findings=findings,
            drift=drift,
            origins=compiled.origins,
            stdout=printed,
        )


AGENT = CopilotAgent()
