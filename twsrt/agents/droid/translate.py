"""The pure translation of a policy for Factory Droid: the ``sandbox`` block (srt's own shape:
Droid runs the sandbox runtime underneath) and the three command lists of its user settings,
with a finding for everything Droid enforces differently. The facts behind each choice are
pinned in tests/real (docs/agents/droid.md).

Droid resolves a sandbox path as srt does: ``~`` with the home, a relative path against the
directory it starts in (observed), so paths are written as the policy spells them and the
bytes do not depend on the home. Its file tools (Read, Create, Edit) compare paths by prefix
and know no wildcard, so a deny glob becomes its concrete parent directory (stricter) and a
grant glob is left out.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from twsrt.agents.abspaths import PathTarget, check_malformed, glob_prefix, whole_tree
from twsrt.agents.droid.declaration import (
    ALLOWLIST,
    BLOCKLIST,
    DENYLIST,
    FACTORY_HOME,
    FACTORY_LAYERS,
    FACTORY_TEMP,
    FACTORY_WRITABLE,
    HANDLED_SRT_KEYS,
    LABEL,
    NAME,
    REASONS,
    SANDBOX_KEY,
    _lossy,
)
from twsrt.agents.droid.rules import (
    DROID_ALLOW_READ_TOOLS_ONLY,
    DROID_COMMAND_WILDCARD,
    DROID_LAUNCH_DIR_DENIED,
    DROID_NESTED_LAYERS_OPEN,
    DROID_OWN_GRANTS,
    DROID_RUNTIME_UNREADABLE,
)
from twsrt.agents.lossy import without_port, write_roots_location
from twsrt.agents.rootnames import of
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import disabled_sandbox, unique
from twsrt.findings import Finding, TwsrtError, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy, is_glob
from twsrt.records import record
from twsrt.rules import (
    GLOB_GRANT_LEFT_OUT,
    LITERAL_GLOB_GRANT_LEFT_OUT,
    LOSSY_GLOB_PATH,
    LOSSY_LITERAL_GLOB,
    LOSSY_STRICTER_GLOB,
    UNEXPRESSIBLE_COMMAND,
)

SPEC = PathTarget(NAME, LABEL)
# how Droid's sandbox runs: one sandboxed process per Execute call (the other mode,
# whole-process, needs a supervisor a headless launch does not have)
MODE = "per-command"
CWD = "."


@record(frozen=False)
class Compiled:
    """Everything twsrt writes into Droid's settings for one run."""

    blocklist: list[str] = field(default_factory=list)
    denylist: list[str] = field(default_factory=list)
    allowlist: list[str] = field(default_factory=list)
    sandbox: dict[str, Any] = field(default_factory=dict)
    # a list entry or path -> the policy entry it came from (drift)
    origins: dict[str, Location] = field(default_factory=dict)

    def lists(self) -> dict[str, list[str]]:
        return {BLOCKLIST: self.blocklist, DENYLIST: self.denylist, ALLOWLIST: self.allowlist}

    def settings(self) -> dict[str, Any]:
        """The managed members as the file holds them (the preview's fragment)."""
        return {SANDBOX_KEY: self.sandbox, **self.lists()}


def translate(policy: Policy, sandbox_mode: str, yolo: bool) -> tuple[Compiled, list[Finding]]:
    """The settings members for one sandbox and approval mode, with findings. Droid reads one
    file in both approval modes, so the bytes do not depend on ``yolo``."""
    del yolo  # one file serves --auto and --skip-permissions-unsafe alike
    full_access = sandbox_mode == "danger-full-access"
    if not policy.enabled and not full_access:
        raise disabled_sandbox(
            policy,
            NAME,
            "write a Droid sandbox",
            " (sandbox mode danger-full-access says what the policy means)",
        )
    out, findings = Compiled(), list[Finding]()
    _commands(policy, out, findings)
    if full_access:
        out.sandbox = {"enabled": False}
    else:
        out.sandbox = _sandbox(policy, sandbox_mode, out.origins, findings)
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return out, findings


# ---------------------------------------------------------------- the command lists


