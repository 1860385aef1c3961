"""Rule-table cases no command reaches without the real agents: the gaps ``twsrt test``
explains from what an engine observed (``explain_gap``, given the observation), and a target
edited between compile and write (``writes.apply``, given the stale plan)."""

from __future__ import annotations

from typing import Any

from support.policies import fs
from support.rule_cases import Case
from support.sandbox import Sandbox
from twsrt.locations import Location


def codex_gap(kind: str, rule: str, action: str, expected: str, observed: str) -> Any:
    """What Codex's engine makes of a probe of ``kind`` that saw ``observed`` on Linux."""

    def call(box: Sandbox) -> list[Any]:
        from twsrt.testing.model import Action, Outcome, Probe
        from twsrt.testing.verdicts import explain_gap

        origin = Location(".srt-settings.json", 3, 5)
        probe = Probe(kind, rule, origin, Action(action), Outcome(expected))
        policy = fs(allow_read=["~/.ssh/config"], allowUnixSockets=["/run/x.sock"])
        gap = explain_gap("codex", probe, Outcome(observed), policy, "linux")
        return [gap] if gap is not None else []

    return call


def edited_during_the_run(box: Sandbox) -> list[Any]:
    from twsrt.findings import TwsrtError
    from twsrt.writes import FileWrite, apply

    path = box.repo / "target.json"
    path.write_text("{}\n", encoding="utf-8")
    stale = FileWrite(path, "target.json", '{"new": 1}\n', "{}\n")
    path.write_text('{"edited": 1}\n', encoding="utf-8")  # an agent's "always allow"
    try:
        apply([stale])
    except TwsrtError as refused:
        return list(refused.findings)
    return []


CASES = [
    Case(
        "codex-engine-temp-writable",
        {
            "TWS503": ".srt-settings.json:3:5",
        },
        call=codex_gap("write-tmp", "/tmp", "create", "denied", "allowed"),
    ),
    Case(
        "codex-engine-no-allow-read",
        {
            "TWS504": ".srt-settings.json:3:5",
        },
        call=codex_gap("allow-read", "~/.ssh/config", "read", "allowed", "denied"),
    ),
    Case(
        "codex-engine-no-unix-sockets",
        {
            "TWS505": ".srt-settings.json:3:5",
        },
        call=codex_gap("allow-unix-socket", "/run/x.sock", "connect", "allowed", "denied"),
    ),
    Case(
        "target-changed-during-the-run",
        {
            "TWS009": "target.json",
        },
        call=edited_during_the_run,
    ),
]
