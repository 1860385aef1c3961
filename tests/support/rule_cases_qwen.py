"""Rule-table cases: Qwen Code's own rules, from its translation (the policy it cannot take as
written) and its effective check (a user key beside twsrt's in ~/.qwen/settings.json)."""

from __future__ import annotations

from support.rule_cases import Case, config

TARGET = 'qwen_settings = "home/.qwen/settings.json"\n'

# "." in allowWrite (TWS487), one entry of each list Qwen enforces differently
SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.ssh"],
    "denyWrite": ["~/.bashrc"],
    "allowWrite": [".", "/tmp"]
  },
  "network": {"allowedDomains": ["github.com"]}
}
"""

BASH = '{"deny": ["curl"], "ask": ["git push"]}\n'

# a user key beside the managed ones: every launch approves every call
SETTINGS = '{\n  "tools": {\n    "approvalMode": "yolo"\n  }\n}\n'

CASES = [
    Case(
        "qwen-translation",
        {
            "TWS482": "bash-rules.json:1:2",
            "TWS483": ".srt-settings.json:3:5",
            "TWS484": ".srt-settings.json:4:5",
            "TWS485": "bash-rules.json:1:20",
            "TWS486": ".srt-settings.json:7:3",
            "TWS498": ".srt-settings.json:7:15",
            "TWS487": ".srt-settings.json:5:5",
        },
        # the ask rules hold in full mode; --yolo approves them (TWS485)
        commands=(("check", "-v"), ("check", "-v", "--yolo")),
        files={"twsrt.toml": config(TARGET), ".srt-settings.json": SRT, "bash-rules.json": BASH},
    ),
    Case(
        "qwen-effective",
        {"TWS632": "home/.qwen/settings.json:3:5"},
        files={"twsrt.toml": config(TARGET), "home/.qwen/settings.json": SETTINGS},
    ),
]
