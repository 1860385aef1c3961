"""One breakage, every command: each reads the config and the sources the same way, so each must
refuse a broken one the same way (issue 26: the bad-input suite across every command).

Every breakage below is run through ``generate``, ``generate -w``, ``generate -n``,
``generate -n -w``, ``diff``, ``check`` in each of its five formats, ``show``, ``test`` (which
stops at the config, before any engine runs) and ``edit srt`` (with an editor that changes
nothing), and checked by the harness of tests/support/badinput.py: exit code, the located first
error line, no traceback, HOME unchanged (bytes, links and modes). A config nothing can be
checked against is exit 2 everywhere; a source or target ``check`` cannot use is one of its
findings (exit 1), as docs/check.md says. A command that never reads the broken file (``show``
and ``edit`` read no target) has no row for it.
"""

from __future__ import annotations

import pytest
from support.badinput import (
    BASH,
    CONFIG,
    FULL,
    SRT,
    Case,
    Setup,
    append_config,
    fifo,
    params,
    remove,
    run_case,
    steps,
    symlink,
    write,
)
from support.sandbox import DEFAULT_CONFIG, Sandbox

COMMANDS: dict[str, tuple[str, ...]] = {
    "generate": ("generate",),
    "generate-w": ("generate", "-w"),
    "generate-n": ("generate", "-n"),
    "generate-n-w": ("generate", "-n", "-w"),
    "diff": ("diff",),
    "check-text": ("check",),
    "check-json": ("check", "--format", "json"),
    "check-github": ("check", "--format", "github"),
    "check-sarif": ("check", "--format", "sarif"),
    "check-junit": ("check", "--format", "junit"),
    "show": ("show",),
    "test": ("test",),
    "edit": ("edit", "srt"),
}
CHECKS = {name for name in COMMANDS if name.startswith("check")}
EDITOR = (("EDITOR", "true"), ("VISUAL", "true"))  # edit: an editor that leaves the file as is

PROFILES = """\
profile = "home"

[fragments.base]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[profiles.home]
extends = ["base", "nosuch"]

[targets]
claude_settings = "home/.claude/settings.full.json"
"""


class Breakage:
    """One broken input and the located error every command must report for it."""

    def __init__(
        self,
        name: str,
        setup: Setup,
        file: str,
        rule: str,
        fragment: str,
        line: int | None = None,
        col: int | None = None,
        *,
        check_exit: int = 2,
        edit_exit: int | None = 2,
        show: bool = True,
        xfail: str = "",
    ) -> None:
        self.name, self.setup, self.file, self.rule = name, setup, file, rule
        self.fragment, self.line, self.col = fragment, line, col
        self.check_exit, self.edit_exit, self.show, self.xfail = check_exit, edit_exit, show, xfail

    def cases(self) -> list[Case]:
        out = []
        for command, args in COMMANDS.items():
            exit_code = 2
            if command in CHECKS:
                exit_code = self.check_exit
            elif command == "edit":
                if self.edit_exit is None:
                    continue
                exit_code = self.edit_exit
            elif command == "show" and not self.show:
                continue
            out.append(
                Case(
                    f"{self.name}-{command}",
                    self.setup,
                    args,
                    self.file,
                    self.rule,
                    self.fragment,
                    self.line,
                    self.col,
                    env=EDITOR if command == "edit" else (),
                    exit_code=exit_code,
                    xfail=self.xfail,
                )
            )
        return out


