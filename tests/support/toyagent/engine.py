"""The toy agent's ``twsrt test`` engine: it needs no tool, and runs each probe in a plain
``sh`` (no sandbox at all: every denied probe is allowed, which the report shows as FAIL)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from support.toyagent.declaration import KEY, NAME
from twsrt.testing.engines import Run, base_env, run_process

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.testing.gaps import GapRule


class ToyEngine:
    name = NAME
    agent: str | None = NAME
    hint = ""
    gaps: tuple[GapRule, ...] = ()

    def reads(self, ctx: Context) -> list[Path]:
        path = ctx.config.targets.get(KEY)
        return [] if path is None else [path]

    def check_available(self, ctx: Context) -> None:
        pass

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        self.root = root
        return self.reads(ctx)[0]

    def run(self, shell: str, timeout: float) -> Run:
        return run_process(["sh", "-c", shell], base_env(self.root), self.root / "work", timeout)


ENGINE = ToyEngine
