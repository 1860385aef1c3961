"""``--format github`` prints nothing the Actions runner would run as a command but twsrt's own
annotations: every free-text field (a policy path, a target file name, a suppression reason, a
finding message, a diff line, an argument echoed in a usage error) is planted with commands."""

from __future__ import annotations

import json

import pytest
from support.github import runner_commands
from support.sandbox import Sandbox

# A different command in every field, so a failure names the field that leaked. A file name
# holds no control character (twsrt refuses such names at load: the last test), so the path
# fields carry commands after a space only.
SRT_PATH = "pol ::error::PWN-srt-path.json"
TARGET = "home/x ::warning file=a::PWN-target  ##[add-mask]PWN-target2/flags.txt"
REASON = "accepted here\n::stop-commands::PWN-reason"
RULE = "echo ##[add-mask]PWN-message"
DIFF_VALUE = "##[error]PWN-diff"


# ------------------------------------------------------------------ the runner's rules


def test_the_parser_follows_the_runner() -> None:
    out = (
        "  ::error file=a::x\n"
        "text ##[warning]y\n"
        "::stop-commands::T1\n"
        "::error::hidden\n"
        "##[add-mask]hidden\n"
        "::t1::\n"
        "\u2003::notice::z\rnot ::a command\n"
    )
    assert [c[0] for c in runner_commands(out)] == [
        "error",
        "warning",
        "stop-commands",
        "t1",
        "notice",
    ]


# ------------------------------------------------------------------ twsrt's output


def run(box: Sandbox, *args: str) -> tuple[int, str, str]:
    result = box.run(*args)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


@pytest.fixture
def hostile(sandbox: Sandbox) -> Sandbox:
    srt = json.loads((sandbox.repo / ".srt-settings.json").read_text())
    srt["network"]["allowedDomains"].append("github.com")  # a duplicate: a finding at SRT_PATH
    (sandbox.repo / ".srt-settings.json").unlink()
    sandbox.write(SRT_PATH, srt)
    sandbox.write("bash-rules.json", {"deny": ["rm", RULE, RULE]})
    config = (
        'checkout = "~/dotfiles"\n'
        "[sources]\n"
        f"srt = {json.dumps(SRT_PATH)}\n"
        'bash_rules = "bash-rules.json"\n\n'
        "[targets]\n"
        'claude_settings = "home/.claude/settings.full.json"\n'
        f"copilot_output = {json.dumps(TARGET)}\n"
    )
    sandbox.write("twsrt.toml", config)
    # Claude's file only (it write-denies where the copilot file lands); that file stays missing
    assert run(sandbox, "generate", "claude", "-w")[0] == 0
    full = sandbox.repo / "home/.claude/settings.full.json"
    settings = json.loads(full.read_text())
    # drift: a hand-added managed entry, which the diff shows (the user's own keys are elided)
    settings["permissions"]["deny"].insert(0, f"Bash(curl {DIFF_VALUE})")
    full.write_text(json.dumps(settings, indent=2) + "\n")
    sandbox.write(
        "twsrt.toml",
        config + "\n" + f'[[check.ignore]]\nrule = "TWS207"\nreason = {json.dumps(REASON)}\n',
    )
    return sandbox


def test_no_command_but_the_annotations(hostile: Sandbox) -> None:
    code, out, err = run(hostile, "check", "--format", "github", "-v")
    assert code == 1
    report = json.loads(run(hostile, "check", "--format", "json", "-v")[1])
    levels = {"error": "error", "warning": "warning", "note": "notice"}
    annotations = [levels[f["level"]] for f in report["findings"]]
    # every hostile field made it into the report, so each one was tried
    for planted in ("PWN-srt-path", "PWN-target", "PWN-reason", "PWN-message", "PWN-diff"):
        assert planted in out, planted
    assert report["summary"]["suppressed"] >= 1 and {"TWS208", "TWS301", "TWS303"} <= {
        f["rule_id"] for f in report["findings"]
    }

    commands = runner_commands(out + err)
    names = [name for name, _, _ in commands]
    token = commands[-1][0] if commands else ""
    assert names == [*annotations, "stop-commands", token], "\n".join(c[2] for c in commands)
    assert commands[-2][1] == token and token.startswith("twsrt-")
    for _, _, line in commands[: len(annotations)]:
        props = line.split("::", 2)[1].split(" ", 1)[1]
        assert {p.split("=", 1)[0] for p in props.split(",")} <= {"file", "line", "col", "title"}


