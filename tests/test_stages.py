"""The commands (twsrt.commands) return an Outcome (what to print, the exit code, the
error that stopped them) without click: generate, diff, init."""

from __future__ import annotations

import pytest
from support.sandbox import Sandbox

from twsrt.agents.base import Drift
from twsrt.commands import diff, generate, init
from twsrt.commands.diff import diff_exit_code
from twsrt.commands.generate import GenerateOptions
from twsrt.findings import TwsrtError, fail
from twsrt.locations import Location
from twsrt.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Outcome
from twsrt.request import Request
from twsrt.rules import CONFIG_INVALID

TARGET = "home/.claude/settings.full.json"
WRITE = GenerateOptions(write=True, exit_code=True)


@pytest.fixture
def box(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The sandbox's HOME and repository as this process's, for stage calls in-process."""
    monkeypatch.delenv("TWSRT_CONFIG", raising=False)
    monkeypatch.setenv("HOME", str(sandbox.home))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(sandbox.home.parent))
    monkeypatch.chdir(sandbox.repo)
    return sandbox


def test_generate_with_exit_code_fails_only_when_a_file_changed(box: Sandbox) -> None:
    first = generate.run(Request(), WRITE)
    assert first.error is None and first.exit_code == EXIT_FINDINGS
    assert f"twsrt: wrote {TARGET}\n" in first.stderr and first.stdout == ""
    again = generate.run(Request(), WRITE)
    assert again.error is None and again.exit_code == EXIT_OK
    assert f"twsrt: unchanged {TARGET}\n" in again.stderr
    preview = generate.run(Request(), GenerateOptions())
    assert preview.exit_code == EXIT_OK and preview.stdout.startswith("{")
    assert preview.stderr.startswith("twsrt: approval mode full, sandbox mode workspace-write\n")


def test_an_error_keeps_what_the_stage_printed_before_it(box: Sandbox) -> None:
    """codex has no target: the run stops, after Codex's notice was printed (as before the
    stage functions), and nothing was written."""
    outcome = generate.run(Request(agent="codex"), WRITE)
    assert isinstance(outcome.error, TwsrtError)
    assert "no [targets] codex_config configured for codex" in outcome.error.findings[0].message
    assert "\ntwsrt: codex: another Codex config layer" in outcome.stderr
    assert not (box.repo / TARGET).exists()


def test_diff_exit_codes(box: Sandbox) -> None:
    missing = diff.run(Request())
    assert missing.exit_code == EXIT_USAGE and f"{TARGET}: missing" in missing.stdout
    generate.run(Request(), WRITE)
    clean = diff.run(Request())
    assert (clean.exit_code, clean.stdout) == (EXIT_OK, f"claude: {TARGET}: no drift\n")
    path = box.repo / TARGET
    path.write_text(path.read_text(encoding="utf-8").replace('"Bash(sudo)"', '"Bash(sud)"'))
    drifted = diff.run(Request())
    assert drifted.exit_code == EXIT_FINDINGS and "drift detected" in drifted.stdout


def test_diff_exit_code_missing_file_wins_over_drift() -> None:
    clean = Drift("a")
    drifted = Drift("b", reordered=True)
    missing = Drift("c", missing_file=True)
    assert diff_exit_code([]) == EXIT_OK
    assert diff_exit_code([clean]) == EXIT_OK
    assert diff_exit_code([clean, drifted]) == EXIT_FINDINGS
    assert diff_exit_code([missing, drifted]) == EXIT_USAGE
    assert diff_exit_code([drifted, missing]) == EXIT_USAGE


def test_init_repo_scaffolds_generates_and_prints_next_steps(box: Sandbox) -> None:
    repo = box.home / "fresh"
    outcome = init.run(None, repo, False, ["claude"])
    assert outcome.error is None and outcome.exit_code == EXIT_OK
    assert "twsrt: wrote " in outcome.stderr and (repo / TARGET).is_file()
    assert (repo / "twsrt.toml").is_file() and "pre-commit install" in outcome.stdout
    kept = init.run(None, repo, False, ["claude"])
    assert "exists, kept (use --force to overwrite)" in kept.stderr


def test_an_outcome_keeps_the_lines_before_its_error() -> None:
    outcome = Outcome()
    error = fail(CONFIG_INVALID, "broken", Location("twsrt.toml", 1, 1))
    with outcome.stopping() as out:
        out.err("twsrt: before")
        out.out("preview\n")
        raise error
    assert outcome.error is error
    assert (outcome.stdout, outcome.stderr) == ("preview\n", "twsrt: before\n")
    assert [line.err for line in outcome.lines] == [True, False]  # in the order printed
