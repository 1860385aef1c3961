"""What every agent target module provides, and the run context it gets."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from twsrt.config import DEFAULT_SANDBOX_MODE, SANDBOX_MODES, Config
from twsrt.diffs import View, opaque
from twsrt.documents import Documents
from twsrt.findings import Finding, finding
from twsrt.locations import Location
from twsrt.policy import Policy
from twsrt.records import record
from twsrt.rules import DANGER_FULL_ACCESS, TARGET_UNUSABLE, Rule
from twsrt.writes import Change

T = TypeVar("T")


class Once(Protocol):
    """``Context.once``, handed to a pure translation: ``make()`` once per run for ``key``
    (the value is shared: copy it before changing it)."""

    def __call__(self, key: Hashable, make: Callable[[], T], /) -> T: ...


@record
class Context:
    """What one agent compiles: the config, the policy with the protected set write-denied, and
    the approval and sandbox modes. Made by ``protection.protected_context`` (the protected set
    reads every registered agent's layers, so it is applied above the registry, not here)."""

    config: Config
    policy: Policy
    yolo: bool = False
    # the sandbox axis and where it was chosen ([sandbox] mode in the config, or --sandbox)
    sandbox_mode: str = DEFAULT_SANDBOX_MODE
    sandbox_origin: Location | None = None
    sandbox_flag: bool = False  # chosen by --sandbox on the command line
    # the policy as the sources write it (``policy`` before the protected set), set on creation
    written: Policy | None = field(default=None, compare=False, repr=False)
    # the run's files, each read and parsed once (documents.py): the invocation makes one store
    # per run and every mode's context shares it (``dataclasses.replace`` keeps it)
    documents: Documents = field(default_factory=Documents, compare=False, repr=False)
    # what a compile derives from the policy alone, shared by every mode's context as
    # ``documents`` is (``once``)
    shared: dict[Hashable, tuple[Policy, Any]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.sandbox_mode not in SANDBOX_MODES:
            raise ValueError(f"unknown sandbox mode {self.sandbox_mode!r}")
        # fail closed: only protected_context knows the protected set and the names each write
        # root protects (every registered agent's project layers)
        if self.written is None or self.policy.root_names is None:
            raise ValueError("a Context is made by protection.protected_context")

    def once(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, made once per run for this context's policy: check compiles an agent
        in both approval modes, and what does not depend on the mode (Copilot's sandbox,
        Claude's deny rules) was made twice. The value is shared: callers copy before they
        change it. A context with another policy (``replace``) makes its own."""
        held = self.shared.get(key)
        if held is not None and held[0] is self.policy:
            return held[1]
        value = make()
        self.shared[key] = (self.policy, value)
        return value

    @property
    def mode(self) -> str:
        return "yolo" if self.yolo else "full"

    @property
    def read_only(self) -> bool:
        return self.sandbox_mode == "read-only"

    @property
    def full_access(self) -> bool:
        return self.sandbox_mode == "danger-full-access"

    def full_access_finding(self, agent: str, what_stays: str) -> Finding:
        """The warning every run under danger-full-access carries, per agent: what is lost."""
        origin = self.sandbox_origin or Location(self.config.display)
        chosen = "--sandbox" if self.sandbox_flag else "[sandbox] mode"
        return finding(
            DANGER_FULL_ACCESS,
            f"sandbox mode danger-full-access ({chosen}): {agent} runs commands without an OS "
            f"sandbox, so the policy's filesystem and network rules are not enforced; "
            f"{what_stays}",
            origin,
            agent=agent,
        )


@record
class DriftItem:
    key: str
    value: str


@record(frozen=False)
class Drift:
    """How one target file on disk differs from what the policy generates."""

    display: str
    missing_file: bool = False
    missing: list[DriftItem] = field(default_factory=list)
    extra: list[DriftItem] = field(default_factory=list)
    reordered: bool = False
    target_key: str = ""  # the [targets] key that names this file
    old_text: str | None = None  # on disk
    new_text: str = ""  # what the policy generates
    # what a report may print of either text (diffs.py): the managed projection; nothing if unset
    view: View = opaque

    @property
    def drifted(self) -> bool:
        return self.missing_file or bool(self.missing or self.extra) or self.reordered


@record(frozen=False)
class Result:
    """One agent's compiled output for one mode."""

    agent: str
    # what ``generate`` prints without -w, rendered only when printed: check and diff never
    # show it, and at 13k rules rendering it cost a tenth of a check
    render_preview: Callable[[], str]
    changes: list[Change] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    drift: list[Drift] = field(default_factory=list)
    target_configured: bool = True
    notices: list[str] = field(default_factory=list)
    # managed values (a rule string, a path or host key) -> the source rule that produced them
    origins: dict[str, Location] = field(default_factory=dict)
    # what ``generate -w`` prints because its target is omitted (the seed: Copilot's flags go
    # to stdout when copilot_output is not set)
    stdout: str = ""

    @cached_property
    def preview(self) -> str:
        return self.render_preview()


# What a target file is, as twsrt edits it: a JSON settings file it merges into, a TOML config
# it merges into, a rules file or a flags snippet it owns whole.
TargetKind = Literal["json-settings", "toml-config", "exec-rules", "flags-text", "policy-toml"]

# Where a target file takes effect: the user's own files (``default`` under ``~``), a project's
# files (``default`` relative to the project root), or the files an administrator deploys
# (``default`` relative to the managed output tree). One run works in one scope (Config.scope).
Scope = Literal["user", "project", "managed"]


@record
class TargetSpec:
    """One ``[targets]`` key of an agent, declared once: the config schema, the pre-commit hook
    pattern, ``init`` and the placement checks all read it from here."""

    key: str
    kind: TargetKind
    description: str  # the config schema's description of the key
    default: str  # where the agent reads the file, under ~ (``init --repo`` puts it under home/)
    hook_pattern: str  # a regex matching the file's path, for the pre-commit hook's `files`
    # this key names the yolo file of that key (else the yolo file is derived from its path)
    yolo_of: str | None = None
    # a symlink of this name beside the file points at the file of the current approval mode
    link: str | None = None
    home_dependent: bool = False  # the file holds absolute paths: ~ expands with the home
    scaffold: bool = True  # ``init --repo`` writes the key into a new repository's config
    examples: tuple[str, ...] = ()  # the config schema's examples
    scope: Scope = "user"  # where the file takes effect (see Scope)


@record
class Layer:
    """One file (or directory) an agent discovers and loads as configuration on a later launch:
    a sandboxed command must not create, change, rename or unlink it (docs/never-widen.md,
    "between launches"). ``path``: under ``~`` in the user scope, relative to a project
    directory in the project scope (at any depth below a write root or the launch directory),
    absolute in the managed scope; a glob only where the agent discovers by pattern."""

    path: str
    scope: Scope
    tree: bool  # a directory: everything below it is loaded (commands, rules, plugins)
    why: str  # what the agent loads from it, for a finding's message


def discovered(scope: Scope, table: str) -> tuple[Layer, ...]:
    """The layers an agent discovers in one scope, declared as a table: one a line, its path
    (a trailing ``/`` marks a directory loaded whole) and, after white space, what the agent
    loads from it."""
    rows = (line.split(maxsplit=1) for line in table.splitlines() if line.strip())
    return tuple(
        Layer(path.removesuffix("/"), scope, path.endswith("/"), why) for path, why in rows
    )


@record
class StateFile:
    """A file or directory an agent writes for itself in its config directory (a login, session
    transcripts, history, caches): never configuration a repository should hold. ``init --repo``
    git-ignores each one in the home tree and ``check`` reports one found there (TWS241).
    ``path`` is under ``~``; a ``*`` in its last part matches names, as in a .gitignore."""

    path: str
    what: str  # what the agent keeps in it, for the finding's message
    credential: bool = False  # a login, token or key: rotate it once it was committed


@record
class Accepted:
    """A finding ``init --repo`` accepts in the open for the agent (a ``[[check.ignore]]`` entry
    of ``rule``), with the condition it rests on: ``comment`` says what is accepted
    and until when, ``reason`` is the entry's (``@ID@`` and ``@LABEL@`` in them stand for the
    rule's id and the agent's label). The scaffold lists every agent's ``launch`` entries (what
    a later launch loads) before its ``roots`` ones (what lies below the top of a write root)."""

    rule: Rule
    comment: str
    reason: str
    group: Literal["launch", "roots"] = "launch"

    @classmethod
    def mandatory_names_open(cls, rule: Rule) -> Accepted:
        """An agent whose sandbox protects none of srt's mandatory-deny set in the directory it
        starts in (``rule``: the agent's rule saying so), accepted until it runs under srt."""
        reason = "accepted until @LABEL@ is started under srt, which protects the set in its "
        return cls(rule, _MANDATORY_NAMES_OPEN, reason + "working directory")


_MANDATORY_NAMES_OPEN = """\
# @LABEL@'s sandbox lets a command write .git/hooks, .bashrc, .vscode and other agents' config
# layers in the directory it starts in (@ID@), which run outside any sandbox later; srt protects
# them there. Accepted here until @LABEL@ is started under srt; delete this entry to have
# `check` fail on it again.
"""


def state_names(directory: str, names: str) -> tuple[StateFile, ...]:
    """The agent's session data, history and caches: ``names`` (space-separated) in
    ``directory`` (under ``~``)."""
    return tuple(
        StateFile(f"{directory}/{name}", "session data, history or caches")
        for name in names.split()
    )


@record
class AgentSpec:
    """What an agent is, declared in its module: everything outside the module derives from it."""

    name: str  # the CLI's and the findings' name of the agent
    label: str  # how messages name it
    targets: tuple[TargetSpec, ...]  # the first is the one an error names when none is set
    # every config layer the agent discovers (its own discovery, whether or not twsrt writes
    # the file): the protected set (protection.py) reads them through agents.config_layers()
    layers: tuple[Layer, ...] = ()
    # what the agent writes for itself under ~ (its state and credentials, see StateFile)
    state_files: tuple[StateFile, ...] = ()
    # import-free module paths of its optional parts: the effective-configuration check (a
    # module with ``findings(ctx)``) and the ``twsrt test`` engine (a module with ``ENGINE``)
    effective: str | None = None
    engine: str | None = None
    rules: str | None = None  # its own rules (``Rule`` constants), taken into the catalog
    # the rules with which ``check`` says that a command can plant what this agent's next
    # launch loads (``twsrt test`` judges a planted project layer of the agent by them)
    planted_layer_rules: tuple[Rule, ...] = ()
    init_default: bool = False  # a default agent of ``init --repo`` (without ``--agents``)
    # whether its project layer keeps the user's lists beside the project's (Claude Code:
    # "Merged across settings sources"), and the user's bash rules (Codex collects the project's
    # .rules files with the user's, strictest wins); False, the cautious reading, is "replaces"
    project_lists_merge: bool = False
    project_rules_merge: bool = False
    # its lines in the [targets] table of ``twsrt init``'s user config (a ``{name}`` is filled
    # by init), and the findings ``init --repo`` accepts in the open for it
    config_template: str = ""
    accepted: tuple[Accepted, ...] = ()
    # why ``twsrt test`` has no engine for it (named when a run skips it; else a generic reason)
    no_engine: str = ""
    # its sandbox takes only directories as write roots: ``check`` reports an allowWrite path
    # that is a file on the host (TWS221)
    directory_write_roots: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(target.key for target in self.targets)

    @property
    def home_dependent(self) -> bool:
        """Its files need absolute paths, so a repository that manages them pins ``home``."""
        return any(target.home_dependent for target in self.targets)


def lazy_agent(module: str) -> Callable[[str], Any]:
    """An agent package's ``__getattr__``: ``AGENT`` imported from ``module`` on first use, so
    naming the package (the registry, its declaration, its rules) loads no translator."""

    def attribute(name: str) -> Any:
        if name != "AGENT":
            raise AttributeError(name)
        from importlib import import_module

        return import_module(module).AGENT

    return attribute


class Agent(Protocol):
    spec: AgentSpec
    name: str
    target_keys: tuple[str, ...]

    def compile(self, ctx: Context) -> Result: ...


class DeclaredAgent:
    """An agent class built on its declaration: ``name`` and ``target_keys`` come from ``spec``,
    and ``compile`` hands a run of a scope in ``scoped`` (project, managed) to that scope's
    compile, every other run to ``compile_user``. ``scoped`` names each as ``module:function``,
    imported on first use: a user-scope run (every pre-commit hook's) loads no scope module."""

    spec: ClassVar[AgentSpec]
    scoped: ClassVar[dict[str, str]] = {}
    name: str
    target_keys: tuple[str, ...]

    def __init__(self) -> None:
        self.name = self.spec.name
        self.target_keys = self.spec.keys

    def compile(self, ctx: Context) -> Result:
        scoped = self.scoped.get(ctx.config.scope)
        if scoped is None:
            return self.compile_user(ctx)
        from importlib import import_module

        module, function = scoped.split(":")
        compile_scope: Callable[[Context], Result] = getattr(import_module(module), function)
        return compile_scope(ctx)

    def compile_user(self, ctx: Context) -> Result:
        raise NotImplementedError


def read_target(path: Path, display: str, config: Config, documents: Documents) -> str | None:
    """The text of a target file (read within ``config``'s target confinement, through the run's
    ``documents``), None when it does not exist; unusable paths are errors."""
    from twsrt.findings import TwsrtError, fail
    from twsrt.safeio import FileProblem, problem_finding

    try:
        # no newline translation: CRLF files stay CRLF, and the text is exactly what
        # writes.apply compares before it replaces the file; read once per run
        return documents.read(path, confine=config.target_confine, universal_newlines=False)
    except FileProblem as exc:
        if exc.kind == "missing":
            return None
        if exc.kind == "directory":
            message = "is a directory, expected a file"
            raise fail(TARGET_UNUSABLE, message, Location(display)) from None
        prefix = "" if exc.kind == "dangling" else "cannot read: "
        raise TwsrtError(problem_finding(exc, TARGET_UNUSABLE, Location(display), prefix)) from None


def granting(srt: dict[str, Any], table: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    """The ``(pointer, why)`` entries of an agent's uncompiled-key table that the srt settings
    actually set (a missing, false or empty value grants nothing, so it is not reported)."""
    found = []
    for pointer, why in table:
        value = value_at(srt, pointer)
        if not (value is None or value is False or value == [] or value == {}):
            found.append((pointer, why))
    return found


def value_at(data: Any, pointer: str) -> Any:
    """The value at a simple JSON pointer (no escapes), or None when any step is missing."""
    node = data
    for part in pointer.strip("/").split("/"):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def yolo_variant(path: Path) -> Path:
    """``settings.full.json`` -> ``settings.yolo.json``; else ``.yolo`` before the extension."""
    name = path.name
    if ".full." in name:
        return path.with_name(name.replace(".full.", ".yolo.", 1))
    if path.suffix:
        return path.with_name(f"{path.stem}.yolo{path.suffix}")
    return path.with_name(f"{name}.yolo")
