"""Rule-table cases: OpenCode's own rules, from its translation (the policy it cannot take as
written) and its effective check (user keys beside twsrt's in its config, a variable of the
environment, a project file in the home directory)."""

from __future__ import annotations

from support.rule_cases import Case, config

TARGET = 'opencode_config = "home/.config/opencode/opencode.json"\n'

# "." in allowWrite (TWS452), a denied path (TWS454, TWS460), a host list (TWS455)
SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.ssh"],
    "allowWrite": ["."]
  },
  "network": {"allowedDomains": ["github.com"]}
}
"""

# a deny (TWS453), an ask (TWS456 under --yolo), an allow with a wildcard (TWS459)
BASH = '{"deny": ["curl"], "ask": ["git push"], "allow": ["ls *.txt"]}\n'

# user keys beside the managed ones: a catch-all after twsrt's keys, an agent's own allow
USER = """\
{
  "permission": {
    "bash": {"*": "ask"},
    "*": "allow"
  },
  "agent": {
    "build": {"permission": {"bash": "allow"}}
  }
}
"""

# a managed file that allows the shell: merged after the user's file
MANAGED = '{\n  "permission": {\n    "bash": "allow"\n  }\n}\n'

CASES = [
    Case(
        "opencode-translation",
        {
            "TWS452": ".srt-settings.json:4:5",
            "TWS453": "bash-rules.json:1:2",
            "TWS454": ".srt-settings.json:3:5",
            "TWS455": ".srt-settings.json:6:3",
            "TWS456": "bash-rules.json:1:20",
            "TWS459": "bash-rules.json:1:51",
            "TWS460": ".srt-settings.json:3:5",
        },
        commands=(("check", "-v"), ("check", "-v", "--yolo")),
        files={"twsrt.toml": config(TARGET), ".srt-settings.json": SRT, "bash-rules.json": BASH},
    ),
    Case(
        "opencode-effective",
        {
            "TWS640": "home/.config/opencode/opencode.json:4:5",
            "TWS641": "home/.config/opencode/opencode.json:7:30",
            "TWS642": "twsrt.toml:9:19",
            "TWS643": "twsrt.toml:9:19",
            "TWS646": "root/etc/opencode/opencode.json:3:5",
        },
        files={"twsrt.toml": config(TARGET), "home/.config/opencode/opencode.json": USER},
        home_files={
            "opencode.json": "{}\n",
            # this machine's managed file (TWSRT_MANAGED_ROOT stands for /)
            "root/etc/opencode/opencode.json": MANAGED,
        },
        env={
            "OPENCODE_PERMISSION": '{{"bash": "allow"}}',  # str.format: {{ is {
            "TWSRT_MANAGED_ROOT": "{home}/root",
        },
    ),
]

KILO_TARGET = 'kilo_config = "home/.config/kilo/kilo.jsonc"\n'
# a misplaced sandbox switch beside twsrt's top-level one
KILO_USER = '{\n  "experimental": {\n    "sandbox": true\n  }\n}\n'

CASES += [
    Case(
        "kilo-translation",
        {"TWS461": ".srt-settings.json:4:5"},
        files={
            "twsrt.toml": config(KILO_TARGET),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
    Case(
        "kilo-effective",
        {"TWS644": "home/.config/kilo/kilo.jsonc:3:5", "TWS645": "twsrt.toml:9:15"},
        files={"twsrt.toml": config(KILO_TARGET), "home/.config/kilo/kilo.jsonc": KILO_USER},
        env={"KILO_BWRAP_PATH": "/nonexistent/bwrap"},
    ),
]


def scoped(agent: str) -> str:
    """A twsrt.toml of the project scope for one agent alone."""
    return (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[project]\nagents = ["{agent}"]\n'
    )


CASES += [
    Case(
        "opencode-project",
        {"TWS670": "twsrt.toml:5:2", "TWS671": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": scoped("opencode"),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
    Case(
        "kilo-project",
        {"TWS672": ".srt-settings.json:4:5", "TWS670": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": 'home = "/home/user"\n' + scoped("kilo"),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
]


def managed(agent: str) -> str:
    """A twsrt.toml of the managed scope for one agent alone (the tree under ``out``)."""
    return (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[managed]\nroot = "out"\nagents = ["{agent}"]\n'
    )


CASES += [
    Case(
        "opencode-managed",
        {"TWS673": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": managed("opencode"),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
    Case(
        "kilo-managed",
        {"TWS674": ".srt-settings.json:4:5", "TWS673": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": 'home = "/home/user"\n' + managed("kilo"),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
]

# a project file beside twsrt's that Kilo (and OpenCode, under .opencode/) also loads
PROJECT_LAYER = '{\n  "permission": {\n    "bash": {"curl *": "allow"}\n  }\n}\n'

CASES += [
    Case(
        "opencode-project-layer",
        {"TWS647": ".opencode/opencode.json:3:14"},
        files={
            "twsrt.toml": scoped("opencode"),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
            ".opencode/opencode.json": PROJECT_LAYER,
        },
    ),
]
