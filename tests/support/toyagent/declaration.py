"""What the toy agent is: one ``[targets]`` key and where its optional parts live."""

from __future__ import annotations

from twsrt.agents.base import AgentSpec, TargetSpec

NAME = "toy"
KEY = "toy_sandbox"
# a second file the agent loads beside its target, owned by the user: its effective check
LOCAL = "sandbox.local.json"

AGENT_SPEC = AgentSpec(
    NAME,
    "Toy",
    (
        TargetSpec(
            KEY,
            "json-settings",
            "The toy agent's sandbox document (the srt settings plus enabled).",
            "~/.toy/sandbox.json",
            r"\.toy/sandbox\.json",
        ),
    ),
    effective="support.toyagent.effective",
    engine="support.toyagent.engine",
    rules="support.toyagent.rules",
)
