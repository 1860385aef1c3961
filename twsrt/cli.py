"""Command-line interface: click wiring only. Parse a command line into one ``Request``, call one
command of ``twsrt.commands``, print the ``Outcome`` it returns and exit (``exits.finish``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from twsrt import __version__
from twsrt.agents import AGENTS  # import-free until an agent is looked up: the choices
from twsrt.completion import (
    complete_agent_list,
    complete_profile_options,
    complete_rules,
    complete_sources,
    did_you_mean,
)
from twsrt.exits import Group, config_option, finish, report_errors, start
from twsrt.reports import REPORTERS
from twsrt.request import Request
from twsrt.testing.registry import ENGINES  # the --engine choices, read when parsed

# kept in step with twsrt.config.SANDBOX_MODES by a test
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")


class AgentChoice(click.Choice):
    """A registry's names (the agents'), read when a command line is parsed: no edit here."""

    def __init__(self, names: Callable[[], tuple[str, ...]] = lambda: tuple(AGENTS)) -> None:
        self.names = names
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return self.names()

    @choices.setter
    def choices(self, _value: tuple[str, ...]) -> None:
        pass  # click.Choice.__init__ stores its argument; the registry is the one list

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """click's check, and for a near miss of a name the closest one (``codx``: codex)."""
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            hint = did_you_mean(str(value), self.choices)
            if not hint:
                raise
            self.fail(exc.message.rstrip(".") + hint, param, ctx)


sandbox_option = click.option(
    "--sandbox",
    "sandbox",
    type=click.Choice(SANDBOX_MODES),
    help="What sandboxed commands may touch (default: [sandbox] mode, else workspace-write); "
    "independent of --yolo.",
)


def _scope_chosen(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    """``--project DIR``/``--managed DIR`` as a ``scopes.ScopeRequest``; the second of the two
    on a command line is refused where it stands (``ctx.params`` holds the options parsed)."""
    if value is None:
        return None
    if any(ctx.params.get(name) is not None for name in ("project", "managed")):
        raise click.UsageError("--project and --managed exclude each other", ctx=ctx)
    from twsrt.scopes import ScopeRequest

    return ScopeRequest.of(str(param.name), value, Path.cwd())


def _scope_option(scope: str, what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(f"--{scope}", metavar="DIR", callback=_scope_chosen, help=what)


project_option = _scope_option("project", "Work on DIR's project files, not the user's.")
managed_option = _scope_option("managed", "Work on the managed files of the output tree DIR.")


def _run_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """What generate, diff and check share, in their help order: --sandbox, --project,
    --managed, -c/--config, --profile; the click context; bad input reported (exits)."""
    func = click.pass_context(report_errors(func))
    for option in (config_option, managed_option, project_option, sandbox_option):
        func = option(func)
    return func


def _report_file_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """A `--<format> FILE` option for every reporter that writes files, in registry order; the
    command receives them as ``<format>_file`` keyword arguments."""
    for reporter in reversed(REPORTERS.values()):
        if reporter.file_help:
            option = click.option(
                f"--{reporter.name}",
                f"{reporter.name.replace('-', '_')}_file",  # a parameter name is an identifier
                metavar="FILE",  # opened by reports.files, never through a link
                help=reporter.file_help,
            )
            func = option(func)
    return func


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="twsrt")
@config_option
@click.option(
    "-v", "--verbose", is_flag=True, help="Also print notes (as each command's own -v does)."
)
@click.pass_context
def cli(ctx: click.Context, config: str | None, profile: str | None, verbose: bool) -> None:
    """Compile one canonical sandbox policy into every AI coding agent's config."""
    ctx.obj = {"config": config, "profile": profile, "verbose": verbose}


def _request(ctx: click.Context, common: dict[str, Any], **fields: Any) -> Request:
    """The command's ``Request``: -c/--config and --profile given to the command or, before it,
    to the group (the command's own wins), ``--project``/``--managed`` as its scope (taken out
    of ``common``, the command's keyword arguments), the other ``fields`` as parsed."""
    group = ctx.obj or {}
    project, managed = common.pop("project", None), common.pop("managed", None)
    return Request(
        config=common.pop("config") or group.get("config"),
        profile=common.pop("profile") or group.get("profile"),
        scope=project or managed,
        **fields,
    )


def _verbose(ctx: click.Context, verbose: bool) -> bool:
    """-v after the subcommand, or before it (`twsrt -v check`)."""
    return verbose or bool((ctx.obj or {}).get("verbose"))


def _colour() -> bool:
    """Whether stdout gets ANSI colours (a terminal, NO_COLOR, FORCE_COLOR)."""
    from twsrt.reports.text import use_colour

    return use_colour(sys.stdout)


@cli.command()
@click.argument("agent", required=False, type=AgentChoice())
@click.option("-w", "--write", is_flag=True, help="Write the target files (selective merge).")
@click.option(
    "-n", "--dry-run", is_flag=True, help="Show what --write would change; write nothing."
)
@click.option("--yolo", is_flag=True, help="Generate the yolo variant (no ask rules).")
@click.option("-v", "--verbose", is_flag=True, help="List every finding (default: one count line).")
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="With --write: exit 1 when a file was changed (for the pre-commit hook).",
)
@_run_options
def generate(
    ctx: click.Context,
    agent: str | None,
    write: bool,
    dry_run: bool,
    yolo: bool,
    verbose: bool,
    exit_code: bool,
    sandbox: str | None,
    **common: Any,
) -> None:
    """Generate agent configs from the canonical sources (all agents without AGENT)."""
    from twsrt.commands.generate import GenerateOptions, run

    verbose = _verbose(ctx, verbose)
    request = _request(ctx, common, agent=agent, yolo=yolo, sandbox=sandbox, verbose=verbose)
    finish(run(request, GenerateOptions(write, dry_run, verbose, exit_code)))


