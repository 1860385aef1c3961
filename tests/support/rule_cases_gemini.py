"""Rule-table cases: Gemini CLI's own rules, from its translation (the policy it cannot take
as written) and its effective check (a policy file beside twsrt's, policyPaths)."""

from __future__ import annotations

from support.rule_cases import Case, config
from support.sandbox import Sandbox

BOTH = (
    'gemini_settings = "home/.gemini/settings.json"\n'
    'gemini_policy = "home/.gemini/policies/twsrt.toml"\n'
)

# no "." in allowWrite (TWS479); one entry of each list Gemini enforces differently
SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.ssh"],
    "denyWrite": ["~/.bashrc"],
    "allowWrite": ["/tmp"]
  },
  "network": {"allowedDomains": ["github.com"]}
}
"""

BASH = '{"deny": ["curl"]}\n'

# a peer file as "allow for all future sessions" writes one (950: below twsrt's asks) and one
# that outranks them
PEER = """\
[[rule]]
toolName = "run_shell_command"
commandPrefix = "ln"
decision = "allow"
priority = 950

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "allow"
priority = 995
"""

SETTINGS = '{\n  "policyPaths": ["/etc/other.toml"]\n}\n'

CASES = [
    Case(
        "gemini-translation",
        {
            "TWS408": ".srt-settings.json:5:20",
            "TWS473": ".srt-settings.json:5:5",
            "TWS474": ".srt-settings.json:7:3",
            "TWS475": ".srt-settings.json:3:18",
            "TWS476": ".srt-settings.json:4:5",
            "TWS477": "bash-rules.json:1:2",
            "TWS478": ".srt-settings.json:7:15",
            "TWS479": ".srt-settings.json:5:5",
        },
        files={"twsrt.toml": config(BOTH), ".srt-settings.json": SRT, "bash-rules.json": BASH},
    ),
    Case(
        "gemini-one-target-of-two",
        {"TWS480": "twsrt.toml:9:17"},
        files={"twsrt.toml": config('gemini_policy = "home/.gemini/policies/twsrt.toml"\n')},
    ),
    Case(
        "gemini-settings-without-policy",
        {"TWS481": "twsrt.toml:9:19"},
        files={"twsrt.toml": config('gemini_settings = "home/.gemini/settings.json"\n')},
    ),
    Case(
        "gemini-effective",
        {
            "TWS630": "home/.gemini/settings.json:2:3",
            "TWS631": "home/.gemini/policies/auto-saved.toml:11:1",
        },
        files={
            "twsrt.toml": config(BOTH),
            "home/.gemini/settings.json": SETTINGS,
            "home/.gemini/policies/auto-saved.toml": PEER,
        },
    ),
]


def scoped(table: str) -> str:
    """A twsrt.toml of one scope for Gemini alone (the managed tree under ``out``)."""
    root = 'root = "out"\n' if table == "managed" else ""
    return (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[{table}]\n{root}agents = ["gemini"]\n'
    )


SCOPED_SRT = """\
{
  "enabled": true,
  "filesystem": {"denyRead": ["~/.ssh", "/srv/keys"], "allowWrite": ["."]}
}
"""


def insecure_policies(box: Sandbox) -> None:
    """This host's admin policy directory, writable by its group (Gemini skips it)."""
    path = box.home.parent / "host-root" / "etc" / "gemini-cli" / "policies"
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o775)


def system_settings(box: Sandbox) -> None:
    """This host's system settings, switching the tool sandbox off for every user."""
    path = box.home.parent / "host-root" / "etc" / "gemini-cli" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{\n  "security": {"toolSandboxing": false}\n}\n', encoding="utf-8")


CASES += [
    Case(
        "gemini-managed",
        {
            "TWS488": ".srt-settings.json:3:31",
            "TWS490": ".srt-settings.json:2:3",
            "TWS633": "host-root/etc/gemini-cli/policies",
            "TWS634": ".srt-settings.json:2:3",
        },
        files={"twsrt.toml": scoped("managed"), ".srt-settings.json": SCOPED_SRT},
        setup=insecure_policies,
        env={"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "{home}/elsewhere.json"},
    ),
    Case(
        "gemini-project",
        {
            "TWS489": ".srt-settings.json:3:17",
            "TWS491": "twsrt.toml:5:2",
        },
        files={"twsrt.toml": scoped("project"), ".srt-settings.json": SCOPED_SRT},
    ),
    Case(
        "gemini-system-settings",
        {"TWS635": "host-root/etc/gemini-cli/settings.json:2:16"},
        files={"twsrt.toml": config(BOTH)},
        setup=system_settings,
    ),
]
