"""Absolute-path translation shared by targets whose sandbox takes only absolute paths.

Copilot CLI and DeepCode both name whole directory trees by absolute path and take no
wildcards. A canonical path rule becomes such a path with ``~`` expanded by the config's home
(:class:`HomePaths`); a rule that cannot become one is a finding at the source rule, and a
grant is never widened. The messages name the agent (:class:`PathTarget`), so every target
reports the same loss in the same words.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import field

from twsrt.config import Config
from twsrt.findings import Finding, TwsrtError, finding, quoted
from twsrt.locations import Location
from twsrt.policy import PathRule, fold_dots, is_glob
from twsrt.records import record
from twsrt.rules import (
    GLOB_GRANT_LEFT_OUT,
    LOSSY_GLOB_PATH,
    LOSSY_RELATIVE_PATH,
    LOSSY_STRICTER_GLOB,
    RELATIVE_GRANT_LEFT_OUT,
    UNEXPRESSIBLE_PATH,
    UNPINNED_HOME,
    Rule,
)


@record(eq=False)
class PathTarget:
    """Who the messages are about: the agent id, its human label, and the name of the target
    key each srt key lands in (``denyRead`` -> ``deniedPaths``; unnamed keys keep their name)."""

    agent: str
    label: str
    names: Mapping[str, str] = field(default_factory=dict)

    def target(self, key: str) -> str:
        return self.names.get(key, key)

    def lossy(self, rule: Rule, message: str, origin: Location) -> Finding:
        return finding(rule, message, origin, agent=self.agent)


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class PathIndex:
    """Roots indexed so that "the first root that holds P" (``inside(P, root)``) costs a few
    dictionary lookups instead of a scan of every root; "first" is the order the roots were
    added in, as the scan would find them.

    A root holds P when it is P, or when the root without its trailing slashes (its stem) is
    the part of P before one of P's slashes. Only those parts are looked up, and only at the
    lengths some stem has: P's slashes or the stems' lengths, whichever are fewer, so a long
    path costs a few slices whatever the number of roots."""

    def __init__(self, roots: Iterable[str] = ()) -> None:
        self.roots: list[str] = []
        self._exact: dict[str, int] = {}  # each root as written -> its first position
        self._stems: dict[str, int] = {}  # each root's stem -> the first position
        self._lengths: set[int] = set()  # the stems' lengths
        self._sorted: list[str] | None = None  # the stems in order, built on first use
        for root in roots:
            self.add(root)

    def add(self, root: str) -> None:
        self._sorted = None
        order = len(self.roots)
        self.roots.append(root)
        self._exact.setdefault(root, order)
        stem = root.rstrip("/")
        self._stems.setdefault(stem, order)
        self._lengths.add(len(stem))

    def first_holding(self, path: str) -> int | None:
        """The position of the first root ``r`` with ``inside(path, r)``, else None."""
        best = self._exact.get(path)
        if len(self._lengths) <= path.count("/"):
            cuts = [n for n in self._lengths if n < len(path) and path[n] == "/"]
        else:
            cuts = [n for n in _slashes(path) if n in self._lengths]
        for cut in cuts:
            order = self._stems.get(path[:cut])
            if order is not None and (best is None or order < best):
                best = order
        return best

    def holds(self, path: str) -> bool:
        """Whether some root holds ``path`` (is it, or an ancestor of it)."""
        return self.first_holding(path) is not None

    def may_hold_below(self, path: str) -> bool:
        """Whether some root's stem is ``path``'s or lies below it (two bisections of the sorted
        stems). When not, and no root holds ``path``, no root holds anything below it."""
        if self._sorted is None:
            self._sorted = sorted(self._stems)
        stems, stem = self._sorted, path.rstrip("/")
        at = bisect_left(stems, stem)
        if at < len(stems) and stems[at] == stem:  # root P/ holds P/x, not P
            return True
        at = bisect_left(stems, stem + "/")
        return at < len(stems) and stems[at].startswith(stem + "/")


def _slashes(path: str) -> list[int]:
    out = []
    cut = path.find("/")
    while cut != -1:
        out.append(cut)
        cut = path.find("/", cut + 1)
    return out


def is_relative(path: str) -> bool:
    return not (path.startswith("/") or path == "~" or path.startswith("~/"))


def whole_tree(rule: PathRule) -> str:
    """``P/**`` is exactly the whole-subtree ``P``; other paths stay as written."""
    path = rule.path
    if not rule.literal and path.endswith("/**") and not is_glob(path[:-3]):
        return path[:-3] or "/"
    return path


def glob_prefix(path: str) -> str:
    """The concrete directory above the first path segment with a glob character."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if is_glob(part):
            return "/".join(parts[:index]) or "/"
    return path


class HomePaths:
    """Expands ``~`` with the configured home and remembers whether any output used it."""

    def __init__(self, home: str) -> None:
        self.home = home.rstrip("/") or "/"
        self.used = False

    def expand(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            self.used = True
            # with the home known, ``~/../x`` has one meaning (the agents refuse ``..``)
            return fold_dots(self.home if path == "~" else self.home.rstrip("/") + path[1:])
        return path


def check_malformed(rule: PathRule, spec: PathTarget) -> None:
    if rule.path == "/~" or rule.path.startswith("/~/"):
        raise TwsrtError(
            spec.lossy(
                UNEXPRESSIBLE_PATH,
                f"malformed path '{quoted(rule.path)}': did you mean '~/'?",
                rule.origin,
            )
        )


def deny_path(
    rule: PathRule, key: str, paths: HomePaths, findings: list[Finding], spec: PathTarget
) -> str | None:
    """The absolute path a deny rule becomes, or None (with a finding) when it cannot be one."""
    check_malformed(rule, spec)
    path = whole_tree(rule)
    target = spec.target(key)
    label = spec.label
    if rule.echo and (is_relative(path) or (is_glob(path) and not rule.literal)):
        return None  # its denyRead entry's finding says what is lost
    if is_relative(path):
        findings.append(
            spec.lossy(
                LOSSY_RELATIVE_PATH,
                f"{key} '{quoted(rule.path)}' is relative to the directory an agent starts in; "
                f"{label}'s sandbox takes only absolute paths, so it is not in {target} (run "
                f"{label} under srt to enforce it)",
                rule.origin,
            )
        )
        return None
    if rule.literal or not is_glob(path):
        return paths.expand(path)
    # A glob cannot be written; its concrete parent directory, denied whole, is stricter and
    # never weaker. Denying `/` or the whole home instead would lock the agent out, so those
    # globs are reported rather than widened into something unusable.
    prefix = glob_prefix(path)
    if prefix in ("/", "~"):
        findings.append(
            spec.lossy(
                LOSSY_GLOB_PATH,
                f"{key} glob '{quoted(rule.path)}' cannot be written for {label} (no wildcards), "
                f"and denying all of '{quoted(prefix)}' instead would lock it out; not in {target}",
                rule.origin,
            )
        )
        return None
    findings.append(
        spec.lossy(
            LOSSY_STRICTER_GLOB,
            f"{label} takes no wildcards; {key} glob '{quoted(rule.path)}' becomes {target} entry "
            f"'{quoted(prefix)}' (the whole directory)",
            rule.origin,
        )
    )
    return paths.expand(prefix)


def grant_path(
    rule: PathRule, key: str, paths: HomePaths, findings: list[Finding], spec: PathTarget
) -> str | None:
    """The absolute path a grant becomes, or None (with a finding): grants are never widened."""
    check_malformed(rule, spec)
    path = whole_tree(rule)
    label = spec.label
    if is_relative(path):
        findings.append(
            spec.lossy(
                RELATIVE_GRANT_LEFT_OUT,
                f"{key} '{quoted(rule.path)}' is relative to the directory an agent starts in; "
                f"{label}'s sandbox takes only absolute paths, so it is not granted",
                rule.origin,
            )
        )
        return None
    if not rule.literal and is_glob(path):
        findings.append(
            spec.lossy(
                GLOB_GRANT_LEFT_OUT,
                f"{key} glob '{quoted(rule.path)}' cannot be written for {label} (no wildcards) "
                "and a parent directory would grant more; it is not granted",
                rule.origin,
            )
        )
        return None
    return paths.expand(path)


def unpinned_home(config: Config, target_key: str) -> Finding:
    """The note for an output that expanded ``~`` with this machine's home; the same text and
    place as the policy lint (``twsrt.lints``), so ``check`` reports it once."""
    return finding(
        UNPINNED_HOME,
        f"the {target_key} output expands ~ with this machine's home "
        f'({config.output_home}); set home = "..." in the config so every '
        "machine generates the same bytes",
        config.location(f"/targets/{target_key}"),
    )
