"""OpenCode's ``permission`` grammar, shared by the OpenCode and the Kilo Code CLI targets (one
translator, two declarations: Kilo is OpenCode's fork and evaluates the same rules the same
way, docs/agents/opencode-observed.md rows 24-27). Each agent's ``translate`` calls
``translate_permission`` with itself (``Who``) and adds what is its own; the findings are the
rules of ``agents/opencode/rules.py``, with the agent they concern.

OpenCode 1.18.33 flattens the object in key order after its defaults, and for each call takes
the **last** rule whose tool name and pattern match (row 6). Every object therefore starts with
its catch-all ``"*"``, then the allows, the asks and last the denies, so a deny wins over every
allow it must beat. A pattern's ``*`` matches any run of characters, ``/`` included, and ``?``
one character; a trailing `` *`` also matches nothing (``"cat *"`` matches ``cat``). ``read``
and ``edit`` patterns are matched against the path relative to the project, and
``external_directory`` ones against ``<directory>/*`` of a path outside it (rows 9, 12)."""

from __future__ import annotations

import re
from dataclasses import field
from typing import TYPE_CHECKING, Any

from twsrt.agents.opencode.declaration import LABEL, NAME, SCHEMA_KEY, SCHEMA_URL
from twsrt.agents.opencode.rules import (
    OPENCODE_AGENT_PERMISSION,
    OPENCODE_AUTO_APPROVES_ASK,
    OPENCODE_BASH_DENY_BYPASS,
    OPENCODE_MANAGED_LAYER_GRANTS,
    OPENCODE_PATHS_NARROWED,
    OPENCODE_PERMISSION_KEY_LIFTS,
    OPENCODE_RULE_DROPPED,
    OPENCODE_TOOL_DENY_ONLY,
    OPENCODE_WEB_TOOLS_DENIED,
)
from twsrt.agents.rootnames import of
from twsrt.agents.srtkeys import dotted, set_keys
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location, pointer_join
from twsrt.policy import Entry, PathRule, Policy, normalize_path
from twsrt.records import record
from twsrt.rules import LOSSY_WRITE_ROOT, Rule

if TYPE_CHECKING:
    from twsrt.effective import Layer

ALLOW, ASK, DENY = "allow", "ask", "deny"
# OpenCode's own read defaults that a catch-all would undo (row 4): kept, stricter
ENV_ASKS = ("*.env", "*.env.*")
WEB_TOOLS = ("webfetch", "websearch")
# the members of ``permission`` twsrt writes
PERMISSION_TOOLS = ("bash", "read", "edit", "external_directory", *WEB_TOOLS)


@record(frozen=False)
class Compiled:
    """The ``permission`` members twsrt writes for one run, each an ordered object (or a
    plain action), and where each pattern came from."""

    permission: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, Location] = field(default_factory=dict)

    def settings(self) -> dict[str, Any]:
        """The managed members as the file holds them (the preview)."""
        return {SCHEMA_KEY: SCHEMA_URL, "permission": self.permission}


class Rules:
    """One tool's ordered pattern object: a pattern set again moves to the end with the
    stricter action (a key's place decides, so the later, stricter rule keeps winning)."""

    _RANK = {ALLOW: 0, ASK: 1, DENY: 2}

    def __init__(self, catch_all: str) -> None:
        self.items: dict[str, str] = {"*": catch_all}

    def add(self, pattern: str, action: str) -> None:
        old = self.items.pop(pattern, None)
        if old is not None and self._RANK[old] > self._RANK[action]:
            action = old
        self.items[pattern] = action


# ---------------------------------------------------------------- path spellings

_BRACES = re.compile(r"\{[^{}]*\}")
_CLASS = re.compile(r"\[[^\]]*\]")
_STARS = re.compile(r"\*+")


def wildcard(path: str, literal: bool = False) -> str:
    """An srt path (glob) as an OpenCode pattern that matches at least what it matches:
    ``**/`` and ``**`` become ``*`` (which crosses ``/``), a ``[...]`` class ``?``, a
    ``{...}`` alternation ``*``. A literal path stays as written: each wildcard character in it
    also matches itself."""
    if literal:
        return path
    spelled = _BRACES.sub("*", path)
    spelled = _CLASS.sub("?", spelled)
    spelled = spelled.replace("**/", "*")
    return _STARS.sub("*", spelled)


def _tree(pattern: str) -> list[str]:
    return [pattern] if pattern.endswith("*") else [pattern, pattern + "/**"]


