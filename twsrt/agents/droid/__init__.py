"""Factory Droid target: the ``sandbox`` block and the three command lists of its user settings.

Light, as an agent package's ``__init__`` must be: the declaration, and ``AGENT`` on first use.
"""

from __future__ import annotations

from twsrt.agents.base import lazy_agent
from twsrt.agents.droid.declaration import AGENT_SPEC

__all__ = ["AGENT_SPEC"]

__getattr__ = lazy_agent(__name__ + ".agent")
