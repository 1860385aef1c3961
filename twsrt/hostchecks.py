"""Checks of the policy against the machine ``twsrt check`` runs on. They are findings only:
generated files never depend on the host.

Symlinked paths (observed with Codex 0.171.0): Codex does not match a write root and a deny
when one is spelled through a symlink and the other by the real path, so the denied directory
stays writable, and it refuses to start when a denyRead crosses a symlink inside a writable
directory. A policy path that exists here and is a symlink, or lies under one, is reported with
both spellings.

A grant whose real path on this host re-opens what the rest of the policy restricts is an error:
for a composed profile, one fragment's allowRead through a link into another fragment's denyRead
(TWS222, ``crossfragment.path_conflicts`` with the host's spellings); for a project, the
narrowing check uses the same spellings (``host_anchors``, TWS225).

Write roots that are files (observed with Codex 0.171.0): Codex mounts protected entries (``.git``,
...) in every write root, so a file as a root fails each sandbox start ("Not a directory").
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from twsrt import wildcard
from twsrt.agents import AGENTS, spec_of, specs, target_specs
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location, display_path
from twsrt.policy import PathRule, Policy, is_glob
from twsrt.regions import Anchors
from twsrt.rules import (
    AGENT_STATE_IN_REPOSITORY,
    FOLDED_CONFIG_LINK,
    SRT_SETTINGS_ELSEWHERE,
    SYMLINKED_POLICY_PATH,
    WRITE_ROOT_NOT_DIRECTORY,
)

if TYPE_CHECKING:
    from twsrt.agents.base import StateFile
    from twsrt.config import Config

LISTS = ("denyRead", "denyWrite", "allowWrite", "allowRead")


def _rules(policy: Policy) -> Iterator[tuple[str, PathRule]]:
    for key, rules in zip(
        LISTS,
        (policy.deny_read, policy.deny_write, policy.allow_write, policy.allow_read),
        strict=True,
    ):
        for rule in rules:
            yield key, rule
    files = policy.srt.get("credentials", {}).get("files", [])
    for index, entry in enumerate(files):
        pointer = f"/credentials/files/{index}/path"
        yield "credentials.files", PathRule(entry["path"], policy.srt_location(pointer))


def _concrete(rule: PathRule) -> tuple[list[str], list[str]]:
    """The path's parts up to the first glob part, and the glob tail (empty for a plain path)."""
    parts = [p for p in rule.path.split("/") if p not in ("", ".")]
    if rule.literal:
        return parts, []
    for index, part in enumerate(parts):
        if is_glob(part):
            return parts[:index], parts[index:]
    return parts, []


class _Lookups:
    """One ``lstat`` per path for the whole run: policies of thousands of paths share their
    ancestors (``/``, the home, ``~/.config``), which would otherwise be looked at per rule.
    Paths are plain strings here; pathlib's hashing costs more than the system call."""

    def __init__(self) -> None:
        self._modes: dict[str, int | None] = {}

    def mode(self, path: str) -> int | None:
        """The path's own mode (a symlink is not followed), None when it cannot be looked at."""
        try:
            return self._modes[path]
        except KeyError:
            pass
        try:
            mode: int | None = os.lstat(path).st_mode
        except (OSError, ValueError):  # missing, not a directory, a NUL in the name
            mode = None
        self._modes[path] = mode
        return mode

    def first_symlink(self, candidates: Iterable[str]) -> str | None:
        """The first candidate that is a symlink on this host; the walk stops at the first one
        that does not exist (or cannot be looked at), since nothing below it can be a symlink."""
        for candidate in candidates:
            mode = self.mode(candidate)
            if mode is None:
                return None
            if stat.S_ISLNK(mode):
                return candidate
        return None