def relative_patterns(rule: PathRule) -> list[str]:
    """The ``read``/``edit`` patterns that deny ``rule``'s path wherever the project lies.

    A relative srt path is anchored at the directory the agent starts in, which is the
    project or below it: ``P`` and ``*/P`` (any depth). An absolute path is, relative to the
    project, one of its tails (the project above it), or ``../`` once or more before a tail
    (the project beside it). A ``~`` path: the same for the tails below the home, and
    ``*/REST`` for the rest. Each with its ``/**`` tree."""
    path = normalize_path(rule.path)
    if path in (".", "./"):
        return ["*"]
    home = path == "~" or path.startswith("~/")
    absolute = path.startswith("/")
    if not (home or absolute):
        spelled = wildcard(path.removeprefix("./"), rule.literal)
        out = _tree(spelled)
        if not spelled.startswith("*"):
            out += _tree("*/" + spelled)
        return out
    rest = path[1:].lstrip("/") if absolute else path[2:]
    if not rest:  # the root or the home itself: every path
        return ["*"]
    parts = wildcard(rest, rule.literal).split("/")
    out = []
    for start in range(len(parts) - 1, -1, -1):
        tail = "/".join(parts[start:])
        for prefix in ("", "../", "../*/"):
            out += _tree(prefix + tail)
    if home:
        out += _tree("*/" + "/".join(parts))
    return list(dict.fromkeys(out))


def outside_pattern(rule: PathRule) -> str | None:
    """The ``external_directory`` pattern of an absolute or ``~`` path (OpenCode expands
    ``~/`` itself, so no home is pinned): ``P/*``, which the ``<dir>/*`` of every path below
    ``P`` matches. A relative path lies inside the project and has none."""
    path = normalize_path(rule.path)
    if path == "~" or path.startswith("~/") or path.startswith("/"):
        spelled = wildcard(path, rule.literal)
        return "/*" if spelled == "/" else spelled.rstrip("/") + "/*"
    return None


# ---------------------------------------------------------------- the translation


@record
class Who:
    """The agent a shared translation compiles for (OpenCode, or Kilo Code CLI, which shares
    the grammar): its name on the findings, its label in their messages, and what its read
    denies also miss beyond the shell's readers."""

    name: str
    label: str
    reads_too: str = ""

    def finding(self, rule: Rule, message: str, origin: Location) -> Finding:
        return finding(rule, message, origin, agent=self.name)


OPENCODE = Who(NAME, LABEL)


def translate_permission(
    who: Who, policy: Policy, sandbox_mode: str, yolo: bool
) -> tuple[Compiled, list[Finding]]:
    """The ``permission`` members the grammar shares, with their findings."""
    out, findings = Compiled(), list[Finding]()
    out.permission["bash"] = _bash(who, policy, out, findings, yolo)
    read, edit, outside = _paths(who, policy, sandbox_mode, out, findings)
    out.permission["read"] = read
    out.permission["edit"] = edit
    out.permission["external_directory"] = outside
    for tool in WEB_TOOLS:
        out.permission[tool] = DENY
    findings += _web_findings(who, policy)
    return out, findings


def _has_wildcard(command: str) -> bool:
    return "*" in command or "?" in command


def _bash(
    who: Who, policy: Policy, out: Compiled, findings: list[Finding], yolo: bool
) -> dict[str, str]:
    """``"*": "ask"``, then ``"cmd *"`` for each allow, ask and deny command in that order
    (``"cmd *"`` also matches ``cmd`` alone)."""
    rules = Rules(ASK)
    dropped: list[Entry] = []
    for entries, action in (
        (policy.bash_allow, ALLOW),
        (policy.bash_ask, ASK),
        (policy.bash_deny, DENY),
    ):
        for entry in entries:
            command = " ".join(entry.value.split())
            if action == ALLOW and _has_wildcard(command):
                dropped.append(entry)
                continue
            pattern = f"{command} *"
            rules.add(pattern, action)
            out.origins.setdefault(f"bash {pattern}", entry.origin)
    for entry in dropped:
        findings.append(
            who.finding(
                OPENCODE_RULE_DROPPED,
                f"allow rule '{quoted(entry.value)}' is left out: {who.label} reads its `*` or `?` "
                "as a wildcard that would allow more commands, so the command asks instead",
                entry.origin,
            )
        )
    if policy.bash_deny:
        findings.append(
            who.finding(
                OPENCODE_BASH_DENY_BYPASS,
                f"{who.label} matches these bash denies against each command's text, but "
                "`env cmd`, `sh -c 'cmd'`, an absolute path such as `/usr/bin/cmd` and "
                "`$(echo cmd)` get past them",
                policy.bash_location("/deny", key=True),
            )
        )
    if yolo:
        where = (
            policy.bash_location("/ask", key=True)
            if policy.bash_ask
            else Location(policy.bash_display)
        )
        findings.append(
            who.finding(
                OPENCODE_AUTO_APPROVES_ASK,
                f"under --auto {who.label} approves every ask: the commands these rules name, "
                "every command the policy does not list and every path outside the project "
                "(its config file serves both approval modes)",
                where,
            )
        )
    return rules.items


