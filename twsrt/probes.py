"""Probes for ``twsrt test``: derived from the compiled policy, judged by what the sandbox did.

Everything here is pure (no filesystem, no subprocess); ``twsrt.engines`` creates the fixtures,
runs each probe without and with the sandbox, and hands the observations back to ``judge``.

Fixture tree. Every run works in a fresh temporary directory ROOT, and every policy path is
probed at its image in that tree, never at the real path:

- ``~`` and ``~/x``   -> ``ROOT/home`` and ``ROOT/home/x`` (the temporary HOME of every run)
- relative ``x``      -> ``ROOT/work/x`` (the working directory of every run, Codex's workspace)
- absolute ``/x``     -> ``ROOT/fs/x`` (a mirror of ``/``; the real ``/x`` is never touched)

The engines get the policy with the same mapping applied (srt: every path made absolute;
Codex: absolute paths re-rooted, ``~`` and relative paths left to Codex's own HOME and
workspace), so a rule and its probe always name the same file. ``ROOT/outside`` is a directory
that no rule names. The one exception is the ``write-tmp`` probe, which creates and removes a
file in the real ``/tmp`` when no rule allows it: engines are known to open the system temp
directory on their own, and only the real one shows it.

Non-glob paths are created as directories with a file inside (read probes read that file); a
``denyWrite`` path is a file (the probe append-opens it) unless another probe needs it as a
directory, in which case a file inside it is used. Glob paths are probed at one concrete path
that matches the glob (``**`` -> one directory level, ``*`` -> ``twsrt-probe``).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Any

from twsrt.findings import Finding, finding
from twsrt.locations import Location
from twsrt.policy import Entry, PathRule, Policy, normalize_path

MARK = "TWSRT-PROBE"
NET_MARK = "TWSRT-PROBE-NET"
READ_NAME = ".twsrt-probe-read"
WRITE_NAME = ".twsrt-probe-write"
CREATE_NAME = ".twsrt-probe-create"
TAG = "twsrt-probe"
CANARY_HOSTS = ("twsrt-canary.invalid", "twsrt-canary.example", "twsrt-canary.test")
FIXTURE_TEXT = "twsrt probe fixture\n"
SRT_REQUIRED = {
    "network": ("allowedDomains", "deniedDomains"),
    "filesystem": ("denyRead", "allowWrite", "denyWrite"),
}
# Refusals by the domain policy; any other answer means the request got past the allow/deny
# lists (to the upstream, or to the engine's own private-address check).
REFUSAL_HEADERS = ("blocked-by-allowlist", "blocked-by-denylist")
PAST_POLICY_REASONS = ("not_allowed_local",)  # Codex: allowed host, refused for its address


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INVALID = "INVALID"
    ERROR = "ERROR"
    GAP = "GAP"


class Outcome(StrEnum):
    ALLOWED = "allowed"
    DENIED = "denied"


class Action(StrEnum):
    READ = "read"  # read one byte
    APPEND = "append"  # append-open that writes nothing
    CREATE = "create"  # create and remove a file in a directory
    FETCH = "fetch"  # one HTTP GET through the sandbox's proxy
    CONNECT = "connect"  # connect to a Unix socket


@dataclass(frozen=True)
class Probe:
    """One observable consequence of one policy rule."""

    kind: str  # deny-read, allow-read, deny-write, allow-write, write-outside, write-tmp, ...
    rule: str  # the policy entry as written (or a description for derived probes)
    origin: Location
    action: Action
    expect: Outcome
    target: str = ""  # ROOT-relative path, an absolute real path, or a URL
    glob: bool = False  # the rule is a glob pattern
    port: bool = False  # the domain rule names a port
    problem: str = ""  # why this probe cannot run (reported as ERROR)

    @property
    def name(self) -> str:
        return f"{self.kind} {self.rule}"


@dataclass(frozen=True)
class Fixtures:
    """What the fixture tree holds before any probe runs (ROOT-relative POSIX paths)."""

    dirs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    sockets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    probes: tuple[Probe, ...]
    fixtures: Fixtures


@dataclass(frozen=True)
class Observation:
    """One run of a probe command, with or without the sandbox."""

    ran: bool  # the probe printed its result line, so the command really ran
    outcome: Outcome | None
    exit_code: int | None
    output: str
    seconds: float = 0.0


@dataclass(frozen=True)
class Result:
    engine: str
    probe: Probe
    verdict: Verdict
    detail: str
    gap: Finding | None = None
    control: Observation | None = None
    sandboxed: Observation | None = None


@dataclass
class ProbeReport:
    """Everything ``twsrt test`` found; the reporters and the exit code read only this."""

    results: list[Result] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    strict: bool = False
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        out = {verdict.value: 0 for verdict in Verdict}
        for result in self.results:
            out[result.verdict.value] += 1
        return out

    def failing(self, result: Result) -> bool:
        if result.verdict is Verdict.GAP:
            return self.strict
        return result.verdict is not Verdict.PASS

    @property
    def exit_code(self) -> int:
        return 1 if any(self.failing(r) for r in self.results) else 0


# ------------------------------------------------------------------ paths and globs


def layout_path(path: str) -> str | None:
    """The ROOT-relative image of a policy path, or None when it leaves the tree (``../..``)."""
    if path == "~" or path.startswith("~/"):
        rel = "home/" + path[2:]
    elif path.startswith("/"):
        rel = "fs/" + path.lstrip("/")
    else:
        rel = "work/" + path
    norm = posixpath.normpath(rel)
    if norm == ".." or norm.startswith("../") or norm == ".":
        return None
    return norm


def engine_path(path: str, root: str) -> str:
    """The absolute path an engine is given for a policy path (total, unlike ``layout_path``)."""
    rel = layout_path(path)
    if rel is None:  # outside the tree: keep it outside, it cannot name a fixture
        return posixpath.normpath(posixpath.join(root, "work", path))
    return posixpath.join(root, rel)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a git-style glob: ``**`` spans directories, ``*``/``?`` stay in one."""
    return re.compile(_glob_body(pattern) + r"\Z", re.S)


