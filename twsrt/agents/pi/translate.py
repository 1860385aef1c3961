"""The pure translation of a policy for pi's sandbox extension: the srt document it reads, with
every member it merges over its built-in defaults written out (a key left out falls back to
them: npm, PyPI and GitHub hosts, ``/tmp`` writes; pi rows 3-4), and a finding for everything
the extension or its srt 0.0.26 enforces differently. docs/agents/pi.md is the table."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from twsrt.agents.lossy import without_port, write_roots_location
from twsrt.agents.pi.declaration import (
    ENABLED,
    FILESYSTEM,
    HANDLED_SRT_KEYS,
    IGNORE_VIOLATIONS,
    LABEL,
    NAME,
    NESTED,
    NETWORK,
    REASONS,
    _lossy,
)
from twsrt.agents.pi.rules import (
    PI_BASH_RULES_LOST,
    PI_FAILS_OPEN,
    PI_FILE_TOOLS_UNSANDBOXED,
    PI_GLOB_DENY_SKIPPED,
)
from twsrt.agents.rootnames import of
from twsrt.agents.srtkeys import unhandled_key_findings
from twsrt.agents.targets import disabled_sandbox, strict_allowlist_note, unique
from twsrt.domains import split_port
from twsrt.findings import Finding, TwsrtError, quoted
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy, fold_dots, has_dots, is_glob
from twsrt.records import record
from twsrt.rules import LOSSY_WRITE_ROOT, UNEXPRESSIBLE_PATH

# in the launch directory the names under .git/ and .claude/ stay exact (root_denies)
KEPT_EXACT = (".git/", ".claude/")
# what srt 0.0.26 strips from a path before it skips a glob (removeTrailingGlobSuffix)
GLOB_SUFFIX = "/**"


@record(frozen=False)
class Compiled:
    """The members twsrt owns in the extension's file, for one run."""

    document: dict[str, Any]
    # a managed entry -> the policy entry it came from (drift)
    origins: dict[str, Location] = field(default_factory=dict)


def translate(policy: Policy, sandbox_mode: str) -> tuple[Compiled, list[Finding]]:
    """The extension's document for one sandbox mode, with findings. pi has no approval modes
    (it never asks before a bash call), so both of twsrt's compile the same bytes."""
    full_access = sandbox_mode == "danger-full-access"
    if not policy.enabled and not full_access:
        raise disabled_sandbox(policy, NAME, "write a pi sandbox file")
    findings: list[Finding] = []
    srt = policy.srt
    network = srt.get(NETWORK) or {}
    out = Compiled({})
    allowed = _allowed(policy, findings)
    denied = unique([split_port(entry)[0] for entry in _strings(network, "deniedDomains")])
    deny_read = _folded(policy, "denyRead", policy.deny_read, findings)
    written_roots = _folded(policy, "allowWrite", policy.allow_write, findings)
    roots = [] if sandbox_mode == "read-only" else written_roots
    if sandbox_mode == "read-only" and written_roots:
        findings.append(
            _lossy(
                LOSSY_WRITE_ROOT,
                "sandbox mode read-only: pi's sandbox gets no write root, so the policy's "
                "allowWrite entries are read-only (stricter than the policy)",
                write_roots_location(policy),
            )
        )
    written = _folded(policy, "denyWrite", policy.deny_write, findings)
    mine = _theirs(policy)
    deny_write = outermost(unique([*opened(written, mine, policy), *root_denies(roots, policy)]))
    out.document = {
        ENABLED: not full_access,
        NETWORK: {"allowedDomains": allowed, "deniedDomains": denied},
        FILESYSTEM: {"denyRead": deny_read, "allowWrite": roots, "denyWrite": deny_write},
        IGNORE_VIOLATIONS: {},
        NESTED: False,
    }
    for entry in policy.deny_read:
        out.origins.setdefault(entry.path, entry.origin)
    for entry in policy.deny_write:
        out.origins.setdefault(entry.path, entry.origin)
    findings += _file_tools(policy)
    findings += _globs(policy)
    findings += _bash(policy)
    findings.append(
        _lossy(
            PI_FAILS_OPEN,
            "pi's sandbox extension runs bash unsandboxed when srt cannot start (no bwrap, "
            "socat or rg on Linux) or pi is started with --no-sandbox, and headless it says "
            "nothing; TWS652 checks this machine",
            _sandbox_location(policy),
        )
    )
    findings += strict_allowlist_note(
        policy, NAME, "pi's srt 0.0.26, which refuses every host outside allowedDomains"
    )
    findings += unhandled_key_findings(policy, NAME, HANDLED_SRT_KEYS, REASONS)
    return out, findings


