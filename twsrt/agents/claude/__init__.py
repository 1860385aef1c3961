"""Claude Code: everything twsrt knows of it, in this package (``agent`` compiles one run).

Light on purpose: naming the package (or any module of it) loads only its declaration; ``AGENT``,
the translator behind it, is imported on first use.
"""

from twsrt.agents.base import lazy_agent
from twsrt.agents.claude.declaration import AGENT_SPEC

__all__ = ["AGENT_SPEC"]
__getattr__ = lazy_agent(__name__ + ".agent")