def _paths(
    who: Who, policy: Policy, sandbox_mode: str, out: Compiled, findings: list[Finding]
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """``read``, ``edit`` and ``external_directory``: the catch-alls, then each denied path
    in every spelling it can take relative to the project (``relative_patterns``) and, outside
    it, ``P/*``. A denyRead path is denied to both tools; a denyWrite path and each protected
    name at the top of a write root (at any depth: stricter) to ``edit``."""
    read = Rules(ALLOW)
    for pattern in ENV_ASKS:
        read.add(pattern, ASK)
    writable = _write_roots(who, policy, sandbox_mode, findings)
    edit = Rules(ALLOW if writable else DENY)
    if writable:
        edit.add("../*", DENY)  # nothing outside the project is a write root here
    outside = Rules(ASK)
    for key, rules, tools in (
        ("denyRead", policy.deny_read, (read, edit) if writable else (read,)),
        ("denyWrite", policy.deny_write, (edit,) if writable else ()),
    ):
        for rule in rules:
            _deny(rule, tools, outside, out, "read" if key == "denyRead" else "edit")
        if rules and key in (policy.srt.get("filesystem") or {}):
            findings.append(
                who.finding(
                    OPENCODE_PATHS_NARROWED,
                    f"{who.label}'s read and edit patterns are relative to the project, so each "
                    f"{key} path is denied in every spelling it can take there (`P`, `*/P`, "
                    "its tails, `../` before them) and outside it as `P/*`, which may deny "
                    "same-named paths elsewhere",
                    policy.srt_location(f"/filesystem/{key}", key=True),
                )
            )
    if policy.deny_read and "denyRead" in (policy.srt.get("filesystem") or {}):
        findings.append(
            who.finding(
                OPENCODE_TOOL_DENY_ONLY,
                f"{who.label}'s read denies stop its read tool only: a shell `cat`, its grep tool "
                f"and an interpreter read these paths{who.reads_too}, and started inside a denied "
                "directory its own files are not matched",
                policy.srt_location("/filesystem/denyRead", key=True),
            )
        )
    if writable:
        for name, tree in of(policy):
            for pattern in (name, f"*/{name}"):
                for spelled in [pattern, f"{pattern}/**"] if tree else [pattern]:
                    edit.add(spelled, DENY)
    return read.items, edit.items, outside.items


def _deny(
    rule: PathRule, tools: tuple[Rules, ...], outside: Rules, out: Compiled, tag: str
) -> None:
    for pattern in relative_patterns(rule):
        for tool in tools:
            tool.add(pattern, DENY)
        out.origins.setdefault(f"{tag} {pattern}", rule.origin)
    spelled = outside_pattern(rule)
    if spelled is not None:
        outside.add(spelled, DENY)
        out.origins.setdefault(f"external_directory {spelled}", rule.origin)


def _write_roots(who: Who, policy: Policy, sandbox_mode: str, findings: list[Finding]) -> bool:
    """Whether the edit tools may write the project (the policy grants ``.``); each other
    write root is a note, as the edit patterns cannot name it without granting more."""
    if sandbox_mode == "read-only":
        return False
    grants_cwd = False
    for rule in policy.allow_write:
        if normalize_path(rule.path) == "." and not rule.literal:
            grants_cwd = True
            continue
        findings.append(
            who.finding(
                LOSSY_WRITE_ROOT,
                f"filesystem.allowWrite '{quoted(rule.path)}' is not writable for "
                f"{who.label}'s edit tools: their patterns are relative to the project, so "
                "twsrt cannot grant a root outside it without granting more",
                rule.origin,
            )
        )
    return grants_cwd


def _web_findings(who: Who, policy: Policy) -> list[Finding]:
    """The note for the policy's network keys that OpenCode's web tools do not get (TWS455)."""
    keys = [f"'{dotted(p)}'" for p in set_keys(policy.srt) if p.startswith("/network/")]
    if not keys:
        return []
    return [
        who.finding(
            OPENCODE_WEB_TOOLS_DENIED,
            f"{who.label}'s webfetch and websearch reach no host: twsrt denies both whole, as "
            f"webfetch takes no host pattern, which is stricter than {', '.join(keys)}",
            policy.srt_location("/network", key=True),
        )
    ]


# ---------------------------------------------------------------- the effective check


def matches(value: str, pattern: str) -> bool:
    """OpenCode's wildcard match (1.18.33): ``*`` any run of characters, ``/`` included, ``?``
    one, a trailing `` *`` optional, every other character itself. A pattern here is a user's
    key, so no regex is built from it: one pass over the text per pattern character."""
    if pattern.endswith(" *") and _match(value, pattern[:-2]):
        return True
    return _match(value, pattern)


def _match(text: str, pattern: str) -> bool:
    # reach[i]: the pattern so far matches text[:i]
    reach = [True] + [False] * len(text)
    for char in pattern:
        if char == "*":
            for i in range(1, len(reach)):
                reach[i] = reach[i] or reach[i - 1]
            continue
        reach = [False] + [reach[i] and (char == "?" or text[i] == char) for i in range(len(text))]
    return reach[-1]


def grants(value: Any) -> bool:
    """A permission value that allows or asks for anything (a plain ``deny`` only refuses)."""
    if isinstance(value, str):
        return value != "deny"
    if isinstance(value, dict):
        return any(action != "deny" for action in value.values())
    return False


def permission_findings(layer: Layer, agent: str) -> list[Finding]:
    """The user's keys beside twsrt's in a config of the grammar that grant more: a
    ``permission`` key after twsrt's that matches one of its tools (TWS640), and an allow or
    ask for one of them in ``agent.<name>.permission`` (TWS641), which is merged after the top
    level."""
    from twsrt.effective import report

    value = layer.value if isinstance(layer.value, dict) else {}
    out: list[Finding] = []
    permission = value.get("permission")
    if isinstance(permission, dict):
        out += _late_keys(layer, permission, agent)
    agents = value.get("agent")
    if not isinstance(agents, dict):
        return out
    for name, own_agent in agents.items():
        own = own_agent.get("permission") if isinstance(own_agent, dict) else None
        if isinstance(own, str):
            own = {"*": own}
        if not isinstance(own, dict):
            continue
        for key, action in own.items():
            if grants(action) and any(matches(tool, key) for tool in PERMISSION_TOOLS):
                base = pointer_join(pointer_join("/agent", name), "permission")
                out.append(
                    report(
                        OPENCODE_AGENT_PERMISSION,
                        f"agent '{quoted(name)}' permission '{quoted(key)}' is merged after "
                        "twsrt's rules and can allow what they deny",
                        layer,
                        pointer_join(base, key),
                        agent,
                    )
                )
    return out


def _late_keys(layer: Layer, permission: dict[str, Any], agent: str) -> list[Finding]:
    from twsrt.effective import report

    out: list[Finding] = []
    seen_managed = False
    for key, value in permission.items():
        if key in PERMISSION_TOOLS:
            seen_managed = True
            continue
        if not seen_managed or not grants(value):
            continue
        tools = [tool for tool in PERMISSION_TOOLS if matches(tool, key)]
        if tools:
            out.append(
                report(
                    OPENCODE_PERMISSION_KEY_LIFTS,
                    f"permission '{quoted(key)}' comes after twsrt's '{tools[0]}' rules and "
                    "matches the same calls, so it wins over their denies",
                    layer,
                    pointer_join("/permission", key),
                    agent,
                )
            )
    return out


def managed_findings(layer: Layer, agent: str) -> list[Finding]:
    """Each key of a managed config's ``permission`` that matches one of twsrt's tools and
    allows or asks (TWS646): the managed file is merged after the user's."""
    from twsrt.effective import report

    value = layer.value if isinstance(layer.value, dict) else {}
    permission = value.get("permission")
    if isinstance(permission, str):
        permission = {"*": permission}
    if not isinstance(permission, dict):
        return []
    return [
        report(
            OPENCODE_MANAGED_LAYER_GRANTS,
            f"managed permission '{quoted(key)}' is merged after the user's file and can allow "
            "what twsrt's rules deny there",
            layer,
            pointer_join("/permission", key),
            agent,
        )
        for key, action in permission.items()
        if grants(action) and any(matches(tool, key) for tool in PERMISSION_TOOLS)
    ]
