"""Run the named headless agent runs of an observation module side by side (the clients'
``run_all``): the runs mostly wait on their agent's start-up, so a few at once finish sooner."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

R = TypeVar("R")


def side_by_side(names: Iterable[str], run: Callable[[str], R], workers: int) -> dict[str, R]:
    """``run(name)`` for every name, ``workers`` at a time (at least one); keyed by name, in the
    names' order."""
    names = list(names)

    def one(name: str) -> tuple[str, R]:
        return name, run(name)

    with ThreadPoolExecutor(max(1, min(workers, len(names)))) as pool:
        return dict(pool.map(one, names))