class _Starts:
    """Where a policy path starts on this host, with the ancestors to look at, worked out once
    per run instead of per rule."""

    def __init__(self, home: Path, cwd: Path) -> None:
        # ``/`` and ``~`` paths count every ancestor (the home's too); a relative path counts
        # only the parts it spells, because the directory an agent starts in is not known here
        self.home = (str(home), tuple(str(p) for p in (*reversed(home.parents), home)))
        self.root = ("/", ("/",))
        self.cwd = (str(cwd), ())

    def candidates(self, path: str, parts: list[str]) -> tuple[str, Iterator[str]]:
        """The concrete path on this host and the paths to look at, outermost first. The
        paths are made as they are looked at: the walk stops at the first missing one, so a
        policy path of a million characters is not cut into a million prefixes."""
        if path == "~" or path.startswith("~/"):
            (start, found), parts = self.home, parts[1:]
        elif path.startswith("/"):
            start, found = self.root
        else:
            start, found = self.cwd
        # os.path.join's result (parts hold no "/"; only the root ends with one)
        sep = "" if start.endswith("/") else "/"
        concrete = f"{start}{sep}{'/'.join(parts)}" if parts else start
        return concrete, chain(found, _below(start, sep, parts))


def _below(start: str, sep: str, parts: list[str]) -> Iterator[str]:
    current, joiner = start, sep
    for part in parts:
        current = f"{current}{joiner}{part}"
        joiner = "/"
        yield current


def _spelled(resolved: Path, home: Path, tail: list[str]) -> str:
    """The real path as the policy would write it: ``~/`` when it lies under the home, unless
    the home is itself a symlink (then ``~`` is the spelling to avoid)."""
    text = str(resolved)
    if Path(os.path.realpath(home)) == home and (resolved == home or home in resolved.parents):
        inner = PurePosixPath(resolved.relative_to(home))
        text = "~" if resolved == home else f"~/{inner}"
    return "/".join([text, *tail]) if tail else text


class HostSpellings:
    """The real path of a placed policy path where the host's symlinks make it another one,
    spelled the same way; None when no symlink is on the way (or the path does not exist
    here). ``~`` (or the ``pinned`` home the paths were placed with) is this machine's
    ``home``. For comparisons that must see every spelling (narrowing, fragment lints): a host
    fact, so only findings depend on it."""

    def __init__(self, home: Path, pinned: str | None = None) -> None:
        self.home, self.prefix = str(home), (pinned or "~").rstrip("/") or "/"
        self.real_home = Path(os.path.realpath(home))
        self.lookups, self.starts = _Lookups(), _Starts(home, home)

    def __call__(self, path: str) -> str | None:
        inner = _below_prefix(path, self.prefix)
        if inner is not None:
            path = "~" + inner
        elif not path.startswith("/"):
            return None  # a relative path: where it starts is not known here
        parts = [p for p in path.split("/") if p]
        concrete, candidates = self.starts.candidates(path, parts)
        if self.lookups.first_symlink(candidates) is None:
            return None
        resolved = Path(os.path.realpath(concrete))
        if resolved == self.real_home or self.real_home in resolved.parents:
            rest = resolved.relative_to(self.real_home).as_posix()  # ~ is the home, wherever
            return self.prefix + ("" if rest == "." else "/" + rest)
        return str(resolved)


def _below_prefix(path: str, prefix: str) -> str | None:
    """``path`` after ``prefix`` (``""`` or ``/rest``) when it is or lies below it."""
    if path == prefix:
        return ""
    if path.startswith(prefix + "/"):
        return path[len(prefix) :]
    return None


def host_anchors(home: Path, root: Path, pinned: str | None) -> Anchors:
    """Anchors for comparing a policy's paths on this host: ``~`` is the ``pinned`` home (none:
    it stays ``~``, compared conservatively), relative paths hang at ``root``, written below
    ``~`` where it lies in this machine's ``home`` (so it moves with the pinned home), and the
    host's symlinks give paths their second spelling."""
    root, home = Path(os.path.normpath(root)), Path(os.path.normpath(home))
    spelled = str(root)
    if root == home or home in root.parents:
        spelled = "~" if root == home else f"~/{root.relative_to(home).as_posix()}"
    return Anchors(home=pinned, root=spelled, links=HostSpellings(home, pinned))