def _strings(section: Any, key: str) -> list[str]:
    value = section.get(key) if isinstance(section, dict) else None
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _folded(policy: Policy, key: str, rules: list[PathRule], findings: list[Finding]) -> list[str]:
    """A filesystem list as pi's srt 0.0.26 can take it. ``.`` and ``..`` are folded (it joins
    ``~/`` and a path without resolving them, and then binds outside the write roots: every
    command fails); a ``..`` that climbs above ``~`` or the launch directory cannot be named:
    a deny path refuses the compile, a write root is left out (stricter). A trailing ``/**`` is
    written as the directory itself, as srt 0.0.83 reads it: the extension hands srt's Linux
    sandbox the lists unfiltered, and ``P/**`` names no file there (a denyRead ``~/.aws/**``
    would read as nothing). In denyWrite a glob is left out (TWS464): srt 0.0.26 binds a stub
    at its first glob part under a write root, and every later command fails."""
    written = _strings(policy.srt.get(FILESYSTEM), key)
    out: list[str] = []
    for index, path in enumerate(written):
        origin = rules[index].origin if index < len(rules) else policy.list_origin(key)
        folded = fold_dots(path)
        if folded.endswith(GLOB_SUFFIX) and folded != GLOB_SUFFIX.lstrip("/"):
            folded = folded.removesuffix(GLOB_SUFFIX) or "/"
        if has_dots(folded):
            climbs = (
                f"'{quoted(path)}' climbs above the launch directory or the home directory "
                "with '..'"
            )
            if key == "allowWrite":
                message = f"allowWrite {climbs}, which pi's srt 0.0.26 cannot resolve; skipped"
                findings.append(_lossy(LOSSY_WRITE_ROOT, message, origin))
                continue
            message = (
                f"{climbs}, which pi's srt 0.0.26 cannot resolve (it would bind the wrong path "
                "and fail every command); write it as an absolute or `~/` path"
            )
            raise TwsrtError(_lossy(UNEXPRESSIBLE_PATH, message, origin))
        if key == "denyWrite" and is_glob(folded):
            continue  # TWS464 (_globs)
        out.append(folded)
    return out


def _sandbox_location(policy: Policy) -> Location:
    if "enabled" in policy.srt:
        return policy.srt_location("/enabled", key=True)
    return policy.srt_location("")


def _allowed(policy: Policy, findings: list[Finding]) -> list[str]:
    """The allowed hosts srt 0.0.26 can match: it compares the host name alone, so an entry
    with a port would match nothing; it is left out (stricter) with a note."""

    def left_out(entry: Entry, port: str) -> str:
        return (
            f"'{quoted(entry.value)}' is left out for pi: its srt 0.0.26 matches host names "
            f"without a port, so no rule can keep port {port} alone (stricter than the policy)"
        )

    return unique(
        [host for _e, host in without_port(policy.allowed_domains, NAME, left_out, findings)]
    )


def root_denies(roots: list[str], policy: Policy) -> list[str]:
    """The protected names (``rootnames``: srt's mandatory set, every agent's project layers)
    under each write root that is no glob, the launch directory (``.``) included: srt 0.0.26
    keeps only its own mandatory set read-only there, not ``.pi/`` (pi row 13).

    A layer is denied by its top directory (``.pi``, ``.codex``, ``.git``): for a missing
    deeper name srt 0.0.26 binds a stub file where its first missing part is, and a second
    stub below that first one fails every later command of the session (pi row 14). In the
    launch directory the names under ``.git/`` and ``.claude/`` stay exact: srt binds its own
    mandatory names inside those there (a read-only parent would refuse them), and the
    workspace's repository must stay writable for git."""
    names = [name for name, _tree in of(policy)]
    top = unique([name.split("/")[0] for name in names])
    at_work = unique([n if n.startswith(KEPT_EXACT) else n.split("/")[0] for n in names])
    denies: list[str] = []
    for root in roots:
        if is_glob(root):
            continue
        if root in (".", "./"):
            denies += [f"./{name}" for name in at_work]
        else:
            denies += [f"{root.rstrip('/')}/{name}" for name in top]
    return denies


