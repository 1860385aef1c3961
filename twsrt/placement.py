"""Where sources and targets may be, checked once before any of them is read or written.

- At load (``refusals``, called by ``load_config``): every path must be a name the file system
  can hold (no NUL, no component over NAME_MAX, shorter than PATH_MAX: every later ``stat``
  fails) and twsrt may show (no control character), outside any version-control metadata
  directory (TWS019, ``vcs.py``). A derived yolo file's length is checked here, for the runs
  that use it.
- Repo mode (the config is inside a git repository): every source and target, including the
  files derived from a target (a yolo file, the settings.json link), resolves inside the
  repository after ``..``, absolute paths and symlinks (TWS005). Outside repo mode absolute
  paths are the point of a user config and stay allowed.
- Each target is its own file: not another target, not the config, not a source (TWS006).
- Project or managed scope (scopes.py): every target inside the scope root (TWS018), which may
  lie outside the repository when ``--project``/``--managed`` names it; a root named by the
  config's table stays inside the repository (TWS005).

Reads of files found later (config layers beside a target) stay inside ``Config.confine_root``.
"""

from __future__ import annotations

from pathlib import Path

from twsrt.agents import agent_of, specs, yolo_keys
from twsrt.agents.base import yolo_variant
from twsrt.config import Config
from twsrt.findings import Finding, TwsrtError, finding
from twsrt.locations import Location, git_root
from twsrt.pathnames import control_problem, length_problem
from twsrt.records import record
from twsrt.rules import (
    CONFIG_INVALID,
    PATH_OUTSIDE_REPOSITORY,
    TARGET_COLLISION,
    TARGET_UNUSABLE,
    VCS_METADATA_PATH,
)
from twsrt.safeio import real, within
from twsrt.scopes import placement_findings as scope_placement
from twsrt.vcs import metadata_hit


@record
class Placed:
    """One file a run may read or write, and the config key that puts it there."""

    pointer: str  # /targets/<key> or /sources/<key>
    path: Path
    what: str  # how a message names it
    follow: bool = True  # False: a link twsrt manages is itself the file, not what it names
    derived_yolo: bool = False  # the yolo file derived from a key's path

    def identity(self) -> Path:
        if self.follow:
            return real(self.path)
        return real(self.path.parent) / self.path.name


def placed_files(config: Config) -> tuple[list[Placed], list[Placed]]:
    """The sources, and every target file the config implies (derived ones included)."""
    sources = [
        Placed("/sources/srt", config.srt, "the srt source"),
        Placed("/sources/bash_rules", config.bash_rules, "the bash rules source"),
    ]
    if config.all_fragments:  # every fragment file, the selected profile's or not
        sources = [
            Placed(f"/fragments/{name}/{kind}", path, f"the {kind} file of fragment {name}")
            for name, fragment in config.all_fragments.items()
            for kind, path in fragment.files()
        ]
    targets: list[Placed] = []
    yolo_of = yolo_keys()
    for key, path in config.targets.items():
        targets.append(Placed(f"/targets/{key}", path, key))
        yolo_key = yolo_of.get(key)
        if yolo_key is not None and yolo_key not in config.targets:
            what = f"the yolo file of {key}"
            targets.append(Placed(f"/targets/{key}", yolo_variant(path), what, derived_yolo=True))
    return sources, targets + _links(config)


def _links(config: Config) -> list[Placed]:
    """Per agent, one link beside its first configured linked target (the full settings, else
    the yolo ones), whichever mode it points at."""
    links: list[Placed] = []
    for spec in specs():
        first = next((t for t in spec.targets if t.link and t.key in config.targets), None)
        if first is None or first.link is None or config.targets[first.key].name == first.link:
            continue
        path = config.targets[first.key].parent / first.link
        what = f"the {first.link} link beside {first.key}"
        links.append(Placed(f"/targets/{first.key}", path, what, follow=False))
    return links


def guard(config: Config, yolo: bool) -> Path | None:
    """For ``generate``, ``diff`` and ``test``: refuse a config with any placement error
    before anything is read; the repository root that confines later reads (None outside
    repo mode)."""

    repo = git_root(real(config.path))
    problems = placement_findings(config, repo, yolo)
    if problems:
        raise TwsrtError(problems)
    return repo


def placement_findings(config: Config, repo: Path | None, yolo: bool) -> list[Finding]:
    """Every placement error of the config; ``repo`` is the git root in repo mode, else None;
    ``yolo``: the run uses the yolo files."""
    sources, targets = placed_files(config)
    found: list[Finding] = []
    for item in [*sources, *targets]:
        if item.derived_yolo and not yolo:
            continue  # a yolo file this run never touches may have any name
        problem = length_problem(item.path)  # a derived yolo file's (the rest: ``refusals``)
        if problem:
            rule = TARGET_UNUSABLE if item.pointer.startswith("/targets/") else CONFIG_INVALID
            message = f"{item.what} ({config.display_path(item.path)}): {problem}"
            found.append(finding(rule, message, config.location(item.pointer)))
    if found:
        return found  # such a path fails every later check
    if repo is not None:
        root = real(repo)
        reported = set()  # one finding per key: a derived file shares its key's fate
        # a scoped run's targets belong to the scope root instead (scopes.placement_findings)
        checked = sources if config.scope != "user" else [*sources, *targets]
        for item in checked:
            if item.pointer not in reported and not within(item.path, root):
                reported.add(item.pointer)
                message = (
                    f"{item.what} ({config.display_path(item.path)}) resolves to "
                    f"{config.display_path(real(item.path))}, "
                    "outside the repository; in repo mode twsrt reads and writes only files "
                    "inside it"
                )
                where = config.location(item.pointer)
                found.append(finding(PATH_OUTSIDE_REPOSITORY, message, where))
    if config.scope != "user":
        found += scope_placement(config, repo)
    found += _collisions(config, sources, targets)
    return found


