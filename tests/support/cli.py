"""Run the twsrt CLI inside the test process, as the installed ``twsrt`` script would run.

Starting a Python process per command cost most of the suite's CPU. ``run_cli`` gives the
command what a process would have of its own and puts everything back afterwards: the
environment, the working directory, ``sys.argv`` and ``__main__`` (click names the program
after them: a console script's ``__main__`` has no package), stdin,
stdout and stderr as separate byte streams (no TTY, so no colour), a fresh context for context
variables, and module state that one run would otherwise hand to the next. The exit status is
the one the process would report: ``sys.exit`` codes, a string code printed as Python does, and
an uncaught exception as a traceback with status 1.

What a process proves and this does not — the console entry point, a pipe closed early,
signals, resource limits — stays with the end-to-end tests (``Sandbox.run_script``).
"""

from __future__ import annotations

import contextvars
import gc
import io
import os
import sys
import traceback
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from twsrt.run import Compiled


@dataclass(frozen=True)
class Run:
    """What a finished command left: exit status, stdout, stderr."""

    returncode: int
    stdout: str
    stderr: str


def _decoded(stream: io.TextIOWrapper) -> str:
    """The stream's bytes as ``subprocess.run(text=True)`` returns them (universal newlines)."""
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives a process; a message is printed as Python does."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _main() -> int:
    from twsrt import cli

    # cli.main (exits.start) turns the collector off for the rest of a process
    collecting = gc.isenabled()
    try:
        cli.main()
    except SystemExit as exc:
        return _exit_status(exc.code)
    except KeyboardInterrupt:
        raise  # the test run itself is being stopped
    except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
        traceback.print_exc()
        return 1
    finally:
        if collecting:
            gc.enable()
    return 0  # pragma: no cover - cli.main always exits


def _forget_run_state() -> None:
    """Module state a process would lose at exit: validity markers of a run that failed."""
    schemas = sys.modules.get("twsrt.schemas")
    pending = getattr(schemas, "_PENDING_MARKERS", None)
    if pending is not None:
        pending.clear()


def run_cli(args: Sequence[str], *, cwd: Path, env: Mapping[str, str], stdin: str = "") -> Run:
    """Run ``twsrt *args`` in ``cwd`` with exactly the environment ``env`` and ``stdin``."""
    # stdout is strict UTF-8 and stderr backslash-escapes, as in a UTF-8 locale
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n")
    given = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams, saved_argv = (sys.stdin, sys.stdout, sys.stderr), sys.argv
    saved_main = sys.modules["__main__"]
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = ["twsrt", *args]
        sys.modules["__main__"] = types.ModuleType("__main__")
        sys.stdin, sys.stdout, sys.stderr = given, out, err
        status = contextvars.copy_context().run(_main)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        sys.modules["__main__"] = saved_main
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        _forget_run_state()
    return Run(status, _decoded(out), _decoded(err))


def compiled(
    config: str | None,
    agent: str | None = None,
    yolo: bool = False,
    *,
    companions: bool = False,
    sandbox: str | None = None,
) -> Compiled:
    """What ``generate`` compiles for the request these name, in-process and nothing written
    (files named from the working directory, as a library caller names them; ``companions``:
    the other mode's files too, as ``generate -w``)."""
    from twsrt.invocation import open_invocation
    from twsrt.request import Request
    from twsrt.run import compile_invocation

    request = Request(config, agent=agent, yolo=yolo, sandbox=sandbox, repo_names=False)
    return compile_invocation(open_invocation(request), companions)


def run_here(*args: str, **env: str) -> Run:
    """``twsrt *args`` in the current directory with this process's environment plus ``env``,
    for tests whose fixture has set both up (monkeypatch.chdir, monkeypatch.setenv)."""
    return run_cli(args, cwd=Path.cwd(), env={**os.environ, **env})
