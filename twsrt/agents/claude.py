"""Claude Code target: permissions and sandbox sections of ``settings.json``.

Translation is pure (Policy -> managed sections + lossy findings); the merge splices only the
managed members into the user's file; file placement handles the full/yolo files, the
``settings.json`` symlink and the first-run migration of a regular ``settings.json``.
"""

from __future__ import annotations

import json
from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    compare,
    mode_files,
    mode_target,
    plan_link,
    target_write,
    unique,
)
from twsrt.bashrules import bash_rules
from twsrt.diffs import Spec
from twsrt.domains import split_port
from twsrt.findings import Finding, finding
from twsrt.jsonedit import dump
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy, is_glob
from twsrt.writes import Change

NAME = "claude"
LINK_NAME = "settings.json"
AGENT_SPEC = AgentSpec(
    NAME,
    "Claude",
    (
        TargetSpec(
            "claude_settings",
            "json-settings",
            "Claude Code settings written in full mode, e.g. ~/.claude/settings.full.json.",
            "~/.claude/settings.full.json",
            r"\.claude/settings[^/]*\.json",
            link=LINK_NAME,
            examples=("home/.claude/settings.full.json",),
        ),
        TargetSpec(
            "claude_settings_yolo",
            "json-settings",
            "Claude Code settings written in yolo mode (default: .yolo inserted before the "
            "extension).",
            "~/.claude/settings.yolo.json",
            r"\.claude/settings[^/]*\.json",
            yolo_of="claude_settings",
            link=LINK_NAME,
        ),
    ),
)
PRODUCT = "Claude Code"  # how the settings-link findings name the program
FULL_KEY, YOLO_KEY = (target.key for target in AGENT_SPEC.targets)
WEBFETCH_PREFIX = "WebFetch(domain:"
WEB_PORTS = ("80", "443")

# Sandbox keys copied from the srt settings (seed table plus the newer keys Claude reads).
NETWORK_KEYS = (
    "allowedDomains",
    "deniedDomains",
    "allowLocalBinding",
    "allowUnixSockets",
    "allowAllUnixSockets",
    "allowMachLookup",
    "httpProxyPort",
    "socksProxyPort",
    "strictAllowlist",
    "tlsTerminate",
)
FILESYSTEM_KEYS = ("allowWrite", "denyWrite", "denyRead", "allowRead", "disabled")
TOP_KEYS = (
    "enabled",
    "enableWeakerNetworkIsolation",
    "enableWeakerNestedSandbox",
    "ignoreViolations",
    "allowAppleEvents",
    "allowNestedUserNamespaces",
    "credentials",
    "ripgrep",
)
# Sub-keys Claude Code 2.1.332 takes where its object is narrower than srt's (it drops the rest).
SUB_KEYS = {"tlsTerminate": ("caCertPath", "caKeyPath"), "ripgrep": ("command", "args")}
# Claude-only keys: set only by [sandbox_overrides], never removed by twsrt.
CLAUDE_ONLY_KEYS = (
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "excludedCommands",
    "failIfUnavailable",
)
# The srt keys this target compiles or reports itself; srtkeys reports every other key set.
HANDLED_SRT_KEYS: tuple[str, ...] = (
    "/enabled",
    *(f"/network/{key}" for key in NETWORK_KEYS if key not in SUB_KEYS),
    *(f"/network/tlsTerminate/{key}" for key in SUB_KEYS["tlsTerminate"]),
    *(f"/filesystem/{key}" for key in FILESYSTEM_KEYS),
    *(f"/{key}" for key in TOP_KEYS if key not in SUB_KEYS and key != "enabled"),
    *(f"/ripgrep/{key}" for key in SUB_KEYS["ripgrep"]),
)
# Why Claude Code cannot take an srt key, where srt's own reason would not say it.
REASONS = {
    "/network/tlsTerminate": "Claude Code's sandbox.network.tlsTerminate takes only caCertPath "
    "and caKeyPath",
    "/ripgrep/argv0": "Claude Code's sandbox.ripgrep takes only command and args",
    "/bwrapPath": "Claude Code reads sandbox.bwrapPath from managed settings only",
    "/socatPath": "Claude Code reads sandbox.socatPath from managed settings only",
    "/windows": "Claude Code's sandbox.windows is a different setting (backend sandboxuser or mxc)",
}
# What each sandbox mode forces in the sandbox section, after the srt values and the overrides:
# read-only keeps every command inside an enabled sandbox (no escape hatch, no excluded
# commands, which would run unsandboxed and could write); danger-full-access switches it off.
MODE_FORCED: dict[str, dict[str, Any]] = {
    "read-only": {"enabled": True, "allowUnsandboxedCommands": False},
    "danger-full-access": {"enabled": False},
}
MODE_DROPPED: dict[str, tuple[str, ...]] = {"read-only": ("excludedCommands",)}
# A bare tool name denies the tool for every path: no file edits at all under read-only.
READ_ONLY_DENY = "Edit"
# Claude's switch for running a command outside the sandbox (absent means allowed, once approved).
ESCAPE_HATCH = "allowUnsandboxedCommands"


