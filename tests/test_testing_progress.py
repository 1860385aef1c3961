"""The progress line of ``twsrt test``: a counter per engine on a terminal, redrawn at most
every 0.1 s, erased at the end; nothing when stderr is piped or the report is JSON."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from twsrt.testing.engines import SMOKE, Run
from twsrt.testing.inputs import srt_settings
from twsrt.testing.progress import ERASE, Progress
from twsrt.testing.run import run_tests


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_line_counts_each_engine_and_is_erased_at_the_end() -> None:
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, clock)
    progress.start("srt", 10)
    progress.start("codex", 4)
    progress.advance("srt", 3)  # within 0.1 s of the last draw: not drawn
    clock.now = 0.5
    progress.advance("codex", 1)
    progress.advance("codex", 3)  # an engine that finishes is always drawn
    progress.close()
    frames = stream.getvalue().split(ERASE)
    assert frames == [
        "",
        "twsrt test: srt 0/10",
        "twsrt test: srt 0/10  codex 0/4",
        "twsrt test: srt 3/10  codex 1/4",
        "twsrt test: srt 3/10  codex 4/4",
        "",
    ]


def test_a_progress_that_never_started_prints_nothing() -> None:
    stream = io.StringIO()
    Progress(stream).close()
    assert stream.getvalue() == ""


class ShellEngine:
    """No sandbox at all: every probe command runs as it is (enough to count them)."""

    name, agent, hint, gaps = "srt", None, "", ()

    def reads(self, ctx: Any) -> list[Path]:
        return [ctx.config.srt]

    def check_available(self, ctx: Any) -> None:
        pass

    def prepare(self, ctx: Any, root: Path, upstream: str) -> Path:
        self.root = root
        path = root / "engine.json"
        path.write_text(json.dumps(srt_settings(ctx.policy, str(root), ctx.sandbox_mode)))
        return path

    def run(self, shell: str, timeout: float) -> Run:
        if shell == SMOKE:
            return Run(0, "TWSRT-PROBE allowed\n", 0.0)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.root / "home")}
        done = subprocess.run(
            ["sh", "-c", shell], cwd=self.root / "work", env=env, capture_output=True, text=True
        )
        return Run(done.returncode, done.stdout + done.stderr, 0.0)


def test_a_run_counts_every_probe_and_attack_up_to_its_total(sandbox: Any) -> None:
    from twsrt.invocation import open_invocation
    from twsrt.request import Request

    sandbox.use_example()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(sandbox.repo)
        ctx = open_invocation(Request()).context
    stream = io.StringIO()
    report = run_tests(  # -k .bashrc: plain probes and attack batches, in a few seconds less
        ctx,
        "srt",
        ".bashrc",
        factory=lambda _name: ShellEngine(),
        progress=Progress(stream, Clock()),
    )
    frames = [f for f in stream.getvalue().split(ERASE) if f]
    total = len([r for r in report.results if r.engine == "srt" and r.probe.kind != "host-run"])
    assert total > 12 and {r.probe.kind for r in report.results} >= {"deny-write"}
    assert frames[0] == f"twsrt test: srt 0/{total}"
    assert frames[-1] == f"twsrt test: srt {total}/{total}"
    assert stream.getvalue().endswith(ERASE)


@pytest.mark.parametrize(
    ("tty", "args", "shown"),
    [(True, [], True), (False, [], False), (True, ["--json"], False)],
)
def test_the_cli_shows_progress_only_on_a_terminal_for_the_text_report(
    monkeypatch: pytest.MonkeyPatch, tty: bool, args: list[str], shown: bool
) -> None:
    import twsrt.commands.test as command
    from twsrt.cli import cli
    from twsrt.outcome import Outcome

    seen: dict[str, Any] = {}

    def run(request: Any, options: Any, *, colour: bool = False, progress: Any = None) -> Outcome:
        seen["progress"] = progress
        return Outcome()

    class Err(io.StringIO):
        def isatty(self) -> bool:
            return tty

    monkeypatch.setattr(command, "run", run)
    monkeypatch.setattr("sys.stderr", Err())
    monkeypatch.setattr("sys.stdout", io.StringIO())
    with pytest.raises(SystemExit):  # not CliRunner: it would swap stderr for its own
        cli.main(["test", *args], prog_name="twsrt")
    assert (seen["progress"] is not None) is shown