@cli.command()
@click.argument("agent", required=False, type=AgentChoice())
@click.option("--yolo", is_flag=True, help="Compare against the yolo target files.")
@_run_options
def diff(
    ctx: click.Context, agent: str | None, yolo: bool, sandbox: str | None, **common: Any
) -> None:
    """Compare generated configs with the files on disk.

    Exit 0: no drift, 1: drift detected, 2: a target file is missing.
    """
    from twsrt.commands import diff as command

    finish(command.run(_request(ctx, common, agent=agent, yolo=yolo, sandbox=sandbox)))


@cli.command()
@click.option("--agent", type=AgentChoice(), help="Check only this agent's targets.")
@click.option("--yolo", is_flag=True, help="Check the yolo variants only.")
@click.option(
    "--fail-on",
    type=click.Choice(("error", "warning", "note")),
    help="Lowest level that makes the exit code 1 (default: [check] fail_on, else error).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(tuple(REPORTERS)),
    default="text",
    show_default=True,
    help="Report on stdout.",
)
@_report_file_options
@click.option("--no-ignores", is_flag=True, help="Report suppressed findings too.")
@click.option(
    "--user-config",
    type=click.Path(dir_okay=False, path_type=Path),
    help="User policy a project check compares with, read anywhere (not [project] user_config).",
)
@click.option("-q", "--quiet", is_flag=True, help="Only failing findings, no summary.")
@click.option("-v", "--verbose", is_flag=True, help="Also notes and suppressed findings.")
@_run_options
def check(
    ctx: click.Context,
    agent: str | None,
    yolo: bool,
    fail_on: str | None,
    output_format: str,
    no_ignores: bool,
    user_config: Path | None,
    quiet: bool,
    verbose: bool,
    sandbox: str | None,
    **common: Any,
) -> None:
    """Validate the sources, recompile every target in memory, report findings (read-only).

    Exit 0: nothing at or above --fail-on; 1: findings at or above it; 2: no usable config or
    bad usage; 3: internal error. The output format never changes the exit code.
    """
    from twsrt.commands import check as command
    from twsrt.findings import Level

    verbose = _verbose(ctx, verbose)
    if quiet and verbose:
        raise click.UsageError("-q/--quiet and -v/--verbose exclude each other", ctx=ctx)
    level = Level(fail_on) if fail_on else None
    config = {name: common.pop(name) for name in ("config", "profile", "project", "managed")}
    # what is left of the keyword arguments: the --<format> FILE options, in registry order
    files = tuple(
        (name.removesuffix("_file").replace("_", "-"), path)  # the format's name: `-`, not `_`
        for name, path in common.items()
        if path
    )
    asked = {"agent": agent, "yolo": yolo, "sandbox": sandbox, "fail_on": level, "quiet": quiet}
    shown = {"output_format": output_format, "verbose": verbose, "report_files": files}
    request = _request(ctx, config, **asked, **shown)
    named = (Path.cwd() / user_config.expanduser()) if user_config else None
    colour = REPORTERS[output_format].coloured and _colour()
    finish(command.run(request, colour=colour, no_ignores=no_ignores, user_config=named)[1])


@cli.command()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text for a person, json for programs.",
)
@config_option
@click.pass_context
@report_errors
def show(ctx: click.Context, output_format: str, **common: Any) -> None:
    """Print the policy a run composes, each entry with the file:line:col that set it.

    Exit 0; 2: no usable config, or a source that cannot be read or is invalid.
    """
    from twsrt.commands import show as command

    finish(command.run(_request(ctx, common, output_format=output_format)))


@cli.command()
@click.argument("rule_id", metavar="RULE", shell_complete=complete_rules)
@report_errors
def explain(rule_id: str) -> None:
    """Print the help of a rule (id such as TWS101, or name such as schema-unknown-key)."""
    from twsrt.commands import explain as command

    finish(command.run(rule_id))


