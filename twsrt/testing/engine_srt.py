"""The sandbox runtime (srt) engine: the reference, run with the canonical srt settings (a
profile's composed settings) written into the probe root."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.testing.engines import EngineUnavailable, Run, base_env, executable, locate, run_process
from twsrt.testing.gaps import SRT_GAPS
from twsrt.testing.inputs import srt_settings

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.testing.model import Result

SRT_ENV = "TWSRT_SRT_BIN"
SRT_DEFAULT = "/opt/twsrt-tools/srt/bin/srt"
SRT_HINT = (
    "install bubblewrap, socat and ripgrep (apt-get install -y bubblewrap socat ripgrep) and "
    "the sandbox runtime with Node >= 18 (npm install -g @anthropic-ai/sandbox-runtime@0.0.83), "
    f"or point ${SRT_ENV} at srt"
)


class SrtEngine:
    name = "srt"
    # srt is the reference: it reads the canonical source, not a generated file
    agent: str | None = None
    hint = SRT_HINT
    gaps = SRT_GAPS
    # srt runs the policy as written: of what a later launch loads it knows its own
    # mandatory-deny set, in the directory it starts in, and the ancestors of each deny
    # (testing.launches); the agents' layers and twsrt's protected set are what twsrt
    # compiles into the agents' files
    launch_families: tuple[str, ...] = ("mandatory", "rename-ancestor")
    launch_only: tuple[str, ...] = ("mandatory",)

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or locate("srt", SRT_ENV, SRT_DEFAULT)

    def reads(self, ctx: Context) -> list[Path]:
        """The srt source, or a composed profile's srt fragments; srt itself runs with the
        (composed) settings ``prepare`` writes into the probe root."""
        config = ctx.config
        return [f.srt for f in config.fragments if f.srt is not None] or [config.srt]

    def check_available(self, ctx: Context) -> None:
        missing = []
        if not executable(self.binary):
            missing.append(f"srt ({self.binary or 'not on PATH'})")
        if sys.platform.startswith("linux"):
            # the ones on PATH: srt runs without the settings' own paths (hostrun)
            missing += [tool for tool in ("bwrap", "socat", "rg") if not shutil.which(tool)]
        if missing:
            raise EngineUnavailable(self.name, "missing " + ", ".join(missing), SRT_HINT)

    def host_programs(self, ctx: Context) -> list[Result]:
        """The policy's keys naming a program srt would start on the host (not run)."""
        from twsrt.testing.hostrun import policy_programs, results

        return results(self.name, policy_programs(ctx.policy))

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        self.root, self.upstream = root, upstream
        self.settings = root / "srt-settings.json"
        # the policy as its sources write it (the agents' files carry the protected set)
        settings = srt_settings(ctx.written or ctx.policy, str(root), ctx.sandbox_mode)
        self.settings.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        return self.settings

    # an agent's engine whose file switches the agent's sandbox off sets this in ``prepare``:
    # the agent then runs each command as it is, and so does the engine
    disabled = False

    @property
    def unsandboxed(self) -> bool:
        """The file turns the agent's sandbox off: the file's fault, no gap."""
        return self.disabled

    def runs_unconfined(self) -> bool:
        """Whether the agent would run this file's commands with no sandbox at all."""
        return self.disabled

    def run(self, shell: str, timeout: float) -> Run:
        env = base_env(self.root)
        # srt's proxy chains through $HTTP_PROXY (its parent proxy): allowed requests reach the
        # local stub instead of the internet, and refused ones never leave srt
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        if self.runs_unconfined():
            return run_process(["sh", "-c", shell], env, self.root / "work", timeout)
        argv = [str(self.binary), "--settings", str(self.settings), "-c", shell]
        return run_process(argv, env, self.root / "work", timeout)


ENGINE = SrtEngine
