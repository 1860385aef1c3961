"""Issue 26 item 5: a key, a value, a file name or an old file's content from the checkout never
reaches a terminal or a CI log raw: no control character (a clipboard write, a lone CR that
overwrites a line, NUL) and no line the runner reads as a workflow command (a forged
``::error``, ``::add-mask::``), in any command and any format. ``escaping.terminal`` is the one
place for text for a person; the formats for programs escape themselves."""

from __future__ import annotations

import json
import re

import pytest
from support.github import runner_commands
from support.sandbox import Sandbox

from twsrt.escaping import defuse, json_text, one_line, terminal

# a clipboard write (OSC 52), forged workflow commands after newlines, a lone CR, the 8-bit CSI
EVIL = "\x1b]52;c;aGVsbG8=\x07\n::error file=x::forged\n::add-mask::secret\rZ\x9b2J"
# what JSON and TOML spell for it (a key or value of the checkout holds the characters)
SPELLED = json.dumps(EVIL)
CODEX_CONFIG = "home/.codex/config.toml"
CODEX_RULES = "home/.codex/rules/twsrt.rules"
CLAUDE = "home/.claude/settings.full.json"
FORMATS = ("text", "json", "github", "sarif", "junit")
# a raw control character but newline and tab (the in-process run turns a CR into a newline:
# the escaped form is asserted for it instead)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def assert_inert(output: str, fmt: str = "text") -> None:
    assert not RAW.findall(output), sorted({hex(ord(c)) for c in RAW.findall(output)})
    commands = runner_commands(output)
    if fmt != "github":
        assert commands == []
        return
    names = {name for name, _, _ in commands}
    assert names <= {"error", "warning", "notice", "stop-commands"} | {
        name for name in names if name.startswith("twsrt-")
    }, names
    forged = ("::error file=x::", "::add-mask::")
    assert not [line for _, _, line in commands if line.lstrip().startswith(forged)]


@pytest.fixture
def planted(sandbox: Sandbox) -> Sandbox:
    config = (sandbox.repo / "twsrt.toml").read_text()
    config += f'codex_config = "{CODEX_CONFIG}"\ncodex_rules = "{CODEX_RULES}"\n'
    sandbox.write("twsrt.toml", config)
    assert sandbox.run("generate", "-w").returncode == 0
    rules = sandbox.repo / CODEX_RULES  # whole-generated: its old content is diffed
    rules.write_text(rules.read_text() + f"# {EVIL}\x00\n")
    codex = sandbox.repo / CODEX_CONFIG  # a user key and value in the managed profile's table
    codex.write_text(codex.read_text() + f"\n{SPELLED} = {SPELLED}\n")
    claude = sandbox.repo / CLAUDE
    settings = json.loads(claude.read_text())
    settings["permissions"]["allow"].append(f"Bash({EVIL})")
    settings["x" + EVIL] = EVIL
    claude.write_text(json.dumps(settings, indent=2) + "\n")
    return sandbox


