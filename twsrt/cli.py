"""Command-line interface: parse options, call one stage function, print, set the exit code."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from twsrt import __version__
from twsrt.agents import AGENTS  # import-free until an agent is looked up: the choices
from twsrt.testing.registry import ENGINES  # import-free: the --engine choices

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
# 128 + SIGPIPE: the status a shell reports for a Unix tool stopped by a closed pipe (`| head`)
EXIT_CLOSED_PIPE = 141
# kept in step with twsrt.config.SANDBOX_MODES by a test
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")


class AgentChoice(click.Choice):  # type: ignore[type-arg]
    """The registered agents, read from the registry whenever a command line is parsed, so a
    new agent needs no edit here."""

    def __init__(self) -> None:
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        return tuple(AGENTS)

    @choices.setter
    def choices(self, _value: tuple[str, ...]) -> None:
        pass  # click.Choice.__init__ stores its argument; the registry is the one list


def _report_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input becomes findings on stderr and exit 2; a bug becomes exit 3, no traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from twsrt.findings import TwsrtError

        github = kwargs.get("output_format") == "github"
        try:
            # a context of its own: what a command sets (the display base) ends with it
            result = contextvars.copy_context().run(func, *args, **kwargs)
        except SystemExit as exc:
            if exc.code in (None, EXIT_OK, EXIT_FINDINGS):
                _remember_valid()
            raise
        except TwsrtError as exc:
            for item in exc.findings:
                _error_line(item.render(), github)
            sys.exit(EXIT_USAGE)
        except (click.exceptions.Exit, click.ClickException, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            _closed_pipe()
        except Exception as exc:  # noqa: BLE001 - last resort, reported without a traceback
            if os.environ.get("TWSRT_DEBUG"):
                raise
            _error_line(f"twsrt: internal error: {type(exc).__name__}: {exc}", github)
            click.echo("twsrt: set TWSRT_DEBUG=1 for a traceback and please report it", err=True)
            sys.exit(EXIT_INTERNAL)
        _remember_valid()
        return result

    return wrapper


def _closed_pipe() -> NoReturn:
    """The reader of our output went away (``twsrt check | head -1``): stop quietly, as a Unix
    tool stopped by SIGPIPE does. Whatever is still buffered goes to /dev/null, so the
    interpreter's last flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, stream.fileno())
    os.close(devnull)
    sys.exit(EXIT_CLOSED_PIPE)


def _error_line(text: str, github: bool) -> None:
    """A line on stderr; under --format github the runner must not read it as a command."""
    if github:
        from twsrt.reports.github import defuse

        text = defuse(text)
    click.echo(text, err=True)


def _github_format(args: list[str]) -> bool:
    return "--format=github" in args or any(
        a == "--format" and b == "github" for a, b in zip(args, args[1:], strict=False)
    )


def _remember_valid() -> None:
    if "twsrt.schemas" in sys.modules:
        sys.modules["twsrt.schemas"].remember_valid()


config_option = click.option(
    "-c",
    "--config",
    "config",
    metavar="FILE",
    help="twsrt config file (default: $TWSRT_CONFIG, nearest twsrt.toml, "
    "~/.config/twsrt/config.toml).",
)


sandbox_option = click.option(
    "--sandbox",
    "sandbox",
    type=click.Choice(SANDBOX_MODES),
    help="What sandboxed commands may touch (default: [sandbox] mode, else workspace-write); "
    "independent of --yolo.",
)


class _Group(click.Group):
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:  # `twsrt --help | head -1`: click alone would exit 1
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:
            _closed_pipe()

    def invoke(self, ctx: click.Context) -> Any:
        github = _github_format(list(ctx.args))  # before the subcommand consumes them
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _closed_pipe()
        except click.UsageError as exc:
            if github:
                from twsrt.reports.github import defuse

                exc.message = defuse(exc.message)  # an argument echoed back is free text
            exc.show()
            sys.exit(EXIT_USAGE)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="twsrt")
@config_option
@click.option(
    "-v", "--verbose", is_flag=True, help="Also print notes (as each command's own -v does)."
)
@click.pass_context
def cli(ctx: click.Context, config: str | None, verbose: bool) -> None:
    """Compile one canonical sandbox policy into every AI coding agent's config."""
    ctx.obj = {"config": config, "verbose": verbose}


def _config(ctx: click.Context, config: str | None) -> str | None:
    return config or (ctx.obj or {}).get("config")


