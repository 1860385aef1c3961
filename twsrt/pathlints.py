"""Lints on the policy's path entries that no schema can see: an entry a broader one already
covers, a shell variable no agent expands, a deny glob that can match nothing, an allowRead
glob that srt expands once (pure functions, linear in the entries and their lengths)."""

from __future__ import annotations

from twsrt.findings import Finding, finding, quoted
from twsrt.policy import PathRule, Policy, is_glob
from twsrt.rules import (
    GLOB_MATCHES_NOTHING,
    NARROW_ALLOW_GLOB,
    SUBSUMED_ENTRY,
    UNEXPANDED_VARIABLE_DENY,
    UNEXPANDED_VARIABLE_GRANT,
)


def path_lints(policy: Policy) -> list[Finding]:
    lists = (
        ("denyRead", policy.deny_read, True),
        ("denyWrite", policy.deny_write, True),
        ("allowWrite", policy.allow_write, False),
        ("allowRead", policy.allow_read, False),
    )
    out: list[Finding] = []
    for name, rules, deny in lists:
        written = [rule for rule in rules if not rule.echo]  # an echo is another list's entry
        if deny:  # a grant below a broader one is no noise: an agent may skip the broader root
            out += _subsumed(name, written)
        out += _variables(name, written, deny)
        if deny:
            out += _empty_sets(name, written)
    out += _narrow_read_globs(policy.allow_read)
    return out


def _tree(rule: PathRule) -> str | None:
    """The directory a concrete entry covers as a tree (``~/a``, ``~/a/``: ``~/a``), or None
    for a glob. Only such an entry covers others: every agent compiles a concrete directory
    deny as the tree (a glob, ``~`` or ``/`` some agent narrows or refuses, and there the
    narrower entry still protects)."""
    if rule.glob and not rule.literal:
        return None
    return rule.path.rstrip("/") or "/"


def _concrete_prefix(rule: PathRule) -> str:
    """The entry without its glob part (``~/.ssh/*.pem`` -> ``~/.ssh/``): what it lies below."""
    if not rule.glob or rule.literal:
        return rule.path.rstrip("/") or "/"
    cut = min((rule.path.find(char) for char in "*?[" if char in rule.path), default=0)
    return rule.path[: rule.path.rfind("/", 0, cut) + 1]


def _subsumed(name: str, rules: list[PathRule]) -> list[Finding]:
    """Entries below the tree of an earlier-or-later entry of the same list. Each entry looks up
    its own ancestors (one slice per slash) in a dict of the list's trees, never every pair."""
    trees: dict[str, PathRule] = {}
    for rule in rules:
        tree = _tree(rule)
        if tree is not None and tree not in ("~", "/"):
            trees.setdefault(tree, rule)
    out = []
    for rule in rules:
        own = _tree(rule)
        path = _concrete_prefix(rule) if own is None else own
        broader = _first_ancestor(path, trees, strict=own is not None)
        if broader is None or broader is rule:
            continue
        out.append(
            finding(
                SUBSUMED_ENTRY,
                f"'{quoted(rule.path)}' in {name} lies inside '{quoted(broader.path)}' (at "
                f"{broader.origin}), which already covers it; remove it",
                rule.origin,
                related=(broader.origin,),
            )
        )
    return out


def _first_ancestor(path: str, trees: dict[str, PathRule], strict: bool) -> PathRule | None:
    """The entry whose tree is the nearest directory above ``path`` (``path`` itself too when
    not ``strict``: a glob's concrete prefix is covered by a deny of that directory)."""
    if not strict and path.rstrip("/") in trees:
        return trees[path.rstrip("/")]
    slash = path.rfind("/", 0, len(path.rstrip("/")))
    while slash > 0:
        hit = trees.get(path[:slash])
        if hit is not None:
            return hit
        slash = path.rfind("/", 0, slash)
    return None


def _variables(name: str, rules: list[PathRule], deny: bool) -> list[Finding]:
    out = []
    for rule in rules:
        variable = _variable(rule.path)
        if variable is None:
            continue
        if deny:
            rule_of, effect = UNEXPANDED_VARIABLE_DENY, "the directory it means stays unprotected"
        else:
            rule_of, effect = UNEXPANDED_VARIABLE_GRANT, "the directory it means is not granted"
        home = "; write '~/' for the home directory" if variable in ("$HOME", "${HOME}") else ""
        out.append(
            finding(
                rule_of,
                f"'{quoted(rule.path)}' in {name} holds '{quoted(variable)}', which no agent "
                f"expands: it names a directory literally called so, and {effect}{home}",
                rule.origin,
            )
        )
    return out


def _variable(path: str) -> str | None:
    """The first ``$NAME`` or ``${...}`` in ``path`` (a scan, no regex from policy text)."""
    start = path.find("$")
    while start != -1:
        rest = path[start + 1 :]
        if rest.startswith("{") and "}" in rest:
            return path[start : start + rest.index("}") + 2]
        length = 0
        while length < len(rest) and (rest[length] == "_" or rest[length].isalnum()):
            length += 1
        if length and not rest[0].isdigit():
            return path[start : start + 1 + length]
        start = path.find("$", start + 1)
    return None


def _empty_sets(name: str, rules: list[PathRule]) -> list[Finding]:
    out = []
    for rule in rules:
        if not rule.glob or rule.literal:
            continue
        empty = _empty_set(rule.path)
        if empty is not None:
            out.append(
                finding(
                    GLOB_MATCHES_NOTHING,
                    f"'{quoted(rule.path)}' in {name} can match no path: the set "
                    f"'{quoted(empty)}' admits no character, so it denies nothing",
                    rule.origin,
                )
            )
    return out


def _empty_set(path: str) -> str | None:
    """The first ``[...]`` of ``path`` that admits no character: only reversed ranges
    (``[z-a]``); a negated set (``[!...]``) always admits some character."""
    start = path.find("[")
    while start != -1:
        end = path.find("]", start + 2)  # a "]" right after "[" is a member, as in git
        if end == -1:
            return None
        body = path[start + 1 : end]
        if not body.startswith(("!", "^")) and _admits_nothing(body):
            return path[start : end + 1]
        start = path.find("[", end + 1)
    return None


def _admits_nothing(body: str) -> bool:
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            if body[index] <= body[index + 2]:
                return False
            index += 3
        else:
            return False  # a single character admits itself
    return True


def _narrow_read_globs(rules: list[PathRule]) -> list[Finding]:
    out = []
    for rule in rules:
        tree_glob = rule.path.endswith("/**") and not is_glob(rule.path[:-3])
        if rule.glob and not rule.literal and not rule.echo and not tree_glob:
            out.append(
                finding(
                    NARROW_ALLOW_GLOB,
                    f"allowRead glob '{quoted(rule.path)}' is expanded when srt starts: a "
                    "matching file created later in the session stays unreadable",
                    rule.origin,
                )
            )
    return out
