"""Pure translation of the canonical policy into Claude Code's permission rules and sandbox
section, with the sandbox mode applied and the lossy findings. The ``Read(...)``/``Edit(...)``
path spellings live in ``agents.rulepaths`` (Qwen Code reads the same grammar)."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from twsrt.agents.base import Once
from twsrt.agents.claude.declaration import (
    ESCAPE_HATCH,
    FILESYSTEM_KEYS,
    LABEL,
    MODE_DROPPED,
    MODE_FORCED,
    NAME,
    NETWORK_KEYS,
    READ_ONLY_DENY,
    SUB_KEYS,
    TOP_KEYS,
    WEB_PORTS,
    WEB_TOOLS,
    WEBFETCH_PREFIX,
    Managed,
)
from twsrt.agents.claude.layers import protect
from twsrt.agents.claude.rules import (
    CLAUDE_YOLO_WEB_TOOLS_DENIED,
    LOSSY_CREDENTIAL_ENTRY,
    LOSSY_RELATIVE_SANDBOX_PATH,
    LOSSY_RELATIVE_WRITE_ROOT,
    RELATIVE_SANDBOX_PATH_NOTE,
)
from twsrt.agents.lossy import without_port
from twsrt.agents.rulepaths import (
    PROJECT_ANCHOR,
    USER_ANCHOR,
    is_relative,
    path_patterns,
)
from twsrt.agents.targets import unique
from twsrt.bashrules import bash_rules
from twsrt.domains import split_port
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy, is_glob
from twsrt.rules import (
    LITERAL_GLOB_GRANT_LEFT_OUT,
    LOSSY_LITERAL_GLOB,
    LOSSY_PORT_DOMAIN,
)

# _deny_rules' list, the origins it noted (in order) and its findings
Denies = tuple[list[str], dict[str, Location], list[Finding]]


def deny_rules(policy: Policy, anchor: str = USER_ANCHOR) -> Denies:
    """The deny rules, which the approval mode does not change: made once for both modes of a
    check (``Context.once``)."""
    findings: list[Finding] = []
    managed = Managed()
    deny = _deny_rules(policy, managed, findings, anchor)
    return deny, managed.origins, findings


def translate(
    policy: Policy,
    yolo: bool,
    overrides: dict[str, Any],
    sandbox_mode: str = "workspace-write",
    anchor: str = USER_ANCHOR,
    denies: Denies | None = None,
    once: Once | None = None,
) -> tuple[Managed, list[Finding]]:
    """Pure translation of the canonical policy into Claude's managed sections. ``anchor``:
    where the file's settings source anchors a relative sandbox path (``USER_ANCHOR``:
    ~/.claude, for the user settings; ``CWD_ANCHOR``: the working directory, as srt does, for
    managed settings; ``PROJECT_ANCHOR``: the project root, for a project's settings).
    ``denies``: ``deny_rules`` of the same policy and anchor, already made (never changed);
    ``once``: the run's ``Context.once`` (``layers.protect``)."""
    deny, origins, found = deny_rules(policy, anchor) if denies is None else denies
    findings = list(found)
    # the deny rules come first, so their origins are the first noted
    managed = Managed(deny=list(deny), origins=dict(origins))
    if yolo:
        _deny_web_tools(policy, managed, findings)
    else:
        managed.ask = _bash_rules(policy.bash_ask, managed)
        managed.webfetch_allow = _webfetch_allow(policy, managed, findings)
    managed.sandbox = _sandbox(policy, findings, anchor)
    mode_overrides = {k: v for k, v in overrides.items()}
    managed.sandbox.update(deepcopy(mode_overrides))
    managed.override_keys = tuple(mode_overrides)
    if yolo and sandbox_mode != "danger-full-access" and managed.sandbox.get("enabled"):
        _close_escape_hatch(managed)
    # the layers and mandatory names Claude's sandbox leaves to a later launch, for the
    # policy's write roots in every mode (read-only drops the roots, never a deny)
    protect(managed, policy, once)
    _apply_sandbox_mode(managed, sandbox_mode)
    return managed, findings