def _verbose(ctx: click.Context, verbose: bool) -> bool:
    """-v after the subcommand, or before it (`twsrt -v check`)."""
    return verbose or bool((ctx.obj or {}).get("verbose"))


def _print_findings(findings: list[Any], verbose: bool) -> None:
    from twsrt.findings import Level

    for item in findings:
        if verbose or item.level is not Level.NOTE:
            click.echo(item.render(), err=True)


def _effective(compiled: Any, results: list[Any]) -> list[Any]:
    """User keys that undo the policy (TWS6xx), minus the config's suppressions; diff prints
    them but keeps its drift exit code."""
    from twsrt.checking import unsuppressed
    from twsrt.effective import effective_findings

    found = [f for r in results for f in effective_findings(compiled.context, r.agent)]
    return unsuppressed(compiled.config, list(dict.fromkeys(found)))[0]


def _echo_last(line: str) -> None:
    if line:
        click.echo(line, err=True)


def _report_translation(compiled: Any, verbose: bool) -> str:
    """generate's findings: the list only with -v (check lists them), and the count line it
    returns for the end of the run, when it has a warning or an error to count (notes alone
    stay quiet, as in check) or with -v. Errors, and a danger-full-access sandbox (as in diff),
    are printed on every run."""
    from twsrt.checking import unsuppressed
    from twsrt.findings import Level, rule_by_name
    from twsrt.reports.text import count_line

    active, suppressed = unsuppressed(compiled.config, compiled.findings)
    full_access = rule_by_name("danger-full-access").id
    loud = [f for f in active if verbose or f.level is Level.ERROR or f.rule_id == full_access]
    _print_findings(loud, True)
    if verbose or any(f.level is not Level.NOTE for f in active):
        return count_line("generate", active, suppressed, listed=verbose)
    return ""


def _print_notices(results: list[Any]) -> None:
    for result in results:
        for notice in result.notices:
            click.echo(notice, err=True)


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
@sandbox_option
@config_option
@click.pass_context
@_report_errors
def generate(
    ctx: click.Context,
    agent: str | None,
    write: bool,
    dry_run: bool,
    yolo: bool,
    verbose: bool,
    exit_code: bool,
    sandbox: str | None,
    config: str | None,
) -> None:
    """Generate agent configs from the canonical sources (all agents without AGENT)."""
    from twsrt import run

    verbose = _verbose(ctx, verbose)
    run.name_from_repository(_config(ctx, config))
    compiled = run.compile_agents(
        _config(ctx, config), agent, yolo, companions=write, sandbox=sandbox
    )
    if not write or dry_run:  # previews name the pair they were compiled for
        click.echo(compiled.mode_line, err=True)
    counted = _report_translation(compiled, verbose)  # printed last
    _print_notices(compiled.results)
    if not write:
        many = len(compiled.results) > 1
        for result in compiled.results:
            if many:
                click.echo(f"# {result.agent}")
            click.echo(result.preview, nl=False)
        _echo_last(counted)
        return
    results = run.require_targets(compiled, agent, printed=True)
    for result in compiled.results:
        if not result.target_configured and not result.stdout:
            click.echo(f"twsrt: {result.agent}: no target configured, skipped", err=True)
    changes = run.write_plan(results, compiled.companions)
    if dry_run:
        click.echo(run.dry_run_report(changes, compiled.views), nl=False)
        _echo_last(counted)
        return
    done = run.write(changes)
    for change in changes:
        verb = "wrote" if change in done else "unchanged"
        from twsrt.writes import SymlinkWrite

        label = run.symlink_display(change) if isinstance(change, SymlinkWrite) else change.display
        click.echo(f"twsrt: {verb} {label}", err=True)
    for result in compiled.results:  # only once every file is written: a refused run prints none
        click.echo(result.stdout, nl=False)
    _echo_last(counted)
    if exit_code and done:
        sys.exit(EXIT_FINDINGS)


