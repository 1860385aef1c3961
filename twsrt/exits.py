"""How a command starts and ends: the options of every command that reads the config
(``config_option``: -c/--config and --profile); bad input as findings on stderr and a bad
command line as click's usage message (exit 2), a bug as one line without a traceback (exit 3),
a closed pipe quietly (141); the source validity cache kept only for runs that read their
sources without an error."""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from twsrt.outcome import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, Line, Outcome, Refused

# 128 + SIGPIPE: the status a shell reports for a Unix tool stopped by a closed pipe (`| head`)
EXIT_CLOSED_PIPE = 141


class Group(click.Group):
    """The command group: a closed pipe ends it quietly, a usage error exits 2 (defused: it
    may echo an argument back)."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:  # `twsrt --help | head -1`: click alone would exit 1
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:
            closed_pipe()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            closed_pipe()
        except click.UsageError as exc:
            show_error(exc)
            sys.exit(EXIT_USAGE)


def report_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Bad input becomes findings on stderr and exit 2; a bug becomes exit 3, no traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from twsrt.findings import TwsrtError

        github = kwargs.get("output_format") == "github"
        try:
            result = func(*args, **kwargs)
        except SystemExit as exc:
            if exc.code in (None, EXIT_OK, EXIT_FINDINGS):
                remember_valid()
            raise
        except TwsrtError as exc:
            for item in exc.findings:
                error_line(item.render(), github)
            sys.exit(EXIT_USAGE)
        except (click.exceptions.Exit, click.ClickException, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            closed_pipe()
        except Exception as exc:  # noqa: BLE001 - last resort, reported without a traceback
            if os.environ.get("TWSRT_DEBUG"):
                raise
            error_line(f"twsrt: internal error: {type(exc).__name__}: {exc}", github)
            click.echo("twsrt: set TWSRT_DEBUG=1 for a traceback and please report it", err=True)
            sys.exit(EXIT_INTERNAL)
        remember_valid()
        return result

    return wrapper


def start(group: click.Group) -> NoReturn:
    """Run the command line ``group`` parses and end the process with its exit status."""
    # The process ends with this command, so Python's cyclic garbage collector stays off: a run
    # frees what it builds by reference counting, and at 50k rules the collector's passes over
    # the growing heap cost a tenth of `check` and grow faster than the run does.
    gc.disable()
    try:
        code = _status(group)
        # output still buffered meets a closed pipe here, not in the interpreter's last flush
        sys.stdout.flush()
    except BrokenPipeError:
        closed_pipe()
    sys.exit(code)


def _status(group: click.Group) -> int | str | None:
    try:
        code = group.main(standalone_mode=False)
    except SystemExit as exc:
        return exc.code
    except click.ClickException as exc:
        show_error(exc)
        return EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return EXIT_USAGE
    return code if isinstance(code, int) else 0


def finish(outcome: Outcome) -> NoReturn:
    """Print what a command returned, in order; then its error (a ``Refused`` one as click's
    usage error), else its exit code. Every line but a program's format is escaped here, the
    one place (``printed``)."""
    for line in outcome.lines:
        click.echo(printed(line), nl=False, err=line.err, color=line.colour)
    if isinstance(outcome.error, Refused):
        raise _usage_error(outcome.error)
    if outcome.error is not None:
        raise outcome.error
    sys.exit(outcome.exit_code)


def _usage_error(refused: Refused) -> click.ClickException:
    """A command's refusal as click shows it (its usage line and the argument it names)."""
    if refused.param is not None:
        return click.BadParameter(refused.message, param_hint=refused.param)
    if refused.usage:
        return click.UsageError(refused.message)
    return click.ClickException(refused.message)


def closed_pipe() -> NoReturn:
    """The reader of our output went away (``twsrt check | head -1``): stop quietly, as a Unix
    tool stopped by SIGPIPE does. Whatever is still buffered goes to /dev/null, so the
    interpreter's last flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, stream.fileno())
    os.close(devnull)
    sys.exit(EXIT_CLOSED_PIPE)


def error_line(text: str, github: bool) -> None:
    """A line on stderr, escaped (``escaping.terminal``): no runner reads it as a command."""
    from twsrt.escaping import defuse, terminal

    text = defuse(text) if github else terminal(text, isatty(sys.stderr))
    click.echo(text, err=True)


def show_error(exc: click.ClickException) -> None:
    """click's message of a bad command line or a refused value, defused: it may echo an
    argument, a value or a path of the checkout back."""
    from twsrt.escaping import defuse

    # click declares message Final; show() prints it, so the defused text goes there
    exc.message = defuse(exc.message)  # type: ignore[misc]
    exc.show()


def printed(line: Line) -> str:
    """A line as the CLI prints it: a format for programs as it is, any other text through
    ``escaping.terminal`` (twsrt's colours kept where click keeps them)."""
    if line.encoded:
        return line.text
    from twsrt.escaping import terminal

    stream = sys.stderr if line.err else sys.stdout
    return terminal(line.text, line.colour if line.colour is not None else isatty(stream))


def isatty(stream: object) -> bool:
    """Whether click would keep colours on ``stream`` (``click.echo(color=None)``)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def github_format(args: list[str]) -> bool:
    """Whether a command line asks for ``--format github`` (before click has parsed it)."""
    return "--format=github" in args or any(
        a == "--format" and b == "github" for a, b in zip(args, args[1:], strict=False)
    )


def remember_valid() -> None:
    """Keep the sources' validity cache, when this run imported the schema module."""
    if "twsrt.schemas" in sys.modules:
        sys.modules["twsrt.schemas"].remember_valid()


def config_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``-c/--config FILE`` and ``--profile NAME``, passed as ``config`` and ``profile``; given
    to the group (``twsrt --profile P check``) or to the command (which wins)."""
    func = click.option(
        "--profile",
        "profile",
        metavar="NAME",
        help="Profile of the config's [profiles] to compose (default: $TWSRT_PROFILE, a hosts "
        "match, then the config's profile).",
    )(func)
    return click.option(
        "-c",
        "--config",
        "config",
        metavar="FILE",
        help="twsrt config file (default: $TWSRT_CONFIG, nearest twsrt.toml, "
        "~/.config/twsrt/config.toml).",
    )(func)