@dataclass
class Managed:
    """The sections twsrt owns in a Claude settings file, for one mode."""

    deny: list[str] = field(default_factory=list)
    ask: list[str] | None = None
    webfetch_allow: list[str] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)
    override_keys: tuple[str, ...] = ()
    dropped_keys: tuple[str, ...] = ()  # Claude-only keys removed by the sandbox mode
    origins: dict[str, Location] = field(default_factory=dict)

    @property
    def sandbox_keys(self) -> tuple[str, ...]:
        """Claude-only sandbox keys twsrt manages in this run (set or removed)."""
        return (*self.override_keys, *self.dropped_keys)

    def fragment(self) -> dict[str, Any]:
        permissions: dict[str, Any] = {"deny": self.deny}
        if self.ask is not None:
            permissions["ask"] = self.ask
        permissions["allow"] = self.webfetch_allow
        return {"permissions": permissions, "sandbox": self.sandbox}


def rule_path(path: str) -> str:
    """A path as Claude permission rules spell it: ``/abs`` would anchor at ``~/.claude``."""
    if path.startswith("/") and not path.startswith("//"):
        return "/" + path
    return path


def path_patterns(rule: PathRule) -> list[str]:
    """``P`` and ``P/**`` for a concrete path (file or directory alike); a glob stays bare."""
    if rule.glob:
        return [rule.path]
    spelled = rule_path(rule.path)
    if spelled == "//":
        return ["//", "//**"]
    return [spelled, f"{spelled}/**"]


