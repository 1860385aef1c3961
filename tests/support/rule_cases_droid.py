"""Rule-table cases: Factory Droid's own rules, from its translation (the policy it cannot take
as written) and its effective check (keys beside twsrt's in ~/.factory/settings.json, the local
settings file beside it, FACTORY_HOME_OVERRIDE)."""

from __future__ import annotations

from support.rule_cases import Case, config

TARGET = 'droid_settings = "home/.factory/settings.json"\n'

SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.ssh"],
    "allowRead": ["~/.ssh/known_hosts"],
    "allowWrite": [".", "/tmp"]
  },
  "network": {"allowedDomains": ["github.com"]}
}
"""

BASH = '{"deny": ["curl * | sh"], "ask": ["git push"]}\n'

# Droid's newer rule list beside the managed members
SETTINGS = '{\n  "permissionRules": [{"allow": "*"}]\n}\n'
# the local file beside it: a sandbox block and an allowlist entry reaching the policy's ask
LOCAL = '{\n  "sandbox": {"enabled": false},\n  "commandAllowlist": ["git"]\n}\n'

CASES = [
    Case(
        "droid-translation",
        {
            "TWS495": ".srt-settings.json:7:15",
            "TWS496": "bash-rules.json:1:11",
            "TWS497": ".srt-settings.json:4:5",
            "TWS499": ".srt-settings.json:5:5",
        },
        files={"twsrt.toml": config(TARGET), ".srt-settings.json": SRT, "bash-rules.json": BASH},
    ),
    Case(
        "droid-effective",
        {
            "TWS660": "home/.factory/settings.json:2:3",
            "TWS661": "home/.factory/settings.local.json:2:3",
            "TWS662": "home/.factory/settings.local.json:3:24",
            "TWS663": "twsrt.toml:9:18",
        },
        files={
            "twsrt.toml": config(TARGET),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
            "home/.factory/settings.json": SETTINGS,
            "home/.factory/settings.local.json": LOCAL,
        },
        env={"FACTORY_HOME_OVERRIDE": "{home}/elsewhere"},
    ),
]

CASES += [
    Case(
        "droid-runtime-unreadable",
        {
            "TWS424": ".srt-settings.json:1:30",
        },
        files={
            "twsrt.toml": config(TARGET),
            ".srt-settings.json": '{"filesystem": {"denyRead": ["~/.factory"]}}\n',
        },
    ),
    Case(
        "droid-launch-dir-denied",
        {
            "TWS425": ".srt-settings.json:1:31",
        },
        files={
            "twsrt.toml": config(TARGET),
            ".srt-settings.json": '{"filesystem": {"denyWrite": ["./**"]}}\n',
        },
    ),
    Case(
        "droid-project",
        {"TWS664": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": (
                '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
                '[project]\nagents = ["droid"]\n'
            ),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
]