def _deny_rules(
    policy: Policy, managed: Managed, findings: list[Finding], anchor: str
) -> list[str]:
    """Read/Edit denies for the path denies, WebFetch denies for the denied domains, Bash
    denies for the bash deny rules (each rule's origin noted)."""
    deny: list[str] = []
    for rule in policy.deny_read:
        _check_literal(rule, findings)
        patterns = path_patterns(rule, anchor)
        emitted = [f"Read({p})" for p in patterns] + [f"Edit({p})" for p in patterns]
        deny += emitted
        _note_origins(managed, [*emitted, rule.path], rule.origin)
    for rule in policy.deny_write:
        _check_literal(rule, findings)
        emitted = [f"Edit({pattern})" for pattern in path_patterns(rule, anchor)]
        deny += emitted
        _note_origins(managed, [*emitted, rule.path], rule.origin)
    for entry in policy.denied_domains:
        host, port = split_port(entry.value)
        if port in WEB_PORTS:
            findings.append(
                finding(
                    LOSSY_PORT_DOMAIN,
                    f"WebFetch cannot deny only port {port}; '{quoted(host)}' is denied for "
                    "WebFetch on every port (the sandbox keeps the port)",
                    entry.origin,
                    agent=NAME,
                )
            )
        elif port is not None:
            findings.append(
                finding(
                    LOSSY_PORT_DOMAIN,
                    f"'{quoted(entry.value)}' concerns a port WebFetch never uses (it fetches over "
                    "80/443); no WebFetch deny rule is emitted (the sandbox keeps the entry)",
                    entry.origin,
                    agent=NAME,
                )
            )
            continue
        deny.append(f"WebFetch(domain:{host})")
        _note_origins(managed, [deny[-1], entry.value], entry.origin)
    return unique(deny + _bash_rules(policy.bash_deny, managed))


def _bash_rules(entries: list[Entry], managed: Managed) -> list[str]:
    rules: list[str] = []
    for entry in entries:
        emitted = bash_rules(entry.value, entry.origin, NAME, LABEL)
        rules += emitted
        _note_origins(managed, emitted, entry.origin)
    return unique(rules)


def _webfetch_allow(policy: Policy, managed: Managed, findings: list[Finding]) -> list[str]:
    allow = []
    for entry, host in without_port(policy.allowed_domains, NAME, _port_not_allowed, findings):
        allow.append(f"{WEBFETCH_PREFIX}{host})")
        _note_origins(managed, [allow[-1], entry.value], entry.origin)
    return unique(allow)


def _deny_web_tools(policy: Policy, managed: Managed, findings: list[Finding]) -> None:
    """A yolo file runs under bypassPermissions, which fetches a host no rule names unasked
    (WebFetch and WebSearch run outside the sandbox), and a deny outranks a host's allow: both
    tools are denied whole, right after the policy's denies, and get no allow rule (TWS638)."""
    managed.deny = unique([*managed.deny, *WEB_TOOLS])
    _note_origins(managed, list(WEB_TOOLS), policy.list_origin("/network/allowedDomains"))
    if not policy.allowed_domains:
        return  # nothing allowed, nothing lost
    findings.append(
        finding(
            CLAUDE_YOLO_WEB_TOOLS_DENIED,
            "the yolo file denies WebFetch and WebSearch whole and allows WebFetch no host: "
            "under bypassPermissions they would reach any host, and no rule can keep them to "
            "these (stricter than the policy; Bash keeps them through the sandbox)",
            policy.srt_location("/network/allowedDomains", key=True),
            agent=NAME,
        )
    )


def _port_not_allowed(entry: Entry, port: str) -> str:
    return (
        f"WebFetch cannot allow only port {port}; '{quoted(entry.value)}' is left out "
        "of the WebFetch allow rules (the sandbox keeps it)"
    )


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


def _note_origins(managed: Managed, values: list[str], origin: Location) -> None:
    for value in values:
        managed.origins.setdefault(value, origin)


def _check_literal(rule: PathRule, findings: list[Finding]) -> None:
    # a brace is literal for srt, but Claude's rule matcher may read {a,b} as alternatives: for
    # its Read/Edit deny rules it stays a pattern character, the cautious reading
    if rule.literal and (is_glob(rule.path) or "{" in rule.path):
        findings.append(
            finding(
                LOSSY_LITERAL_GLOB,
                f"literal path '{quoted(rule.path)}' contains glob characters; Claude reads it as "
                "a pattern, which may miss the literal path itself — protect a parent directory "
                "without glob characters",
                rule.origin,
                agent=NAME,
            )
        )


def _paths(items: list[Any]) -> list[str]:
    return [item["path"] if isinstance(item, dict) else item for item in items]


def _sandbox(policy: Policy, findings: list[Finding], anchor: str) -> dict[str, Any]:
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
        out_fs[key] = _sandbox_paths(key, _paths(value), rules, findings, anchor)
    if out_network:
        sandbox["network"] = out_network
    if out_fs:
        sandbox["filesystem"] = out_fs
    for key in TOP_KEYS[1:]:
        if key not in srt:
            continue
        if key == "credentials":
            sandbox[key] = _credentials(policy, findings, anchor)
        else:
            sandbox[key] = _narrowed(key, deepcopy(srt[key]))
    return sandbox