def _commands(policy: Policy, out: Compiled, findings: list[Finding]) -> None:
    """deny -> ``commandBlocklist`` (refused, also behind ``env``, a path or ``sh -c``), ask ->
    ``commandDenylist`` (always confirmed: a headless exec ends there), allow ->
    ``commandAllowlist`` (runs without a prompt, still inside the sandbox). Droid matches an
    entry by the command's leading words and reads ``*`` as a literal star (observed): a deny
    or ask rule with one is written as its words before it, every command they begin
    (stricter); an allow rule stays as written (it then matches nothing, which is stricter)."""
    out.blocklist = _list(policy.bash_deny, out, findings, "deny")
    out.denylist = _list(policy.bash_ask, out, findings, "ask")
    out.allowlist = _list(policy.bash_allow, out, findings, None)


def _list(
    entries: list[Entry], out: Compiled, findings: list[Finding], kind: str | None
) -> list[str]:
    values = []
    for entry in entries:
        command = " ".join(entry.value.split())
        if kind is not None and "*" in command:
            words = command.split(" ")
            lead = " ".join(words[: next(i for i, w in enumerate(words) if "*" in w)])
            if not lead:
                raise TwsrtError(
                    _lossy(
                        UNEXPRESSIBLE_COMMAND,
                        f"bash {kind} rule '{quoted(entry.value)}' starts with a wildcard, and "
                        "Droid's command lists match a command by its leading words with no "
                        "wildcard; rewrite the rule to start with a command",
                        entry.origin,
                    )
                )
            findings.append(
                _lossy(
                    DROID_COMMAND_WILDCARD,
                    f"Droid's command lists match no wildcard; bash {kind} rule "
                    f"'{quoted(entry.value)}' becomes '{quoted(lead)}' (every command it "
                    "begins)",
                    entry.origin,
                )
            )
            command = lead
        if not command:
            continue
        values.append(command)
        out.origins.setdefault(command, entry.origin)
    return unique(values)


# ---------------------------------------------------------------- the sandbox block


# where Droid 0.225.2 installs the seccomp helper every sandboxed command starts through
RUNTIME = f"{FACTORY_HOME}/sandbox-runtime"


def _sandbox(
    policy: Policy, sandbox_mode: str, origins: dict[str, Location], findings: list[Finding]
) -> dict[str, Any]:
    """Every key of Droid's sandbox, written out (its defaults are not the policy's: a block
    without ``enabled: true`` confines nothing)."""
    read_only = sandbox_mode == "read-only"
    allow_write = [] if read_only else _grants(policy.allow_write, "allowWrite", findings)
    grants_cwd = any(path in (CWD, "./") for path in allow_write)
    deny_write = _factory(_denies(policy.deny_write, "denyWrite", findings))
    # Droid always lets commands write where it starts; a denyWrite "." cannot take it back (the
    # sandbox runtime then cannot mount its own denies there: every command fails), so the
    # launch directory is a write root either way (TWS495 says so when the policy lacks it)
    deny_write += _root_names(policy, allow_write)
    deny_write += [p for p in FACTORY_WRITABLE if p != FACTORY_TEMP]  # whatever the set holds
    findings += _launch_dir_denied(policy.deny_write)
    deny_read = _denies(policy.deny_read, "denyRead", findings)
    findings += _runtime_hidden(policy.deny_read)
    allow_read = _grants(policy.allow_read, "allowRead", findings)
    for rules in (policy.allow_write, policy.deny_write, policy.deny_read, policy.allow_read):
        for rule in rules:
            origins.setdefault(whole_tree(rule), rule.origin)
    if allow_read:
        findings.append(
            _lossy(
                DROID_ALLOW_READ_TOOLS_ONLY,
                "Droid re-opens these paths for its Read, Grep and Glob tools only: its shell "
                "commands still cannot read them below the denied path (stricter than the "
                "policy)",
                policy.srt_location("/filesystem/allowRead", key=True),
            )
        )
    filesystem = {
        "allowWrite": unique(allow_write),
        "allowRead": unique(allow_read),
        "denyWrite": unique(deny_write),
        "denyRead": unique(deny_read),
    }
    findings.append(_nested_layers(policy))
    return {
        "enabled": True,
        "mode": MODE,
        "filesystem": filesystem,
        "network": _network(policy, origins, findings, read_only or not grants_cwd),
    }


