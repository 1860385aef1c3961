"""The small things a new user hits in the first hour (issue 15, items 7 and 8): a closed pipe,
conflicting flags, colour variables, shell completion, ``edit`` validation, fix hints that
name the right command, drift from an unpinned home, seed-compatible options, and the Claude
``settings.json`` link when the yolo file lives in another directory.

The CLI runs in-process (``support.cli``) in the sandbox's HOME; only the closed-pipe tests
and one completion round trip need the real console script.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run_here
from support.sandbox import Sandbox, tree_snapshot, twsrt_command

from twsrt.cli import cli

SUBCOMMANDS = sorted(cli.commands)
FULL = "home/.claude/settings.full.json"
LINK = "home/.claude/settings.json"


@pytest.fixture
def box(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The sandbox's HOME and working directory for in-process runs."""
    for key in [k for k in os.environ if k.startswith("TWSRT_") or k in ("VISUAL", "EDITOR")]:
        monkeypatch.delenv(key)
    for key in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(sandbox.home))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(sandbox.home.parent))
    monkeypatch.chdir(sandbox.repo)
    return sandbox.accept_planted_layers(first=True)


def invoke(*args: str, **env: str) -> tuple[int, str, str]:
    result = run_here(*args, **env)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    return result.returncode, result.stdout, result.stderr


def add_config(sandbox: Sandbox, text: str) -> None:
    path = sandbox.repo / "twsrt.toml"
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


# ------------------------------------------------------------------ closed pipe


