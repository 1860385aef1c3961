"""What a Codex command must not leave behind for a later launch: srt's mandatory write
protections and every agent's project layers at the top of each write root, and the pins that
keep a deny's ancestors from being renamed aside when Codex starts above the deny.

Observed with Codex 0.171.0 (tests/real/test_codex_launches.py):

- Codex keeps ``.git``, ``.codex`` and ``.agents`` read-only at the top of every write entry
  (a read-only placeholder when they are missing), so the hooks and config of a repository at a
  write root, and Codex's own project layer there, are protected by Codex itself. Nothing else
  of srt's mandatory set is: a command writes ``.bashrc``, ``.vscode/``, ``.mcp.json``, ...
- An exact ``"read"`` entry that does not exist when the sandbox starts is masked at its first
  missing component: neither it nor that missing parent can be created. An existing parent is
  pinned (a write entry of its own, a mount point), so it cannot be renamed aside either.
- A deny glob matches only the files that exist when the sandbox starts and denies reading
  too: it protects no directory and no file created later (a new hook in a nested repository),
  and ``**/.git/config`` stops git in that repository. So nothing below the top of a write root
  is compiled, and TWS465 says so at each write root.
- A relative write root hangs from the launch directory: with ``allowWrite: ["."]`` and
  ``denyWrite: ["~/dev/app/locked"]``, Codex started in ``~/dev`` let a command rename
  ``~/dev/app`` aside and recreate ``locked``. The deny's ancestors are pinned relative to the
  launch directory, once for every place above the deny Codex may start in (``app``,
  ``dev/app``, ``dev`` for starts in ``~/dev`` and ``~``); each pin lies inside the launch
  directory, which that write root makes writable anyway. A ``"write"`` entry wins over a
  ``"read"`` entry of the same path and over one above it, so a pin that could land on or
  below another read-only or denied entry, wherever Codex starts, is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from twsrt.agents import rootnames
from twsrt.agents.codex.declaration import CODEX_KEEPS, WORKSPACE, _lossy
from twsrt.agents.codex.rules import (
    CODEX_LAUNCH_PINS,
    CODEX_LAUNCH_PINS_DEPTH,
    CODEX_NESTED_UNPROTECTED,
    CODEX_RELATIVE_MEETS_ABSOLUTE,
    CODEX_WHOLE_DIRECTORY,
)
from twsrt.findings import Finding, quoted
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy, is_glob
from twsrt.rules import LOSSY_WRITE_ROOT

# Codex may start this many directories above a deny's parent and still find its ancestors
# pinned; a deeper deny is reported (TWS466). The pins grow with the square of this depth.
LAUNCH_DEPTH = 16

HELD = ("read", "deny")


def protected_names(policy: Policy) -> tuple[str, ...]:
    """What twsrt keeps read-only at the top of every Codex write root: the protected names
    ``policy`` carries (``agents/rootnames.py``: srt's mandatory set, every agent's project
    layers), each by its first component (``.claude/commands`` as ``.claude``), each once; not
    what Codex keeps itself (``CODEX_KEEPS``). Codex 0.171.0 fails to start when two missing
    entries share a missing directory (``.claude/commands`` and ``.claude/agents`` in a
    checkout without ``.claude``: "Unable to mount source on destination"), so a directory
    holding several is read-only whole."""
    return tuple(_top_names(_named(policy))[0])


def widened_dirs(policy: Policy) -> dict[str, tuple[str, ...]]:
    """The directories made read-only whole, with the protected paths inside them."""
    return dict(_top_names(_named(policy))[1])


def _named(policy: Policy) -> tuple[str, ...]:
    return tuple(name for name, _tree in rootnames.of(policy))


@cache  # one set of names per registry: every compile asks again
def _top_names(named: tuple[str, ...]) -> tuple[dict[str, None], dict[str, tuple[str, ...]]]:
    names: dict[str, None] = {}
    inside: dict[str, list[str]] = {}
    for name in named:
        top, _, rest = name.strip("/").partition("/")
        if top in CODEX_KEEPS:
            continue
        names.setdefault(top, None)
        if rest:
            inside.setdefault(top, []).append(name)
    return names, {top: tuple(dict.fromkeys(paths)) for top, paths in inside.items()}


def root_findings(roots: list[PathRule], policy: Policy) -> list[Finding]:
    """TWS465 at each write root (what Codex cannot protect below its top level) and, once at
    the first, TWS468 (the directories read-only whole)."""
    whole = widened_dirs(policy)
    out = [_whole_note(roots[0], whole)] if roots and whole else []
    return out + [
        _lossy(
            CODEX_NESTED_UNPROTECTED,
            f"below the top of write root '{quoted(root.path)}', Codex cannot keep commands "
            "from creating or changing what srt protects at any depth and what a later launch "
            "runs or loads outside the sandbox: a nested repository's .git/hooks and "
            ".git/config, .vscode/, .idea/, shell rc files, .gitconfig, .gitmodules, "
            ".ripgreprc, and the agents' project layers (.codex/config.toml, "
            ".claude/settings.json, .mcp.json, ...); twsrt protects them at the top of the "
            "root only. Keep other repositories and projects out of the write root, or run "
            "Codex under srt (docs/never-widen.md)",
            root.origin,
        )
        for root in roots
    ]


def _whole_note(root: PathRule, whole: dict[str, tuple[str, ...]]) -> Finding:
    shown = "; ".join(
        f"'{top}' for {', '.join(quoted(path) for path in paths)}" for top, paths in whole.items()
    )
    return _lossy(
        CODEX_WHOLE_DIRECTORY,
        f"at the top of every write root, Codex keeps these directories read-only whole, not "
        f"only the protected paths inside them: {shown} (its sandbox fails to start when two "
        "entries below one missing directory are read-only)",
        root.origin,
    )


def _parts(path: str) -> tuple[str, list[str]] | None:
    """(base, components) of an absolute or ``~/`` path: ``~/a/b`` -> ("~", [a, b])."""
    if path.startswith("~/"):
        return "~", [p for p in path[2:].split("/") if p]
    if path.startswith("/"):
        return "/", [p for p in path[1:].split("/") if p]
    return None


class _ReadOnly:
    """The absolute read-only and denied entries a launch-relative write entry must not land on
    or below, wherever Codex starts: by last component, so an entry's prefixes are looked up,
    not compared with every entry."""

    def __init__(self, entries: list[str]) -> None:
        self.by_last: dict[str, list[tuple[str, list[str]]]] = {}
        self.held: set[tuple[str, tuple[str, ...]]] = set()
        for entry in entries:
            split = _parts(entry)
            if split is not None and split[1]:
                self.by_last.setdefault(split[1][-1], []).append((entry, split[1]))
                self.held.add((split[0], tuple(split[1])))

    def hit(self, sub: list[str]) -> str | None:
        """The first entry that ends with one of ``sub``'s leading parts: started just above
        it, Codex would find ``sub`` on or below it. A start that is itself inside a held entry
        does not count: there the launch directory's own write entry wins already (the gap
        docs/agents/codex.md names)."""
        for length in range(1, len(sub) + 1):
            head = sub[:length]
            for entry, parts in self.by_last.get(head[-1], ()):
                if parts[-len(head) :] == head and not self._inside(entry, parts[: -len(head)]):
                    return entry
        return None

    def _inside(self, entry: str, start: list[str]) -> bool:
        base = "~" if entry.startswith("~") else "/"
        return any((base, tuple(start[:n])) in self.held for n in range(1, len(start) + 1))


def launch_pins(
    relative_roots: list[str],
    denies: list[PathRule],
    read_only: list[str],
    skip: Callable[[str], bool],
    findings: list[Finding],
) -> list[str]:
    """The ``:workspace_roots`` sub-paths to pin for absolute and ``~/`` denies below a
    relative write root, in a stable order.

    For a root ``R`` (``.`` or below the launch directory L) and a deny ``base/P1/.../Pn``:
    wherever L/R is a proper ancestor ``base/P1..Pm`` of the deny's parent, the directories
    ``P(m+1)``, ..., ``P(m+1)/.../P(n-1)`` between them are pinned as ``R``-relative paths
    (R's own parts being ``P(s+1)..Pm`` for a start in ``base/P1..Ps``). A ``~/`` deny is
    pinned for starts at or below ``~`` only: the home's own path is the machine's. A pin is
    left out where it could land on or below an absolute entry of ``read_only`` (wherever
    Codex starts) or where ``skip`` says so (a relative deny covers it)."""
    blocked = _ReadOnly(read_only)
    pins: dict[str, None] = {}
    for deny in denies:
        split = _parts(deny.path)
        if split is None or is_glob(deny.path) or not relative_roots:
            continue
        made = _pins_for(split[1], relative_roots, blocked, skip, deny, findings)
        if made:
            pins.update(dict.fromkeys(made))
            findings.append(_pins_note(deny, made))
    return list(pins)


def _pins_for(
    parts: list[str],
    roots: list[str],
    blocked: _ReadOnly,
    skip: Callable[[str], bool],
    deny: PathRule,
    findings: list[Finding],
) -> list[str]:
    last = len(parts) - 1  # parts[:last] are the deny's proper ancestors below its base
    first = max(0, last - 1 - LAUNCH_DEPTH)
    if first > 0:
        findings.append(
            _lossy(
                CODEX_LAUNCH_PINS_DEPTH,
                f"'{quoted(deny.path)}' lies more than {LAUNCH_DEPTH} directories below "
                f"'{quoted('/'.join(parts[:first]) or '/')}': Codex started that far above "
                "it could rename a directory between its launch directory and the deny aside "
                "and recreate the denied path; start Codex closer to it",
                deny.origin,
            )
        )
    made: list[str] = []
    for root in roots:
        own = [] if root == "." else root.split("/")
        for start in range(first, last):  # Codex started in base/parts[:start]
            if parts[start : start + len(own)] != own:
                continue
            for end in range(start + len(own) + 1, last + 1):
                pin = parts[start:end]
                joined = "/".join(pin)
                if any(part in CODEX_KEEPS for part in pin) or blocked.hit(pin) or skip(joined):
                    continue
                made.append(joined)
    return made


def _pins_note(deny: PathRule, pins: list[str]) -> Finding:
    shown = ", ".join(f"'{quoted(pin)}'" for pin in pins[:3]) + (", ..." if len(pins) > 3 else "")
    return _lossy(
        CODEX_LAUNCH_PINS,
        f"so that '{quoted(deny.path)}' holds wherever Codex starts above it, the directories "
        f"{shown} below the launch directory are pinned: wherever Codex starts, a command "
        "cannot rename or remove a directory of that name there, and a repository in one keeps "
        "its .git read-only",
        deny.origin,
    )


def outside_protections(
    roots: list[PathRule], findings: list[Finding], policy: Policy
) -> list[PathRule]:
    """The write roots that are not and do not lie inside another root's protected name
    (``.vscode/x`` below ``.``): Codex would let the deeper root win over the read-only name,
    where srt refuses writes there; each one left out is reported (TWS408)."""
    spelled = {root.path.rstrip("/") for root in roots}
    names = set(protected_names(policy))
    kept = []
    for root in roots:
        holder = _protected_holder(root.path.rstrip("/"), spelled, names)
        if holder is None:
            kept.append(root)
            continue
        findings.append(
            _lossy(
                LOSSY_WRITE_ROOT,
                f"allowWrite '{quoted(root.path)}' is or lies inside '{quoted(holder)}', which "
                "stays read-only at the top of a write root (srt refuses writes there too); "
                "skipped",
                root.origin,
            )
        )
    return kept


def _protected_holder(path: str, roots: set[str], names: set[str]) -> str | None:
    """The protected name (of ``names``) of another write root that ``path`` is or lies
    inside."""
    parts = path.split("/")
    for cut in range(len(parts)):
        base = "/".join(parts[:cut]) if cut else "."
        name = "/".join(parts[: cut + 1]) if cut else parts[0]
        if parts[cut] in names and (base in roots or (cut == 0 and "." in roots)):
            return name
    return None


def drop_writes_inside(filesystem: dict[str, dict[str, str]]) -> None:
    """Remove every ``"write"`` pin that lies strictly below a read-only or denied entry of the
    same spelling: Codex lets the deeper entry win, so it would re-open a protected name
    (``~/dev/.vscode/a`` for a deny ``~/dev/.vscode/a/b``), where srt refuses it. A pin there has
    nothing to hold: its read-only parent cannot be renamed."""
    held_abs = {key for key, scoped in filesystem.items() if scoped.get(".") in ("read", "deny")}
    relative = filesystem.get(WORKSPACE, {})
    held_rel = {sub for sub, mode in relative.items() if mode in ("read", "deny")}

    def inside(path: str, held: set[str]) -> bool:
        slash = path.rfind("/")
        while slash > 0:
            if path[:slash] in held:
                return True
            slash = path.rfind("/", 0, slash)
        return False

    writable = [k for k, s in filesystem.items() if not k.startswith(":") and s.get(".") == "write"]
    for key in writable:
        if inside(key, held_abs):
            del filesystem[key]["."]
            if not filesystem[key]:
                del filesystem[key]
    for sub in [s for s, mode in relative.items() if mode == "write" and s != "."]:
        if inside(sub, held_rel):
            del relative[sub]


def relative_meets_absolute(
    filesystem: dict[str, dict[str, str]],
    roots: list[PathRule],
    origins: dict[str, Location],
    findings: list[Finding],
) -> None:
    """A launch-relative write entry that lands on or below an absolute read-only or denied
    one when Codex starts in some directory: Codex lets the write entry win there. A pin
    (between a relative root and a relative deny) is left out, a policy write root kept; both
    are reported (TWS469)."""
    scoped = filesystem.get(WORKSPACE)
    if not scoped:
        return
    held = [k for k, s in filesystem.items() if not k.startswith(":") and s.get(".") in HELD]
    blocked = _ReadOnly(held)
    policy = {root.path: root for root in roots if root.path != "."}
    for sub in [s for s, mode in scoped.items() if mode == "write" and s != "."]:
        entry = blocked.hit(sub.split("/"))
        if entry is None:
            continue
        start = _start(entry, sub)
        if sub in policy:
            message = (
                f"Codex started in '{quoted(start)}' makes write root '{quoted(sub)}' the denied "
                f"'{quoted(entry)}', and the write root wins there: commands write it"
            )
            findings.append(_lossy(CODEX_RELATIVE_MEETS_ABSOLUTE, message, policy[sub].origin))
            continue
        del scoped[sub]
        message = (
            f"the pin '{quoted(sub)}' below the launch directory would re-open '{quoted(entry)}' "
            f"when Codex starts in '{quoted(start)}', so it is left out: a command can rename "
            f"'{quoted(sub.split('/')[0])}' aside and recreate what lies below it"
        )
        origin = origins.get(entry) or next(iter(origins.values()), None)
        if origin is not None:
            findings.append(_lossy(CODEX_RELATIVE_MEETS_ABSOLUTE, message, origin))


def _start(entry: str, sub: str) -> str:
    """Where Codex starts for ``sub`` to land on or below ``entry``."""
    parts = sub.split("/")
    for length in range(len(parts), 0, -1):
        tail = "/" + "/".join(parts[:length])
        if entry.endswith(tail):
            return entry[: -len(tail)] or "/"
    return entry