def translate(
    policy: Policy,
    yolo: bool,
    overrides: dict[str, Any],
    sandbox_mode: str = "workspace-write",
) -> tuple[Managed, list[Finding]]:
    """Pure translation of the canonical policy into Claude's managed sections."""
    findings: list[Finding] = []
    managed = Managed()
    deny: list[str] = []
    for rule in policy.deny_read:
        _check_literal(rule, findings)
        patterns = path_patterns(rule)
        emitted = [f"Read({p})" for p in patterns] + [f"Edit({p})" for p in patterns]
        deny += emitted
        _note_origins(managed, [*emitted, rule.path], rule.origin)
    for rule in policy.deny_write:
        _check_literal(rule, findings)
        emitted = [f"Edit({pattern})" for pattern in path_patterns(rule)]
        deny += emitted
        _note_origins(managed, [*emitted, rule.path], rule.origin)
    for entry in policy.denied_domains:
        host, port = split_port(entry.value)
        if port in WEB_PORTS:
            findings.append(
                finding(
                    "lossy-port-domain",
                    f"WebFetch cannot deny only port {port}; '{host}' is denied for WebFetch on "
                    "every port (the sandbox keeps the port)",
                    entry.origin,
                    agent=NAME,
                )
            )
        elif port is not None:
            findings.append(
                finding(
                    "lossy-port-domain",
                    f"'{entry.value}' concerns a port WebFetch never uses (it fetches over "
                    "80/443); no WebFetch deny rule is emitted (the sandbox keeps the entry)",
                    entry.origin,
                    agent=NAME,
                )
            )
            continue
        deny.append(f"WebFetch(domain:{host})")
        _note_origins(managed, [deny[-1], entry.value], entry.origin)
    for entry in policy.bash_deny:
        emitted = bash_rules(entry.value, entry.origin, NAME)
        deny += emitted
        _note_origins(managed, emitted, entry.origin)
    managed.deny = unique(deny)
    if not yolo:
        ask: list[str] = []
        for entry in policy.bash_ask:
            emitted = bash_rules(entry.value, entry.origin, NAME)
            ask += emitted
            _note_origins(managed, emitted, entry.origin)
        managed.ask = unique(ask)
    allow = []
    for entry in policy.allowed_domains:
        host, port = split_port(entry.value)
        if port is not None:
            findings.append(
                finding(
                    "lossy-port-domain",
                    f"WebFetch cannot allow only port {port}; '{entry.value}' is left out of the "
                    "WebFetch allow rules (the sandbox keeps it)",
                    entry.origin,
                    agent=NAME,
                )
            )
            continue
        allow.append(f"{WEBFETCH_PREFIX}{host})")
        _note_origins(managed, [allow[-1], entry.value], entry.origin)
    managed.webfetch_allow = unique(allow)
    managed.sandbox = _sandbox(policy, findings)
    mode_overrides = {k: v for k, v in overrides.items()}
    managed.sandbox.update(deepcopy(mode_overrides))
    managed.override_keys = tuple(mode_overrides)
    if yolo and sandbox_mode != "danger-full-access" and managed.sandbox.get("enabled"):
        _close_escape_hatch(managed)
    _apply_sandbox_mode(managed, sandbox_mode)
    return managed, findings


def _close_escape_hatch(managed: Managed) -> None:
    """Yolo files run without prompts, so Claude's default escape hatch (a command the model
    retries with ``dangerouslyDisableSandbox`` runs unsandboxed once approved) is approved by
    nobody: a real run under bypassPermissions reads a denyRead file that way. Full mode keeps
    Claude's default, where the user is asked first."""
    managed.sandbox[ESCAPE_HATCH] = False  # in place when an override set it; else at the end
    managed.override_keys = tuple(dict.fromkeys((*managed.override_keys, ESCAPE_HATCH)))


def _apply_sandbox_mode(managed: Managed, sandbox_mode: str) -> None:
    """read-only: no write grant and no edits; danger-full-access: the sandbox off. The
    permission denies stay in every mode."""
    if sandbox_mode == "read-only":
        managed.deny = unique([*managed.deny, READ_ONLY_DENY])
        filesystem = managed.sandbox.get("filesystem")
        if filesystem is not None:
            filesystem.pop("allowWrite", None)
    forced = MODE_FORCED.get(sandbox_mode, {})
    dropped = MODE_DROPPED.get(sandbox_mode, ())
    if not (forced or dropped):
        return
    rest = {k: v for k, v in managed.sandbox.items() if k not in forced and k not in dropped}
    # `enabled` leads the section as in any generated file; forced Claude-only keys close it
    head = {k: v for k, v in forced.items() if k == "enabled"}
    tail = {k: v for k, v in forced.items() if k != "enabled"}
    managed.sandbox = {**head, **rest, **tail}
    keys = dict.fromkeys((*managed.override_keys, *tail))  # forced keys are managed too
    managed.override_keys = tuple(k for k in keys if k not in dropped)
    managed.dropped_keys = dropped