@pytest.mark.parametrize(
    "args",
    [
        ("check",),
        ("generate",),
        ("diff",),
        ("explain", "TWS101"),
        ("schema", "srt"),
        ("completion", "bash"),
        ("--help",),
        ("check", "--help"),
    ],
    ids=lambda a: "-".join(a),
)
def test_closed_pipe_exits_quietly(sandbox: Sandbox, args: tuple[str, ...]) -> None:
    """`twsrt check | head -1` after head has gone: the read end is closed before twsrt writes
    its first byte, so every write meets EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [*twsrt_command(), *args],
            cwd=sandbox.repo,
            env=sandbox.env(),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 141, proc.stderr  # 128 + SIGPIPE, as a shell reports `yes | head`
    for noise in ("internal error", "Traceback", "Exception ignored", "BrokenPipe", "Errno 32"):
        assert noise not in proc.stderr, proc.stderr
    if args[0] in ("check", "explain", "schema", "completion", "--help"):
        assert proc.stderr == ""  # nothing but the report was to be printed


# ------------------------------------------------------------------ -q with -v


@pytest.mark.parametrize(
    "args", [("check", "-q", "-v"), ("check", "-v", "--quiet"), ("-v", "check", "-q")]
)
def test_quiet_with_verbose_is_a_usage_error(box: Sandbox, args: tuple[str, ...]) -> None:
    code, out, err = invoke(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("Usage: twsrt check [OPTIONS]\n"), err
    assert err.endswith("Error: -q/--quiet and -v/--verbose exclude each other\n"), err


# ------------------------------------------------------------------ colour


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [
        ({}, True, True),
        ({}, False, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": ""}, True, True),  # no-color.org: an empty NO_COLOR is ignored
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": "0"}, False, True),  # any non-empty value forces
        ({"FORCE_COLOR": ""}, False, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, True, False),  # NO_COLOR wins
        ({"FORCE_COLOR": "1", "NO_COLOR": ""}, False, True),
        ({"TERM": "dumb"}, True, False),
        ({"TERM": "dumb", "FORCE_COLOR": "1"}, False, True),
    ],
)
def test_colour_variables(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], tty: bool, expected: bool
) -> None:
    from twsrt.reports.text import use_colour

    for key in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert use_colour(Stream(tty)) is expected


def test_force_color_colours_a_piped_check_report(box: Sandbox) -> None:
    box.write("bash-rules.json", {"allow": [], "deny": ["rm", "rm"], "ask": []})  # a warning
    _code, plain, _err = invoke("check")
    assert "warning[" in plain and "\x1b[" not in plain
    _code, forced, _err = invoke("check", FORCE_COLOR="1")
    assert "\x1b[33mwarning[" in forced
    _code, empty, _err = invoke("check", FORCE_COLOR="1", NO_COLOR="")
    assert empty == forced
    _code, off, _err = invoke("check", FORCE_COLOR="1", NO_COLOR="1")
    assert off == plain


# ------------------------------------------------------------------ completion


COMPLETE_ENV = {
    "bash": {"COMP_WORDS": "twsrt ", "COMP_CWORD": "1"},
    "zsh": {"COMP_WORDS": "twsrt ", "COMP_CWORD": "1"},
    "fish": {"COMP_WORDS": "twsrt ", "COMP_CWORD": ""},
}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script_and_its_answers(box: Sandbox, shell: str) -> None:
    code, script, err = invoke("completion", shell)
    assert (code, err) == (0, "")
    assert script.strip()
    # the script asks `twsrt` itself, with _TWSRT_COMPLETE=<shell>_complete
    assert f"_TWSRT_COMPLETE={shell}_complete" in script
    assert re.search(r"\btwsrt\b", script.replace("_TWSRT_COMPLETE", ""))
    code, answer, err = invoke(**COMPLETE_ENV[shell], _TWSRT_COMPLETE=f"{shell}_complete")
    assert (code, err) == (0, "")
    words = re.split(r"[\s,]+", answer)
    assert set(SUBCOMMANDS) <= set(words), answer
    assert "completion" in SUBCOMMANDS


def test_completion_round_trip_through_the_console_script(sandbox: Sandbox) -> None:
    """What bash runs on <TAB> after `twsrt ch`: the installed command answers."""
    env = sandbox.env(_TWSRT_COMPLETE="bash_complete", COMP_WORDS="twsrt ch", COMP_CWORD="1")
    proc = subprocess.run(
        twsrt_command(), env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "plain,check\n", "")


def test_completion_needs_a_known_shell(box: Sandbox) -> None:
    code, out, err = invoke("completion", "tcsh")
    assert code == 2 and out == ""
    assert "Error: Invalid value for '{bash|zsh|fish}'" in err


# ------------------------------------------------------------------ edit validates


def writing_editor(tmp_path: Path, content: str) -> str:
    """$EDITOR that replaces the file it is given with ``content``."""
    script = tmp_path / "editor.py"
    script.write_text(
        f"import sys\nopen(sys.argv[1], 'w', encoding='utf-8').write({content!r})\n",
        encoding="utf-8",
    )
    return shlex.join([sys.executable, str(script)])


def test_edit_reports_schema_findings_after_the_editor(box: Sandbox, tmp_path: Path) -> None:
    editor = writing_editor(tmp_path, '{\n  "filesystem": {\n    "denyRaed": ["~/.aws"]\n  }\n}\n')
    code, out, err = invoke("edit", "srt", EDITOR=editor)
    assert code == 1
    assert out == ""
    assert err.startswith(".srt-settings.json:3:5: error[TWS101] "), err
    assert "denyRaed" in err


def test_edit_reports_broken_json_located(box: Sandbox, tmp_path: Path) -> None:
    editor = writing_editor(tmp_path, '{"allow": [],\n "deny": ["rm",]\n}\n')
    code, out, err = invoke("edit", "bash", EDITOR=editor)
    assert code == 2
    assert out == ""
    assert re.match(r"bash-rules\.json:2:\d+: error\[TWS003\] invalid JSON", err), err


def test_edit_of_a_valid_file_is_silent(box: Sandbox, tmp_path: Path) -> None:
    editor = writing_editor(tmp_path, '{"allow": [], "deny": ["sudo"], "ask": []}\n')
    assert invoke("edit", "bash", EDITOR=editor) == (0, "", "")


def test_edit_names_the_file_as_check_does_from_a_subdirectory(
    box: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = box.repo / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    editor = writing_editor(tmp_path, '{"allow": [], "deny": [], "ask": [], "bogus": 1}\n')
    code, _out, err = invoke("edit", "bash", EDITOR=editor)
    assert code == 1
    assert err.startswith("bash-rules.json:1:"), err
    _code, report, _err = invoke("check")
    assert "bash-rules.json:1:" in report and "error[TWS101]" in report


# ------------------------------------------------------------------ fix hints


def fix_hint(message: str) -> str:
    found = re.findall(r"[Rr]un `([^`]+)`", message)
    assert found, message
    return found[-1]


def test_check_yolo_hint_names_the_command_that_fixes_it(box: Sandbox) -> None:
    assert invoke("generate", "-w")[0] == 0
    code, out, _err = invoke("check", "--yolo")  # the yolo file was never generated
    assert code == 1
    missing = [line for line in out.splitlines() if "error[TWS301]" in line]
    assert len(missing) == 1, out
    assert fix_hint(missing[0]) == "twsrt generate -w --yolo"
    code, _out, _err = invoke(*shlex.split(fix_hint(missing[0]))[1:])
    assert code == 0
    assert invoke("check", "--yolo")[0] == 0

    box.write("bash-rules.json", {"allow": [], "deny": ["rm", "sudo", "curl"], "ask": []})
    _code, out, _err = invoke("check", "--yolo")
    drift = [line for line in out.splitlines() if "error[TWS302]" in line]
    assert len(drift) == 1, out
    assert fix_hint(drift[0]) == "twsrt generate -w --yolo"
    _code, out, _err = invoke("check")
    drift = [line for line in out.splitlines() if "error[TWS302]" in line]
    assert fix_hint(drift[0]) == "twsrt generate -w"


def test_sandbox_flag_is_part_of_the_hint(box: Sandbox) -> None:
    assert invoke("generate", "-w")[0] == 0
    _code, out, _err = invoke("check", "--sandbox", "read-only")
    drift = [line for line in out.splitlines() if "error[TWS30" in line]
    assert drift, out
    assert fix_hint(drift[0]) == "twsrt generate -w --sandbox read-only"
    _code, out, _err = invoke("diff", "--yolo")
    assert "(run `twsrt generate -w --yolo` to create it)" in out


# ------------------------------------------------------------------ unpinned home


HOME_TARGETS = 'copilot_settings = "home/.copilot/settings.json"\n'


def test_drift_from_an_unpinned_home_advises_pinning_it(
    box: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_config(box, HOME_TARGETS)
    alice = str(box.home)
    assert invoke("generate", "-w")[0] == 0
    bob = tmp_path / "bob"  # the same repository checked out on another machine
    bob.mkdir()
    monkeypatch.setenv("HOME", str(bob))
    code, out, _err = invoke("check")
    assert code == 1
    lines = [line for line in out.splitlines() if "error[TWS" in line and "copilot" in line]
    assert len(lines) == 1, out
    line = lines[0]
    assert line.startswith("home/.copilot/settings.json:"), line
    assert "error[TWS012]" in line
    assert f'home = "{alice}"' in line and str(bob) in line
    assert "generate -w" not in line
    code, out, _err = invoke("diff", "copilot")
    assert code == 1
    assert out == (
        f"copilot: home/.copilot/settings.json: drift detected: generated with the home "
        f'directory {alice}, not this machine\'s {bob}; pin it with home = "{alice}" at the '
        "top of twsrt.toml (then every machine generates the same bytes) instead of "
        "regenerating here\n"
    )
    # the advice works: pinned, the file from the other machine has no drift here
    path = box.repo / "twsrt.toml"
    path.write_text(f'home = "{alice}"\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    _code, out, _err = invoke("check")
    assert "error[TWS" not in out, out
    assert invoke("diff", "copilot")[0] == 0


def test_ordinary_drift_with_an_unpinned_home_still_advises_generate(
    box: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_config(box, HOME_TARGETS)
    assert invoke("generate", "-w")[0] == 0
    box.write(".srt-settings.json", {"filesystem": {"denyRead": ["~/.aws", "~/.gnupg"]}})
    _code, out, _err = invoke("check")
    lines = [line for line in out.splitlines() if "copilot/settings.json:" in line]
    assert any("error[TWS302]" in line for line in lines), out
    assert "TWS012" not in out
    bob = tmp_path / "bob"  # another home AND a policy change: not explained by the home
    bob.mkdir()
    monkeypatch.setenv("HOME", str(bob))
    _code, out, _err = invoke("check")
    assert "TWS012" not in out and "error[TWS302]" in out


def test_drift_from_a_pinned_home_is_ordinary_drift(box: Sandbox) -> None:
    add_config(box, HOME_TARGETS)
    path = box.repo / "twsrt.toml"
    path.write_text('home = "/home/alice"\n' + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert invoke("generate", "-w")[0] == 0
    text = path.read_text(encoding="utf-8").replace("/home/alice", "/home/bob")
    path.write_text(text, encoding="utf-8")
    _code, out, _err = invoke("check")
    assert "TWS012" not in out and "error[TWS30" in out


# ------------------------------------------------------------------ seed compatibility


def test_generate_copilot_write_without_a_target_prints_the_flags(box: Sandbox) -> None:
    before = tree_snapshot(box.repo)
    code, preview, _err = invoke("generate", "copilot")
    assert code == 0
    code, out, err = invoke("generate", "copilot", "-w")
    assert code == 0, err
    assert out == preview
    assert "--deny-tool" in out
    assert "skipped" not in err and "error[" not in err
    assert tree_snapshot(box.repo) == before  # nothing written
    # a dry run of that write prints the same flags ("stdout if omitted"), and writes nothing
    code, dry, err = invoke("generate", "copilot", "-n", "-w")
    assert (code, dry) == (0, preview), err
    assert tree_snapshot(box.repo) == before


def test_generate_copilot_dry_run_with_only_settings_shows_both(box: Sandbox) -> None:
    add_config(box, HOME_TARGETS)
    code, out, err = invoke("generate", "copilot", "-n", "-w")
    assert code == 0, err
    assert out.startswith("would create home/.copilot/settings.json\n"), out
    assert not (box.repo / "home/.copilot/settings.json").exists()
    code, flags, _err = invoke("generate", "copilot", "-w")  # the flags -w prints
    assert out.endswith(flags) and flags.startswith("--allow-tool") and "--deny-tool" in flags


def test_generate_copilot_write_with_only_settings_prints_the_flags(box: Sandbox) -> None:
    add_config(box, HOME_TARGETS)
    code, out, _err = invoke("generate", "copilot", "-w")
    assert code == 0
    assert out.startswith("--") and "--deny-tool" in out and "#" not in out
    assert (box.repo / "home/.copilot/settings.json").is_file()
    add_config(box, 'copilot_output = "home/.copilot/flags.txt"\n')
    code, out, _err = invoke("generate", "copilot", "-w")
    assert (code, out) == (0, "")  # the flags went to their file


def test_flags_are_printed_only_after_every_file_is_written(
    box: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`twsrt generate copilot -w > flags.sh`: a run whose write fails prints no flags."""
    import errno

    from twsrt import run

    def full_disk(_changes: list, _journal_dir: object = None) -> list:
        raise OSError(errno.ENOSPC, "No space left on device", "home/.copilot/settings.json")

    add_config(box, HOME_TARGETS)
    monkeypatch.setattr(run, "apply", full_disk)
    code, out, err = invoke("generate", "copilot", "-w")
    assert code == 2
    assert out == ""
    assert "No space left on device" in err