@cli.command("test")
@click.option(
    "--engine",
    type=AgentChoice(lambda: (*ENGINES, "all")),
    multiple=True,
    help="Which sandbox to probe; give it more than once for several (default: every one that "
    "can run here for the agents the config targets, naming each one skipped; all: every "
    "engine, each must run).",
)
@sandbox_option
@click.option("--yolo", is_flag=True, help="Probe the yolo target files.")
@click.option("-k", "keyword", metavar="TEXT", help="Only probes whose name contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of text.")
@click.option("--junit", metavar="FILE", help="Also write a JUnit XML report.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=60.0,
    show_default=True,
    metavar="S",
    help="Seconds allowed for one probe run.",
)
@click.option(
    "--strict", is_flag=True, help="Exit 1 on GAP, UNENFORCED and UNMODELLED verdicts too."
)
@click.option("-v", "--verbose", is_flag=True, help="Also list passing probes.")
@project_option
@config_option
@click.pass_context
@report_errors
def test_command(
    ctx: click.Context,
    engine: tuple[str, ...],
    sandbox: str | None,
    yolo: bool,
    keyword: str | None,
    as_json: bool,
    junit: str | None,
    timeout: float,
    strict: bool,
    verbose: bool,
    **common: Any,
) -> None:
    """Prove the sandboxes enforce the policy by running probes in them, with the target
    files as they are on disk, for the configured sandbox and approval mode.

    Exit 0: every probe PASS (or GAP, a documented engine limitation, or UNENFORCED under
    danger-full-access); 1: a FAIL, INVALID or ERROR (or a GAP/UNENFORCED with --strict);
    2: no engine can run here, an engine named with --engine cannot, or no usable config.
    """
    from twsrt.commands.test import ProbeOptions, run

    request = _request(ctx, common, yolo=yolo, sandbox=sandbox, verbose=_verbose(ctx, verbose))
    probes = ProbeOptions(engine, keyword, timeout, strict, as_json, junit)
    # a counter per engine while the probes run: on a terminal, for the text report only
    progress = sys.stderr if not as_json and sys.stderr.isatty() else None
    finish(run(request, probes, colour=not as_json and _colour(), progress=progress))


def _agent_list(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> list[str] | None:
    from twsrt.commands.init import parse_agents

    try:
        return None if value is None else parse_agents(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _expand_home(_ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    from twsrt.commands.init import expand_home

    return None if value is None else expand_home(value)


@cli.command()
@click.option("-f", "--force", is_flag=True, help="Overwrite existing files.")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    callback=_expand_home,
    help="Write config.toml and bash-rules.json in DIR instead of ~/.config/twsrt (use the config "
    "with -c or $TWSRT_CONFIG).",
)
@click.option(
    "--repo",
    "repo",
    is_flag=False,
    flag_value=".",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    callback=_expand_home,
    help="Scaffold a dotfiles repository in REPO (default .): config, policy/, the generated "
    "home/ tree and a .pre-commit-config.yaml.",
)
@click.option(
    "--agents",
    "agents",
    metavar="AGENTS",
    callback=_agent_list,
    shell_complete=complete_agent_list,
    help="With --repo: comma-separated agents to configure, or 'all' "
    f"({', '.join(AGENTS)}). Default: claude,codex plus any agent whose file already exists "
    "under home/.",
)
@report_errors
def init(force: bool, directory: Path | None, repo: Path | None, agents: list[str] | None) -> None:
    """Write a commented starter config and example sources."""
    from twsrt.commands import init as command

    finish(command.run(directory, repo, force, agents))


@cli.command()
@click.argument("source", required=False, shell_complete=complete_sources)
@config_option
@click.pass_context
@report_errors
def edit(ctx: click.Context, source: str | None, **common: Any) -> None:
    """Open a source (srt, bash, a fragment's NAME.srt) in $EDITOR, then validate it; without
    SOURCE, list them. Exit: the editor's code when it fails, else 0 valid, 1 schema errors,
    2 unreadable JSON.
    """
    from twsrt.commands import edit as command

    finish(command.run(_request(ctx, common), source))


@cli.command()
@click.argument("name", required=False, type=click.Choice(("srt", "bash", "config")))
@click.option(
    "--write",
    "directory",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    callback=_expand_home,
    help="Write every schema into DIR (for sources that name them by relative path).",
)
@report_errors
def schema(name: str | None, directory: Path | None) -> None:
    """Print a JSON Schema (srt, bash or config) for editors and CI; --write DIR writes all."""
    from twsrt.commands import schema as command

    if directory is not None and name is not None:
        raise click.UsageError("--write writes every schema: give no NAME")
    finish(command.run(name) if directory is None else command.write(directory))


@cli.command()
@click.argument("shell", type=click.Choice(("bash", "zsh", "fish")))
@report_errors
def completion(shell: str) -> None:
    """Print a shell completion script, e.g. `eval "$(twsrt completion bash)"` in ~/.bashrc."""
    from click.shell_completion import get_completion_class

    completer = get_completion_class(shell)
    assert completer is not None  # click ships all three
    # the script calls `twsrt` back with _TWSRT_COMPLETE set; click answers from the live CLI
    click.echo(completer(cli, {}, "twsrt", "_TWSRT_COMPLETE").source())


complete_profile_options(cli)


def main() -> NoReturn:
    """The ``twsrt`` console script: the process ends with the command (``exits.start``)."""
    start(cli)
