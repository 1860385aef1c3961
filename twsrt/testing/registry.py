"""The registry of ``twsrt test`` engines: srt (the canonical sandbox) and every engine an agent
declares (``AgentSpec.engine``, a module path: nothing is imported before an engine is used).

Engine name -> the module that defines ``ENGINE`` (see ``twsrt.testing.engines.Engine``); an
agent's engine bears the agent's name. The order is the run order and the order of the report.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from twsrt.agents import REGISTRY, spec_of

SRT = "twsrt.testing.engine_srt"
# the order reports have always listed the engines in; an engine not named here runs after
# them, in registry order
ORDER = ("srt", "codex", "claude", "deepcode")


def _engines() -> dict[str, str]:
    declared = {"srt": SRT}
    for name in REGISTRY:
        module = spec_of(name).engine
        if module is not None:
            declared[name] = module
    ranked = sorted(declared, key=lambda n: ORDER.index(n) if n in ORDER else len(ORDER))
    return {name: declared[name] for name in ranked}


class _Engines(Mapping[str, str]):
    """The engines, read from the agents' declarations on each use."""

    def __getitem__(self, name: str) -> str:
        return _engines()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_engines())

    def __len__(self) -> int:
        return len(_engines())


ENGINES: Mapping[str, str] = _Engines()