def _narrowed(key: str, value: Any) -> Any:
    """An object Claude takes with fewer members than srt keeps only those (it would drop the
    rest anyway; srtkeys reports them)."""
    if key in SUB_KEYS and isinstance(value, dict):
        return {k: v for k, v in value.items() if k in SUB_KEYS[key]}
    return value


def _credentials(policy: Policy, findings: list[Finding], anchor: str) -> dict[str, Any]:
    """srt's credentials section in the shape Claude Code validates: the same keys, with the
    combinations Claude rejects rewritten to what srt does with them."""
    section = deepcopy(policy.srt["credentials"])
    for index, entry in enumerate(section.get("files") or []):
        where = policy.srt_location(f"/credentials/files/{index}")
        path = entry.get("path", "")
        relative = not (path.startswith("/") or path == "~" or path.startswith("~/"))
        if relative and anchor == USER_ANCHOR:
            findings.append(_relative_credential(path, where))
        if entry.get("mode") == "mask" and path.endswith("/"):
            # Claude masks single files only; a denied directory is stricter than a masked one
            entry["mode"] = "deny"
            findings.append(
                finding(
                    LOSSY_CREDENTIAL_ENTRY,
                    f"credential '{quoted(path)}' is a directory, which Claude Code cannot mask; "
                    "it is denied instead (stricter: commands cannot read it at all)",
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
                    LOSSY_CREDENTIAL_ENTRY,
                    f"credential variable '{quoted(entry.get('name'))}': "
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
        LOSSY_RELATIVE_SANDBOX_PATH,
        f"relative credential path '{quoted(text)}' in Claude's user settings protects "
        f"~/.claude/{text.removeprefix('./')} only: Bash commands still read the file in the "
        "project, which srt hides (no permission rule carries it there); write the path with ~/ "
        "or / to cover it everywhere",
        origin,
        agent=NAME,
    )


def _sandbox_paths(
    key: str, raw: list[str], rules: list[PathRule], findings: list[Finding], anchor: str
) -> list[str]:
    out: list[str] = []
    granting = key.startswith("allow")
    for text, rule in zip(raw, rules, strict=True):
        relative = anchor == USER_ANCHOR and is_relative(text)
        if anchor == PROJECT_ANCHOR and key == "allowWrite" and text in (".", "./"):
            continue  # the root, not the launch directory: Claude lets commands write that
        if granting:
            kept, why = _grant_kept(key, text, rule, relative)
            findings += why
            if not kept:
                continue
        elif relative and not rule.echo:
            findings.append(_relative_deny_note(key, text, rule))
        out.append(text)
    return unique(out)


def _grant_kept(key: str, text: str, rule: PathRule, relative: bool) -> tuple[bool, list[Finding]]:
    """Whether a write or read grant stays in Claude's sandbox list, and why not."""
    if rule.literal and is_glob(rule.path):
        why = (
            f"literal path '{quoted(rule.path)}' contains glob characters and would grant "
            f"more as a pattern; left out of Claude's sandbox.filesystem.{key}"
        )
        return False, [finding(LITERAL_GLOB_GRANT_LEFT_OUT, why, rule.origin, agent=NAME)]
    if not relative:
        return True, []
    if text in (".", "./") and key == "allowWrite":
        return False, []  # Claude's sandbox always lets commands write the working directory
    meaning = (
        f"relative path '{quoted(text)}' would mean ~/.claude/{text.removeprefix('./')} in "
        f"Claude's user sandbox; left out of sandbox.filesystem.{key} "
    )
    if key == "allowWrite":
        why = meaning + "(Claude's sandbox already allows writing the working directory)"
        return False, [finding(LOSSY_RELATIVE_WRITE_ROOT, why, rule.origin, agent=NAME)]
    why = meaning + "(stricter: reads there stay denied)"
    return False, [finding(RELATIVE_SANDBOX_PATH_NOTE, why, rule.origin, agent=NAME)]


def _relative_deny_note(key: str, text: str, rule: PathRule) -> Finding:
    tools = "Read and Edit rules" if key == "denyRead" else "Edit rules"
    effect = (
        "but a glob in a write list is enforced for Bash by neither Claude nor srt on "
        "Linux (TWS501)"
        if key == "denyWrite" and rule.glob
        else "which keeps Bash from it in the project as srt does"
    )
    return finding(
        RELATIVE_SANDBOX_PATH_NOTE,
        f"relative path '{quoted(text)}' in sandbox.filesystem.{key} means "
        f"~/.claude/{text.removeprefix('./')} to Claude Code; the {tools} twsrt emits "
        "for it are merged into Claude's sandbox at the working directory, " + effect,
        rule.origin,
        agent=NAME,
    )


def _dedupe(value: Any) -> Any:
    """Lists lose exact repeats (Claude's schema wants unique items); other values pass."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return unique(value)
    return value
