"""What the engines that MODEL an agent's own bubblewrap call share (Gemini CLI's and Qwen
Code's ``agents/<agent>/engine.py``): where bwrap is, the install hint, a member of the
settings file, the check that bwrap can run, and a gap row keyed by probe kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twsrt.testing.engines import EngineUnavailable, executable, locate
from twsrt.testing.gaps import GapRule, probe_gap

if TYPE_CHECKING:
    from twsrt.rules.model import Rule
    from twsrt.testing.model import Outcome

BWRAP_ENV, BWRAP_DEFAULT = "TWSRT_BWRAP_BIN", "/usr/bin/bwrap"


def bwrap_hint(engine: str, label: str) -> str:
    return (
        f"the {engine} engine runs bubblewrap with the arguments {label} builds: install it "
        f"(apt-get install -y bubblewrap), or point ${BWRAP_ENV} at bwrap"
    )


def locate_bwrap() -> str | None:
    return locate("bwrap", BWRAP_ENV, BWRAP_DEFAULT)


def require_bwrap(engine: str, bwrap: str | None, hint: str) -> None:
    """Raise EngineUnavailable when ``bwrap`` is no executable."""
    if not executable(bwrap):
        raise EngineUnavailable(engine, f"missing bwrap ({bwrap or 'not on PATH'})", hint)


def child(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...``, None where a level is missing or no object."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def kind_gap(rule: Rule, observed: Outcome, kinds: tuple[str, ...], message: str) -> GapRule:
    """The gap row of a probe of one of ``kinds`` that comes out ``observed``."""
    return probe_gap(rule, message, observed, lambda probe: probe.kind in kinds)