def symlink_findings(policy: Policy, home: Path, cwd: Path) -> list[Finding]:
    """TWS220 for every policy path that is a symlink on this host or lies under one.

    ``home`` is the home of the user running the check, not the pinned output home: the
    finding is about the paths on this machine."""
    findings: list[Finding] = []
    lookups, starts = _Lookups(), _Starts(home, cwd)
    for key, rule in _rules(policy):
        parts, tail = _concrete(rule)
        concrete, candidates = starts.candidates(rule.path, parts)
        link = lookups.first_symlink(candidates)
        if link is None:
            continue
        resolved = Path(os.path.realpath(concrete))
        target = os.readlink(link)
        findings.append(
            finding(
                SYMLINKED_POLICY_PATH,
                f"{key} '{quoted(rule.path)}' goes through a symlink on this host: "
                f"'{quoted(link)}' points to '{quoted(target)}', so the path is really "
                f"'{quoted(_spelled(resolved, home, tail))}'. Codex does not match a write root "
                "and a deny when one is spelled through the symlink and the other by the real "
                "path (the denied directory stays writable), and it refuses to start when a "
                "denyRead crosses a symlink inside a writable directory; write the real path in "
                "every rule",
                rule.origin,
            )
        )
    if policy.fragments and findings:  # a link that makes one fragment re-open another's deny
        from twsrt.crossfragment import path_conflicts

        findings += path_conflicts(policy, host_anchors(home, cwd, None), via_only=True)
    return findings


def file_root_findings(
    policy: Policy, home: Path, cwd: Path, selected: Sequence[str] | None = None
) -> list[Finding]:
    """TWS221 for every plain allowWrite path that is a file on this host (``home``: the user's),
    for each agent of the run (``selected``; None: all) with ``directory_write_roots``."""
    findings: list[Finding] = []
    chosen = AGENTS if selected is None else selected
    agents = [spec for spec in specs() if spec.directory_write_roots and spec.name in chosen]
    starts = _Starts(home, cwd)
    for rule in policy.allow_write if agents else ():
        parts, tail = _concrete(rule)
        if tail:
            continue  # a glob grant: Codex skips it (TWS408)
        concrete, _ = starts.candidates(rule.path, parts)
        try:
            if not os.path.exists(concrete) or os.path.isdir(concrete):
                continue
        except (OSError, ValueError):
            continue
        findings += [
            finding(
                WRITE_ROOT_NOT_DIRECTORY,
                f"allowWrite '{quoted(rule.path)}' is a file on this host, not a directory: "
                f"{spec.label} takes only directories as write roots and then fails every "
                "sandbox start (it mounts protected entries such as .git inside each root); "
                "grant a directory that holds only what may be written, or leave the file out",
                rule.origin,
                agent=spec.name,
            )
            for spec in agents
        ]
    return findings


# ------------------------------------------------------------- the repository on this host
#
# A dotfiles repository is linked into the home directory (stow, chezmoi, yadm, by hand). Two
# ways that goes wrong, observed with GNU stow 2.3.1, Claude Code 2.1.332 and Codex 0.171.0:
# `stow` without --no-folding makes ~/.claude one symlink into the repository, which any
# command run in ~ can unlink (no deny protects a link: a bind mount follows it), and then the
# agent recreates an empty directory and its next launch has no settings and no sandbox; and
# the agents' logins and sessions (`codex login` writes auth.json) land inside the repository,
# one `git add -A` from a commit. Only names are looked at here, never a file's content.


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _user_targets(config: Config) -> Iterator[tuple[str, str, Path]]:
    """(key, default under ~ without the ``~/``, configured path) of each user-scope target."""
    if config.scope != "user":
        return
    for spec in target_specs():
        if spec.scope == "user" and spec.key in config.targets and spec.default.startswith("~/"):
            yield spec.key, spec.default[2:], config.targets[spec.key]


def mirror_roots(config: Config) -> list[Path]:
    """The directories of the repository that mirror ``~`` (``home/`` in the scaffold; one per
    stow package in a layout of packages): a target's configured path minus its default's
    part under ``~``. Only those inside the repository and other than this host's home."""
    repo = config.confine_root
    if repo is None:
        return []
    home, roots = os.path.realpath(config.home), []
    for _key, relative, path in _user_targets(config):
        text = path.as_posix()
        if not text.endswith("/" + relative):
            continue
        root = Path(text[: -len(relative) - 1])
        real = os.path.realpath(root)
        if _inside(real, str(repo)) and real != home and root not in roots:
            roots.append(root)
    return roots


