"""A Codex sandbox that failed to start on a placeholder race (bwrap's mount messages, seen in CI
under load for the smoke start of ``twsrt test``) is started again after a short pause, at most
four times; any other failure, and a start that races every time, is returned as it came."""

from __future__ import annotations

from pathlib import Path

import pytest

from twsrt.agents.codex import engine as codex_engine
from twsrt.testing.engines import Run

PAUSES: list[float] = []
RACED = "bwrap: Can't create file at /tmp/t/home/.codex/config.toml: Read-only file system\n"


def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, outputs: list[Run]) -> list[Run]:
    """A CodexEngine whose sandbox starts give ``outputs`` in turn; returns the runs made."""
    made: list[Run] = []

    def fake(argv: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Run:
        made.append(outputs[len(made)])
        return made[-1]

    monkeypatch.setattr(codex_engine, "run_process", fake)
    monkeypatch.setattr(codex_engine.time, "sleep", lambda seconds: PAUSES.append(seconds))
    engine = codex_engine.CodexEngine("/bin/false")
    engine.root = tmp_path
    engine.home, engine.tmpdir, engine.upstream = tmp_path / "h", tmp_path / "t", "http://up"
    engine.run("true", 5)
    return made


def test_a_raced_start_is_tried_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ok = Run(0, "ok\n", 0.1)
    made = started(monkeypatch, tmp_path, [Run(1, RACED, 0.1), ok])
    assert made == [Run(1, RACED, 0.1), ok]


def test_a_start_that_always_races_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    PAUSES.clear()
    made = started(monkeypatch, tmp_path, [Run(1, RACED, 0.1)] * 5)
    assert len(made) == 5  # the first start and four more: then the failure is the verdict
    assert [round(p, 6) for p in PAUSES] == [0.2, 0.4, 0.6, 0.8]  # longer before each retry


@pytest.mark.parametrize(
    "output",
    [
        Run(1, "sh: cannot create x: Read-only file system\n", 0.1),  # the command ran, refused
        Run(0, RACED, 0.1),  # a command that printed the text and succeeded
        Run(1, "bwrap: execvp sh: No such file or directory\n", 0.1),  # no race: as it came
    ],
)
def test_other_runs_are_not_repeated(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, output: Run
) -> None:
    assert started(monkeypatch, tmp_path, [output]) == [output]


def test_a_placeholder_gone_before_its_bind_mount_is_a_race() -> None:
    from twsrt.agents.codex.engine import raced

    gone = (
        "bwrap: Can't bind mount /oldroot/tmp/p/sub/.zshrc on /newroot/tmp/p/sub/.zshrc: "
        "Unable to mount source on destination: No such file or directory\n"
    )
    assert raced(Run(1, gone, 0.1))
    assert not raced(Run(1, "bwrap: execvp sh: No such file or directory\n", 0.1))