def user_policy(config: Config) -> list[Placed]:
    """The user config a project config names (``[project] user_config``), as a placed file."""
    table = config.positions.value.get("project") if config.positions is not None else None
    raw = table.get("user_config") if isinstance(table, dict) else None
    if config.scope != "project" or not isinstance(raw, str):
        return []
    return [Placed("/project/user_config", config.resolve(raw), "[project] user_config")]


def refusals(config: Config) -> list[Finding]:
    """What makes a config unusable for every run, refused when it is loaded (``load_config``),
    before anything is read, one finding per key: a home or path that holds a NUL or a control
    character, or is longer than the file system allows (``pathnames``); a placed file (the yolo
    file of a run in the other mode too) inside a version-control metadata directory (TWS019)."""

    out = [
        finding(CONFIG_INVALID, f"the {key} {problem}", config.location(f"/{key}"))
        for key, value in (("home", config.pinned_home), ("checkout", config.checkout))
        if value and (problem := control_problem(value))
    ]
    problem = control_problem(str(config.home))
    if problem:  # ~ of every path and report expands to it
        out.append(
            finding(
                CONFIG_INVALID, f"the home directory ($HOME) {problem}", Location(config.display)
            )
        )
    sources, targets = placed_files(config)
    items = [*sources, *targets, *user_policy(config)]
    said = {item.location.pointer for item in out}
    for item in items:
        where = config.location(item.pointer)
        problem = "" if where.pointer in said else _unusable(config, item)
        if problem:
            said.add(where.pointer)
            rule = TARGET_UNUSABLE if item.pointer.startswith("/targets/") else CONFIG_INVALID
            out.append(finding(rule, problem, where))
    return out + _metadata(config, items, said)


def _unusable(config: Config, item: Placed) -> str:
    """Why ``item``'s path names no file twsrt may use (a derived yolo file's length is left
    to the run that uses it: ``placement_findings``), else ""."""

    problem = control_problem(str(item.path))
    if problem:  # the path itself is not shown: the key locates it
        return f"{item.what}: the path {problem}"
    problem = "" if item.derived_yolo else length_problem(item.path)
    return f"{item.what} ({config.display_path(item.path)}): {problem}" if problem else ""


def _metadata(config: Config, items: list[Placed], said: set[str]) -> list[Finding]:

    out = []
    for item in items:
        where = config.location(item.pointer)
        if where.pointer in said:
            continue
        hit = metadata_hit(item.path, item.follow)
        if hit is not None:
            said.add(where.pointer)
            shown = config.display_path(hit.resolved) if hit.resolved else ""
            message = f"{item.what} ({config.display_path(item.path)}) {hit.reason(shown)}"
            out.append(finding(VCS_METADATA_PATH, message, where))
    return out


def _collisions(config: Config, sources: list[Placed], targets: list[Placed]) -> list[Finding]:
    claims: dict[Path, Placed] = {real(config.path): Placed("", config.path, "the config file")}
    for item in sources:
        claims.setdefault(real(item.path), item)
    found = []
    pairs = set()
    for item in targets:
        identity = item.identity()
        other = claims.get(identity)
        if other is None:
            claims[identity] = item
            continue
        if (item.pointer, other.pointer) in pairs:
            continue  # the yolo files of two colliding keys collide too: said once
        pairs.add((item.pointer, other.pointer))
        message = (
            f"{item.what} ({config.display_path(item.path)}) is the same file as {other.what}"
            f" ({config.display_path(other.path)}); one write would overwrite the other"
        )
        related = (config.location(other.pointer),) if other.pointer else ()
        found.append(
            finding(TARGET_COLLISION, message, config.location(item.pointer), related=related)
        )
    return found


def blocked_agents(findings: list[Finding]) -> set[str]:
    """Agents whose target keys a placement finding names (at its location or related)."""
    agents = set()
    for item in findings:
        for where in (item.location, *item.related):
            if "/targets/" in where.pointer:  # also a profile's own /profiles/P/targets/K
                name = agent_of(where.pointer.rsplit("/", 1)[1])
                if name:
                    agents.add(name)
    return agents


def sources_blocked(findings: list[Finding]) -> bool:
    """A source itself is unusable (a target on a source blocks the target, not the source)."""
    return any(item.location.pointer.startswith(("/sources/", "/fragments/")) for item in findings)