def _agent_dirs(agents: Iterable[str]) -> dict[str, str]:
    """Each directory under ~ an agent reads its configuration from or keeps its state in
    (``.claude``, ``.claude/commands``, ``.config/twsrt``, ...): the directories on the way to
    its user layers, targets and state files, and its tree layers themselves; outermost first,
    with the first agent that has it."""
    dirs: dict[str, str] = {}
    for name in agents:
        spec = spec_of(name)
        paths = [t.default for t in spec.targets if t.scope == "user"]
        paths += [state.path for state in spec.state_files]
        layers = [layer for layer in spec.layers if layer.scope == "user"]
        paths += [layer.path + "/x" if layer.tree else layer.path for layer in layers]
        for path in paths:
            if not path.startswith("~/"):
                continue
            parts = path[2:].split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                dirs.setdefault("/".join(parts[:depth]), name)
    return dict(sorted(dirs.items(), key=lambda item: item[0].count("/")))


def folded_link_findings(config: Config, agents: Iterable[str]) -> list[Finding]:
    """TWS240 for every agent directory under this host's home that is a symlink into the
    repository (the running user's home: a fact about this machine, never an output)."""
    repo = config.confine_root
    if repo is None or config.scope != "user":
        return []
    findings: list[Finding] = []
    reported: list[str] = []
    for relative, agent in _agent_dirs(agents).items():
        if any(_inside(relative, done) for done in reported):
            continue  # below a folded link: the same finding
        path = config.home / relative
        try:
            if not stat.S_ISLNK(os.lstat(path).st_mode):
                continue
        except (OSError, ValueError):
            continue
        real = os.path.realpath(path)
        if not _inside(real, str(repo)):
            continue
        reported.append(relative)
        findings.append(_folded(config, relative, Path(real), agent))
    return findings


def _folded(config: Config, relative: str, real: Path, agent: str) -> Finding:

    where = next(
        (
            config.location(f"/targets/{key}")
            for key, _default, path in _user_targets(config)
            if _inside(os.path.realpath(path), str(real))
        ),
        Location(config.display_path(real)),
    )
    package = real.parents[relative.count("/")]  # the stow package: what mirrors ~
    stow = f"-d {_spelled_dir(package.parent)} -t ~ {package.name}"
    return finding(
        FOLDED_CONFIG_LINK,
        f"'~/{quoted(relative)}' on this host is one symlink into the repository "
        f"('{quoted(config.display_path(real))}'), a folded stow link: "
        f"{spec_of(agent).label} reads its configuration through it, and any command run "
        "in ~ (an agent started there, or ~ as a write root) can unlink or rename it, since no "
        "deny protects a symlink itself; the agent then recreates an empty directory and its "
        "next launch has no user settings and no sandbox, and the agent's own logins and "
        "sessions land in the repository meanwhile. Unfold it: move the agent's own files "
        f"out of the repository, then `stow -D {stow}` and `stow --no-folding {stow}`",
        where,
        agent=agent,
    )


def _spelled_dir(path: Path) -> str:
    """A directory as a shell command would name it: from ``~/`` when under the home."""
    text = display_path(path, Path("/nonexistent-base"))
    return text if "'" not in text and " " not in text else f"'{text}'"


def state_file_findings(config: Config, agents: Iterable[str]) -> list[Finding]:
    """TWS241 for every declared credential or state file of ``agents`` found in a directory
    of the repository that mirrors ``~`` (names only; nothing is read)."""
    repo = config.confine_root
    findings: list[Finding] = []
    inside: dict[Path, bool] = {}  # many state files share a directory: resolve each once
    for root in mirror_roots(config):
        for name in agents:
            spec = spec_of(name)
            for state in spec.state_files:
                for path in _present(root, state.path[2:], str(repo), inside):
                    findings.append(_state_finding(config, path, state, spec.label, name))
    return findings


