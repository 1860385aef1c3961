"""One command's invocation: its ``Request`` turned, once, into the config (discovered, loaded
with the request's profile and scope, every file placed), the policy, the run context and the
agents the run works on. The rules every command shares live here once: which agents a run
selects, which approval modes it compiles for one agent (the yolo mode too when its yolo file
is configured), the context's sandbox mode, the fix command a drift names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.agents import AGENTS, effective_findings, spec_of
from twsrt.agents.base import Context
from twsrt.config import DEFAULT_SANDBOX_MODE, Config
from twsrt.configload import CONFIG_NAMES, discover, load_config, user_config_path
from twsrt.findings import TwsrtError, fail
from twsrt.locations import Location, display_path, git_root, home_dir, repo_root
from twsrt.placement import guard
from twsrt.protection import protected_context
from twsrt.records import record
from twsrt.report import profile_clause
from twsrt.rules import CONFIG_NOT_FOUND
from twsrt.safeio import real
from twsrt.sources import load_policy

if TYPE_CHECKING:
    from twsrt.agents.base import Result
    from twsrt.findings import Finding
    from twsrt.policy import Policy
    from twsrt.request import Request
    from twsrt.scopes import ScopeRequest


def find_config_error(home: Path, cwd: Path, display_root: Path | None = None) -> TwsrtError:
    """No config anywhere: located at the twsrt.toml the search would find first from every
    directory of the repository (its root; the working directory outside a repository), so
    an annotation or SARIF result has a file to stand on; named from ``display_root``
    (default: ``cwd``)."""
    return fail(
        CONFIG_NOT_FOUND,
        "no twsrt config found (looked for twsrt.toml or .twsrt.toml up to the git root, "
        f"then {display_path(user_config_path(home), display_root)}); run `twsrt init` to "
        "create one",
        Location(display_path(repo_root(cwd) / CONFIG_NAMES[0], display_root or cwd)),
    )


def find_config(
    explicit: str | None,
    *,
    repo_names: bool = False,
    scope: ScopeRequest | None = None,
    profile: str | None = None,
) -> Config:
    """The config the search finds. With ``repo_names`` (the CLI's commands), a config in a
    git repository names files as ``check`` does: relative to the repository root; else
    relative to the working directory (a library caller's own). ``scope``: ``--project
    DIR``/``--managed DIR`` (see ``scopes``); ``profile``: ``--profile`` (``profiles``)."""
    cwd = Path.cwd()
    home = home_dir()
    path = discover(explicit, cwd, home)
    if path is None:
        raise find_config_error(home, cwd)
    root = git_root(real(path)) if repo_names else None
    return load_config(path, home, cwd, display_root=root, scope=scope, profile=profile)


def select_agents(agent: str | None, config: Config) -> list[str]:
    """The named agent, else every agent with a target in the config (all when none has one);
    in a project or managed run, the agents with a file in that scope (``scopes.select``)."""
    if config.scope != "user":
        from twsrt.scopes import select

        return select(agent, config)
    if agent:
        return [agent]
    # by the declarations: an agent with no target is never imported
    configured = [name for name in AGENTS if any(k in config.targets for k in spec_of(name).keys)]
    return configured or list(AGENTS)


def context(config: Config, policy: Policy, yolo: bool, sandbox_flag: str | None) -> Context:
    """The run context: ``--sandbox`` wins over ``[sandbox] mode``, else workspace-write;
    ``--yolo`` in a project or managed run is a usage error (those files have no yolo twin)."""
    if yolo and config.scope != "user":
        from twsrt.scopes import refuse_yolo

        raise refuse_yolo(config)
    if sandbox_flag:
        return protected_context(config, policy, yolo, sandbox_flag, Location(config.display), True)
    if config.sandbox_mode:
        origin = config.location("/sandbox/mode")
        return protected_context(config, policy, yolo, config.sandbox_mode, origin)
    return protected_context(config, policy, yolo, DEFAULT_SANDBOX_MODE)


def mode_line(ctx: Context) -> str:
    """The resolved pair, as every preview and diff shows it (with the profile, when there
    is one); a project or managed run names its scope and root instead of an approval mode
    (its files apply in every mode)."""
    config = ctx.config
    clause = profile_clause(config.selection)
    if config.scope != "user" and config.scope_root is not None:
        where = config.display_path(config.scope_root) or "."
        return f"twsrt: {config.scope} scope {where}, sandbox mode {ctx.sandbox_mode}{clause}"
    return f"twsrt: approval mode {ctx.mode}, sandbox mode {ctx.sandbox_mode}{clause}"


def fix_command(ctx: Context) -> str:
    """The ``generate`` run that rewrites what a run in ``ctx`` compared: same approval mode
    and, when chosen on the command line, the same sandbox mode, profile and scope."""
    command = "twsrt generate -w"
    if ctx.yolo:
        command += " --yolo"
    if ctx.sandbox_flag:
        command += f" --sandbox {ctx.sandbox_mode}"
    selection = ctx.config.selection
    if selection is not None and selection.chosen_by == "--profile":
        command += f" --profile {selection.name}"
    config = ctx.config
    if config.scope_by_option and config.scope_root is not None:  # --project / --managed DIR
        import shlex

        command += f" --{config.scope} {shlex.quote(config.display_path(config.scope_root))}"
    return command


@record
class Invocation:
    """A request opened: the loaded config (confined to the repository in repo mode), the
    policy and the run context, ready for a command to compile, compare and report."""

    request: Request
    config: Config
    policy: Policy
    context: Context
    recovered: tuple[str, ...] = ()  # a killed ``generate -w``'s renames finished first

    @property
    def agents(self) -> list[str]:
        """The agents the run works on (``select_agents``)."""
        return select_agents(self.request.agent, self.config)

    def modes(self, name: str, *, other: bool = True) -> list[bool]:
        """The approval modes (yolo or not) the run compiles ``name`` for: the requested mode,
        then the other one when the agent's yolo file is configured explicitly, so no file
        of the pair is left unchecked or stale. ``other=False`` (check): only the yolo mode
        is added, a ``--yolo`` run checks the yolo files alone."""
        yolo = self.context.yolo
        explicit = any(
            t.yolo_of is not None and t.key in self.config.targets for t in spec_of(name).targets
        )
        if explicit and (other or not yolo):
            return [yolo, not yolo]
        return [yolo]

    def compile(self, name: str, yolo: bool | None = None) -> Result:
        """``name`` compiled in the requested mode, or in ``yolo``'s."""
        ctx = self.context if yolo is None else replace(self.context, yolo=yolo)
        return AGENTS[name].compile(ctx)

    def effective(self, agent: str) -> list[Finding]:
        """What ``agent`` really loads beside its generated files (``effective/``)."""
        return effective_findings(self.context, agent)

    def fix_command(self) -> str:
        return fix_command(self.context)

    @property
    def mode_line(self) -> str:
        return mode_line(self.context)


def open_invocation(request: Request, *, recover: bool = False) -> Invocation:
    """Discovery, loading (profile, scope), placement (a placement error refuses the run
    before anything is read), the policy and the context, once. ``recover``: first finish
    what a killed ``generate -w`` of this config left half written (``journal``), before
    any target is read."""
    config = find_config(
        request.config,
        repo_names=request.repo_names,
        scope=request.scope,
        profile=request.profile,
    )
    recovered: list[str] = []
    if recover:
        from twsrt.journal import recover as finish

        recovered = finish(config.path.parent)
    config = config.confined(guard(config, request.yolo))
    policy = load_policy(config)
    ctx = context(config, policy, request.yolo, request.sandbox)
    return Invocation(request, config, policy, ctx, tuple(recovered))
