"""Rule-table cases: a project's files (``[project]``: what each agent's project layer leaves
to the user's files, and the user policy a project must narrow) and the managed files an
administrator deploys (``--managed DIR``)."""

from __future__ import annotations

import os
from collections.abc import Callable

from support.rule_cases import Case
from support.sandbox import Sandbox

PROJECT = """\
home = "/home/user"
checkout = "~/dotfiles"

[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[project]
agents = {agents}
"""
EVERY_AGENT = '["claude", "codex", "deepcode", "copilot"]'

# what only the user's files can carry, and paths a project anchors at its root
PROJECT_SRT = {
    "filesystem": {
        "denyRead": ["~/.ssh", "./secrets", "**/*.key"],
        "allowWrite": [".", "build"],
    },
    "network": {
        "allowedDomains": ["pypi.org"],
        "deniedDomains": [],
        "strictAllowlist": True,
    },
    "allowAppleEvents": True,
}

USER_CONFIG = """\
checkout = "~/userdots"

[sources]
srt = "srt.json"
bash_rules = "bash.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
"""


def generated(*more: Callable[[Sandbox], None]) -> Callable[[Sandbox], None]:
    def setup(box: Sandbox) -> None:
        for step in more:
            step(box)
        assert box.run("generate", "-w", **_codex_home(box)).returncode in (0, 1)

    return setup


def _codex_home(box: Sandbox) -> dict[str, str]:
    return {"CODEX_HOME": str(box.home / "codex-home")}


def codex_user_config(text: str) -> Callable[[Sandbox], None]:
    """The user's own Codex config.toml ($CODEX_HOME); ``{root}``: the project's real path."""

    def setup(box: Sandbox) -> None:
        home = box.home / "codex-home"
        home.mkdir(exist_ok=True)
        root = os.path.realpath(box.repo)
        (home / "config.toml").write_text(text.format(root=root), encoding="utf-8")

    return setup


TRUSTED = '[projects."{root}"]\ntrust_level = "trusted"\n'
CODEX_ENV = {"CODEX_HOME": "{home}/codex-home"}

CASES = [
    Case(
        "project-every-agent",
        {
            "TWS226": "twsrt.toml:8:2",
            "TWS445": ".srt-settings.json:18:5",
            "TWS446": ".srt-settings.json:20:3",
            "TWS448": "twsrt.toml:9:10",
            "TWS616": ".codex/config.toml:1:1",
        },
        files={
            "twsrt.toml": PROJECT.format(agents=EVERY_AGENT),
            ".srt-settings.json": PROJECT_SRT,
        },
        setup=generated(codex_user_config('model = "o3"\n')),
        env=CODEX_ENV,
    ),
    Case(
        "project-codex-profile-merged",
        {
            "TWS617": "~/codex-home/config.toml:5:1",
            "TWS625": "~/codex-home/config.toml:2:1",
        },
        files={"twsrt.toml": PROJECT.format(agents='["codex"]')},
        setup=generated(
            codex_user_config(TRUSTED + '\n[permissions.twsrt-project.filesystem]\n"/" = "write"\n')
        ),
        env=CODEX_ENV,
    ),
    Case(
        "project-codex-relative-root",
        {
            "TWS457": ".srt-settings.json:4:7",
        },
        files={
            "twsrt.toml": PROJECT.format(agents='["codex"]'),
            ".srt-settings.json": {"filesystem": {"allowWrite": ["build", "~/.cache/proj"]}},
        },
        setup=generated(codex_user_config(TRUSTED)),
        env=CODEX_ENV,
    ),
    Case(
        "project-wider-than-the-user",
        {
            "TWS225": ".srt-settings.json:11:7",
        },
        (("check", "--user-config", "~/userdots/twsrt.toml"),),
        files={
            "twsrt.toml": PROJECT.format(agents='["claude"]'),
            "bash-rules.json": {"allow": ["curl"], "deny": ["rm", "sudo"]},
        },
        home_files={
            "userdots/twsrt.toml": USER_CONFIG,
            "userdots/srt.json": {"filesystem": {"denyRead": ["~/.aws"]}},
            "userdots/bash.json": {"deny": ["rm", "sudo", "curl"]},
        },
        setup=generated(),
    ),
    Case(
        "project-user-policy-unreadable",
        {
            "TWS227": "twsrt.toml:8:2",
        },
        (("check", "--user-config", "~/nowhere/twsrt.toml"),),
        files={"twsrt.toml": PROJECT.format(agents='["claude"]')},
        setup=generated(),
    ),
]