def _present(root: Path, relative: str, repo: str, inside: dict[Path, bool]) -> list[Path]:
    """``root/relative`` if it exists (a ``*`` in the last part: the names it matches), never
    looking through a link that leaves the repository; ``inside`` memoizes, per directory,
    whether it resolves into the repository."""
    path = root / relative
    parent, glob = path.parent, any(char in path.name for char in "*?[")
    try:
        if not glob:
            os.lstat(path)  # most state files are absent: no need to resolve their directory
        if parent not in inside:
            inside[parent] = _inside(os.path.realpath(parent), repo)
        if not inside[parent]:
            return []
        if not glob:
            return [path]
        with os.scandir(parent) as entries:
            names = sorted(e.name for e in entries if wildcard.fnmatch(e.name, path.name))
    except (OSError, ValueError):
        return []
    return [parent / name for name in names]


def _state_finding(config: Config, path: Path, state: StateFile, label: str, agent: str) -> Finding:

    kind = "a credential" if state.credential else "agent state"
    rotate = "; rotate the credential if it was ever committed" if state.credential else ""
    return finding(
        AGENT_STATE_IN_REPOSITORY,
        f"'{quoted(config.display_path(path))}' is {label}'s {state.what} ({kind}) inside the "
        f"repository, where `git add -A` stages it: move it back to '{quoted(state.path)}' (link "
        "the tree with `stow --no-folding`, so the agent writes it there), and keep it out of "
        f"git (the .gitignore of `twsrt init --repo` lists it){rotate}",
        Location(config.display_path(path)),
        agent=agent,
    )


def repository_findings(config: Config, agent: str | None) -> list[Finding]:
    """The repository as this host links it: folded agent directories (TWS240), agent state
    inside it (TWS241), and whether a plain ``srt`` reads the policy (TWS242, not with
    ``--agent``: srt is no agent). Every registered agent counts, configured or not: an
    unconfigured agent's login in the tree is as leaked."""
    if config.confine_root is None or config.scope != "user":
        return []
    agents = [agent] if agent else list(AGENTS)
    findings = folded_link_findings(config, agents) + state_file_findings(config, agents)
    if agent is None:
        findings += srt_settings_findings(config)
    return findings


SRT_DEFAULT = ".srt-settings.json"  # what `srt CMD` reads without --settings, under ~


def srt_settings_findings(config: Config) -> list[Finding]:
    """TWS242 when this host loads the repository's agent files but ``~/.srt-settings.json`` is
    not the policy's srt source (missing, or another file)."""
    if config.fragments:
        return []  # a composed policy has no one file srt could read
    linked = next(
        (
            relative
            for _key, relative, path in _user_targets(config)
            if os.path.realpath(config.home / relative) == os.path.realpath(path)
            and os.path.lexists(config.home / relative)
        ),
        None,
    )
    policy = os.path.realpath(config.srt)
    home_file = config.home / SRT_DEFAULT
    if linked is None or os.path.realpath(home_file) == policy and home_file.exists():
        return []
    if home_file.is_symlink():
        now = f"links to '{quoted(display_path(Path(os.path.realpath(home_file))))}'"
        now += ", not the policy"
    elif os.path.lexists(home_file):
        now = "is a file of its own, not the policy"
    else:
        now = "does not exist, so srt runs with its built-in defaults, which deny no read at all"
    link = ""
    roots = mirror_roots(config)
    if roots:  # the link in the tree that stow puts at ~/.srt-settings.json
        value = os.path.relpath(config.srt, roots[0])
        shown = config.display_path(roots[0] / SRT_DEFAULT)
        link = f"'{quoted(shown)}' -> '{quoted(value)}' in the repository (as `twsrt init --repo` "
        link += "scaffolds it), then `stow --no-folding` again; or run srt as "
    message = (
        f"this host loads the repository's agent files ('~/{quoted(linked)}' is the target), but "
        f"'~/{SRT_DEFAULT}', the file a plain `srt CMD` reads, {now}. Link it to the policy: "
        f"{link}`srt --settings {_spelled_dir(Path(policy))}`"
    )
    return [finding(SRT_SETTINGS_ELSEWHERE, message, config.location("/sources/srt"))]
