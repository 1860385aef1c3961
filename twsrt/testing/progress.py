"""Progress of a ``twsrt test`` run on a terminal: one line, a counter per engine, redrawn in
place and erased at the end, so the report that follows starts on a clean line. The CLI
passes a stream only when stderr is a terminal and the report is text (never piped, never
with --json); without one the run prints nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TextIO

ERASE = "\r\033[K"
INTERVAL = 0.1  # seconds between redraws: engines report from several threads at once


class Progress:
    """Probes done per engine, drawn on ``stream``."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.done: dict[str, int] = {}
        self.total: dict[str, int] = {}
        self.drawn = 0.0
        self.lock = threading.Lock()

    def start(self, engine: str, total: int) -> None:
        with self.lock:
            self.done[engine], self.total[engine] = 0, total
            self._draw(force=True)

    def advance(self, engine: str, count: int) -> None:
        with self.lock:
            self.done[engine] = min(self.total.get(engine, 0), self.done.get(engine, 0) + count)
            self._draw(force=self.done[engine] == self.total[engine])

    def close(self) -> None:
        with self.lock:
            if self.total:
                self.stream.write(ERASE)
                self.stream.flush()

    def line(self) -> str:
        counts = "  ".join(f"{e} {self.done[e]}/{self.total[e]}" for e in self.total)
        return f"twsrt test: {counts}"

    def _draw(self, force: bool) -> None:
        now = self.clock()
        if not force and now - self.drawn < INTERVAL:
            return
        self.drawn = now
        self.stream.write(ERASE + self.line())
        self.stream.flush()