def _runtime_hidden(rules: list[PathRule]) -> list[Finding]:
    """TWS424 at each denyRead of Droid's sandbox runtime or a directory above it."""
    above = {"/", "~", FACTORY_HOME, RUNTIME}
    return [
        _lossy(
            DROID_RUNTIME_UNREADABLE,
            f"denyRead '{quoted(rule.path)}' hides Droid's sandbox runtime ({RUNTIME}): every "
            "sandboxed command fails to start (exit code 127), so Droid runs none (fails closed)",
            rule.origin,
        )
        for rule in rules
        if not is_glob(whole_tree(rule)) and (whole_tree(rule).rstrip("/") or "/") in above
    ]


def _launch_dir_denied(rules: list[PathRule]) -> list[Finding]:
    """TWS425 at each denyWrite of the launch directory itself (kept: it fails closed)."""
    return [
        _lossy(
            DROID_LAUNCH_DIR_DENIED,
            f"denyWrite '{quoted(rule.path)}' makes the directory Droid starts in read-only, "
            "where its sandbox runtime must create the masks of its own protected files: every "
            "sandboxed command fails to start, so Droid runs none (fails closed)",
            rule.origin,
        )
        for rule in rules
        if whole_tree(rule).rstrip("/") == CWD
    ]


def _factory(paths: list[str]) -> list[str]:
    """The protected set's ``~/.factory`` (every agent's deny of Droid's config directory)
    spelled out as the layers Droid loads and the directories it opens to commands, all but
    ``~/.factory/temp``: denying the whole directory would make the commands' TMPDIR read-only."""
    out: list[str] = []
    for path in paths:
        if path.rstrip("/") == FACTORY_HOME:
            out += [*FACTORY_LAYERS, *(p for p in FACTORY_WRITABLE if p != FACTORY_TEMP)]
        else:
            out.append(path)
    return out


def _grants(rules: list[PathRule], key: str, findings: list[Finding]) -> list[str]:
    """The paths of the grants Droid can hold exactly: a glob is left out (a parent directory
    would grant more)."""
    out = []
    for rule in rules:
        check_malformed(rule, SPEC)
        path = whole_tree(rule)
        if rule.literal and is_glob(path):
            findings.append(
                _lossy(
                    LITERAL_GLOB_GRANT_LEFT_OUT,
                    f"literal path '{quoted(rule.path)}' contains glob characters and would "
                    "grant more as a pattern (Droid's sandbox runtime reads one so on macOS); "
                    f"left out of Droid's sandbox.filesystem.{key}",
                    rule.origin,
                )
            )
            continue
        if rule.glob and is_glob(path):
            findings.append(
                _lossy(
                    GLOB_GRANT_LEFT_OUT,
                    f"{key} glob '{quoted(rule.path)}' cannot be written for Droid, whose file "
                    "tools match no wildcard, and a parent directory would grant more; it is "
                    "not granted",
                    rule.origin,
                )
            )
            continue
        out.append(path)
    return out


