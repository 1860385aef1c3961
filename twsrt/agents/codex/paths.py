"""Filesystem entries of the Codex profile: how a policy path becomes a key and sub-path,
the deny and write entries, the pins between a write root and a deny below it."""

from __future__ import annotations

import re
from typing import Any

from twsrt.agents.codex.declaration import CODEX_KEEPS, STRICTNESS, WORKSPACE, Compiled, _lossy
from twsrt.agents.codex.rules import (
    CODEX_MIXED_SPELLING,
    LOSSY_CREDENTIAL_MASK,
    LOSSY_GLOB_SNAPSHOT,
)
from twsrt.findings import Finding, TwsrtError, quoted
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy, has_dots, is_glob, normalize_path
from twsrt.rules import LOSSY_STRICTER_GLOB, LOSSY_WRITE_ROOT, UNEXPRESSIBLE_PATH
from twsrt.wildcard import fnmatch

CODEX_KEEPS_NAMES = frozenset(CODEX_KEEPS)


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
        return _cut_at_slashes(path, 0) if _relative(path) else []
    if _relative(root) != _relative(path) or not path.startswith(root.rstrip("/") + "/"):
        return []
    return _cut_at_slashes(path, len(root.rstrip("/")) + 1)


def _cut_at_slashes(path: str, start: int) -> list[str]:
    """``path`` up to each slash at or after ``start``: one slice each, where joining the parts
    again for each directory went quadratic in the parts (a path of 20,000 took seconds)."""
    out = []
    slash = path.find("/", start)
    while slash != -1:
        out.append(path[:slash])
        slash = path.find("/", slash + 1)
    return out


class _Roots:
    """Write roots indexed by spelling, so the roots a path lies below are found by looking up
    its own prefixes (O(depth)) instead of trying every root (quadratic in large policies)."""

    def __init__(self, roots: list[str]) -> None:
        self.roots = roots
        self.by_prefix: dict[str, list[int]] = {}
        self.launch: list[int] = []  # ``.``: every relative path lies below it
        for position, root in enumerate(roots):
            if root == ".":
                self.launch.append(position)
            else:
                self.by_prefix.setdefault(root.rstrip("/"), []).append(position)
        # a prefix is cut and looked up only where some root has its length: a path of a
        # million characters and as many slashes costs one pass, not one slice per slash
        self.lengths = {len(prefix) for prefix in self.by_prefix}

    def around(self, path: str) -> list[tuple[int, list[str]]]:
        """``(position, _ancestors(path, root))`` for each root with directories between it and
        ``path``, in the roots' order."""
        positions = list(self.launch)
        lengths = self.lengths
        slash = path.find("/")
        while slash != -1:
            if slash in lengths:
                positions += self.by_prefix.get(path[:slash], [])
            slash = path.find("/", slash + 1)
        found = []
        for position in sorted(set(positions)):
            between = _ancestors(path, self.roots[position])
            if between:
                found.append((position, between))
        return found


def _anchor(rule: PathRule) -> tuple[str, str]:
    """Key and sub-path for a filesystem entry; relative paths scope to the workspace roots."""
    return _anchor_path(rule.path, rule.glob, rule.origin)


