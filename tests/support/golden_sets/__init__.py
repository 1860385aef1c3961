"""Each golden set's check (tests/test_golden.py runs every case of every set).

A set is a directory of ``tests/golden/`` named after a registered agent, or after an agent and
a scope (``codex-managed``). A set whose files need their own check has a module here named
after it (``codex-managed`` as ``codex_managed``) with ``MODES`` (the sandbox modes a case is
checked in; ``(None,)``: one output for every mode) and ``check(case, mode, sandbox, tmp_path)``;
any other set of a registered agent is its user files, checked by ``generic`` from the
agent's declaration, so a new agent's golden cases are checked with no edit of a test.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from types import ModuleType

from support.golden import GOLDEN_ROOT
from twsrt.agents import REGISTRY


def module_name(golden_set: str) -> str:
    return f"{__name__}.{golden_set.replace('-', '_')}"


def own_check(golden_set: str) -> bool:
    """Whether the set has a module of its own here."""
    return find_spec(module_name(golden_set)) is not None


def harness(golden_set: str) -> ModuleType:
    """The set's own module, else ``generic`` (an agent's user files)."""
    return import_module(
        module_name(golden_set) if own_check(golden_set) else f"{__name__}.generic"
    )


def agent_sets() -> list[str]:
    """Every golden set of a registered agent: named after it, or with its own module here."""
    found = []
    for path in sorted(GOLDEN_ROOT.iterdir()):
        agent = path.name.split("-")[0]
        if path.is_dir() and agent in REGISTRY and (path.name == agent or own_check(path.name)):
            found.append(path.name)
    return found