BREAKAGES = [
    # ------------------------------------------------ the config: nothing can be checked (exit 2)
    Breakage(
        "config-toml-syntax",
        append_config("x = = 1\n"),
        CONFIG,
        "TWS001",
        "invalid TOML",
        9,
        5,  # the second '='
    ),
    Breakage(
        "config-unknown-key",
        append_config('claude_setings_yolo = "x.json"\n'),
        CONFIG,
        "TWS101",
        "did you mean 'claude_settings_yolo'?",
        9,
        1,
    ),
    Breakage(
        "config-source-number",
        write(CONFIG, DEFAULT_CONFIG.replace('".srt-settings.json"', "5")),
        CONFIG,
        "TWS102",
        "expected a string, got number 5",
        4,
        7,  # `srt = 5`
    ),
    Breakage(
        "config-ignore-reason",
        append_config('\n[check]\n[[check.ignore]]\nrule = "TWS208"\nreason = "."\n'),
        CONFIG,
        "TWS102",
        "a reason must say why the finding is acceptable",
        13,
        10,  # `reason = "."`
    ),
    Breakage(
        "config-unknown-table",
        append_config("\n[agents]\nclaude = true\n"),
        CONFIG,
        "TWS101",
        "unknown key 'agents' in the top level",
        10,
        2,  # `[agents]`: the table name
    ),
    Breakage(
        "config-two-scopes",
        append_config('\n[project]\nroot = "."\n\n[managed]\nroot = "managed"\n'),
        CONFIG,
        "TWS001",
        "[project] and [managed] exclude each other",
        13,
        2,  # `[managed]`
    ),
    Breakage(
        "config-profile-extends-unknown",
        write(CONFIG, PROFILES),
        CONFIG,
        "TWS014",
        "profile 'home' extends fragment 'nosuch', which [fragments] does not define",
        8,
        20,  # `extends = ["base", "nosuch"]`: the second name
    ),
    Breakage(
        "config-fifo",
        fifo(CONFIG),
        CONFIG,
        "TWS001",
        "cannot read config: is a FIFO, not a regular file",
    ),
    # ------------------------------------------------ a source: check reports it (exit 1)
    Breakage(
        "srt-invalid-json",
        write(SRT, '{\n  "filesystem": {"denyRead": ["~/.aws",]}\n}\n'),
        SRT,
        "TWS003",
        "invalid JSON",
        2,
        39,  # `  "filesystem": {"denyRead": ["~/.aws",]}`: the trailing comma
        check_exit=1,
    ),
    Breakage(
        "srt-unknown-key",
        write(SRT, '{\n  "filesystem": {"denyRaed": []}\n}\n'),
        SRT,
        "TWS101",
        "unknown key 'denyRaed' in '/filesystem'; did you mean 'denyRead'?",
        2,
        18,
        check_exit=1,
        edit_exit=1,  # edit: the file parses, its schema errors are exit 1
    ),
    Breakage(
        "srt-missing",
        remove(SRT),
        SRT,
        "TWS002",
        "source file does not exist",
        check_exit=1,
    ),
    Breakage(
        "srt-symlink-loop",
        steps(remove(SRT), symlink(SRT, SRT)),
        SRT,
        "TWS003",
        "cannot read source: symlink loop",
        check_exit=1,
    ),
    Breakage(
        "bash-wrong-type",
        write(BASH, '{\n  "deny": ["rm", 42]\n}\n'),
        BASH,
        "TWS102",
        "expected a string, got number 42",
        2,
        18,  # `  "deny": ["rm", 42]`
        check_exit=1,
        edit_exit=None,  # edit srt does not read the bash rules
    ),
    # ------------------------------------------------ a target or its placement
    Breakage(
        "target-invalid-json",
        write(FULL, '{\n  "model": "opus"\n  "permissions": {}\n}\n'),
        FULL,
        "TWS004",
        "invalid JSON in settings file: Expecting ',' delimiter",
        3,
        3,  # the key after the missing comma
        check_exit=1,
        edit_exit=None,
        show=False,  # show prints the policy, not the targets
    ),
    Breakage(
        "target-outside-repository",
        append_config('claude_settings_yolo = "../y.json"\n'),
        CONFIG,
        "TWS005",
        "claude_settings_yolo (~/y.json) resolves to ~/y.json, outside the repository",
        9,
        24,  # `claude_settings_yolo = "../y.json"`
        check_exit=1,
        edit_exit=None,
    ),
    Breakage(
        "two-targets-one-file",
        append_config('deepcode_settings = "home/.claude/settings.full.json"\n'),
        CONFIG,
        "TWS006",
        "deepcode_settings (home/.claude/settings.full.json) is the same file as claude_settings",
        9,
        21,
        check_exit=1,
        edit_exit=None,
    ),
]

CASES = [case for breakage in BREAKAGES for case in breakage.cases()]


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", params(CASES))
def test_bad_input_in_every_command(sandbox: Sandbox, case: Case) -> None:
    run_case(sandbox, case)