@cli.command()
@click.argument("agent", required=False, type=AgentChoice())
@click.option("--yolo", is_flag=True, help="Compare against the yolo target files.")
@sandbox_option
@config_option
@click.pass_context
@_report_errors
def diff(
    ctx: click.Context, agent: str | None, yolo: bool, sandbox: str | None, config: str | None
) -> None:
    """Compare generated configs with the files on disk.

    Exit 0: no drift, 1: drift detected, 2: a target file is missing.
    """
    from twsrt import run
    from twsrt.findings import rule_by_name

    run.name_from_repository(_config(ctx, config))
    compiled = run.compile_agents(_config(ctx, config), agent, yolo, sandbox=sandbox)
    results = run.require_targets(compiled, agent)
    click.echo(compiled.mode_line, err=True)
    # danger-full-access is loud on every run, diff included
    full_access = rule_by_name("danger-full-access").id
    _print_findings([f for f in compiled.findings if f.rule_id == full_access], False)
    _print_findings(_effective(compiled, results), False)
    _print_notices(compiled.results)
    code = EXIT_OK
    fix = run.fix_command(compiled.context) if compiled.context else "twsrt generate -w"
    for result in results:
        for drift in result.drift:
            report = run.drift_report(drift, compiled.config, fix)
            click.echo(f"{result.agent}: {report}", nl=False)
            if drift.missing_file:
                code = EXIT_USAGE
            elif drift.drifted and code == EXIT_OK:
                code = EXIT_FINDINGS
    sys.exit(code)


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
    type=click.Choice(("text", "json", "github")),
    default="text",
    show_default=True,
    help="Report on stdout.",
)
@click.option("--sarif", type=click.Path(dir_okay=False), help="Also write SARIF 2.1.0 here.")
@click.option("--junit", type=click.Path(dir_okay=False), help="Also write a JUnit XML report.")
@click.option(
    "--json",
    "json_file",
    type=click.Path(dir_okay=False),
    help="Also write the JSON report here (for CI summaries).",
)
@click.option("--no-ignores", is_flag=True, help="Report suppressed findings too.")
@click.option("-q", "--quiet", is_flag=True, help="Only failing findings, no summary.")
@click.option("-v", "--verbose", is_flag=True, help="Also notes and suppressed findings.")
@sandbox_option
@config_option
@click.pass_context
@_report_errors
def check(
    ctx: click.Context,
    agent: str | None,
    yolo: bool,
    fail_on: str | None,
    output_format: str,
    sarif: str | None,
    junit: str | None,
    json_file: str | None,
    no_ignores: bool,
    quiet: bool,
    verbose: bool,
    sandbox: str | None,
    config: str | None,
) -> None:
    """Validate the sources, recompile every target in memory, report findings (read-only).

    Exit 0: nothing at or above --fail-on; 1: findings at or above it; 2: no usable config or
    bad usage; 3: internal error. The output format never changes the exit code.
    """
    from twsrt.checking import run_check
    from twsrt.findings import Level

    verbose = _verbose(ctx, verbose)
    if quiet and verbose:
        raise click.UsageError("-q/--quiet and -v/--verbose exclude each other", ctx=ctx)
    report = run_check(
        _config(ctx, config),
        agent,
        yolo,
        Level(fail_on) if fail_on else None,
        no_ignores,
        sandbox,
    )
    if output_format == "json":
        from twsrt.reports.json_report import render_json

        click.echo(render_json(report), nl=False)
        if report.aborted:  # stdout is for a program: say why on stderr for the person too
            for item in report.findings:
                _error_line(item.render(), False)
    elif output_format == "github":
        from twsrt.reports.github import render_github
        from twsrt.reports.text import render_text

        # annotations first (GitHub shows 10 per level), then the full text report, inert
        text = render_text(report, verbose=verbose, quiet=False, colour=False)
        click.echo(render_github(report, text), nl=False)
    else:
        from twsrt.reports.text import render_text, use_colour

        colour = use_colour(sys.stdout)
        text = render_text(report, verbose=verbose, quiet=quiet, colour=colour)
        click.echo(text, nl=False, color=colour)  # FORCE_COLOR: click would strip it off a pipe
    if sarif:
        from twsrt.reports.sarif import write_sarif

        write_sarif(report, Path(sarif))
    if junit:
        from twsrt.reports.junit import write_junit

        write_junit(report, Path(junit))
    if json_file:
        from twsrt.reports.json_report import render_json
        from twsrt.writes import atomic_write

        atomic_write(Path(json_file), render_json(report))
    sys.exit(report.exit_code)


@cli.command()
@click.argument("rule_id", metavar="RULE")
@_report_errors
def explain(rule_id: str) -> None:
    """Print the help of a rule (id such as TWS101, or name such as schema-unknown-key)."""
    from twsrt.rules import explain_text

    text = explain_text(rule_id)
    if text is None:
        raise click.UsageError(f"unknown rule {rule_id!r}; see docs/rules.md")
    click.echo(text)


