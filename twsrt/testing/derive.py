"""Every probe the policy implies, and the fixture tree they need (pure, deterministic)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from twsrt.findings import quoted
from twsrt.policy import PathRule, Policy, normalize_path
from twsrt.records import record
from twsrt.testing.domains import domain_probes
from twsrt.testing.globs import (
    Matcher,
    Semantics,
    depth_instances,
    instantiate,
    layout_glob,
    layout_path,
)
from twsrt.testing.model import (
    CREATE_NAME,
    READ_NAME,
    WRITE_NAME,
    Action,
    DepthProbe,
    Fixtures,
    Outcome,
    Plan,
    Probe,
)


@record(frozen=False)
class _Draft:
    probe: Probe
    base: str  # ROOT-relative path the fixture is built around
    # "dir-file": a file inside the directory base; "file": base is the file; "dir": the probe
    # creates a file in base; "socket", "net", "real" (a real path outside the tree)
    shape: str


def derive(policy: Policy, depths: bool = False) -> Plan:
    """Every probe the policy implies, and the fixture tree they need (deterministic);
    ``depths``: also probe each relative ``**/`` deny at several depths below the launch
    directory (a project-scope run, where the launch directory is the project root)."""
    sem = Semantics.of(policy)
    drafts: list[_Draft] = []
    seen: set[tuple[str, str]] = set()

    def add(draft: _Draft) -> None:
        key = (draft.probe.kind, draft.base if draft.base else draft.probe.name)
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
    for draft in _depth_drafts(policy, sem, depths):
        add(draft)
    for rule in policy.allow_write:
        draft = _path_draft("allow-write", rule, Action.CREATE, Outcome.ALLOWED, "dir")
        target = f"{draft.base}/{CREATE_NAME}"
        # a root that a deny overrides is not in effect (check reports TWS204/TWS205)
        if draft.probe.problem or (sem.write_allowed(target) and not sem.read_denied(target)):
            add(draft)
    outside = Probe(
        "write-outside",
        "a directory outside every allowWrite root",
        policy.list_origin("/filesystem/allowWrite"),
        Action.CREATE,
        Outcome.ALLOWED if sem.write_allowed(f"outside/{CREATE_NAME}") else Outcome.DENIED,
        "outside",
    )
    add(_Draft(outside, "outside", "dir"))
    if not _canonical_write_allowed(policy, f"/tmp/{CREATE_NAME}"):
        tmp = Probe(
            "write-tmp",
            "/tmp (no allowWrite rule covers it)",
            policy.list_origin("/filesystem/allowWrite"),
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
        mapped = layout_glob(rule.path)
        base = instantiate(mapped) if mapped else None
        if base is None:
            problem = f"no concrete path matching glob '{quoted(rule.path)}' could be made"
        shape = "dir" if shape == "dir" else "file"
    else:
        base = layout_path(rule.path)
        if base is None:
            problem = f"'{quoted(rule.path)}' leaves the fixture tree"
    probe = Probe(kind, rule.path, rule.origin, action, expect, glob=rule.glob, problem=problem)
    return _Draft(probe, base or "", shape)


def _depth_drafts(policy: Policy, sem: Semantics, depths: bool) -> list[_Draft]:
    """With ``depths``, the relative ``**/`` denies at each depth of ``globs.DEPTHS`` (a read
    expects what the policy says there: an allowRead may re-open it)."""
    out: list[_Draft] = []
    if not depths:
        return out
    for kind, rules, action in (
        ("deny-read", policy.deny_read, Action.READ),
        ("deny-write", policy.deny_write, Action.APPEND),
    ):
        for rule in rules:
            for depth, _mapped, instance in depth_instances(rule):
                expect = Outcome.DENIED
                if kind == "deny-read" and not sem.read_denied(instance):
                    expect = Outcome.ALLOWED
                probe = DepthProbe(
                    kind, rule.path, rule.origin, action, expect, glob=True, depth=depth
                )
                out.append(_Draft(probe, instance, "file"))
    return out


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
        problem = "" if base else f"'{quoted(path)}' is not an absolute socket path"
        probe = Probe(
            "allow-unix-socket", path, origin, Action.CONNECT, Outcome.ALLOWED, problem=problem
        )
        add(_Draft(probe, base or "", "socket"))


def _domain_drafts(policy: Policy, add: Any) -> None:
    for probe in domain_probes(policy):
        add(_Draft(probe, "", "net"))


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
