"""Rule-table cases: Qwen Code's own rules, from its translation (the policy it cannot take as
written) and its effective check (a user key beside twsrt's in ~/.qwen/settings.json)."""

from __future__ import annotations

from support.rule_cases import Case, config
from support.sandbox import Sandbox

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


def scoped(table: str) -> str:
    """A twsrt.toml of one scope for Qwen alone (the managed tree under ``out``)."""
    root = 'root = "out"\n' if table == "managed" else ""
    return (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[{table}]\n{root}agents = ["qwen"]\n'
    )


SCOPED_BASH = '{"deny": ["curl"], "allow": ["git status"]}\n'
# the user's file on this machine beside a managed policy: an allow rule the policy lacks
USER_ALLOW = '{\n  "permissions": {\n    "allow": ["Shell(npm test)"]\n  }\n}\n'
# this machine's system settings in a user-scope run: the sandbox's network opened
SYSTEM_OPEN = (
    '{\n  "tools": {\n    "executionSandbox": '
    '{"filesystem": "workspace-write", "network": "open"}\n  }\n}\n'
)


def system_settings(box: Sandbox) -> None:
    """This host's Qwen system settings, under the sandbox's $TWSRT_MANAGED_ROOT."""
    path = box.home.parent / "host-root" / "etc" / "qwen-code" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SYSTEM_OPEN, encoding="utf-8")


CASES += [
    Case(
        "qwen-project",
        {"TWS492": ".srt-settings.json:5:5", "TWS493": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": scoped("project"),
            ".srt-settings.json": SRT,
            "bash-rules.json": SCOPED_BASH,
        },
    ),
    Case(
        "qwen-managed",
        {"TWS494": "bash-rules.json:1:20", "TWS636": ".qwen/settings.json:3:15"},
        files={
            "twsrt.toml": scoped("managed"),
            ".srt-settings.json": SRT,
            "bash-rules.json": SCOPED_BASH,
        },
        home_files={".qwen/settings.json": USER_ALLOW},
    ),
    Case(
        "qwen-system-settings",
        {"TWS637": "host-root/etc/qwen-code/settings.json:3:5"},
        files={"twsrt.toml": config(TARGET), ".srt-settings.json": SRT, "bash-rules.json": BASH},
        setup=system_settings,
    ),
]