def test_the_wrap_is_deterministic_and_unforgeable() -> None:
    from twsrt.reports.github import stop_commands

    text = "a\n::error::x\n"
    wrapped = stop_commands(text)
    assert wrapped == stop_commands(text)
    token = wrapped.split("\n", 1)[0].removeprefix("::stop-commands::")
    assert wrapped == f"::stop-commands::{token}\n{text}::{token}::\n"
    # a text that carries the token it would get is a different text, so a different token
    forged = stop_commands(text + f"::{token}::\n::error::y\n")
    commands = runner_commands(forged)
    assert [c[0] for c in commands] == ["stop-commands", commands[0][1]]
    assert forged.endswith(f"\n{commands[1][2]}\n")  # resumed by the last line only
    hidden = stop_commands("x\r::error::y\u2028z\x1b[31m")
    assert "x\\x0d::error::y\\u2028z\\x1b[31m\n" in hidden
    assert [c[0] for c in runner_commands(hidden)][0] == "stop-commands"
    assert len(runner_commands(hidden)) == 2


@pytest.mark.parametrize(
    "line",
    ["::error::x", "  \u3000::add-mask::x", "a ##[error]b", "x\r::warning::y", "\x85::error::z"],
)
def test_defuse(line: str) -> None:
    from twsrt.escaping import defuse

    assert runner_commands(defuse(line)) == []


def test_report_of_a_config_error(sandbox: Sandbox) -> None:
    """The config error is an annotation now (its path escaped), then the inert text."""
    code, out, err = run(sandbox, "check", "--format", "github", "-c", "no\n::error::PWN.toml")
    assert code == 2 and "PWN" in out and err == ""
    commands = runner_commands(out + err)
    names = [name for name, _, _ in commands]
    assert names == ["error", "stop-commands", commands[-1][0]], out
    assert commands[0][2].startswith("::error file=no%0A%3A%3Aerror%3A%3APWN.toml,title=TWS001 ")


def test_stderr_of_a_usage_error(sandbox: Sandbox) -> None:
    code, out, err = run(sandbox, "check", "--format", "github", "x\n##[error]PWN")
    assert code == 2 and "PWN" in err
    assert runner_commands(out + err) == []


def test_defuse_keeps_lines() -> None:
    from twsrt.escaping import defuse

    assert defuse("a\nb") == "a\nb"  # lines stay lines; only what could start a command changes
    assert defuse(" ::x::y ##[z]") == " %3A:x::y %23#[z]"


@pytest.mark.parametrize("key", ["srt", "copilot_output"])
def test_a_file_name_with_a_command_on_its_own_line_is_refused(sandbox: Sandbox, key: str) -> None:
    """A path that would start a runner command on a line of its own (a newline, a carriage
    return) is refused at its key, and the refusal names it without echoing it."""
    value = json.dumps("pol\n::error::PWN-path\r##[add-mask]PWN-2.json")
    config = (
        'checkout = "~/dotfiles"\n[sources]\nsrt = ".srt-settings.json"\n'
        'bash_rules = "bash-rules.json"\n\n[targets]\n'
        'claude_settings = "home/.claude/settings.full.json"\n'
    )
    if key == "srt":
        config = config.replace('".srt-settings.json"', value)
    else:
        config += f"copilot_output = {value}\n"
    sandbox.write("twsrt.toml", config)
    for args in (("check", "--format", "github"), ("generate", "-w"), ("diff",)):
        code, out, err = run(sandbox, *args)
        assert code == 2, out + err
        assert "PWN" not in out + err
        assert "the path holds the control character U+000A" in out + err
        commands = [name for name, _, _ in runner_commands(out + err)]
        assert commands in ([], ["error", "stop-commands", commands[-1] if commands else ""])
