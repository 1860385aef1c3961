"""Codex CLI target: a ``[permissions.twsrt]`` profile in ``config.toml`` and ``twsrt.rules``.

Translation is pure (Policy -> managed TOML values, rules text, lossy findings); the merge edits
only the owned keys with tomlkit so comments, order and every other table survive; previews
and drift reports contain only managed security data, never the user's other values.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from twsrt.agents.base import AgentSpec, Context, DriftItem, Result, TargetSpec, read_target
from twsrt.agents.srtkeys import IGNORED, dotted, set_keys, unhandled_key_findings
from twsrt.agents.targets import (
    Members,
    agent_finding,
    compare,
    disabled_sandbox,
    project,
    target_write,
)
from twsrt.diffs import toml_key
from twsrt.findings import Finding, TwsrtError, fail, finding
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy, has_dots, is_glob, normalize_path
from twsrt.writes import Change

NAME = "codex"
AGENT_SPEC = AgentSpec(
    NAME,
    "Codex",
    (
        TargetSpec(
            "codex_config",
            "toml-config",
            "Codex config.toml: twsrt manages its permission profile and sandbox keys, the rest "
            "stays yours.",
            "~/.codex/config.toml",
            r"\.codex/config\.toml",
            examples=("home/.codex/config.toml",),
        ),
        TargetSpec(
            "codex_rules",
            "exec-rules",
            "Codex exec-policy rules file; omit to skip escalation rules.",
            "~/.codex/rules/twsrt.rules",
            r"\.codex/rules/[^/]+\.rules",
        ),
    ),
)
PROFILE = "twsrt"
# Pinned approval invariants: escalations are asked of the user, never auto-reviewed, and the
# shell does not source login profiles that could undo the sandbox environment.
OWNED_TOP = {
    "default_permissions": PROFILE,
    "approval_policy": "on-request",
    "approvals_reviewer": "user",
    "allow_login_shell": False,
}
LEGACY_KEYS = ("sandbox_mode", "sandbox_workspace_write")
# Codex expands ** deny globs by scanning at sandbox start and stops at this many levels.
# Codex 0.171 scans without limit when the key is absent; an explicit, generous depth keeps
# that coverage while silencing the missing-depth warning of versions that print it.
GLOB_SCAN_MAX_DEPTH = 64
WORKSPACE = ":workspace_roots"
FULL_ACCESS = ":danger-full-access"  # Codex's built-in profile without a sandbox
STRICTNESS = {"write": 0, "read": 1, "deny": 2}
REMINDER = (
    "twsrt: codex: another Codex config layer (managed, project, profile) setting sandbox_mode, "
    "or --sandbox on the command line, silently deactivates the twsrt profile; run `codex "
    "doctor` after changing them"
)
# The srt keys this module compiles or reports itself (a pointer covers its subtree); every
# other key the policy sets is reported by srtkeys.unhandled_key_findings.
HANDLED_SRT_KEYS = (
    "/enabled",
    "/network/allowedDomains",
    "/network/deniedDomains",
    "/network/allowUnixSockets",
    "/filesystem/denyRead",
    "/filesystem/allowWrite",
    "/filesystem/denyWrite",
    "/credentials/files",
)
# Codex's own words for keys it cannot take (each would widen access or has no equivalent).
REASONS = {
    "/network/allowLocalBinding": "Codex's allow_local_binding would open every local port",
    "/network/allowAllUnixSockets": "Codex's switch for it would open every Unix socket",
    "/network/httpProxyPort": "Codex's proxy_url is an upstream for its own proxy, not a filter",
    "/network/socksProxyPort": "Codex's socks_url is an upstream for its own proxy, not a filter",
    "/network/deniedResolvedAddresses": "Codex domain rules cannot name resolved addresses",
    "/network/parentProxy": "Codex's own proxy takes no upstream from the policy",
    "/network/requireHostMatch": "Codex's proxy has no Host/SNI match setting",
    "/network/refuseOpaqueTunnels": "Codex's proxy has no switch to refuse opaque tunnels",
    "/network/tlsTerminate": "Codex's proxy does not terminate TLS for credential masking",
    "/filesystem/allowRead": "a Codex profile has no read exception inside a denied path",
    "/credentials/envVars": "Codex's shell_environment_policy is the user's, not twsrt's",
}


@dataclass
class Compiled:
    """Everything twsrt owns in Codex's files, for any mode (Codex output is mode-free)."""

    top: dict[str, Any] = field(default_factory=dict)
    network_proxy: bool = False
    profile: dict[str, Any] = field(default_factory=dict)
    rules: str = ""
    origins: dict[str, Location] = field(default_factory=dict)


