"""A toy fifth agent, the add-an-agent experiment (tests/test_add_agent.py): an srt-document
target, as pi's sandbox extension reads one (``~/.toy/sandbox.json``: the srt settings plus
``"enabled": true``). One package and one registry line; nothing else in twsrt names it.

Light, as an agent package's ``__init__`` must be: the declaration, and ``AGENT`` on first use.
"""

from __future__ import annotations

from typing import Any

from support.toyagent.declaration import AGENT_SPEC

__all__ = ["AGENT_SPEC"]


def __getattr__(name: str) -> Any:
    if name == "AGENT":
        from support.toyagent.agent import AGENT

        return AGENT
    raise AttributeError(name)
