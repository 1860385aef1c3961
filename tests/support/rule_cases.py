"""The per-rule table's cases (tests/test_rule_table.py): each a small fixture written into a
sandbox, the CLI commands run in it, and the rules it proves to fire (id -> the location one of
its findings has, ``""`` where the place is not worth pinning). One fixture proves many rules:
the table runs each case once and reads every rule's findings from that one run.

How to add a rule's case: find the smallest fixture that makes a command emit it (the rule's
own tests show the trigger), add its id to a case that already builds that fixture, or add a
case; the meta-test fails until every rule of the catalog has one."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from support.sandbox import Sandbox

# one finding as every text report writes it: [path[:line:col]: ]level[TWSnnn]
FINDING = re.compile(r"(?:(?P<where>\S+?): )?(?P<level>error|warning|note)\[(?P<id>TWS\d{3})\]")

Content = str | dict


@dataclass(frozen=True)
class Case:
    name: str
    # rule id -> where one of its findings is: "path:line:col" (or its tail, for a file outside
    # the sandbox's repository), "path" for a finding without a line, "" for any place
    rules: dict[str, str]
    commands: tuple[tuple[str, ...], ...] = (("check", "-v"),)
    files: dict[str, Content] = field(default_factory=dict)  # repository-relative
    home_files: dict[str, Content] = field(default_factory=dict)  # HOME-relative
    setup: Callable[[Sandbox], None] | None = None  # what files cannot say (links, modes)
    env: dict[str, str] = field(default_factory=dict)  # "{home}": the sandbox's HOME
    # where no command can reach the rule (an engine's gap needs the real agent): the findings
    # of the most stable public function, called in the sandbox instead of the commands
    call: Callable[[Sandbox], list[Any]] | None = None


def write_all(box: Sandbox, case: Case) -> None:
    for relative, content in case.files.items():
        box.write(relative, content)
    for relative, content in case.home_files.items():
        path = box.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
    if case.setup is not None:
        case.setup(box)


def findings_of(box: Sandbox, case: Case) -> dict[str, set[tuple[str, str]]]:
    """Every rule the case's commands report: id -> {(level, where)}."""
    found: dict[str, set[tuple[str, str]]] = {}
    if case.call is not None:
        for item in case.call(box):
            where = item.location
            place = f"{where.path}:{where.line}:{where.column}" if where.line else where.path
            found.setdefault(item.rule_id, set()).add((item.level.value, place))
        return found
    for command in case.commands:
        env = {key: value.format(home=box.home) for key, value in case.env.items()}
        run = box.run(*command, **env)
        assert "Traceback" not in run.stderr, run.stderr
        for match in FINDING.finditer(run.stdout + "\n" + run.stderr):
            found.setdefault(match["id"], set()).add((match["level"], match["where"] or ""))
    return found


def config(targets: str, extra: str = "", head: str = 'home = "/home/user"\n') -> str:
    """A twsrt.toml with the sandbox's default sources and ``targets`` (TOML lines)."""
    return (
        f'{head}checkout = "~/dotfiles"\n\n[sources]\nsrt = ".srt-settings.json"\n'
        f'bash_rules = "bash-rules.json"\n\n[targets]\n{targets}{extra}'
    )


# a profile of two fragments, each named by its srt file (``base``, ``two``)
PROFILES = """\
profile = "home"

[fragments.base]
srt = "{base}"
bash_rules = "bash-rules.json"

[fragments.two]
srt = "{two}"

[profiles.home]
extends = ["base", "two"]

[profiles.home.targets]
claude_settings = "home/.claude/settings.full.json"
"""

ALL_TARGETS = """\
claude_settings = "home/.claude/settings.full.json"
claude_settings_yolo = "home/.claude/settings.yolo.json"
codex_config = "home/.codex/config.toml"
codex_rules = "home/.codex/rules/twsrt.rules"
copilot_output = "home/.config/twsrt/copilot-flags.txt"
copilot_settings = "home/.copilot/settings.json"
deepcode_settings = "home/.deepcode/settings.json"
"""


def make_dir(relative: str) -> Callable[[Sandbox], None]:
    def setup(box: Sandbox) -> None:
        (box.repo / relative).mkdir(parents=True, exist_ok=True)

    return setup