def _denies(rules: list[PathRule], key: str, findings: list[Finding]) -> list[str]:
    """The paths of the denies: a glob becomes its concrete parent directory (stricter), or is
    left out with a finding when that parent is the root, the home or the launch directory."""
    out = []
    for rule in rules:
        check_malformed(rule, SPEC)
        path = whole_tree(rule)
        if rule.literal and is_glob(path):
            out.append(path)  # Droid's file tools match it as written
            if not rule.echo:
                findings.append(
                    _lossy(
                        LOSSY_LITERAL_GLOB,
                        f"literal path '{quoted(rule.path)}' contains glob characters; the "
                        "sandbox runtime under Droid's Execute reads it as a pattern, which may "
                        "miss the literal path itself (Droid's file tools match it as written); "
                        "protect a parent directory without glob characters",
                        rule.origin,
                    )
                )
            continue
        if not rule.glob or not is_glob(path):
            out.append(path)
            continue
        prefix = glob_prefix(path)
        if prefix in ("/", "~", "", CWD) or path.startswith("**"):
            # denying the parent would lock Droid out: the glob as written, which the sandbox
            # runtime under Execute expands (denyRead, on Linux; a write glob only on macOS)
            out.append(path)
            if not rule.echo:
                where = "Execute on Linux" if key == "denyRead" else "Execute on macOS only"
                findings.append(
                    _lossy(
                        LOSSY_GLOB_PATH,
                        f"{key} glob '{quoted(rule.path)}' is written as it stands, which holds "
                        f"for {where}: Droid's file tools match no wildcard, and denying all of "
                        "its parent directory would lock Droid out",
                        rule.origin,
                    )
                )
            continue
        if not rule.echo:
            findings.append(
                _lossy(
                    LOSSY_STRICTER_GLOB,
                    f"Droid's file tools match no wildcard; {key} glob '{quoted(rule.path)}' "
                    f"becomes '{quoted(prefix)}' (the whole directory)",
                    rule.origin,
                )
            )
        out.append(prefix)
    return out


def _root_names(policy: Policy, allow_write: list[str]) -> list[str]:
    """Each protected name (srt's mandatory set, every agent's project layer) at the top of
    each write root: the launch directory, which Droid always makes writable, and every
    allowWrite path. Droid's sandbox protects none of the agents' layers (its own
    ``.factory/`` included)."""
    roots = [CWD, *(path for path in allow_write if path not in (CWD, "./"))]
    out = []
    for root in roots:
        base = "" if root == CWD else root.rstrip("/") + "/"
        out += [f"{base}{name}" for name, _tree in of(policy)]
    return out


def _nested_layers(policy: Policy) -> Finding:
    return _lossy(
        DROID_NESTED_LAYERS_OPEN,
        "Droid's sandbox protects no .factory/ layer: twsrt write-denies every agent's layer at "
        "the top of each write root, but a command may create sub/.factory/settings.json "
        "deeper down, whose commandAllowlist, hooks and MCP servers a later launch in sub/ "
        "loads",
        write_roots_location(policy),
    )


def _port_left_out(entry: Entry, _port: str) -> str:
    return (
        f"Droid's allowedDomains take no port; '{quoted(entry.value)}' is left out "
        "(allowing the host on every port would be wider)"
    )


def _network(
    policy: Policy, origins: dict[str, Location], findings: list[Finding], cwd_extra: bool
) -> dict[str, Any]:
    """srt's network keys Droid passes on, each written out; the ports of an external proxy
    only when the policy names one."""
    network = policy.srt.get("network") or {}
    allowed: list[str] = []
    for entry, _host in without_port(policy.allowed_domains, NAME, _port_left_out, findings):
        allowed.append(entry.value)
        origins.setdefault(entry.value, entry.origin)
    sockets = network.get("allowUnixSockets")
    out: dict[str, Any] = {
        "allowedDomains": unique(allowed),
        "allowUnixSockets": list(sockets) if isinstance(sockets, list) else [],
        "allowAllUnixSockets": network.get("allowAllUnixSockets") is True,
        "allowLocalBinding": network.get("allowLocalBinding") is True,
    }
    for key in ("httpProxyPort", "socksProxyPort"):
        if isinstance(network.get(key), int):
            out[key] = network[key]
    has_list = "allowedDomains" in network
    findings.append(
        _lossy(
            DROID_OWN_GRANTS,
            "Droid lets sandboxed commands reach Factory's own hosts (api.factory.ai, "
            "app.factory.ai, relay.factory.ai, ..., api.workos.com) whatever allowedDomains "
            "says, and write ~/.factory/temp, their TMPDIR"
            + (
                ", and the directory it starts in, which the policy does not grant"
                if cwd_extra
                else ""
            )
            + "; no settings key removes them",
            policy.srt_location("/network/allowedDomains" if has_list else "", key=has_list),
        )
    )
    return out
