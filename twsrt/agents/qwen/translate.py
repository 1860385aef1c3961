"""The pure translation of a policy for Qwen Code: the permission rules (Claude's grammar) and
the execution sandbox of its user settings, with a finding for everything Qwen enforces
differently. The facts behind each choice are pinned in tests/real (docs/agents/qwen.md)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from twsrt.agents.lossy import write_roots_location
from twsrt.agents.qwen.declaration import (
    ALLOW_TOOL,
    DENY_TOOL,
    HANDLED_SRT_KEYS,
    LABEL,
    NAME,
    PERMISSION_KEYS,
    REASONS,
    SANDBOX_KEY,
    SETTINGS_VERSION,
    VERSION_KEY,
    WEB_TOOLS,
    _lossy,
)
from twsrt.agents.qwen.rules import (
    QWEN_BASH_DENY_BYPASS,
    QWEN_NETWORK_OFF,
    QWEN_PROJECT_LAYER_OPEN,
    QWEN_READ_DENY_LEAKS,
    QWEN_WEB_TOOLS_DENIED,
    QWEN_WRITE_DENY_LEAKS,
    QWEN_YOLO_APPROVES_ASK,
)
from twsrt.agents.rootnames import of
from twsrt.agents.rulepaths import PROJECT_ANCHOR, path_patterns
from twsrt.agents.srtkeys import dotted, set_keys, unhandled_key_findings
from twsrt.agents.targets import disabled_sandbox, unique
from twsrt.bashrules import bash_rules
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy, is_glob
from twsrt.records import record
from twsrt.rules import LOSSY_LITERAL_GLOB, LOSSY_WRITE_ROOT


@record(frozen=False)
class Compiled:
    """Everything twsrt writes into Qwen's settings for one run."""

    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    allow: list[str] = field(default_factory=list)
    sandbox: dict[str, str] | None = None  # None: no execution sandbox (danger-full-access)
    # a rule -> the policy entry it came from (drift)
    origins: dict[str, Location] = field(default_factory=dict)

    def lists(self) -> dict[str, list[str]]:
        return dict(zip(PERMISSION_KEYS, (self.deny, self.ask, self.allow), strict=True))

    def settings(self) -> dict[str, Any]:
        """The managed members as the file holds them (the preview's fragment)."""
        tools = {} if self.sandbox is None else {SANDBOX_KEY: dict(self.sandbox)}
        return {VERSION_KEY: SETTINGS_VERSION, "permissions": self.lists(), "tools": tools}


def translate(
    policy: Policy, sandbox_mode: str, yolo: bool, *, sandbox: bool = True
) -> tuple[Compiled, list[Finding]]:
    """The settings members for one sandbox and approval mode, with findings. The bytes do not
    depend on ``yolo`` (Qwen reads one file in both modes); only the findings do. Without
    ``sandbox`` (a project file, where Qwen ignores it) only the rules are compiled."""
    full_access = sandbox_mode == "danger-full-access" or not sandbox
    if not policy.enabled and not full_access:
        raise disabled_sandbox(policy, NAME, "write a Qwen execution sandbox")
    out, findings = Compiled(), list[Finding]()
    _bash(policy, out, findings, yolo)
    _paths(policy, out, findings)
    out.deny = unique([*out.deny, *WEB_TOOLS, *protected_rules(policy)])
    findings += _web_findings(policy)
    if not full_access:
        out.sandbox = _sandbox(policy, sandbox_mode, findings)
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return out, findings


def _web_findings(policy: Policy) -> list[Finding]:
    """The note for the policy's hosts that Qwen's web tools do not get (TWS498)."""
    allowed = policy.srt.get("network") or {}
    if not (isinstance(allowed, dict) and allowed.get("allowedDomains")):
        return []
    return [
        _lossy(
            QWEN_WEB_TOOLS_DENIED,
            "Qwen's web_fetch and web_search reach no host: twsrt denies both whole (also "
            "`curl` and `wget` in the shell), as its rules cannot keep them to these hosts "
            "under --yolo, which is stricter than the policy",
            policy.srt_location("/network/allowedDomains", key=True),
        )
    ]


def _rules(entries: list[Entry], tool: str, out: Compiled) -> list[str]:
    """``Tool(cmd)`` and ``Tool(cmd *)`` for each command (``bash_rules``' grammar)."""
    rules: list[str] = []
    for entry in entries:
        for rule in bash_rules(entry.value, entry.origin, NAME, LABEL):
            spelled = tool + rule.removeprefix("Bash")
            rules.append(spelled)
            out.origins.setdefault(spelled, entry.origin)
    return unique(rules)


def _bash(policy: Policy, out: Compiled, findings: list[Finding], yolo: bool) -> None:
    out.deny += _rules(policy.bash_deny, DENY_TOOL, out)
    out.ask = _rules(policy.bash_ask, DENY_TOOL, out)
    out.allow = _rules(policy.bash_allow, ALLOW_TOOL, out)
    if policy.bash_deny:
        findings.append(
            _lossy(
                QWEN_BASH_DENY_BYPASS,
                "Qwen's Bash deny matches each command of a compound, but `env cmd`, "
                "`command cmd`, an absolute path such as `/usr/bin/cmd`, `sh -c 'cmd'` and "
                "`$(echo cmd)` get past each of these rules",
                policy.bash_location("/deny", key=True),
            )
        )
    if yolo and policy.bash_ask:
        findings.append(
            _lossy(
                QWEN_YOLO_APPROVES_ASK,
                "under --yolo Qwen approves every command these ask rules name without asking "
                "(its settings file serves both approval modes)",
                policy.bash_location("/ask", key=True),
            )
        )


