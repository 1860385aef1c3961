"""Find, read and validate the twsrt config (``config.toml`` / ``twsrt.toml``)."""

from __future__ import annotations

import os
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.documents import Documents
from twsrt.findings import Finding, TwsrtError, fail
from twsrt.locations import Location
from twsrt.rules import CONFIG_INVALID
from twsrt.tomlpos import PositionedToml, TomlSyntaxError, parse_toml

if TYPE_CHECKING:
    from twsrt.scopes import ScopeRequest

CONFIG_NAMES = ("twsrt.toml", ".twsrt.toml")
DEFAULT_SOURCES = {
    "srt": "~/.srt-settings.json",
    "bash_rules": "~/.config/twsrt/bash-rules.json",
}
MODES = ("full", "yolo")  # approval modes
# What sandboxed commands may touch, orthogonal to the approval mode (Codex's and DeepCode's axis).
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
DEFAULT_SANDBOX_MODE = "workspace-write"
PROFILE_ENV = "TWSRT_PROFILE"
# The CLI's --profile for the command it runs (set around the command, so every stage that
# loads the config sees it without a parameter in each signature); a library caller passes
# ``profile=`` to ``load_config`` instead.
PROFILE_OPTION: ContextVar[str | None] = ContextVar("twsrt_profile_option", default=None)


def user_config_path(home: Path) -> Path:
    return home / ".config" / "twsrt" / "config.toml"


def home_dir() -> Path:
    return Path(os.environ.get("HOME") or os.path.expanduser("~"))


def display_path(path: Path, base: Path | None = None) -> str:
    """How a file is named in messages: relative to ``base`` (default: the working directory)
    when inside it, else from ``~/``, else absolute."""
    try:
        return path.relative_to(base or Path.cwd()).as_posix()
    except ValueError:
        pass
    try:
        return "~/" + path.relative_to(home_dir()).as_posix()
    except ValueError:
        return path.as_posix()


def discover(
    explicit: str | None, cwd: Path, home: Path, display_root: Path | None = None
) -> Path | None:
    """The config file to use, in the documented order; ``None`` when there is none.

    ``-c`` then ``$TWSRT_CONFIG`` (both must exist), then the nearest ``twsrt.toml`` or
    ``.twsrt.toml`` from ``cwd`` up to the git root (only ``cwd`` outside a repository), then
    ``~/.config/twsrt/config.toml``. A missing named file is reported relative to
    ``display_root`` (default: ``cwd``).
    """
    named = explicit or os.environ.get("TWSRT_CONFIG") or None
    if named:
        path = Path(named).expanduser()
        path = path if path.is_absolute() else cwd / path
        origin = "-c/--config" if explicit else "$TWSRT_CONFIG"
        if not os.path.lexists(path) or path.is_dir():
            what = "is a directory" if path.is_dir() else "does not exist"
            where = Location(display_path(path, display_root or cwd))
            raise fail(CONFIG_INVALID, f"config file named by {origin} {what}", where)
        return path  # anything else (a FIFO, a loop) is refused with its reason when read
    for directory in _search_dirs(cwd):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if os.path.lexists(candidate) and not candidate.is_dir():
                return candidate
    fallback = user_config_path(home)
    return fallback if os.path.lexists(fallback) and not fallback.is_dir() else None


def _ancestors(start: Path) -> list[Path]:
    """``start`` and its parents, stopping below any of git's ``GIT_CEILING_DIRECTORIES``."""
    ceilings = {
        Path(item) for item in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":") if item
    }
    chain = []
    for directory in [start, *start.parents]:
        if directory in ceilings:
            break
        chain.append(directory)
    return chain or [start]


def git_root(path: Path) -> Path | None:
    """The git root containing ``path`` (a file or directory); None outside a repository."""
    start = path if path.is_dir() else path.parent
    for directory in _ancestors(start):
        if (directory / ".git").exists():
            return directory
    return None


def repo_root(path: Path) -> Path:
    """The git root containing ``path`` (a file or directory), else its directory."""
    return git_root(path) or (path if path.is_dir() else path.parent)


def _search_dirs(cwd: Path) -> list[Path]:
    chain = _ancestors(cwd)
    for index, directory in enumerate(chain):
        if (directory / ".git").exists():
            return chain[: index + 1]
    return [cwd]


