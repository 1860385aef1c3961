"""pi target: the document pi's sandbox extension reads (``~/.pi/agent/extensions/sandbox.json``).

Light, as an agent package's ``__init__`` must be: the declaration, and ``AGENT`` on first use.
"""

from __future__ import annotations

from twsrt.agents.base import lazy_agent
from twsrt.agents.pi.declaration import AGENT_SPEC

__all__ = ["AGENT_SPEC"]

__getattr__ = lazy_agent(__name__ + ".agent")