def _glob_body(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append(r"(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(r".*")
            i += 2
            continue
        if char == "*":
            out.append(r"[^/]*")
        elif char == "?":
            out.append(r"[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
                i = end
        elif char == "{":
            end = pattern.find("}", i)
            if end < 0:
                out.append(re.escape(char))
            else:
                alts = pattern[i + 1 : end].split(",")
                out.append("(?:" + "|".join(_glob_body(alt) for alt in alts) + ")")
                i = end
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def instantiate(pattern: str, tag: str = TAG) -> str | None:
    """One concrete path that the glob matches, or None when no simple instance does."""
    parts = []
    for part in pattern.split("/"):
        parts.append(tag if part == "**" else _instantiate_part(part, tag))
    instance = "/".join(parts)
    return instance if glob_regex(pattern).match(instance) else None


def _instantiate_part(part: str, tag: str) -> str:
    out: list[str] = []
    i, n = 0, len(part)
    while i < n:
        char = part[i]
        if char == "*":
            while i + 1 < n and part[i + 1] == "*":
                i += 1
            out.append(tag)
        elif char == "?":
            out.append("x")
        elif char == "[" and part.find("]", i + 2) > 0:
            end = part.find("]", i + 2)
            out.append(_class_member(part[i + 1 : end]))
            i = end
        elif char == "{" and part.find("}", i) > 0:
            end = part.find("}", i)
            out.append(_instantiate_part(part[i + 1 : end].split(",")[0], tag))
            i = end
        elif char == "\\" and i + 1 < n:
            out.append(part[i + 1])
            i += 1
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _class_member(body: str) -> str:
    negate = body[:1] in ("!", "^")
    body = body[1:] if negate else body
    members: set[str] = set()
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            members.update(chr(c) for c in range(ord(body[i]), ord(body[i + 2]) + 1))
            i += 3
        else:
            members.add(body[i])
            i += 1
    if not negate:
        return min(members) if members else "x"
    return next((c for c in "xqz0123456789abc" if c not in members), "_")


@dataclass(frozen=True)
class Matcher:
    """One filesystem rule in the fixture tree: a path (covers its subtree) or a glob."""

    pattern: str
    glob: bool

    def covers(self, path: str) -> bool:
        if not self.glob:
            return path == self.pattern or path.startswith(self.pattern.rstrip("/") + "/")
        regex = glob_regex(self.pattern)
        node = PurePosixPath(path)
        return any(regex.match(str(p)) for p in (node, *node.parents) if str(p) != ".")


def _matchers(rules: Iterable[PathRule]) -> list[Matcher]:
    out = []
    for rule in rules:
        mapped = layout_path(rule.path) if not rule.glob else _layout_glob(rule.path)
        if mapped is not None:
            out.append(Matcher(mapped, rule.glob))
    return out


def _layout_glob(path: str) -> str | None:
    # normpath would fold "a/**/../b"; globs are mapped by their prefix only
    head = "home/" + path[2:] if path.startswith("~/") else None
    if head is None:
        head = "fs/" + path.lstrip("/") if path.startswith("/") else "work/" + path
    return head.replace("/./", "/").removesuffix("/.")


@dataclass(frozen=True)
class Semantics:
    """The canonical (srt) meaning of the filesystem lists, over fixture-tree paths."""

    deny_read: tuple[Matcher, ...]
    allow_read: tuple[Matcher, ...]
    allow_write: tuple[Matcher, ...]
    deny_write: tuple[Matcher, ...]

    @classmethod
    def of(cls, policy: Policy) -> Semantics:
        return cls(
            tuple(_matchers(policy.deny_read)),
            tuple(_matchers(policy.allow_read)),
            tuple(_matchers(policy.allow_write)),
            tuple(_matchers(policy.deny_write)),
        )

    def read_denied(self, path: str) -> bool:
        # allowRead re-opens reads inside a denied region (it wins over denyRead)
        return any(m.covers(path) for m in self.deny_read) and not any(
            m.covers(path) for m in self.allow_read
        )

    def write_allowed(self, path: str) -> bool:
        return any(m.covers(path) for m in self.allow_write) and not any(
            m.covers(path) for m in self.deny_write
        )


# ------------------------------------------------------------------ domains


def split_domain(entry: str) -> tuple[str, int | None]:
    from twsrt.agents.claude import split_port

    host, port = split_port(entry)
    return host.lower(), int(port) if port and port.isdigit() else None


def domain_matches(entry: str, host: str, port: int) -> bool:
    """srt's matcher: exact host, ``*.x`` = subdomains only, bare ``*`` (deny lists), ``:port``."""
    pattern, want_port = split_domain(entry)
    if want_port is not None and want_port != port:
        return False
    host = host.lower()
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def host_allowed(policy: Policy, host: str, port: int) -> bool:
    if any(domain_matches(e.value, host, port) for e in policy.denied_domains):
        return False  # deniedDomains is checked first and wins
    return any(domain_matches(e.value, host, port) for e in policy.allowed_domains)


def _instance_host(entry: str) -> tuple[str, int]:
    host, port = split_domain(entry)
    if host == "*":
        host = CANARY_HOSTS[0]
    elif host.startswith("*."):
        host = TAG + host[1:]
    return host, port or 80


def _url(host: str, port: int) -> str:
    return f"http://{host}/" if port == 80 else f"http://{host}:{port}/"


# ------------------------------------------------------------------ derivation


@dataclass
class _Draft:
    probe: Probe
    base: str  # ROOT-relative path the fixture is built around
    # "dir-file": a file inside the directory base; "file": base is the file; "dir": the probe
    # creates a file in base; "socket", "net", "real" (a real path outside the tree)
    shape: str


def derive(policy: Policy) -> Plan:
    """Every probe the policy implies, and the fixture tree they need (deterministic)."""
    sem = Semantics.of(policy)
    drafts: list[_Draft] = []
    seen: set[tuple[str, str]] = set()

    def add(draft: _Draft) -> None:
        key = (draft.probe.kind, draft.base if draft.base else draft.probe.rule)
        if key not in seen:
            seen.add(key)
            drafts.append(draft)

    for rule in policy.deny_read:
        draft = _path_draft("deny-read", rule, Action.READ, Outcome.DENIED, "dir-file")
        # a denyRead that allowRead re-opens entirely is not in effect: nothing to probe
        if draft.probe.problem or sem.read_denied(_probe_file(draft, READ_NAME)):
            add(draft)
    for rule in policy.allow_read:
        draft = _path_draft("allow-read", rule, Action.READ, Outcome.ALLOWED, "dir-file")
        target = _probe_file(draft, READ_NAME)
        # only a re-allow inside a denied region says anything: reads are allowed by default
        if draft.probe.problem or any(m.covers(target) for m in sem.deny_read):
            add(draft)
    for rule in policy.deny_write:
        add(_path_draft("deny-write", rule, Action.APPEND, Outcome.DENIED, "file"))
    for rule in policy.allow_write:
        draft = _path_draft("allow-write", rule, Action.CREATE, Outcome.ALLOWED, "dir")
        target = f"{draft.base}/{CREATE_NAME}"
        # a root that a deny overrides is not in effect (check reports TWS204/TWS205)
        if draft.probe.problem or (sem.write_allowed(target) and not sem.read_denied(target)):
            add(draft)
    outside = Probe(
        "write-outside",
        "a directory outside every allowWrite root",
        Location(policy.srt_display, pointer="/filesystem/allowWrite"),
        Action.CREATE,
        Outcome.ALLOWED if sem.write_allowed(f"outside/{CREATE_NAME}") else Outcome.DENIED,
        "outside",
    )
    add(_Draft(outside, "outside", "dir"))
    if not _canonical_write_allowed(policy, f"/tmp/{CREATE_NAME}"):
        tmp = Probe(
            "write-tmp",
            "/tmp (no allowWrite rule covers it)",
            Location(policy.srt_display, pointer="/filesystem/allowWrite"),
            Action.CREATE,
            Outcome.DENIED,
            "/tmp",
        )
        add(_Draft(tmp, "/tmp", "real"))
    _socket_drafts(policy, add)
    _domain_drafts(policy, add)
    return _resolve(drafts)


def _path_draft(kind: str, rule: PathRule, action: Action, expect: Outcome, shape: str) -> _Draft:
    problem = ""
    if rule.glob:
        mapped = _layout_glob(rule.path)
        base = instantiate(mapped) if mapped else None
        if base is None:
            problem = f"no concrete path matching glob '{rule.path}' could be made"
        shape = "dir" if shape == "dir" else "file"
    else:
        base = layout_path(rule.path)
        if base is None:
            problem = f"'{rule.path}' leaves the fixture tree"
    probe = Probe(kind, rule.path, rule.origin, action, expect, glob=rule.glob, problem=problem)
    return _Draft(probe, base or "", shape)


def _probe_file(draft: _Draft, name: str) -> str:
    return f"{draft.base}/{name}" if draft.shape == "dir-file" else draft.base


def _canonical_write_allowed(policy: Policy, path: str) -> bool:
    """Write semantics over real absolute paths (for the one probe outside the tree)."""
    absolute = [r for r in policy.allow_write if r.path.startswith("/")]
    denies = [r for r in policy.deny_write if r.path.startswith("/")]

    def covers(rule: PathRule) -> bool:
        return Matcher(rule.path, rule.glob).covers(path)

    return any(covers(r) for r in absolute) and not any(covers(r) for r in denies)


def _socket_drafts(policy: Policy, add: Any) -> None:
    network = policy.srt.get("network", {})
    for index, path in enumerate(network.get("allowUnixSockets", [])):
        origin = policy.srt_location(f"/network/allowUnixSockets/{index}")
        path = normalize_path(path)
        base = layout_path(path) if path.startswith(("/", "~/")) else None
        problem = "" if base else f"'{path}' is not an absolute socket path"
        probe = Probe(
            "allow-unix-socket", path, origin, Action.CONNECT, Outcome.ALLOWED, problem=problem
        )
        add(_Draft(probe, base or "", "socket"))


def _domain_drafts(policy: Policy, add: Any) -> None:
    def domain_probe(kind: str, entry: Entry) -> _Draft:
        host, port = _instance_host(entry.value)
        expect = Outcome.ALLOWED if host_allowed(policy, host, port) else Outcome.DENIED
        has_port = split_domain(entry.value)[1] is not None
        url = _url(host, port)
        probe = Probe(kind, entry.value, entry.origin, Action.FETCH, expect, url, port=has_port)
        return _Draft(probe, "", "net")

    for entry in policy.allowed_domains:
        add(domain_probe("allow-domain", entry))
    canary = next((h for h in CANARY_HOSTS if not host_allowed(policy, h, 80)), None)
    if canary is not None:
        origin = Location(policy.srt_display, pointer="/network/allowedDomains")
        probe = Probe(
            "canary-domain", canary, origin, Action.FETCH, Outcome.DENIED, _url(canary, 80)
        )
        add(_Draft(probe, "", "net"))
    for entry in policy.denied_domains:
        add(domain_probe("deny-domain", entry))


def _resolve(drafts: list[_Draft]) -> Plan:
    """Decide which fixture paths are directories and which are files, and fix each target."""
    dirs: set[str] = set()
    wanted_files: set[str] = set()
    sockets: set[str] = set()
    for draft in drafts:
        if draft.probe.problem or not draft.base or draft.shape in ("net", "real"):
            continue
        base = draft.base
        dirs.update(str(p) for p in PurePosixPath(base).parents if str(p) != ".")
        if draft.shape in ("dir-file", "dir"):
            dirs.add(base)
        elif draft.shape == "file":
            wanted_files.add(base)
        elif draft.shape == "socket":
            sockets.add(base)
    files: set[str] = set()
    probes: list[Probe] = []
    for draft in drafts:
        probe = draft.probe
        if probe.problem or draft.shape == "net":
            probes.append(probe)
            continue
        if draft.shape == "real":
            probes.append(replace(probe, target=f"{draft.base}/{CREATE_NAME}"))
            continue
        base = draft.base
        if draft.shape == "dir-file" or (draft.shape == "file" and base in dirs):
            name = READ_NAME if probe.action is Action.READ else WRITE_NAME
            target = f"{base}/{name}"
            files.add(target)
        elif draft.shape == "file":
            target = base
            files.add(target)
        elif draft.shape == "dir":
            target = f"{base}/{CREATE_NAME}"
        else:  # socket
            target = base
        probes.append(replace(probe, target=target))
    # the standard directories exist even when no rule names them
    dirs.update(("home", "work", "fs", "outside"))
    files -= dirs
    fixtures = Fixtures(tuple(sorted(dirs)), tuple(sorted(files)), tuple(sorted(sockets)))
    return Plan(tuple(probes), fixtures)


def select(plan: Plan, engine: str, keyword: str | None) -> list[Probe]:
    """The probes whose ``engine: kind rule`` name contains ``keyword`` (case-insensitive)."""
    if not keyword:
        return list(plan.probes)
    needle = keyword.lower()
    return [p for p in plan.probes if needle in f"{engine}: {p.name}".lower()]


# ------------------------------------------------------------------ engine inputs


def _map_entry(item: Any, mapper: Any) -> Any:
    if isinstance(item, dict) and "path" in item:
        return {**item, "path": mapper(item["path"])}
    return mapper(item) if isinstance(item, str) else item


def srt_settings(policy: Policy, root: str) -> dict[str, Any]:
    """The canonical srt settings with every path made absolute inside the fixture tree."""
    settings = json.loads(json.dumps(policy.srt))  # deep copy; only paths change

    def mapper(path: str) -> str:
        return engine_path(normalize_path(path), root)

    # twsrt lets a policy omit lists that srt requires; an absent list and an empty one mean
    # the same, and srt refuses to start without them
    for section, keys in SRT_REQUIRED.items():
        part = settings.setdefault(section, {})
        if isinstance(part, dict):
            for key in keys:
                part.setdefault(key, [])
    filesystem = settings.get("filesystem")
    if isinstance(filesystem, dict):
        for key in ("denyRead", "allowRead", "allowWrite", "denyWrite"):
            if isinstance(filesystem.get(key), list):
                filesystem[key] = [_map_entry(item, mapper) for item in filesystem[key]]
    network = settings.get("network")
    if isinstance(network, dict) and isinstance(network.get("allowUnixSockets"), list):
        network["allowUnixSockets"] = [_map_entry(p, mapper) for p in network["allowUnixSockets"]]
    return settings


def codex_policy(policy: Policy, root: str) -> Policy:
    """The policy with absolute paths re-rooted into the tree; Codex anchors ``~`` at the
    temporary HOME and relative paths at its workspace (the working directory) itself."""

    def mapper(path: str) -> str:
        return engine_path(path, root) if path.startswith("/") else path

    def rules(items: list[PathRule]) -> list[PathRule]:
        return [replace(rule, path=normalize_path(mapper(rule.path))) for rule in items]

    srt = json.loads(json.dumps(policy.srt))
    network = srt.get("network")
    if isinstance(network, dict) and isinstance(network.get("allowUnixSockets"), list):
        network["allowUnixSockets"] = [_map_entry(p, mapper) for p in network["allowUnixSockets"]]
    return replace(
        policy,
        srt=srt,
        deny_read=rules(policy.deny_read),
        allow_read=rules(policy.allow_read),
        allow_write=rules(policy.allow_write),
        deny_write=rules(policy.deny_write),
    )


# ------------------------------------------------------------------ probe commands

FETCH_SCRIPT = r"""
import json, os, sys, urllib.error, urllib.request
# Always through the proxy the sandbox names: srt lists localhost in NO_PROXY.
for name in ("no_proxy", "NO_PROXY"):
    os.environ.pop(name, None)
proxy = os.environ.get("http_proxy") or os.environ.get("HTTP_PROXY")
opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy} if proxy else {}))
res = {}
try:
    with opener.open(sys.argv[1], timeout=float(sys.argv[2])) as r:
        res = {"status": r.status, "upstream": r.headers.get("x-twsrt-upstream")}
except urllib.error.HTTPError as e:
    body, reason = e.read(4096).decode("utf-8", "replace"), None
    try:
        reason = json.loads(body).get("reason")
    except Exception:
        pass
    res = {"status": e.code, "xpe": e.headers.get("x-proxy-error"), "reason": reason}
except Exception as e:
    res = {"error": f"{type(e).__name__}: {e}"}
print("TWSRT-PROBE-NET " + json.dumps(res))
"""

CONNECT_SCRIPT = r"""
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    print("TWSRT-PROBE allowed")
except OSError as e:
    print("TWSRT-PROBE denied", e)
"""


def _verdict_shell(test: str) -> str:
    return f"if {test}; then echo '{MARK} allowed'; else echo '{MARK} denied'; fi"


def command(probe: Probe, root: str, python: str, index: int = 0, net_timeout: float = 15) -> str:
    """The ``sh -c`` text of one probe, with the fixture tree at ``root``."""
    path = probe.target if probe.target.startswith("/") else posixpath.join(root, probe.target)
    if probe.action is Action.READ:
        return _verdict_shell(f"head -c 1 -- {shlex.quote(path)} >/dev/null")
    if probe.action is Action.APPEND:
        # `true >> f` opens f for appending and writes nothing; `true` is not a special
        # built-in, so a refused redirection fails the test instead of ending the shell
        return _verdict_shell(f"true >> {shlex.quote(path)}")
    if probe.action is Action.CREATE:
        unique = f"{path}-{index}"
        return (
            f"f={shlex.quote(unique)}; "
            f'if true > "$f"; then rm -f -- "$f"; echo \'{MARK} allowed\'; '
            f"else echo '{MARK} denied'; fi"
        )
    if probe.action is Action.FETCH:
        argv = [python, "-c", FETCH_SCRIPT, probe.target, str(net_timeout)]
        return " ".join(shlex.quote(a) for a in argv)
    argv = [python, "-c", CONNECT_SCRIPT, path]
    return " ".join(shlex.quote(a) for a in argv)


def classify_fetch(result: dict[str, Any]) -> Outcome:
    """Offline, the proxy's answer is the observable: a refusal by the allow/deny lists is
    DENIED; any answer from past them (the upstream, an upstream error, or Codex's
    private-address check) is ALLOWED; no answer at all means the network is cut: DENIED."""
    if "status" not in result:
        return Outcome.DENIED
    header = str(result.get("xpe") or "").lower()
    refused = (
        result["status"] == 403
        and header in REFUSAL_HEADERS
        and result.get("reason") not in PAST_POLICY_REASONS
    )
    return Outcome.DENIED if refused else Outcome.ALLOWED


def observe(probe: Probe, exit_code: int | None, output: str, seconds: float = 0.0) -> Observation:
    """Parse a probe run's output; without the result line the command did not run."""
    outcome: Outcome | None = None
    for line in output.splitlines():
        if probe.action is Action.FETCH and line.startswith(NET_MARK + " "):
            try:
                outcome = classify_fetch(json.loads(line[len(NET_MARK) + 1 :]))
            except (ValueError, TypeError):
                outcome = None
        elif probe.action is not Action.FETCH and line.startswith(MARK + " "):
            word = line[len(MARK) + 1 :].split(" ", 1)[0]
            outcome = Outcome(word) if word in ("allowed", "denied") else None
    return Observation(outcome is not None, outcome, exit_code, _tail(output), seconds)


def _tail(output: str, limit: int = 2000) -> str:
    text = output.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


# ------------------------------------------------------------------ gaps and verdicts


def explain_gap(
    engine: str, probe: Probe, observed: Outcome, policy: Policy, platform: str
) -> Finding | None:
    """The documented engine limitation that explains a mismatch, as a finding at the rule."""
    linux = platform.startswith("linux")

    def gap(name: str, message: str) -> Finding:
        return finding(name, message, probe.origin, agent=engine)

    if engine == "srt" and linux:
        if probe.kind == "deny-write" and probe.glob and observed is Outcome.ALLOWED:
            return gap(
                "srt-linux-write-glob",
                f"srt on Linux skips glob '{probe.rule}' in denyWrite; matching files stay "
                "writable inside allowWrite roots",
            )
        if probe.kind == "allow-write" and probe.glob and observed is Outcome.DENIED:
            return gap(
                "srt-linux-write-glob",
                f"srt on Linux skips glob '{probe.rule}' in allowWrite; it grants nothing",
            )
        if probe.kind == "allow-unix-socket" and observed is Outcome.DENIED:
            return gap(
                "srt-linux-unix-sockets",
                f"srt on Linux ignores allowUnixSockets; '{probe.rule}' is blocked with every "
                "other Unix socket (only allowAllUnixSockets opens them)",
            )
    if engine == "codex":
        if probe.kind == "write-tmp" and observed is Outcome.ALLOWED:
            return gap(
                "codex-temp-writable",
                "Codex's :workspace base profile lets sandboxed commands write /tmp and $TMPDIR "
                "although no allowWrite rule names them",
            )
        if probe.kind == "allow-read" and observed is Outcome.DENIED:
            return gap(
                "codex-no-allow-read",
                f"the Codex profile has no allowRead: '{probe.rule}' stays denied with the "
                "denyRead region around it",
            )
        cut = next((e for e in policy.denied_domains if split_domain(e.value)[0] == "*"), None)
        if probe.action is Action.FETCH and cut is not None and observed is Outcome.DENIED:
            return gap(
                "lossy-port-domain",
                f"deniedDomains '{cut.value}' ({cut.origin}) cannot be a Codex domain rule, so "
                "twsrt switches Codex's network off: every host is refused",
            )
        if probe.kind == "allow-domain" and observed is Outcome.DENIED:
            host, _ = _instance_host(probe.rule)
            for entry in policy.denied_domains:
                pattern, port = split_domain(entry.value)
                if port is not None and domain_matches(pattern, host, 80):
                    return gap(
                        "lossy-port-domain",
                        f"Codex domain rules take no port: deniedDomains '{entry.value}' "
                        f"({entry.origin}) denies the host on every port",
                    )
        if probe.kind == "allow-domain" and probe.port and observed is Outcome.DENIED:
            return gap(
                "lossy-port-domain",
                f"Codex domain rules take no port; '{probe.rule}' is not allowed",
            )
        if probe.kind == "allow-write" and observed is Outcome.DENIED and _codex_skips(probe):
            return gap(
                "lossy-write-root",
                f"allowWrite '{probe.rule}' cannot be a Codex workspace root and is skipped",
            )
        if probe.kind == "allow-unix-socket" and observed is Outcome.DENIED and linux:
            return gap(
                "codex-linux-unix-sockets",
                f"Codex on Linux gives its sandbox no Unix sockets; '{probe.rule}' is blocked",
            )
    return None


def _codex_skips(probe: Probe) -> bool:
    """Mirrors the allowWrite roots the Codex translation drops (TWS408)."""
    path = probe.rule.removesuffix("/**")
    return probe.glob or path in ("~", "/")


def judge(
    probe: Probe,
    control: Observation | None,
    sandboxed: Observation | None,
    gap: Finding | None = None,
) -> tuple[Verdict, str]:
    """PASS / FAIL / INVALID / ERROR / GAP for one probe, with a one-line reason."""
    if probe.problem:
        return Verdict.ERROR, probe.problem
    if control is None or not control.ran:
        why = control.output.splitlines()[-1] if control and control.output else "no output"
        return Verdict.INVALID, f"the control could not run without the sandbox ({why})"
    if control.outcome is not Outcome.ALLOWED:
        return (
            Verdict.INVALID,
            f"the control was {control.outcome} without the sandbox, so a denial proves nothing",
        )
    if sandboxed is None or not sandboxed.ran:
        why = sandboxed.output.splitlines()[-1] if sandboxed and sandboxed.output else "no output"
        code = sandboxed.exit_code if sandboxed else None
        return Verdict.ERROR, f"the sandboxed run gave no result (exit {code}: {why})"
    said = f"{_action_text(probe)} was {sandboxed.outcome}"
    if sandboxed.outcome is probe.expect:
        return Verdict.PASS, f"{said}, as the policy says"
    if gap is not None:
        return Verdict.GAP, f"{said}, the policy says {probe.expect} (engine gap {gap.rule_id})"
    return Verdict.FAIL, f"{said}, but the policy says {probe.expect}"


def _action_text(probe: Probe) -> str:
    return {
        Action.READ: f"reading {probe.target}",
        Action.APPEND: f"opening {probe.target} for writing",
        Action.CREATE: f"creating a file in {posixpath.dirname(probe.target)}",
        Action.FETCH: f"fetching {probe.target}",
        Action.CONNECT: f"connecting to {probe.target}",
    }[probe.action]


def static_gaps(policy: Policy, platform: str = "linux") -> list[Finding]:
    """Engine limitations that the policy runs into, without running anything (for ``check``)."""
    found: list[Finding] = []
    if platform.startswith("linux"):
        for rule in [*policy.deny_write, *policy.allow_write]:
            if rule.glob:
                found.append(
                    finding(
                        "srt-linux-write-glob",
                        f"srt on Linux skips glob '{rule.path}' in write lists",
                        rule.origin,
                        agent="srt",
                    )
                )
        network = policy.srt.get("network", {})
        for index, path in enumerate(network.get("allowUnixSockets", [])):
            if not network.get("allowAllUnixSockets"):
                found.append(
                    finding(
                        "srt-linux-unix-sockets",
                        f"srt on Linux ignores allowUnixSockets; '{path}' stays blocked",
                        policy.srt_location(f"/network/allowUnixSockets/{index}"),
                        agent="srt",
                    )
                )
    return found


# ------------------------------------------------------------------ reports

REPORT_VERSION = 1
_COLOURS = {
    Verdict.PASS: "32",
    Verdict.GAP: "33",
    Verdict.FAIL: "31",
    Verdict.INVALID: "35",
    Verdict.ERROR: "31",
}


def render_text(report: ProbeReport, *, colour: bool = False, verbose: bool = False) -> str:
    """One line per probe (failures first within each engine), then a summary line."""
    out: list[str] = []
    for engine in report.engines:
        results = [r for r in report.results if r.engine == engine]
        for result in results:
            if result.verdict is Verdict.PASS and not verbose:
                continue
            word = f"{result.verdict.value:7}"
            if colour:
                word = f"\x1b[{_COLOURS[result.verdict]}m{word}\x1b[0m"
            out.append(f"{engine:5} {word} {result.probe.name}  ({result.probe.origin})")
            out.append(f"              {result.detail}")
            if result.gap is not None:
                rule = result.gap.rule
                out.append(f"              {result.gap.rule_id} {rule.name}: {result.gap.message}")
            if result.verdict in (Verdict.FAIL, Verdict.ERROR, Verdict.INVALID):
                for label, seen in (("control", result.control), ("sandbox", result.sandboxed)):
                    if seen is not None and seen.output and (verbose or not seen.ran):
                        tail = seen.output.splitlines()[-3:]
                        out.extend(f"              {label}: {line}" for line in tail)
    out.append(summary(report))
    return "\n".join(out) + "\n"


def summary(report: ProbeReport) -> str:
    parts = []
    for engine in report.engines:
        results = [r for r in report.results if r.engine == engine]
        counts = {v: sum(1 for r in results if r.verdict is v) for v in Verdict}
        shown = ", ".join(f"{n} {v.value.lower()}" for v, n in counts.items() if n)
        noun = "probe" if len(results) == 1 else "probes"
        parts.append(f"{engine}: {len(results)} {noun} ({shown or 'none'})")
    tail = f"; {report.seconds:.1f}s" if report.seconds else ""
    strict = " (--strict: gaps fail)" if report.strict else ""
    return f"twsrt test: {'; '.join(parts)}{tail}{strict}"


def _location(location: Location) -> dict[str, Any]:
    return {
        "path": location.path,
        "line": location.line,
        "column": location.column,
        "pointer": location.pointer,
    }


def _observation(seen: Observation | None) -> dict[str, Any] | None:
    if seen is None:
        return None
    return {
        "ran": seen.ran,
        "outcome": seen.outcome.value if seen.outcome else None,
        "exit_code": seen.exit_code,
        "seconds": round(seen.seconds, 3),
        "output": seen.output,
    }


def render_json(report: ProbeReport) -> str:
    from twsrt import __version__

    results = []
    for result in report.results:
        probe = result.probe
        gap = result.gap
        results.append(
            {
                "engine": result.engine,
                "name": probe.name,
                "kind": probe.kind,
                "rule": probe.rule,
                "location": _location(probe.origin),
                "action": probe.action.value,
                "target": probe.target,
                "expect": probe.expect.value,
                "verdict": result.verdict.value,
                "failing": report.failing(result),
                "detail": result.detail,
                "gap": None
                if gap is None
                else {
                    "rule_id": gap.rule_id,
                    "rule_name": gap.rule.name,
                    "level": gap.level.value,
                    "message": gap.message,
                },
                "control": _observation(result.control),
                "sandboxed": _observation(result.sandboxed),
            }
        )
    document = {
        "version": REPORT_VERSION,
        "tool": {"name": "twsrt", "version": __version__},
        "summary": {
            **report.counts(),
            "probes": len(report.results),
            "engines": report.engines,
            "strict": report.strict,
            "exit_code": report.exit_code,
        },
        "results": results,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def junit_xml(report: ProbeReport) -> str:
    """One testsuite per engine, one testcase per probe; failing exactly as the exit code."""
    from junit_xml import TestCase, TestSuite, to_xml_report_string

    suites = []
    for engine in report.engines:
        cases = []
        seen: set[str] = set()
        for result in (r for r in report.results if r.engine == engine):
            probe = result.probe
            name = probe.name
            n = 1
            while name in seen:  # the same rule twice in a list: unique testcase names
                n += 1
                name = f"{probe.name} #{n}"
            seen.add(name)
            line = str(probe.origin.line) if probe.origin.line else None
            case = TestCase(
                name,
                classname=f"twsrt.test.{engine}.{probe.kind}",
                file=probe.origin.path,
                line=line,
                elapsed_sec=(result.sandboxed.seconds if result.sandboxed else 0.0),
            )
            text = _case_text(result)
            if result.verdict is Verdict.ERROR:
                case.add_error_info(f"ERROR: {result.detail}", text, "error")
            elif report.failing(result):
                case.add_failure_info(
                    f"{result.verdict.value}: {result.detail}", text, result.verdict.value
                )
            else:
                case.stdout = text
            cases.append(case)
        suites.append(TestSuite(f"twsrt test {engine}", cases))
    return to_xml_report_string(suites, prettyprint=True, encoding="utf-8")


def _case_text(result: Result) -> str:
    lines = [f"{result.verdict.value}: {result.detail}", f"rule at {result.probe.origin}"]
    if result.gap is not None:
        lines.append(result.gap.render())
    for label, seen in (("control", result.control), ("sandboxed", result.sandboxed)):
        if seen is not None:
            lines.append(f"{label}: exit {seen.exit_code}, {seen.outcome}")
            lines += [f"  {line}" for line in seen.output.splitlines()[-10:]]
    return "\n".join(lines) + "\n"