COMMANDS = [
    *[("check", "-v", "--format", fmt) for fmt in FORMATS],
    ("diff",),
    ("show",),
    ("show", "--format", "json"),
    ("generate", "-n", "-w"),
    ("generate", "-v"),
    ("explain", EVIL),
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_nothing_of_the_checkout_reaches_the_output_raw(planted: Sandbox, args: tuple) -> None:
    result = planted.run(*args)
    assert "Traceback" not in result.stderr
    fmt = args[-1] if "--format" in args else "text"
    assert_inert(result.stdout, fmt)
    assert_inert(result.stderr)


def test_the_planted_values_are_shown_escaped_not_dropped(planted: Sandbox) -> None:
    text = planted.run("check", "-v").stdout + planted.run("diff").stdout
    assert "\\x1b]52;c;aGVsbG8=\\x07" in text
    assert "\\x0dZ\\x9b2J" in text  # the CR escaped: no line is overwritten
    # the whole-generated file's old content, in the dry run's diff
    assert "\\x00" in planted.run("generate", "-n", "-w").stdout


@pytest.mark.parametrize("args", [*COMMANDS[:-1], ("edit",)], ids=" ".join)
def test_a_bad_config_key_is_escaped_in_the_error_too(sandbox: Sandbox, args: tuple) -> None:
    config = (sandbox.repo / "twsrt.toml").read_text() + f"\n[check]\n{SPELLED} = 1\n"
    sandbox.write("twsrt.toml", config)
    result = sandbox.run(*args)
    assert result.returncode == 2 or args == ("edit",)
    assert "Traceback" not in result.stderr
    fmt = args[-1] if "--format" in args else "text"
    assert_inert(result.stdout, fmt)
    assert_inert(result.stderr)


def test_terminal_keeps_own_colours_only_where_they_are_shown() -> None:
    own = "\x1b[31merror\x1b[0m"
    assert terminal(own, colour=True) == own
    assert terminal(own, colour=False) == "\\x1b[31merror\\x1b[0m"
    # click strips colours off a pipe: a colour kept there would join ':' and ':' into '::'
    assert terminal(":\x1b[0m:error::x", colour=False).startswith(":\\x1b[0m:")
    assert terminal("\x1b]52;c;eA==\x07", colour=True) == "\\x1b]52;c;eA==\\x07"
    assert (
        terminal("a\n  ::error::x\nb ##[group]", colour=True) == "a\n  %3A:error::x\nb %23#[group]"
    )
    assert terminal("plain line\n") == "plain line\n"


def test_one_value_stays_one_line() -> None:
    assert one_line("a\nb\r\x00c\td") == "a\\x0ab\\x0d\\x00c\td"
    assert one_line("plain") == "plain"
    assert defuse("::x") == "%3A:x"


def test_json_text_escapes_what_json_leaves_raw() -> None:
    document = json.dumps({"k": "\x7f\x9b\u2028"}, ensure_ascii=False)
    assert json_text(document) == '{"k": "\\u007f\\u009b\\u2028"}'
    assert json.loads(json_text(document)) == {"k": "\x7f\x9b\u2028"}


# ---------------------------------------------------------------- SARIF's plain text


def sarif_messages(document: dict) -> list[str]:
    out = []
    for run in document["runs"]:
        for result in run["results"]:
            out.append(result["message"]["text"])
            out += [
                r["message"]["text"] for r in result.get("relatedLocations", []) if "message" in r
            ]
    return out


# an embedded link SARIF viewers render: [text](target) with the brackets unescaped
LINK = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(")


def test_sarif_message_text_carries_no_link_from_the_checkout() -> None:
    from pathlib import Path

    from twsrt.findings import Finding
    from twsrt.locations import Location
    from twsrt.report import CheckReport
    from twsrt.reports.sarif import plain_message, sarif_log

    where = Location("policy/srt-settings.json", 3, 5, "/a/[x](https://evil.example)")
    message = "unknown key '[click me](https://evil.example)' and a \\ backslash"
    item = Finding("TWS101", message, where, related=(where,))
    document = sarif_log(CheckReport(findings=[item], root=Path("/repo")))
    texts = sarif_messages(document)
    assert texts[0] == ("unknown key '\\[click me\\](https://evil.example)' and a \\\\ backslash")
    assert texts[1] == "/a/\\[x\\](https://evil.example)"
    assert not [text for text in texts if LINK.search(text)]
    assert plain_message("no brackets") == "no brackets"


def test_a_run_quoting_a_link_has_none_in_sarif(sandbox: Sandbox) -> None:
    rules = json.loads((sandbox.repo / "bash-rules.json").read_text())
    rules["deny"].append("[click](https://evil.example)")  # refused (a ')'), and quoted
    sandbox.write("bash-rules.json", rules)
    result = sandbox.run("check", "-v", "--format", "sarif")
    texts = sarif_messages(json.loads(result.stdout))
    assert any("\\[click\\](https://evil.example)" in text for text in texts), texts
    assert not [text for text in texts if LINK.search(text)]