def _anchor_path(path: str, glob: bool, origin: Location) -> tuple[str, str]:
    """``_anchor`` of a rule by its parts: the protected names under every write root are
    anchored without a ``PathRule`` each (~87,000 at 50k rules)."""
    if path.startswith("/~/") or path == "/~":
        raise TwsrtError(
            _lossy(
                UNEXPRESSIBLE_PATH,
                f"malformed path '{quoted(path)}': did you mean '~/'?",
                origin,
            )
        )
    if has_dots(path):
        raise TwsrtError(
            _lossy(
                UNEXPRESSIBLE_PATH,
                f"'{quoted(path)}' climbs above the launch directory or the home directory with "
                "'..', which a Codex profile cannot name (Codex refuses to load such a path); "
                "write it as an absolute or `~/` path",
                origin,
            )
        )
    if _relative(path):
        return WORKSPACE, path.removeprefix("./") or "."
    if glob:
        prefix, rest = _split_glob(path)
    else:
        prefix, rest = path, ""
    if prefix in ("", "/"):
        if rest:
            raise TwsrtError(
                _lossy(
                    UNEXPRESSIBLE_PATH,
                    f"glob '{quoted(path)}' would make Codex scan the whole filesystem, and its "
                    "sandbox refuses to start; anchor the glob under a directory",
                    origin,
                )
            )
        return ":root", "."
    if prefix == "~":
        raise TwsrtError(
            _lossy(
                UNEXPRESSIBLE_PATH,
                f"'{quoted(path)}' covers the whole home directory, which a Codex profile cannot "
                "name; list the directories to protect instead",
                origin,
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
                UNEXPRESSIBLE_PATH,
                f"literal path '{quoted(rule.path)}' has glob characters, which Codex ignores in a "
                "filesystem key, and its parent is too broad to deny instead; rename it or "
                "protect a concrete parent directory",
                rule.origin,
            )
        )
    findings.append(
        _lossy(
            LOSSY_STRICTER_GLOB,
            f"Codex ignores filesystem keys with glob characters; '{quoted(rule.path)}' is "
            f"protected by denying its parent '{quoted(parent)}' instead",
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
        where = f"'{quoted(prefix)}'" if prefix else "the launch directory"
        walk = f"; Codex walks {where} for it at every start and fails to start when an entry "
        walk += "disappears during the walk"
    findings.append(
        _lossy(
            LOSSY_GLOB_SNAPSHOT,
            f"Codex expands deny glob '{quoted(rule.path)}' once when its sandbox starts: a "
            "matching file created or renamed into place later in the session stays "
            f"{access}{walk}; name the directory instead (a directory deny covers new files)",
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
    """The ``:`` keys first, then the paths, each sorted; in a key's table ``.`` first. Two
    plain sorts where a key function made a tuple per entry (~100,000 entries at 50k rules)."""
    out: dict[str, Any] = {}
    special = sorted(key for key in filesystem if key.startswith(":"))
    paths = sorted(key for key in filesystem if not key.startswith(":"))
    for key in special + paths:
        scoped = filesystem[key]
        if len(scoped) == 1 and "." in scoped:
            out[key] = scoped["."]
        else:
            subs = sorted(sub for sub in scoped if sub != ".")
            out[key] = {sub: scoped[sub] for sub in (["."] if "." in scoped else []) + subs}
    return out


# fnmatch's wildcards: the text before the first one must match literally
_WILDCARD = re.compile(r"[*?\[]")


def _deny_index(denies: list[PathRule]) -> Any:
    """A lookup ``root -> first deny (in policy order) that also matches it``.

    Concrete denies are found by looking up the root's ancestors in a dict, globs by matching
    only those whose literal start the root starts with; a linear scan per root would make
    large policies quadratic."""
    concrete: dict[str, int] = {}
    # globs by the literal text before their first wildcard, which a match must start with
    globs: dict[str, list[tuple[int, str]]] = {}
    for index, rule in enumerate(denies):
        if rule.glob:
            literal = _WILDCARD.split(rule.path, maxsplit=1)[0]
            globs.setdefault(literal, []).append((index, rule.path))
        else:
            path = rule.path.removeprefix("./") if rule.path != "./" else "."
            concrete.setdefault(path.rstrip("/") or "/", index)

    sizes = sorted({len(literal) for literal in globs})

    def covered(root: str) -> PathRule | None:
        parts = root.rstrip("/").split("/")
        prefixes = ["/".join(parts[:n]) or "/" for n in range(len(parts), 0, -1)]
        if _relative(root):
            prefixes.append(".")  # the launch directory holds every relative path
        hits = [concrete[prefix] for prefix in prefixes if prefix in concrete]
        for size in sizes:
            for index, pattern in globs.get(root[:size], []) if size <= len(root) else []:
                if fnmatch(root, pattern):
                    hits.append(index)
        return denies[min(hits)] if hits else None

    return covered


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
        if rule.echo:
            continue  # Codex's deny of the denyRead entry refuses writes as well
        rule = _tree(_literal_glob(rule, findings))
        deny(rule, "deny" if rule.glob else "read", write=True)
        if rule.glob:
            findings.append(
                _lossy(
                    LOSSY_STRICTER_GLOB,
                    f"Codex cannot make glob '{quoted(rule.path)}' read-only; it is denied "
                    "outright (reads too)",
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
    index = _Roots([root.path for root in roots])
    pinned: set[str] = set()  # a pin is set once, whichever deny and root need it
    # ``around`` of a path with a slash depends on the path up to its last slash only (the
    # roots it lies below and the directories between are all before it): the thousands of
    # denies in one directory and the protected names at the top of each root ask it once
    asked: set[str] = set()
    for deny in concrete:
        path = deny.path.removeprefix("./")
        head = path[: path.rfind("/") + 1]
        if head:
            if head in asked:
                continue  # every pin it would give is in ``pinned`` already
            asked.add(head)
        for _, between in index.around(path):
            for parent in between:
                kept = not CODEX_KEEPS_NAMES.isdisjoint(parent.split("/"))  # Codex's own
                if parent not in pinned and not kept and covered_by_deny(parent) is None:
                    key, sub = (WORKSPACE, parent) if _relative(parent) else (parent, ".")
                    _set_access(filesystem, key, sub, "write")
                pinned.add(parent)


def _mixed_spellings(denies: list[PathRule], roots: list[PathRule], home: str) -> list[Finding]:
    """A deny below a write root spelled the other way (``~/`` against absolute) gets no pins:
    the pins are found by comparing spellings, and the output must not depend on the home. A
    real Codex run then lets a command rename the directory between them away and re-create the
    denied path empty and writable, so the policy must spell both the same way."""

    def expand(path: str) -> str:
        return home.rstrip("/") + path[1:] if path == "~" or path.startswith("~/") else path

    absolute = {root.path: expand(root.path) for root in roots if not _relative(root.path)}
    # by spelling (``~`` or not): a deny is compared with the roots spelled the other way only
    spelled = {
        home_spelling: [root for root in absolute if root.startswith("~") == home_spelling]
        for home_spelling in (False, True)
    }
    index = {key: _Roots([absolute[root] for root in spelled[key]]) for key in spelled}
    findings = []
    # ``around`` by the path up to its last slash, all it depends on (see _write_access)
    known: dict[tuple[bool, str], list[tuple[int, list[str]]]] = {}
    for deny in denies:
        if _relative(deny.path):
            continue
        other = not deny.path.startswith("~")  # same spelling: pinned by translate
        path = expand(deny.path)
        head = path[: path.rfind("/") + 1]
        around = known.get((other, head)) if head else None
        if around is None:
            around = index[other].around(path)[:1]
            if head:
                known[other, head] = around
        for position, between in around:
            root = spelled[other][position]
            findings.append(
                _lossy(
                    CODEX_MIXED_SPELLING,
                    f"'{quoted(deny.path)}' lies below write root '{quoted(root)}' (with ~ = "
                    f"{home}) but is spelled the other way, so Codex cannot pin "
                    f"'{quoted(between[0])}' between them: a command can rename it away and "
                    "re-create the denied path writable; spell both with ~/ or both absolute",
                    deny.origin,
                )
            )
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
                    LOSSY_CREDENTIAL_MASK,
                    f"Codex cannot mask credential file '{quoted(rule.path)}'; it is denied "
                    "outright (commands cannot read it at all)",
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
                    LOSSY_WRITE_ROOT,
                    f"allowWrite '{quoted(rule.path)}' cannot be a Codex write root ({why}); "
                    "skipped",
                    rule.origin,
                )
            )
            continue
        blocker = covered_by_deny(path)
        if blocker is not None:
            findings.append(
                _lossy(
                    LOSSY_WRITE_ROOT,
                    f"allowWrite '{quoted(rule.path)}' is also matched by deny rule "
                    f"'{quoted(blocker.path)}' ({blocker.origin}); the deny wins and the root is "
                    "skipped",
                    rule.origin,
                )
            )
            continue
        roots.append(PathRule(path, rule.origin, literal=True))
    return roots