_lossy = agent_finding(NAME)


def _split_glob(path: str) -> tuple[str, str]:
    """``~/.ssh/*.pem`` -> (``~/.ssh``, ``*.pem``): the concrete prefix and the glob below it."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if is_glob(part):
            return "/".join(parts[:index]), "/".join(parts[index:])
    return path, ""


def _relative(path: str) -> bool:
    return not (path.startswith("/") or path.startswith("~/") or path == "~")


def _tree(rule: PathRule) -> PathRule:
    """``P/**`` names the tree P, as ``P`` does: compiled as the directory itself, so creating,
    renaming or deleting anything in it (or P itself) is refused, not only files that exist
    when the sandbox starts (a ``**`` glob is expanded once)."""
    tree = rule.path[:-3]
    if rule.glob and rule.path.endswith("/**") and not is_glob(tree) and tree not in ("", "~"):
        return PathRule(tree, rule.origin, literal=rule.literal)
    return rule  # ``~/**`` and ``/**`` stay globs: _anchor refuses them with their spelling


def _ancestors(path: str, root: str) -> list[str]:
    """The directories strictly between write root ``root`` and ``path`` below it, in the same
    spelling (relative paths below the launch directory ``.``); empty when not below it."""
    if root == ".":
        parts = path.split("/")
        return ["/".join(parts[:n]) for n in range(1, len(parts))] if _relative(path) else []
    if _relative(root) != _relative(path) or not path.startswith(root.rstrip("/") + "/"):
        return []
    below = path[len(root.rstrip("/")) + 1 :].split("/")
    return [f"{root.rstrip('/')}/{'/'.join(below[:n])}" for n in range(1, len(below))]


def _anchor(rule: PathRule) -> tuple[str, str]:
    """Key and sub-path for a filesystem entry; relative paths scope to the workspace roots."""
    path = rule.path
    if path.startswith("/~/") or path == "/~":
        raise TwsrtError(
            _lossy(
                "unexpressible-path", f"malformed path '{path}': did you mean '~/'?", rule.origin
            )
        )
    if has_dots(path):
        raise TwsrtError(
            _lossy(
                "unexpressible-path",
                f"'{path}' climbs above the launch directory or the home directory with '..', "
                "which a Codex profile cannot name (Codex refuses to load such a path); write "
                "it as an absolute or `~/` path",
                rule.origin,
            )
        )
    if _relative(path):
        return WORKSPACE, path.removeprefix("./") or "."
    if rule.glob:
        prefix, rest = _split_glob(path)
    else:
        prefix, rest = path, ""
    if prefix in ("", "/"):
        if rest:
            raise TwsrtError(
                _lossy(
                    "unexpressible-path",
                    f"glob '{path}' would make Codex scan the whole filesystem, and its sandbox "
                    "refuses to start; anchor the glob under a directory",
                    rule.origin,
                )
            )
        return ":root", "."
    if prefix == "~":
        raise TwsrtError(
            _lossy(
                "unexpressible-path",
                f"'{path}' covers the whole home directory, which a Codex profile cannot name; "
                "list the directories to protect instead",
                rule.origin,
            )
        )
    return prefix, rest or "."


def _literal_glob(rule: PathRule, findings: list[Finding]) -> PathRule:
    """Codex silently ignores a filesystem key with glob characters (found by `twsrt test`), so
    a literal path such as ``~/keys/odd[1]`` is protected by denying its parent instead."""
    if not (rule.literal and is_glob(rule.path)):
        return rule
    parent = rule.path.rsplit("/", 1)[0] if "/" in rule.path else ""
    if parent in ("", "~", "/") or is_glob(parent):
        raise TwsrtError(
            _lossy(
                "unexpressible-path",
                f"literal path '{rule.path}' has glob characters, which Codex ignores in a "
                "filesystem key, and its parent is too broad to deny instead; rename it or "
                "protect a concrete parent directory",
                rule.origin,
            )
        )
    findings.append(
        _lossy(
            "lossy-stricter-glob",
            f"Codex ignores filesystem keys with glob characters; '{rule.path}' is protected by "
            f"denying its parent '{parent}' instead",
            rule.origin,
        )
    )
    return PathRule(parent, rule.origin, literal=True)


def _snapshot_glob(rule: PathRule, findings: list[Finding], write: bool) -> bool:
    """Report that Codex expands a deny glob once; True when the profile needs a scan depth."""
    if not rule.glob:
        return False
    access = "writable" if write else "readable and writable"
    walk = ""
    if "**" in rule.path:  # observed: 12 of 20 starts failed while another process churned
        prefix = _split_glob(rule.path)[0] if not _relative(rule.path) else ""
        where = f"'{prefix}'" if prefix else "the launch directory"
        walk = f"; Codex walks {where} for it at every start and fails to start when an entry "
        walk += "disappears during the walk"
    findings.append(
        _lossy(
            "lossy-glob-snapshot",
            f"Codex expands deny glob '{rule.path}' once when its sandbox starts: a matching "
            f"file created or renamed into place later in the session stays {access}{walk}; "
            "name the directory instead (a directory deny covers new files)",
            rule.origin,
        )
    )
    return "**" in rule.path


def _set_access(filesystem: dict[str, dict[str, str]], key: str, sub: str, mode: str) -> None:
    scoped = filesystem.setdefault(key, {})
    current = scoped.get(sub)
    if current is None or STRICTNESS[mode] > STRICTNESS[current]:
        scoped[sub] = mode


def _render_filesystem(filesystem: dict[str, dict[str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in sorted(filesystem, key=lambda k: (not k.startswith(":"), k)):
        scoped = filesystem[key]
        if list(scoped) == ["."]:
            out[key] = scoped["."]
        else:
            out[key] = {sub: scoped[sub] for sub in sorted(scoped, key=lambda s: (s != ".", s))}
    return out


def _deny_index(denies: list[PathRule]) -> Any:
    """A lookup ``root -> first deny (in policy order) that also matches it``.

    Concrete denies are found by looking up the root's ancestors in a dict, globs by matching;
    a linear scan per root would make large policies quadratic."""
    concrete: dict[str, int] = {}
    globs: list[tuple[int, PathRule]] = []
    for index, rule in enumerate(denies):
        if rule.glob:
            globs.append((index, rule))
        else:
            path = rule.path.removeprefix("./") if rule.path != "./" else "."
            concrete.setdefault(path.rstrip("/") or "/", index)

    def covered(root: str) -> PathRule | None:
        parts = root.rstrip("/").split("/")
        prefixes = ["/".join(parts[:n]) or "/" for n in range(len(parts), 0, -1)]
        if _relative(root):
            prefixes.append(".")  # the launch directory holds every relative path
        hits = [concrete[prefix] for prefix in prefixes if prefix in concrete]
        hits += [index for index, rule in globs if fnmatchcase(root, rule.path)]
        return denies[min(hits)] if hits else None

    return covered


def _host(domain: str) -> tuple[str, str | None]:
    from twsrt.domains import split_port

    return split_port(domain)


def translate(
    policy: Policy, sandbox_mode: str = "workspace-write", home: str | None = None
) -> tuple[Compiled, list[Finding]]:
    """Pure translation of the canonical policy into Codex's profile and rules.

    Both sandboxed modes extend ``:read-only``; workspace-write adds the policy's write roots as
    plain ``"path" = "write"`` entries (``.`` is the launch directory), read-only adds none;
    danger-full-access selects Codex's built-in ``:danger-full-access`` and writes no profile —
    the exec-policy rules still forbid. ``home`` (what ``~`` means on the machine the files are
    for) only serves a finding, never the output: see ``_mixed_spellings``."""
    findings: list[Finding] = []
    if sandbox_mode == "danger-full-access":
        out = Compiled(top={**OWNED_TOP, "default_permissions": FULL_ACCESS})
        findings += _bash_findings(policy)
        out.rules = render_rules(policy)
        for entry in policy.bash_deny:
            out.origins.setdefault(entry.value, entry.origin)
        return out, findings
    if not policy.enabled:
        raise disabled_sandbox(policy, NAME, "generate a Codex profile")
    out = Compiled(top=dict(OWNED_TOP))
    filesystem: dict[str, dict[str, str]] = {}
    # the denies Codex mounts as they are: their parents get pins
    concrete, needs_depth = _deny_access(policy, filesystem, findings, out)
    covered_by_deny = _deny_index([_tree(r) for r in [*policy.deny_read, *policy.deny_write]])
    roots = [] if sandbox_mode == "read-only" else _write_roots(policy, covered_by_deny, findings)
    _write_access(filesystem, roots, concrete, covered_by_deny, out)
    if home is not None:
        findings += _mixed_spellings(concrete, roots, home)
    # :read-only plus explicit write entries: only the policy's roots are writable, not the
    # launch directory, /tmp or $TMPDIR as under :workspace, and relative globs scan only the
    # launch directory (Codex's workspace root) when the sandbox starts
    profile: dict[str, Any] = {
        "description": "Generated by twsrt from the canonical sandbox policy; do not edit.",
        "extends": ":read-only",
    }
    fs_out = _render_filesystem(filesystem)
    if needs_depth:
        fs_out = {"glob_scan_max_depth": GLOB_SCAN_MAX_DEPTH, **fs_out}
    if fs_out:
        profile["filesystem"] = fs_out
    profile["network"] = _network(policy, findings, out)
    out.profile = profile
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    findings += _bash_findings(policy)
    out.rules = render_rules(policy)
    for entry in [*policy.allowed_domains, *policy.denied_domains]:
        out.origins.setdefault(_host(entry.value)[0], entry.origin)
    for entry in policy.bash_deny:
        out.origins.setdefault(entry.value, entry.origin)
    return out, findings


def _deny_access(
    policy: Policy,
    filesystem: dict[str, dict[str, str]],
    findings: list[Finding],
    out: Compiled,
) -> tuple[list[PathRule], bool]:
    """The read and write denies (credential files are read denies) set in ``filesystem``;
    returns the concrete ones (not globs) and whether a glob needs a scan depth."""
    concrete: list[PathRule] = []
    needs_depth = False

    def deny(rule: PathRule, access: str, write: bool) -> None:
        nonlocal needs_depth
        key, sub = _anchor(rule)
        needs_depth |= _snapshot_glob(rule, findings, write)
        out.origins.setdefault(key if sub == "." else sub, rule.origin)
        _set_access(filesystem, key, sub, access)
        concrete.extend([] if rule.glob else [rule])

    for rule in policy.deny_read:
        deny(_tree(_literal_glob(rule, findings)), "deny", write=False)
    for rule in _credential_denies(policy, findings):
        deny(_tree(rule), "deny", write=False)
    for rule in policy.deny_write:
        rule = _tree(_literal_glob(rule, findings))
        deny(rule, "deny" if rule.glob else "read", write=True)
        if rule.glob:
            findings.append(
                _lossy(
                    "lossy-stricter-glob",
                    f"Codex cannot make glob '{rule.path}' read-only; it is denied outright "
                    "(reads too)",
                    rule.origin,
                )
            )
    return concrete, needs_depth


def _write_access(
    filesystem: dict[str, dict[str, str]],
    roots: list[PathRule],
    concrete: list[PathRule],
    covered_by_deny: Any,
    out: Compiled,
) -> None:
    """The write roots set in ``filesystem``, and the pins between each root and a deny below
    it.

    Codex mounts each deny where it is; a writable directory between a write root and the deny
    could be renamed away and re-created empty and writable. A write entry of its own makes it
    a mount point, which the kernel refuses to rename or remove (as srt pins it)."""
    for root in roots:
        key, sub = (WORKSPACE, root.path) if _relative(root.path) else (root.path, ".")
        _set_access(filesystem, key, sub, "write")
        out.origins.setdefault(root.path, root.origin)
    for deny in concrete:
        path = deny.path.removeprefix("./")
        for root in roots:
            for parent in _ancestors(path, root.path):
                if covered_by_deny(parent) is None:
                    key, sub = (WORKSPACE, parent) if _relative(parent) else (parent, ".")
                    _set_access(filesystem, key, sub, "write")


def _mixed_spellings(denies: list[PathRule], roots: list[PathRule], home: str) -> list[Finding]:
    """A deny below a write root spelled the other way (``~/`` against absolute) gets no pins:
    the pins are found by comparing spellings, and the output must not depend on the home. A
    real Codex run then lets a command rename the directory between them away and re-create the
    denied path empty and writable, so the policy must spell both the same way."""

    def expand(path: str) -> str:
        return home.rstrip("/") + path[1:] if path == "~" or path.startswith("~/") else path

    absolute = {root.path: expand(root.path) for root in roots if not _relative(root.path)}
    findings = []
    for deny in denies:
        if _relative(deny.path):
            continue
        for root, root_abs in absolute.items():
            if root.startswith("~") == deny.path.startswith("~"):
                continue  # same spelling: pinned by translate
            between = _ancestors(expand(deny.path), root_abs)
            if between:
                findings.append(
                    _lossy(
                        "codex-mixed-spelling",
                        f"'{deny.path}' lies below write root '{root}' (with ~ = {home}) but is "
                        f"spelled the other way, so Codex cannot pin '{between[0]}' between "
                        "them: a command can rename it away and re-create the denied path "
                        "writable; spell both with ~/ or both absolute",
                        deny.origin,
                    )
                )
                break
    return findings


def _credential_denies(policy: Policy, findings: list[Finding]) -> list[PathRule]:
    """``credentials.files``: srt adds a ``mode: "deny"`` file to its read denies; Codex cannot
    mask, so a ``mode: "mask"`` file is denied too (leaving it readable would widen)."""
    credentials = policy.srt.get("credentials")
    files = credentials.get("files", []) if isinstance(credentials, dict) else []
    rules = []
    for index, entry in enumerate(files):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            continue
        origin = policy.srt_location(f"/credentials/files/{index}/path")
        rule = PathRule(normalize_path(entry["path"]), origin)
        if entry.get("mode", "deny") != "deny":
            findings.append(
                _lossy(
                    "lossy-credential-mask",
                    f"Codex cannot mask credential file '{rule.path}'; it is denied outright "
                    "(commands cannot read it at all)",
                    origin,
                )
            )
        rules.append(rule)
    return rules


def _write_roots(policy: Policy, covered_by_deny: Any, findings: list[Finding]) -> list[PathRule]:
    """The allowWrite roots Codex can take exactly: concrete directories (relative ones below
    the launch directory, ``.`` being the launch directory itself) that no deny covers."""
    roots: list[PathRule] = []
    for rule in policy.allow_write:
        path = rule.path if rule.literal else rule.path.removesuffix("/**")
        path = path.removeprefix("./") if path != "./" else "."
        why = ""
        if path in ("~", "/") or (not rule.literal and is_glob(path)):
            why = "only a concrete directory below / or ~, or a relative one, can be"
        elif has_dots(path):
            why = "a path that climbs with '..' cannot be"
        if why:
            findings.append(
                _lossy(
                    "lossy-write-root",
                    f"allowWrite '{rule.path}' cannot be a Codex write root ({why}); skipped",
                    rule.origin,
                )
            )
            continue
        blocker = covered_by_deny(path)
        if blocker is not None:
            findings.append(
                _lossy(
                    "lossy-write-root",
                    f"allowWrite '{rule.path}' is also matched by deny rule '{blocker.path}' "
                    f"({blocker.origin}); the deny wins and the root is skipped",
                    rule.origin,
                )
            )
            continue
        roots.append(PathRule(path, rule.origin, literal=True))
    return roots


def _bash_findings(policy: Policy) -> list[Finding]:
    findings = []
    for entry in policy.bash_allow:
        findings.append(
            _lossy(
                "lossy-bash-rule",
                f"bash allow '{entry.value}' is not compiled: a Codex allow rule would run it "
                "outside the sandbox without asking",
                entry.origin,
            )
        )
    for entry in policy.bash_ask:
        findings.append(
            _lossy(
                "lossy-bash-rule",
                f"bash ask '{entry.value}' is not compiled: Codex already asks before every "
                "command that leaves the sandbox",
                entry.origin,
            )
        )
    return findings


def _network(policy: Policy, findings: list[Finding], out: Compiled) -> dict[str, Any]:
    domains: dict[str, str] = {}
    deny_all = False
    for entry in policy.denied_domains:
        host, port = _host(entry.value)
        if host == "*":
            deny_all = True
            findings.append(
                _lossy(
                    "lossy-port-domain",
                    f"'{entry.value}' cannot be expressed as a Codex domain rule; network access "
                    "is switched off for Codex instead",
                    entry.origin,
                )
            )
            continue
        if port is not None:
            findings.append(
                _lossy(
                    "lossy-port-domain",
                    f"Codex domain rules take no port; '{host}' is denied on every port",
                    entry.origin,
                )
            )
        domains[host] = "deny"
    for entry in policy.allowed_domains:
        host, port = _host(entry.value)
        if port is not None:
            findings.append(
                _lossy(
                    "lossy-port-domain",
                    f"Codex domain rules take no port; '{entry.value}' is not allowed",
                    entry.origin,
                )
            )
            continue
        domains.setdefault(host, "allow")
    allowed = any(mode == "allow" for mode in domains.values())
    network: dict[str, Any] = {"enabled": allowed and not deny_all}
    network["domains"] = dict(sorted(domains.items()))
    sockets: dict[str, str] = {}
    for index, path in enumerate(policy.srt.get("network", {}).get("allowUnixSockets", [])):
        origin = policy.srt_location(f"/network/allowUnixSockets/{index}")
        written, path = path, normalize_path(path)
        if not path.startswith("/") or written.endswith("/") or is_glob(path) or has_dots(path):
            findings.append(
                _lossy(
                    "lossy-unix-socket",
                    f"network.allowUnixSockets entry '{written}' is not an exact absolute socket "
                    "path; skipped",
                    origin,
                )
            )
            continue
        sockets[path] = "allow"
    if sockets:
        network["unix_sockets"] = dict(sorted(sockets.items()))
    out.network_proxy = bool(policy.allowed_domains or policy.denied_domains)
    return network


def render_rules(policy: Policy) -> str:
    lines = [
        "# Generated by twsrt from the canonical bash rules; do not edit.",
        "# Each rule hard-denies a command when Codex asks to run it outside the sandbox.",
        "",
    ]
    seen: set[tuple[str, ...]] = set()
    for entry in policy.bash_deny:
        try:
            tokens = tuple(shlex.split(entry.value))
        except ValueError as exc:
            raise TwsrtError(
                _lossy(
                    "unexpressible-command", f"cannot split '{entry.value}': {exc}", entry.origin
                )
            ) from None
        if not tokens or tokens in seen:
            continue
        seen.add(tokens)
        pattern = ", ".join(json.dumps(token, ensure_ascii=False) for token in tokens)
        lines += [
            "prefix_rule(",
            f"    pattern = [{pattern}],",
            '    decision = "forbidden",',
            f"    justification = {json.dumps(f'denied by twsrt policy: {entry.value}')},",
            ")",
            "",
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


# ---------------------------------------------------------------- TOML merge


# top-level keys of config.toml that twsrt reads or merges into as tables
TABLE_KEYS = ("features", "permissions", "profiles")


def _legacy_locations(text: str, display: str) -> list[Finding]:
    from twsrt.tomlpos import TomlSyntaxError, parse_toml

    try:
        parsed = parse_toml(text)
    except TomlSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise fail("target-unusable", f"invalid TOML: {exc.message}", location) from None
    for key in TABLE_KEYS:  # twsrt merges into these: any other type cannot be merged
        if key in parsed.value and not isinstance(parsed.value[key], dict):
            line, col = parsed.position(f"/{key}")
            where = Location(display, line, col, f"/{key}")
            raise fail("target-unusable", f"'{key}' must be a table", where)
    found = []
    tables: list[tuple[str, dict[str, Any]]] = [("", parsed.value)]
    for section in ("profiles", "permissions"):
        for name, profile in parsed.value.get(section, {}).items():
            if isinstance(profile, dict):
                tables.append((f"/{section}/{name}", profile))
    for prefix, table in tables:
        for key in LEGACY_KEYS:
            if key in table:
                pointer = f"{prefix}/{key}"
                line, col = parsed.position(pointer, key=True)
                found.append(
                    finding(
                        "codex-legacy-sandbox",
                        f"legacy '{key}' makes Codex ignore default_permissions and the twsrt "
                        "profile; remove it",
                        Location(display, line, col, pointer),
                        agent=NAME,
                    )
                )
    return found


def _toml_text(values: dict[str, Any], header: str) -> list[str]:
    """TOML lines for a table: plain values first, then sub-tables (TOML needs that order).

    Rendered as text and parsed once: inserting thousands of keys one by one into a tomlkit
    table is quadratic."""
    lines = [f"[{header}]"]
    for key, value in values.items():
        if not isinstance(value, dict):
            rendered = json.dumps(value, ensure_ascii=False)  # str, bool, int: JSON == TOML
            lines.append(f"{toml_key(key)} = {rendered}")
    for key, value in values.items():
        if isinstance(value, dict):
            lines += ["", *_toml_text(value, f"{header}.{toml_key(key)}")]
    return lines


def _table(values: dict[str, Any]) -> Any:
    import tomlkit

    text = "\n".join(_toml_text(values, f"permissions.{PROFILE}")) + "\n"
    return tomlkit.parse(text)["permissions"][PROFILE]


def merged_config(base_text: str | None, compiled: Compiled) -> str:
    """The user's config.toml with only the owned keys and the twsrt profile replaced."""
    import tomlkit

    doc = tomlkit.parse(base_text or "")
    for key, value in compiled.top.items():
        doc[key] = value
    features = doc.get("features")
    if compiled.network_proxy:
        if features is None:
            features = tomlkit.table()
            doc["features"] = features
        features["network_proxy"] = True
    elif features is not None and "network_proxy" in features:
        del features["network_proxy"]
        if not features:
            del doc["features"]  # twsrt made it; an empty table would stay behind
    permissions = doc.get("permissions")
    if compiled.profile:
        if permissions is None:
            permissions = tomlkit.table(is_super_table=True)
            doc["permissions"] = permissions
        permissions[PROFILE] = _table(compiled.profile)
    elif permissions is not None and PROFILE in permissions:
        del permissions[PROFILE]  # danger-full-access: no profile that would look enforced
        if not permissions:
            del doc["permissions"]
    text = tomlkit.dumps(doc)
    if base_text is not None and tomlkit.parse(text) == tomlkit.parse(base_text):
        return base_text
    return text


def _merged_or_refused(disk: str | None, compiled: Compiled, display: str) -> str:
    """``merged_config``, with tomlkit's own refusals (it stops at 100 nesting levels, where
    tomllib does not) as a located error instead of a traceback."""
    from tomlkit.exceptions import ParseError

    try:
        return merged_config(disk, compiled)
    except ParseError as exc:
        message = str(exc).split(" at line ")[0]
        where = Location(display, exc.line, exc.col)
        raise fail("target-unusable", f"invalid TOML: {message}", where) from None


def preview_toml(compiled: Compiled) -> str:
    return merged_config(None, compiled)


# What twsrt owns in config.toml, for drift and reports (diffs.py): the user's model providers,
# MCP servers (bearer tokens, http_headers, env) and every other key are elided.
CONFIG = Members(
    {
        **dict.fromkeys(OWNED_TOP, True),
        "features": {"network_proxy": True},
        "permissions": {PROFILE: True},
    },
    kind="toml",
)
CONFIG_SPEC = CONFIG.spec
# The rules file is generated whole; its items are the rules (``_rules_view``).
RULES = Members({"rules": True}, kind="toml")


def managed_view(document: dict[str, Any]) -> dict[str, Any]:
    """Only what twsrt owns in a parsed config.toml (safe to print: no user secrets)."""
    return project(document, CONFIG_SPEC)


_RULE_BLOCK = re.compile(r"prefix_rule\((.*?)\n\)", re.S)
_PATTERN = re.compile(r"pattern\s*=\s*(\[.*?\])\s*,", re.S)
_DECISION = re.compile(r'decision\s*=\s*"(\w+)"')


def _rule_items(text: str) -> list[DriftItem]:
    return RULES.items(_rules_view(text))


def _rules_view(text: str) -> dict[str, Any]:
    """Each prefix rule as ``pattern -> decision``, so drift names the rule that changed."""
    rules: dict[str, Any] = {}
    for index, block in enumerate(_RULE_BLOCK.findall(text)):
        pattern = _PATTERN.search(block)
        decision = _DECISION.search(block)
        key = " ".join(pattern[1].split()) if pattern else f"#{index}"
        rules[key] = decision[1] if decision else " ".join(block.split())
    return {"rules": rules}


class CodexAgent:
    spec = AGENT_SPEC
    name = AGENT_SPEC.name
    target_keys = AGENT_SPEC.keys

    def compile(self, ctx: Context) -> Result:
        compiled, findings = translate(ctx.policy, ctx.sandbox_mode, ctx.config.output_home)
        if ctx.full_access:
            # no profile, so no sandbox key the policy sets is enforced; name each one
            keys = [p for p in set_keys(ctx.policy.srt) if p not in IGNORED and p != "/enabled"]
            unenforced = ", ".join(f"'{dotted(p)}'" for p in keys)
            findings.append(
                ctx.full_access_finding(
                    NAME,
                    f"default_permissions is {FULL_ACCESS} and the exec-policy rules still "
                    "forbid the denied commands"
                    + (f"; not enforced: {unenforced}" if unenforced else ""),
                )
            )
        config_path = ctx.config.targets.get("codex_config")
        rules_path = ctx.config.targets.get("codex_rules")
        notices = [] if ctx.full_access else [REMINDER]  # no profile to deactivate
        preview = "# config.toml (managed keys only)\n" + preview_toml(compiled)
        if rules_path is not None:
            preview += "\n# rules/twsrt.rules\n" + compiled.rules
        if config_path is None:
            return Result(
                NAME, preview, findings=findings, target_configured=False, notices=notices
            )
        display = ctx.config.display_path(config_path)
        disk = read_target(config_path, display, ctx.config)
        if disk is not None:
            legacy = _legacy_locations(disk, display)
            if legacy:
                raise TwsrtError(legacy)
        new_text = _merged_or_refused(disk, compiled, display)
        changes: list[Change] = [target_write(config_path, display, new_text, disk)]
        drift = [compare(display, "codex_config", disk, new_text, CONFIG.text_items, CONFIG.view)]
        if rules_path is not None:
            rules_display = ctx.config.display_path(rules_path)
            rules_disk = read_target(rules_path, rules_display, ctx.config)
            changes.append(target_write(rules_path, rules_display, compiled.rules, rules_disk))
            rules = compiled.rules
            drift.append(compare(rules_display, "codex_rules", rules_disk, rules, _rule_items))
        return Result(
            NAME,
            preview,
            changes=changes,
            findings=findings,
            drift=drift,
            notices=notices,
            origins=compiled.origins,
        )


AGENT = CodexAgent()