def mode_findings(ctx: Context) -> list[Finding]:
    """What the sandbox mode costs in Claude Code, and overrides the mode sets aside."""
    findings: list[Finding] = []
    origin = ctx.sandbox_origin or Location(ctx.config.display)
    if ctx.read_only:
        findings.append(
            finding(
                "lossy-readonly-workspace",
                "sandbox mode read-only: Claude Code's sandbox always lets commands write the "
                "directory it starts in; Edit is denied and no path is granted for writing, but "
                "a sandboxed shell command can still write the workspace",
                origin,
                agent=NAME,
            )
        )
    if ctx.full_access:
        findings.append(
            ctx.full_access_finding(
                NAME, "sandbox.enabled is false and the permission deny rules stay in force"
            )
        )
    forced = MODE_FORCED.get(ctx.sandbox_mode, {})
    dropped = MODE_DROPPED.get(ctx.sandbox_mode, ())
    overrides = ctx.config.overrides.get(ctx.mode, {})
    if ctx.policy.enabled and overrides.get("enabled") is False and "enabled" not in forced:
        findings.append(
            finding(
                "agent-sandbox-off",
                f"[sandbox_overrides.{ctx.mode}] enabled = false switches Claude Code's sandbox "
                "off while the policy's is on: Bash commands run without the policy's "
                'filesystem and network rules; remove the override, or set "enabled": false '
                "in the policy if that is really meant",
                ctx.config.location(f"/sandbox_overrides/{ctx.mode}/enabled"),
                agent=NAME,
                related=(ctx.policy.srt_location(""),),
            )
        )
    if not ctx.policy.enabled and forced.get("enabled") is True:
        findings.append(
            finding(
                "uncompiled-key-note",
                f"'enabled' is false in the policy, but sandbox mode {ctx.sandbox_mode} keeps "
                "Claude Code's sandbox on (stricter than the policy)",
                ctx.policy.srt_location("/enabled", key=True),
                agent=NAME,
            )
        )
    if ctx.yolo and ctx.sandbox_mode == "workspace-write" and overrides.get(ESCAPE_HATCH) is True:
        findings.append(
            finding(
                "lossy-unsupported-key",
                f"[sandbox_overrides.yolo] {ESCAPE_HATCH} = true is set aside: a yolo file runs "
                "without prompts, so nobody would approve a command leaving the sandbox; twsrt "
                "writes false",
                ctx.config.location(f"/sandbox_overrides/yolo/{ESCAPE_HATCH}"),
                agent=NAME,
            )
        )
    for key, value in overrides.items():
        if (key in forced and forced[key] != value) or key in dropped:
            findings.append(
                finding(
                    "lossy-unsupported-key",
                    f"[sandbox_overrides.{ctx.mode}] {key} is set aside under sandbox mode "
                    f"{ctx.sandbox_mode}"
                    + (f", which forces {json.dumps(forced[key])}" if key in forced else ""),
                    ctx.config.location(f"/sandbox_overrides/{ctx.mode}/{key}"),
                    agent=NAME,
                )
            )
    return findings


def _note_origins(managed: Managed, values: list[str], origin: Location) -> None:
    for value in values:
        managed.origins.setdefault(value, origin)


def _check_literal(rule: PathRule, findings: list[Finding]) -> None:
    if rule.literal and is_glob(rule.path):
        findings.append(
            finding(
                "lossy-literal-glob",
                f"literal path '{rule.path}' contains glob characters; Claude reads it as a "
                "pattern, which may miss the literal path itself — protect a parent directory "
                "without glob characters",
                rule.origin,
                agent=NAME,
            )
        )


def _paths(items: list[Any]) -> list[str]:
    return [item["path"] if isinstance(item, dict) else item for item in items]


