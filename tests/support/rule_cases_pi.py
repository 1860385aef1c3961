"""Rule-table cases: pi's own rules, from its translation (what the sandbox extension cannot
take), its effective check (a project .pi/sandbox.json, the environment, this machine, the
target's place) and its engine's gap (srt cannot start, so pi runs bash unsandboxed)."""

from __future__ import annotations

import os
from typing import Any

from support.rule_cases import Case, config
from support.sandbox import Sandbox
from twsrt.locations import Location

TARGET = 'pi_sandbox = "home/.pi/agent/extensions/sandbox.json"\n'
LEGACY = 'pi_sandbox = "home/.pi/agent/sandbox.json"\n'

# a denyRead (TWS462), a glob deny (TWS464), the sandbox switch written (TWS470)
SRT = """\
{
  "enabled": true,
  "filesystem": {
    "denyRead": ["~/.ssh", "**/.env"],
    "allowWrite": [".", "/srv"]
  },
  "network": {"allowedDomains": ["github.com"]}
}
"""

BASH = '{"deny": ["curl"], "ask": ["git push"]}\n'

# a project file that drops the policy's denyRead and turns the sandbox off
PROJECT = '{\n  "enabled": false\n}\n'


def engine_gap(box: Sandbox) -> list[Any]:
    """What the pi engine makes of a denied read that came out allowed on a machine without
    bwrap, socat and rg (PATH names none of them)."""
    from support.policies import fs
    from twsrt.testing.model import Action, Outcome, Probe
    from twsrt.testing.verdicts import explain_gap

    origin = Location(".srt-settings.json", 3, 5)
    probe = Probe("deny-read", "~/.ssh", origin, Action("read"), Outcome("denied"))
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = str(box.repo / "no-tools")
    try:
        gap = explain_gap("pi", probe, Outcome("allowed"), fs(deny_read=["~/.ssh"]), "linux")
    finally:
        os.environ["PATH"] = saved
    return [gap] if gap is not None else []


def port_gap(box: Sandbox) -> list[Any]:
    """What the pi engine makes of an allowed host:port that came out refused."""
    from support.policies import fs
    from twsrt.testing.model import Action, Outcome, Probe
    from twsrt.testing.verdicts import explain_gap

    origin = Location(".srt-settings.json", 3, 5)
    action = Action("fetch")
    probe = Probe("allow-domain", "a.example:8443", origin, action, Outcome("allowed"), port=True)
    gap = explain_gap("pi", probe, Outcome("denied"), fs(), "linux")
    return [gap] if gap is not None else []


CASES = [
    Case(
        "pi-translation",
        {
            "TWS462": ".srt-settings.json:4:5",
            "TWS463": "bash-rules.json:1:11",
            "TWS464": ".srt-settings.json:4:28",
            "TWS470": ".srt-settings.json:2:3",
            "TWS654": ".srt-settings.json:5:5",
            "TWS655": ".srt-settings.json:5:25",
        },
        files={"twsrt.toml": config(TARGET), ".srt-settings.json": SRT, "bash-rules.json": BASH},
    ),
    Case(
        "pi-effective",
        {
            "TWS650": ".pi/sandbox.json:2:3",
            "TWS651": "twsrt.toml:9:14",
            "TWS652": "twsrt.toml:9:14",
        },
        files={"twsrt.toml": config(TARGET), ".pi/sandbox.json": PROJECT},
        # a machine that runs pi (its moved agent directory), with no sandbox tools on PATH
        home_files={"elsewhere/models.json": "{}\n"},
        env={"PI_CODING_AGENT_DIR": "{home}/elsewhere", "PATH": "/nonexistent"},
    ),
    Case(
        "pi-trust-always",
        {"TWS656": "home/.pi/agent/settings.json:1:3"},
        files={
            "twsrt.toml": config(TARGET),
            "home/.pi/agent/settings.json": '{ "defaultProjectTrust": "always" }\n',
        },
    ),
    Case(
        "pi-legacy-file",
        {"TWS653": "twsrt.toml:9:14"},
        files={"twsrt.toml": config(LEGACY)},
    ),
    Case(
        "pi-project",
        {"TWS657": "twsrt.toml:5:2"},
        files={
            "twsrt.toml": (
                '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
                '[project]\nagents = ["pi"]\n'
            ),
            ".srt-settings.json": SRT,
            "bash-rules.json": BASH,
        },
    ),
    Case("pi-engine-gap", {"TWS510": ".srt-settings.json:3:5"}, call=engine_gap),
    Case("pi-engine-port", {"TWS511": ".srt-settings.json:3:5"}, call=port_gap),
]