@dataclass(frozen=True)
class Selection:
    """Which profile a run composes its policy from, and what chose it (shown in every report)."""

    name: str
    chosen_by: str  # "--profile", "$TWSRT_PROFILE", "hosts" or "default"
    origin: Location  # the config line that made the choice (the profile, or the hosts entry)
    # chosen_by "hosts": this machine's host name and the hosts pattern it matched (reports
    # name both, so a reader sees why this machine got this profile)
    host: str = ""
    pattern: str = ""


@dataclass(frozen=True)
class Fragment:
    """One ``[fragments.<name>]`` table: an srt file and/or a bash rules file."""

    name: str
    srt: Path | None
    bash_rules: Path | None

    def files(self) -> list[tuple[str, Path]]:
        """(kind, path) of each file it names: kind "srt" or "bash_rules"."""
        named = (("srt", self.srt), ("bash_rules", self.bash_rules))
        return [(kind, path) for kind, path in named if path is not None]


@dataclass
class Config:
    path: Path
    display: str
    home: Path
    srt: Path
    bash_rules: Path
    targets: dict[str, Path] = field(default_factory=dict)
    overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    positions: PositionedToml | None = None
    pinned_home: str | None = None
    # where this policy repository is checked out where the agents run, as written (~/... or
    # absolute; None: not set): the protected set write-denies it (protection.py)
    checkout: str | None = None
    check: dict[str, Any] = field(default_factory=dict)  # the [check] table
    sandbox_mode: str | None = None  # [sandbox] mode, None when the config does not set it
    # Where a run stands, passed down with the config instead of held in globals: files are
    # named relative to ``display_root`` (the repository root when ``check`` or the CLI works
    # in repo mode; None: the working directory), and reads stay inside ``confine_root`` (the
    # real repository directory in repo mode, see ``safeio``; None: anywhere).
    display_root: Path | None = None
    confine_root: Path | None = None
    # the profile this run composes (None: the config has no [profiles], one policy as before)
    selection: Selection | None = None
    # where this run's targets take effect (agents.base.Scope) and the directory their relative
    # defaults hang from: the project root in "project" scope, the output tree in "managed"
    scope: str = "user"
    scope_root: Path | None = None
    # a scoped run (scopes.py): the agents it compiles, the notes of those left out (TWS448),
    # and whether --project/--managed chose the scope (else the config's table)
    scope_agents: tuple[str, ...] = ()
    scope_findings: tuple[Finding, ...] = ()
    scope_by_option: bool = False
    # with [profiles]: the selected profile's fragments in `extends` order, and every fragment
    # the config defines (placement checks them all); empty without [profiles]
    fragments: tuple[Fragment, ...] = ()
    all_fragments: dict[str, Fragment] = field(default_factory=dict)
    # `check --user-config FILE`: the user policy a project-scope check compares with, named
    # on the command line (read wherever it lies); None: [project] user_config, confined
    user_config_option: Path | None = None
    # config pointers answered at another entry: a profile's own [profiles.P.targets] key
    aliases: dict[str, str] = field(default_factory=dict)
    # this run's files, each read and parsed once (documents.py); ``confined`` keeps it
    documents: Documents = field(default_factory=Documents, repr=False, compare=False)

    @property
    def output_home(self) -> str:
        """The home that ``~`` expands to inside generated files (pinned, else this machine's)."""
        return self.pinned_home or str(self.home)

    def location(self, pointer: str) -> Location:
        pointer = self.aliases.get(pointer, pointer)
        line, col = self.positions.position(self._placed(pointer)) if self.positions else (0, 0)
        return Location(self.display, line, col, pointer)

    def _placed(self, pointer: str) -> str:
        """Where a pointer stands in the config text: a scoped target taken from its default
        (not in [targets]) stands at the scope's table (at the file without one)."""
        if self.scope == "user" or not pointer.startswith("/targets/") or not self.positions:
            return pointer
        document = self.positions.value
        if pointer.removeprefix("/targets/") in document.get("targets", {}):
            return pointer
        return f"/{self.scope}" if self.scope in document else ""

    def resolve(self, raw: str) -> Path:
        return resolve_path(raw, self.path.parent, self.home)

    def display_path(self, path: Path) -> str:
        """How this run names ``path`` in messages and reports."""
        return display_path(path, self.display_root)

    def new_run(self) -> Config:
        """This config with an empty store of documents: a run that follows another (a library
        caller probing, editing a file, probing again) reads every file afresh."""
        return replace(self, documents=Documents())

    @property
    def target_confine(self) -> Path | None:
        """Where target files (and the files beside them) may be read: in a confined scoped
        run the scope root (a project may lie outside the repository that holds the policy),
        else ``confine_root`` (None: anywhere, as ``confined(None)`` asks)."""
        if self.scope != "user" and self.scope_root is not None and self.confine_root:
            return Path(os.path.realpath(self.scope_root))
        return self.confine_root

    def confined(self, root: Path | None) -> Config:
        """This config with reads confined to the repository ``root`` (None: not confined)."""
        return replace(self, confine_root=Path(os.path.realpath(root)) if root else None)


