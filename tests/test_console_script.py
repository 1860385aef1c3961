"""The installed ``twsrt`` script end to end, and the in-process harness held to it.

Most tests run the CLI in-process (``Sandbox.run``, ``support.cli``). Here the console entry
point itself runs as a process, and for a spread of commands — help, a usage error, findings,
a config error, each output format, a write — the harness must give exactly what the process
gives: exit status, stdout, stderr and the files left behind. Closed pipes, resource limits and
the pre-commit hooks have their own process tests (test_cli_first_hour, test_placement,
test_precommit).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.sandbox import Sandbox, make_sandbox, tree_snapshot

from twsrt import __version__

SAME_RESULT = [
    ("--version",),
    ("--help",),
    ("check", "--help"),
    ("check",),
    ("check", "--format", "json"),
    ("check", "--format", "github"),
    ("generate",),
    ("generate", "bogus"),
    ("diff",),
    ("explain", "TWS101"),
    ("schema", "bash-rules"),
    ("completion", "zsh"),
]


@pytest.mark.parametrize("args", SAME_RESULT, ids=lambda a: "-".join(a))
def test_in_process_run_equals_the_console_script(sandbox: Sandbox, args: tuple[str, ...]) -> None:
    script = sandbox.run_script(*args)
    assert sandbox.run(*args) == script
    assert "Traceback" not in script.stderr


def test_a_config_error_is_the_same_in_process(sandbox: Sandbox) -> None:
    sandbox.write(".srt-settings.json", '{"filesystem": {"denyRead": [1,]}}\n')
    script = sandbox.run_script("generate", "-w")
    assert script.returncode == 2 and script.stderr.startswith(".srt-settings.json:1:")
    assert sandbox.run("generate", "-w") == script


def test_a_write_leaves_the_same_tree(tmp_path: Path, sandbox: Sandbox) -> None:
    other = make_sandbox(tmp_path / "other")
    for box in (sandbox, other):
        box.write(
            "twsrt.toml",
            box.repo.joinpath("twsrt.toml").read_text()
            + 'codex_config = "home/.codex/config.toml"\n',
        )
    in_process = sandbox.run("generate", "-w", "-v")
    script = other.run_script("generate", "-w", "-v")
    assert in_process.returncode == script.returncode == 0
    assert in_process.stdout == script.stdout
    # the unpinned home is named in findings: each run's own
    assert in_process.stderr.replace(str(sandbox.home), "~") == script.stderr.replace(
        str(other.home), "~"
    )
    assert tree_snapshot(sandbox.repo) == tree_snapshot(other.repo)


def test_stdin_reaches_the_command(sandbox: Sandbox) -> None:
    """Nothing reads stdin today; an in-process run gets the given text, never the terminal."""
    result = sandbox.run("--version", stdin="ignored\n")
    assert result == sandbox.run_script("--version")


def test_python_dash_m_runs_the_same_cli(sandbox: Sandbox) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "twsrt", "--version"],
        cwd=sandbox.repo,
        env=sandbox.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == sandbox.run_script("--version").stdout
    assert __version__ in proc.stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [(("check",), 1), (("generate", "--sandbox", "nope"), 2), (("diff",), 2)],
    ids=["findings", "usage", "missing-target"],
)
def test_exit_codes_of_the_script(sandbox: Sandbox, args: tuple[str, ...], code: int) -> None:
    assert sandbox.run_script(*args).returncode == code


def test_a_failed_run_hands_no_state_to_the_next(sandbox: Sandbox) -> None:
    """A process forgets the validity markers of a run that failed; so must the harness, or the
    next in-process run would record them as valid."""
    from twsrt import schemas

    sandbox.write("bash-rules.json", '{"deny": [1]}\n')  # the srt source validates, this does not
    for run in (sandbox.run_script, sandbox.run):
        assert run("generate", "-w", TWSRT_NO_CACHE="").returncode == 2
        assert schemas._PENDING_MARKERS == []
        assert not (sandbox.home / ".cache" / "twsrt").exists()
    sandbox.write("bash-rules.json", '{"deny": ["sudo"]}\n')
    assert sandbox.run("generate").returncode == 0
    assert any((sandbox.home / ".cache" / "twsrt" / "valid").iterdir())  # a success records