@cli.command("test")
@click.option(
    "--engine",
    type=click.Choice((*ENGINES, "all")),
    default=None,
    help="Which sandbox to probe (default: every one that can run here for the agents the "
    "config targets, naming each one skipped; all: every engine, each must run).",
)
@sandbox_option
@click.option("--yolo", is_flag=True, help="Probe the yolo target files.")
@click.option("-k", "keyword", metavar="TEXT", help="Only probes whose name contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of text.")
@click.option("--junit", type=click.Path(dir_okay=False), help="Also write a JUnit XML report.")
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
@config_option
@click.pass_context
@_report_errors
def test_command(
    ctx: click.Context,
    engine: str | None,
    sandbox: str | None,
    yolo: bool,
    keyword: str | None,
    as_json: bool,
    junit: str | None,
    timeout: float,
    strict: bool,
    verbose: bool,
    config: str | None,
) -> None:
    """Prove the sandboxes enforce the policy by running probes in them, with the target
    files as they are on disk, for the configured sandbox and approval mode.

    Exit 0: every probe PASS (or GAP, a documented engine limitation, or UNENFORCED under
    danger-full-access); 1: a FAIL, INVALID or ERROR (or a GAP/UNENFORCED with --strict);
    2: no engine can run here, an engine named with --engine cannot, or no usable config.
    """
    from twsrt.testing.engines import EngineUnavailable
    from twsrt.testing.run import test_policy

    verbose = _verbose(ctx, verbose)
    from twsrt.run import name_from_repository

    name_from_repository(_config(ctx, config))
    try:
        report = test_policy(
            _config(ctx, config), engine, keyword, timeout, strict, sandbox=sandbox, yolo=yolo
        )
    except EngineUnavailable as exc:
        click.echo(f"twsrt test: {exc.engine} cannot run here: {exc.problem}", err=True)
        if exc.hint:
            click.echo(f"twsrt test: {exc.hint}", err=True)
        sys.exit(EXIT_USAGE)
    from twsrt.reports.probes import junit_xml, render_json, render_text

    if as_json:
        click.echo(render_json(report), nl=False)
    else:
        from twsrt.reports.text import use_colour

        colour = use_colour(sys.stdout)
        click.echo(render_text(report, colour=colour, verbose=verbose), nl=False, color=colour)
    if junit:
        from twsrt.writes import atomic_write

        atomic_write(Path(junit), junit_xml(report))
    sys.exit(report.exit_code)


