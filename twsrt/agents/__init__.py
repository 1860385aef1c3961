"""The agent registry: the one place that lists every target twsrt compiles to."""

from __future__ import annotations

from twsrt.agents import claude, codex, copilot, deepcode
from twsrt.agents.base import Agent

AGENTS: dict[str, Agent] = {
    claude.AGENT.name: claude.AGENT,
    codex.AGENT.name: codex.AGENT,
    copilot.AGENT.name: copilot.AGENT,
    deepcode.AGENT.name: deepcode.AGENT,
}