def _theirs(policy: Policy) -> list[bool]:
    """Per denyWrite entry: whether twsrt's protected set added it (not the policy's sources)."""
    sources = {policy.srt_display, *policy.fragments}
    return [rule.origin.path not in sources for rule in policy.deny_write]


def opened(paths: list[str], added: list[bool], policy: Policy) -> list[str]:
    """``paths`` with a launch-directory ``.git`` or ``.claude`` that twsrt's protected set
    denies whole (``added``; a project's generated ``.claude/settings.json`` is protected as
    its directory) replaced by the protected names inside it: srt 0.0.26 binds its own
    mandatory names there (``.git/hooks``, ``.claude/commands``), and for a missing one it
    cannot create the mount point inside a read-only parent, so every command would fail (seen
    in a real run). The policy's own entries stay as written."""
    out: list[str] = []
    for index, path in enumerate(paths):
        top = path.removeprefix("./").removesuffix("/**").rstrip("/")
        if top + "/" not in KEPT_EXACT or not (index < len(added) and added[index]):
            out.append(path)
            continue
        out += [f"./{name}" for name, _tree in of(policy) if name.startswith(top + "/")]
    return out


def outermost(paths: list[str]) -> list[str]:
    """``paths`` without an entry below another one that is no glob: srt 0.0.26 makes the
    outer one read-only whole, and for a missing outer path it binds a stub file there, below
    which the inner one can no longer be bound (every later command of the session would fail,
    pi row 14). Spellings are compared as written (``~/x``, ``/x``, ``./x``)."""
    trees = {path.rstrip("/") for path in paths if not is_glob(path)}

    def below(path: str) -> bool:
        parts = path.rstrip("/").split("/")
        return any("/".join(parts[:end]) in trees for end in range(1, len(parts)))

    return [path for path in paths if not below(path)]


def _file_tools(policy: Policy) -> list[Finding]:
    """TWS462 at each path list pi's file tools ignore: denyRead when the policy has one, and
    denyWrite always (it carries twsrt's protected set)."""
    out = []
    for key, rules in (("denyRead", policy.deny_read), ("denyWrite", policy.deny_write)):
        if not rules:
            continue
        tools = "read tool is" if key == "denyRead" else "write and edit tools are"
        out.append(
            _lossy(
                PI_FILE_TOOLS_UNSANDBOXED,
                f"pi's {tools} not sandboxed: filesystem.{key} holds for bash commands only"
                + ("" if key == "denyRead" else ", twsrt's protected set included"),
                policy.srt_location(f"/filesystem/{key}", key=True),
            )
        )
    return out


def _globs(policy: Policy) -> list[Finding]:
    """TWS464 at each glob deny entry: srt 0.0.26 on Linux reads none (a denyRead glob names
    no file it finds), and a denyWrite glob is left out of the file (see ``_folded``)."""
    out = []
    for key, rules in (("denyRead", policy.deny_read), ("denyWrite", policy.deny_write)):
        for rule in rules:
            stripped = rule.path.removesuffix(GLOB_SUFFIX)
            if rule.echo or not is_glob(stripped):  # echo: a denyRead path, reported there
                continue
            what = (
                "which pi's srt 0.0.26 skips on Linux: commands there are not kept from it"
                if key == "denyRead"
                else "left out (pi's srt 0.0.26 would bind a stub at its first glob part and "
                "fail every later command): commands are not kept from what it names"
            )
            out.append(
                _lossy(
                    PI_GLOB_DENY_SKIPPED,
                    f"filesystem.{key} '{quoted(rule.path)}' is a glob, {what}",
                    rule.origin,
                )
            )
    return out


def _bash(policy: Policy) -> list[Finding]:
    """TWS463 at each deny rule and each ask rule: pi has no command list."""
    out = []
    for kind, entries in (("deny", policy.bash_deny), ("ask", policy.bash_ask)):
        for entry in entries:
            what = (
                "holds only as far as the srt filesystem and network rules stop the command"
                if kind == "deny"
                else "does not ask: pi runs the command without a prompt"
            )
            out.append(
                _lossy(
                    PI_BASH_RULES_LOST,
                    f"bash {kind} rule '{quoted(entry.value)}' has no place in {LABEL}'s "
                    f"sandbox file: it {what}",
                    entry.origin,
                )
            )
    return out