def test_global_verbose_before_the_subcommand(box: Sandbox) -> None:
    for command in ("check", "generate"):
        after = invoke(command, "-v")
        before = invoke("-v", command)
        assert before == after
        assert invoke("--verbose", command) == after
        assert "note[" in after[1] + after[2]  # -v shows the notes
        assert "note[" not in "".join(map(str, invoke(command)[1:]))


def test_init_force_short_option(box: Sandbox) -> None:
    assert invoke("init")[0] == 0
    config = box.home / ".config" / "twsrt" / "config.toml"
    original = config.read_text(encoding="utf-8")
    config.write_text("# mine\n", encoding="utf-8")
    assert invoke("init")[0] == 0
    assert config.read_text(encoding="utf-8") == "# mine\n"
    code, _out, err = invoke("init", "-f")
    assert code == 0, err
    assert config.read_text(encoding="utf-8") == original


@pytest.mark.parametrize("option", ["--dir", "--repo"])
def test_quoted_tilde_directory_is_expanded(box: Sandbox, option: str) -> None:
    config = "twsrt.toml" if option == "--repo" else "config.toml"
    code, _out, err = invoke("init", option, "~/scaffold")
    assert code == 0, err
    assert (box.home / "scaffold" / config).is_file()
    assert not (box.repo / "~").exists()
    code, _out, err = invoke("init", option, "~")
    assert code == 0, err
    assert (box.home / config).is_file()
    assert not (box.repo / "~").exists()