def _sandbox(policy: Policy, findings: list[Finding]) -> dict[str, Any]:
    srt = policy.srt
    # Claude Code treats a missing `enabled` as false, while srt is the sandbox: absent means on.
    sandbox: dict[str, Any] = {"enabled": policy.enabled}
    network = srt.get("network", {})
    out_network = {
        key: _dedupe(_narrowed(key, deepcopy(network[key])))
        for key in NETWORK_KEYS
        if key in network
    }
    filesystem = srt.get("filesystem", {})
    out_fs: dict[str, Any] = {}
    for key in FILESYSTEM_KEYS:
        if key not in filesystem:
            continue
        value = filesystem[key]
        if key == "disabled":
            out_fs[key] = value
            continue
        rules = {
            "allowWrite": policy.allow_write,
            "allowRead": policy.allow_read,
            "denyWrite": policy.deny_write,
            "denyRead": policy.deny_read,
        }[key]
        out_fs[key] = _sandbox_paths(key, _paths(value), rules, findings)
    if out_network:
        sandbox["network"] = out_network
    if out_fs:
        sandbox["filesystem"] = out_fs
    for key in TOP_KEYS[1:]:
        if key not in srt:
            continue
        if key == "credentials":
            sandbox[key] = _credentials(policy, findings)
        else:
            sandbox[key] = _narrowed(key, deepcopy(srt[key]))
    return sandbox


def _narrowed(key: str, value: Any) -> Any:
    """An object Claude takes with fewer members than srt keeps only those (it would drop the
    rest anyway; srtkeys reports them)."""
    if key in SUB_KEYS and isinstance(value, dict):
        return {k: v for k, v in value.items() if k in SUB_KEYS[key]}
    return value


def _credentials(policy: Policy, findings: list[Finding]) -> dict[str, Any]:
    """srt's credentials section in the shape Claude Code validates: the same keys, with the
    combinations Claude rejects rewritten to what srt does with them."""
    section = deepcopy(policy.srt["credentials"])
    for index, entry in enumerate(section.get("files") or []):
        where = policy.srt_location(f"/credentials/files/{index}")
        path = entry.get("path", "")
        if not (path.startswith("/") or path == "~" or path.startswith("~/")):
            findings.append(_relative_credential(path, where))
        if entry.get("mode") == "mask" and path.endswith("/"):
            # Claude masks single files only; a denied directory is stricter than a masked one
            entry["mode"] = "deny"
            findings.append(
                finding(
                    "lossy-credential-entry",
                    f"credential '{path}' is a directory, which Claude Code cannot mask; it is "
                    "denied instead (stricter: commands cannot read it at all)",
                    where,
                    agent=NAME,
                )
            )
    for index, entry in enumerate(section.get("envVars") or []):
        if entry.get("mode") != "mask" or "decode" not in entry:
            continue
        # srt's decode path never reads these; Claude refuses the whole file when they are set
        ignored = [key for key in ("extract",) if key in entry]
        if entry.get("onExtractNoMatch") in ("deny", "error"):
            ignored.append("onExtractNoMatch")
        for key in ignored:
            del entry[key]
        if ignored:
            findings.append(
                finding(
                    "lossy-credential-entry",
                    f"credential variable '{entry.get('name')}': "
                    + " and ".join(ignored)
                    + " left out for Claude Code, which rejects them beside decode; srt ignores "
                    "them there too (the decode path never reads them)",
                    policy.srt_location(f"/credentials/envVars/{index}"),
                    agent=NAME,
                )
            )
    return section


def _relative_credential(text: str, origin: Location) -> Finding:
    return finding(
        "lossy-relative-sandbox-path",
        f"relative credential path '{text}' in Claude's user settings protects "
        f"~/.claude/{text.removeprefix('./')} only: Bash commands still read the file in the "
        "project, which srt hides (no permission rule carries it there); write the path with "
        "~/ or / to cover it everywhere",
        origin,
        agent=NAME,
    )