def _agent_list(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> list[str] | None:
    if value is None:
        return None
    names = [name.strip() for name in value.split(",") if name.strip()]
    if names == ["all"]:
        return list(AGENTS)
    unknown = [name for name in names if name not in AGENTS]
    if unknown or not names:
        raise click.BadParameter(
            f"unknown agent {', '.join(map(repr, unknown)) or '(none)'}; choose from "
            f"{', '.join(AGENTS)} or all"
        )
    return names


def _scaffold(repo: Path, writes: list[Any]) -> list[str]:
    """Write the scaffold, then generate every agent file from it in one run (the full mode
    with its companion, so a user's existing settings.json reaches both the full and the yolo
    file); if generating fails, the scaffold is taken back, so a refused init writes nothing.
    Returns what was written, for the report."""
    from twsrt import run
    from twsrt.init import missing_directories, undo
    from twsrt.writes import SymlinkWrite, apply

    created = missing_directories(writes)
    apply(writes)
    try:
        compiled = run.compile_agents(str(repo / "twsrt.toml"), None, False, companions=True)
        results = run.require_targets(compiled, None)
        generated = run.write(run.write_plan(results, compiled.companions))
    except BaseException:
        undo(writes, created)
        raise
    return [w.display for w in writes] + [
        run.symlink_display(c) if isinstance(c, SymlinkWrite) else c.display for c in generated
    ]


def _expand_home(_ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    """A quoted `--dir '~/x'` reaches us unexpanded: expand it as the shell would have,
    never create a directory named `~`."""
    if value is None:
        return None
    from twsrt.config import home_dir

    text = str(value)
    if text == "~" or text.startswith("~/"):
        return home_dir() / text[2:]
    return Path(os.path.expanduser(text))  # ~user/x


@cli.command()
@click.option("-f", "--force", is_flag=True, help="Overwrite existing files.")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    callback=_expand_home,
    help="Create a repo-style twsrt.toml with relative paths in DIR instead of ~/.config/twsrt.",
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
    help="With --repo: comma-separated agents to configure, or 'all' "
    f"({', '.join(AGENTS)}). Default: claude,codex plus any agent whose file already exists "
    "under home/.",
)
@_report_errors
def init(force: bool, directory: Path | None, repo: Path | None, agents: list[str] | None) -> None:
    """Write a commented starter config and example sources."""
    from twsrt.init import plan_init, plan_repo, repo_agents
    from twsrt.writes import apply

    if repo is not None and directory is not None:
        raise click.UsageError("--dir and --repo exclude each other")
    if agents is not None and repo is None:
        raise click.UsageError("--agents needs --repo")
    if repo is None:
        writes, kept = plan_init(directory, force)
    else:
        agents = repo_agents(repo, agents)
        writes, kept = plan_repo(repo, force, agents)
    for display in kept:
        click.echo(f"twsrt: {display} exists, kept (use --force to overwrite)", err=True)
    if repo is None:
        apply(writes)
    written = [w.display for w in writes] if repo is None else _scaffold(repo, writes)
    for display in written:
        click.echo(f"twsrt: wrote {display}", err=True)
    if repo is not None:
        from twsrt.init import next_steps

        click.echo(next_steps(repo, agents or []), nl=False)


@cli.command()
@click.argument("source", required=False, type=click.Choice(("srt", "bash")))
@config_option
@click.pass_context
@_report_errors
def edit(ctx: click.Context, source: str | None, config: str | None) -> None:
    """Open a canonical source in $EDITOR, then validate it (without SOURCE: list the sources).

    Exit: the editor's code when it fails; else 0 valid, 1 schema errors, 2 unreadable JSON.
    """
    import shlex
    import subprocess

    from twsrt import run
    from twsrt.config import display_path

    run.name_from_repository(_config(ctx, config))
    cfg = run.find_config(_config(ctx, config))
    paths = {"srt": cfg.srt, "bash": cfg.bash_rules}
    if source is None:
        for name, path in paths.items():
            state = "" if path.exists() else "  (missing)"
            click.echo(f"{name:5} {display_path(path)}{state}")
        return
    try:
        editor = shlex.split(run.editor_command()) or ["vi"]
    except ValueError as exc:
        raise click.ClickException(f"cannot parse $VISUAL/$EDITOR: {exc}") from None
    command = [*editor, str(paths[source])]
    try:
        code = subprocess.call(command)
    except OSError as exc:
        raise click.ClickException(f"cannot start editor {command[0]!r}: {exc.strerror}") from None
    if code != EXIT_OK:  # the editor's own failure (or `:cq`): its exit code, nothing to check
        sys.exit(code)
    from twsrt.findings import Level

    findings = run.validate_source(cfg, source)  # a file that does not parse raises: exit 2
    _print_findings(findings, True)
    sys.exit(EXIT_FINDINGS if any(f.level is Level.ERROR for f in findings) else EXIT_OK)


@cli.command()
@click.argument("name", required=False, type=click.Choice(("srt", "bash", "config")))
@_report_errors
def schema(name: str | None) -> None:
    """Print a JSON Schema (srt, bash or config) for editors and CI."""
    from twsrt.schemas import SCHEMA_FILES, schema_text

    if name is None:
        for key, filename in SCHEMA_FILES.items():
            click.echo(f"{key:7} {filename}")
        return
    click.echo(schema_text(name), nl=False)


@cli.command()
@click.argument("shell", type=click.Choice(("bash", "zsh", "fish")))
@_report_errors
def completion(shell: str) -> None:
    """Print a shell completion script, e.g. `eval "$(twsrt completion bash)"` in ~/.bashrc."""
    from click.shell_completion import get_completion_class

    completer = get_completion_class(shell)
    assert completer is not None  # click ships all three
    # the script calls `twsrt` back with _TWSRT_COMPLETE set; click answers from the live CLI
    click.echo(completer(cli, {}, "twsrt", "_TWSRT_COMPLETE").source())


def main() -> NoReturn:
    try:
        code = _main()
        # output still buffered meets a closed pipe here, not in the interpreter's last flush
        sys.stdout.flush()
    except BrokenPipeError:
        _closed_pipe()
    sys.exit(code)


def _main() -> int | str | None:
    try:
        code = cli.main(standalone_mode=False)
    except SystemExit as exc:
        return exc.code
    except click.ClickException as exc:
        exc.show()
        return EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return EXIT_USAGE
    return code if isinstance(code, int) else 0