def _paths(policy: Policy, out: Compiled, findings: list[Finding]) -> None:
    """``Read(...)`` and ``Edit(...)`` denies for denyRead, ``Edit(...)`` for denyWrite: ``//abs``,
    ``~/p`` and, for a relative path, ``/p`` under the directory Qwen starts in (row 6)."""
    for key, rules, tools in (
        ("denyRead", policy.deny_read, ("Read", "Edit")),
        ("denyWrite", policy.deny_write, ("Edit",)),
    ):
        for rule in rules:
            _check_literal(rule, findings)
            patterns = path_patterns(rule, PROJECT_ANCHOR)
            for tool in tools:
                for pattern in patterns:
                    spelled = f"{tool}({pattern})"
                    out.deny.append(spelled)
                    out.origins.setdefault(spelled, rule.origin)
        if rules and key in (policy.srt.get("filesystem") or {}):
            rule_of, what = (
                (
                    QWEN_READ_DENY_LEAKS,
                    "read these paths with `/bin/cat`, `python3 -c` or `cat $VAR/...`",
                )
                if key == "denyRead"
                else (
                    QWEN_WRITE_DENY_LEAKS,
                    "write these paths with `python3 -c` inside the workspace",
                )
            )
            findings.append(
                _lossy(
                    rule_of,
                    f"Qwen's {'Read' if key == 'denyRead' else 'Edit'}(...) denies stop its file "
                    f"tools and the shell commands it knows, but a command can {what}",
                    policy.srt_location(f"/filesystem/{key}", key=True),
                )
            )
    out.deny = unique(out.deny)


# names the workspace must stay able to create (``git init``, a first workflow): Qwen's Edit
# rules also match the shell's writes, so a deny there could refuse them (not run)
CREATED_AT_WORK = (".git/", ".github/")


def protected_rules(policy: Policy) -> list[str]:
    """``Edit(/NAME)`` (and ``/NAME/**`` for a tree) for each protected name at the top of the
    directory Qwen starts in (``agents/rootnames.py``: srt's mandatory set, every agent's
    project layer). Qwen's file tools, redirects and ``cp`` are refused them there; an
    interpreter still writes them (TWS487)."""
    rules: list[str] = []
    for name, tree in of(policy):
        if name.startswith(CREATED_AT_WORK):
            continue
        rules.append(f"Edit(/{name})")
        if tree:
            rules.append(f"Edit(/{name}/**)")
    return rules


def _check_literal(rule: PathRule, findings: list[Finding]) -> None:
    if rule.literal and (is_glob(rule.path) or "{" in rule.path):
        findings.append(
            _lossy(
                LOSSY_LITERAL_GLOB,
                f"literal path '{quoted(rule.path)}' contains glob characters; Qwen reads it as "
                "a pattern, which may miss the literal path itself; protect a parent directory "
                "without glob characters",
                rule.origin,
            )
        )


def _sandbox(policy: Policy, sandbox_mode: str, findings: list[Finding]) -> dict[str, str]:
    """``tools.executionSandbox``: the workspace writable only when the policy grants ``.``,
    the network closed (no domain filter), bwrap or Seatbelt as Qwen picks (``auto``)."""
    grants_cwd = any(rule.path in (".", "./") and not rule.literal for rule in policy.allow_write)
    writable = sandbox_mode != "read-only" and grants_cwd
    if sandbox_mode != "read-only":
        for rule in policy.allow_write:
            if rule.path in (".", "./") and not rule.literal:
                continue
            findings.append(
                _lossy(
                    LOSSY_WRITE_ROOT,
                    f"filesystem.allowWrite '{quoted(rule.path)}' is not writable for Qwen: its "
                    "sandbox writes only the directory it starts in (/tmp is read-only there, "
                    "$TMPDIR a per-command scratch directory)",
                    rule.origin,
                )
            )
    if writable:
        findings.append(
            _lossy(
                QWEN_PROJECT_LAYER_OPEN,
                "Qwen's sandbox lets a command write .qwen/settings.json in the directory it "
                "starts in, whose allow rules the next headless launch runs, and a .env whose "
                "QWEN_CODE_SAFE_MODE=1 drops every deny rule of the next launch: twsrt's Edit "
                "rules refuse its file tools and redirects there, but an interpreter writes "
                "them, shell rc files, .git/hooks and other agents' config layers",
                write_roots_location(policy),
            )
        )
    keys = [f"'{dotted(p)}'" for p in set_keys(policy.srt) if p.startswith("/network/")]
    if keys:
        findings.append(
            _lossy(
                QWEN_NETWORK_OFF,
                "Qwen reaches no host: its sandbox network is closed, as it has no domain "
                f"filter, which is stricter than {', '.join(keys)}",
                policy.srt_location("/network", key=True),
            )
        )
    filesystem = "workspace-write" if writable else "read-only"
    return {"backend": "auto", "filesystem": filesystem, "network": "closed"}