def _sandbox_paths(
    key: str, raw: list[str], rules: list[PathRule], findings: list[Finding]
) -> list[str]:
    out: list[str] = []
    granting = key.startswith("allow")
    for text, rule in zip(raw, rules, strict=True):
        relative = not (text.startswith("/") or text == "~" or text.startswith("~/"))
        if granting and rule.literal and is_glob(rule.path):
            findings.append(
                finding(
                    "literal-glob-grant-left-out",
                    f"literal path '{rule.path}' contains glob characters and would grant more "
                    f"as a pattern; left out of Claude's sandbox.filesystem.{key}",
                    rule.origin,
                    agent=NAME,
                )
            )
            continue
        if relative and granting and text in (".", "./") and key == "allowWrite":
            continue  # Claude's sandbox always lets commands write the working directory
        if relative and granting and key == "allowWrite":
            findings.append(
                finding(
                    "lossy-relative-write-root",
                    f"relative path '{text}' would mean ~/.claude/{text.removeprefix('./')} in "
                    f"Claude's user sandbox; left out of sandbox.filesystem.{key} "
                    "(Claude's sandbox already allows writing the working directory)",
                    rule.origin,
                    agent=NAME,
                )
            )
            continue
        if relative and granting:
            findings.append(
                finding(
                    "relative-sandbox-path-note",
                    f"relative path '{text}' would mean ~/.claude/{text.removeprefix('./')} in "
                    f"Claude's user sandbox; left out of sandbox.filesystem.{key} (stricter: "
                    "reads there stay denied)",
                    rule.origin,
                    agent=NAME,
                )
            )
            continue
        if relative:
            tools = "Read and Edit rules" if key == "denyRead" else "Edit rules"
            effect = (
                "but a glob in a write list is enforced for Bash by neither Claude nor srt on "
                "Linux (TWS501)"
                if key == "denyWrite" and rule.glob
                else "which keeps Bash from it in the project as srt does"
            )
            findings.append(
                finding(
                    "relative-sandbox-path-note",
                    f"relative path '{text}' in sandbox.filesystem.{key} means "
                    f"~/.claude/{text.removeprefix('./')} to Claude Code; the {tools} twsrt "
                    "emits for it are merged into Claude's sandbox at the working directory, "
                    + effect,
                    rule.origin,
                    agent=NAME,
                )
            )
        out.append(text)
    return unique(out)