def resolve_path(raw: str, base: Path, home: Path) -> Path:
    """``~``, ``~/x``, absolute or config-relative; ``..`` folded so reports name clean paths."""
    if raw == "~":
        return home
    if raw.startswith("~/"):
        path = home / raw[2:]
    else:
        path = Path(raw)
        path = path if path.is_absolute() else base / path
    return Path(os.path.normpath(path))


def load_config(
    path: Path,
    home: Path,
    cwd: Path | None = None,
    display_root: Path | None = None,
    scope: ScopeRequest | None = None,
    profile: str | None = None,
) -> Config:
    """The config at ``path``; ``display_root`` (default: ``cwd``) is where the run names
    files from (see ``Config.display_root``); ``scope``: ``--project``/``--managed`` (see
    ``scopes``); ``profile``: the profile asked for by name (default: the CLI's --profile),
    see ``twsrt.profiles``."""
    from twsrt.safeio import FileProblem, read_text
    from twsrt.schemas import validate

    display = display_path(path, display_root or cwd)
    try:
        text = read_text(path)
    except FileProblem as exc:
        message = f"cannot read config: {exc.reason}"
        raise fail(CONFIG_INVALID, message, Location(display)) from None
    try:
        parsed = parse_toml(text)
    except TomlSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise fail(CONFIG_INVALID, f"invalid TOML: {exc.message}", location) from None
    findings = validate("config", parsed.value, display, parsed)
    if findings:
        raise TwsrtError(findings)
    data = parsed.value
    sources = {**DEFAULT_SOURCES, **data.get("sources", {})}
    base = path.parent
    config = Config(
        path=path,
        display=display,
        home=home,
        srt=resolve_path(sources["srt"], base, home),
        bash_rules=resolve_path(sources["bash_rules"], base, home),
        targets={k: resolve_path(v, base, home) for k, v in data.get("targets", {}).items()},
        overrides={mode: dict(data.get("sandbox_overrides", {}).get(mode, {})) for mode in MODES},
        positions=parsed,
        pinned_home=data.get("home"),
        checkout=data.get("checkout"),
        check=dict(data.get("check", {})),
        sandbox_mode=data.get("sandbox", {}).get("mode"),
        display_root=display_root,
        scope_by_option=scope is not None,
    )
    if any(key in data for key in ("profiles", "fragments", "profile")):
        from twsrt.profiles import apply_profiles

        config = apply_profiles(config, data, profile or PROFILE_OPTION.get())
    if scope is None and "project" not in data and "managed" not in data:
        config = _user_scope(config)
    else:
        from twsrt.scopes import apply_scope

        config = apply_scope(config, data, scope)
    from twsrt.placement import refusals

    refused = refusals(config)
    if refused:
        raise TwsrtError(refused)
    return config


def _user_scope(config: Config) -> Config:
    """A user-scope run keeps only the user keys of [targets] (scopes.py does the rest)."""
    from twsrt.agents import target_specs  # loaded already: the schema's targets come from it

    scoped = {target.key for target in target_specs() if target.scope != "user"}
    if scoped.isdisjoint(config.targets):
        return config
    return replace(config, targets={k: v for k, v in config.targets.items() if k not in scoped})