# ------------------------------------------------------------------ settings.json link

SPLIT_YOLO = 'claude_settings_yolo = "home/yolo/settings.yolo.json"\n'


def test_settings_link_stays_beside_the_full_settings(box: Sandbox) -> None:
    add_config(box, SPLIT_YOLO)
    link = box.repo / LINK
    full = box.repo / FULL
    yolo = box.repo / "home/yolo/settings.yolo.json"

    assert invoke("generate", "-w")[0] == 0
    assert os.readlink(link) == "settings.full.json"
    assert link.resolve() == full.resolve()
    assert not (yolo.parent / "settings.json").exists()
    assert invoke("check")[0] == 0

    code, _out, err = invoke("generate", "-w", "--yolo")
    assert code == 0, err
    assert os.readlink(link) == "../yolo/settings.yolo.json"  # relative, and it resolves
    assert link.resolve() == yolo.resolve()
    assert not os.path.lexists(yolo.parent / "settings.json")
    code, out, _err = invoke("check", "--yolo")
    assert code == 0, out

    # back to full: the link to the yolo file is twsrt's own, not a foreign one (TWS010)
    code, _out, err = invoke("generate", "-w")
    assert code == 0, err
    assert os.readlink(link) == "settings.full.json"


def test_settings_link_to_another_directory_resolves_through_a_symlinked_directory(
    box: Sandbox,
) -> None:
    """home/.claude reached through a symlink (as stow makes them): the link value is taken
    between the real directories, so the kernel's reading of it still finds the yolo file."""
    real = box.repo / "real" / "claude"
    real.mkdir(parents=True)
    (box.repo / "home").mkdir(exist_ok=True)
    (box.repo / "home" / ".claude").symlink_to(real)
    add_config(box, SPLIT_YOLO)
    code, _out, err = invoke("generate", "-w", "--yolo")
    assert code == 0, err
    link = real / "settings.json"
    yolo = box.repo / "home/yolo/settings.yolo.json"
    assert link.is_symlink()
    assert link.resolve() == yolo.resolve()
    assert invoke("generate", "-w")[0] == 0
    assert link.resolve() == (real / "settings.full.json").resolve()


def test_split_yolo_placement_has_one_link(box: Sandbox) -> None:
    """A file named settings.json beside the yolo settings is not twsrt's: no collision."""
    add_config(box, SPLIT_YOLO)
    box.write("home/yolo/settings.json", "{}\n")
    assert invoke("generate", "-w", "--yolo")[0] == 0
    assert (box.repo / "home/yolo/settings.json").read_text(encoding="utf-8") == "{}\n"