def _dedupe(value: Any) -> Any:
    """Lists lose exact repeats (Claude's schema wants unique items); other values pass."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return unique(value)
    return value


# ---------------------------------------------------------------- merge


def merge(existing: dict[str, Any], managed: Managed) -> dict[str, Any]:
    """New values of the top-level ``permissions`` and ``sandbox`` members (pure)."""
    permissions = deepcopy(existing.get("permissions") or {})
    permissions["deny"] = list(managed.deny)
    if managed.ask is None:
        permissions.pop("ask", None)
    else:
        permissions["ask"] = list(managed.ask)
    kept = [rule for rule in (permissions.get("allow") or []) if not _is_webfetch(rule)]
    allow = kept + [rule for rule in managed.webfetch_allow if rule not in kept]
    if allow or "allow" in permissions:
        permissions["allow"] = allow
    generated = managed.sandbox
    # a new sandbox section takes the generated key order; an existing one keeps its own
    sandbox = deepcopy(existing["sandbox"] if existing.get("sandbox") is not None else generated)
    for key in (*TOP_KEYS, *managed.sandbox_keys):
        if key in generated:
            sandbox[key] = deepcopy(generated[key])
        elif key in TOP_KEYS or key in managed.dropped_keys:
            sandbox.pop(key, None)
    merge_sections(sandbox, generated, (("network", NETWORK_KEYS), ("filesystem", FILESYSTEM_KEYS)))
    return {"permissions": permissions, "sandbox": sandbox}


# Managed members whose type must be right before twsrt can merge into the file.
SETTINGS_SHAPES = {
    "/permissions": dict,
    "/permissions/allow": list,
    "/permissions/deny": list,
    "/permissions/ask": list,
    "/sandbox": dict,
    "/sandbox/network": dict,
    "/sandbox/filesystem": dict,
}


def merged_text(base_text: str | None, display: str, managed: Managed) -> str:
    """The whole new file: the base with only the managed members spliced in."""
    return splice_settings(base_text, display, SETTINGS_SHAPES, lambda doc: merge(doc, managed))


# ---------------------------------------------------------------- drift


def managed_spec(sandbox_keys: tuple[str, ...]) -> Spec:
    """The members twsrt owns in a settings file (drift items and the report view derive from
    it): everything else is the user's (``env``, ``apiKeyHelper``, hooks, MCP servers, their
    own allow rules)."""
    return {
        "permissions": {"deny": True, "ask": True, "allow": _is_webfetch},
        "sandbox": {
            **dict.fromkeys((*TOP_KEYS, *sandbox_keys), True),
            "network": dict.fromkeys(NETWORK_KEYS, True),
            "filesystem": dict.fromkeys(FILESYSTEM_KEYS, True),
        },
    }


def _is_webfetch(rule: Any) -> bool:
    return isinstance(rule, str) and rule.startswith(WEBFETCH_PREFIX)


def settings_members(sandbox_keys: tuple[str, ...]) -> Members:
    """The managed members of a settings file, for drift and reports: the permission rules are
    items as written."""
    rules = ("permissions.deny", "permissions.ask", "permissions.allow")
    return Members(managed_spec(sandbox_keys), rule_lists=rules)


def drift(
    display: str, disk_text: str | None, new_text: str, managed: Managed, key: str = ""
) -> Drift:
    members = settings_members(managed.sandbox_keys)
    return compare(display, key, disk_text, new_text, members.text_items, members.view)


# ---------------------------------------------------------------- files


def target_path(ctx: Context) -> Path | None:
    located = mode_target(ctx.config.targets, FULL_KEY, YOLO_KEY, ctx.yolo)
    return None if located is None else located[1]


class ClaudeAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        overrides = ctx.config.overrides.get(ctx.mode, {})
        managed, findings = translate(ctx.policy, ctx.yolo, overrides, ctx.sandbox_mode)
        findings += mode_findings(ctx)
        findings += unhandled_key_findings(ctx.policy, NAME, HANDLED_SRT_KEYS, REASONS)
        preview = dump(managed.fragment(), "  ") + "\n"
        targets = ctx.config.targets
        located = mode_target(targets, FULL_KEY, YOLO_KEY, ctx.yolo)
        if located is None:
            return Result(NAME, preview, findings=findings, target_configured=False)
        key, target = located
        display = ctx.config.display_path(target)
        disk_text = read_target(target, display, ctx.config)
        seed = targets.get(FULL_KEY) if ctx.yolo else None  # a new yolo file starts as the full
        ours = mode_files(targets, FULL_KEY, YOLO_KEY)
        plan = plan_link(
            link_path(targets, target), located, disk_text, ours, seed, NAME, PRODUCT, ctx.config
        )
        findings += plan.findings
        new_text = merged_text(plan.base_text, plan.base_display, managed)
        # a new settings file is private (hooks, apiKeyHelper); one made from another file
        # (migration, yolo seed) takes that file's mode and owner
        changes: list[Change] = [target_write(target, display, new_text, disk_text, plan.base_file)]
        if plan.change is not None:
            changes.append(plan.change)
        return Result(
            NAME,
            preview,
            changes=changes,
            findings=findings,
            drift=[drift(display, disk_text, new_text, managed, key), *plan.drift],
            origins=managed.origins,
        )


def link_path(targets: dict[str, Path], target: Path) -> Path:
    """Where twsrt's settings.json link lives: beside the full settings (Claude Code reads
    it there), also when the yolo file is configured in another directory."""
    anchor = targets.get(FULL_KEY) or targets.get(YOLO_KEY) or target
    return anchor.parent / LINK_NAME


AGENT = ClaudeAgent()
