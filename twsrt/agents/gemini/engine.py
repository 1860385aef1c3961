"""The Gemini CLI engine: the real bubblewrap with the arguments Gemini CLI 0.61.0 builds for a
shell tool call, from the settings file on disk.

Gemini builds its sandbox in its own process for each call (its bundle's ``buildBwrapArgs``), so
this engine MODELS that function rather than running the agent; the model is pinned by real
runs of the agent (tests/real/test_gemini_engine.py runs the same actions in both):

- ``security.toolSandboxing`` must be ``true``; anything else means Gemini runs every command
  unsandboxed, so the engine does exactly that (every deny probe fails: never a PASS).
- ``--unshare-all --new-session --die-with-parent``; ``--share-net`` when
  ``tools.sandboxNetworkAccess`` is ``true`` or the launch is ``--yolo`` (its yolo mode turns
  the network on whatever the setting says); then ``--ro-bind / /``, a fresh ``/dev`` and
  ``/proc``, a private tmpfs on ``/tmp``, the directory Gemini starts in bound read-write, each
  ``tools.sandboxAllowedPaths`` entry bound read-write (assumed: the widest reading) and the
  workspace's ``.git`` read-only.

One adjustment makes a probe's answer inside say what happened on the host, and changes
nothing a command can do to it: the private ``/tmp`` is remounted read-only, so a write there
(which never reaches the host) fails as the host sees it.

Not modelled: the policy file (its command rules only refuse more, and the probes' own shell
commands are not the policy's), the file tools, ``.geminiignore`` paths (Gemini hides them;
twsrt writes none) and the ``.env`` files Gemini masks (both only narrow).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.testing.bwrapmodel import BWRAP_DEFAULT as BWRAP_DEFAULT  # tests/real name it here
from twsrt.testing.bwrapmodel import (
    bwrap_hint,
    child,
    kind_gap,
    locate_bwrap,
    require_bwrap,
)
from twsrt.testing.engines import Run
from twsrt.testing.gaps import GapRule, Mismatch
from twsrt.testing.launches import FAMILIES, LAUNCH_GAPS
from twsrt.testing.model import Outcome

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

GEMINI_HINT = bwrap_hint("gemini", "Gemini CLI")


def gemini_bwrap_args(settings: dict[str, Any], workspace: Path, yolo: bool) -> list[str]:
    """The bubblewrap arguments of one shell call, as Gemini CLI 0.61.0 builds them for the
    settings; [] when its tool sandbox is off (the command runs unsandboxed)."""
    if child(settings, "security", "toolSandboxing") is not True:
        return []
    args = ["--unshare-all", "--new-session", "--die-with-parent"]
    if yolo or child(settings, "tools", "sandboxNetworkAccess") is True:
        args.append("--share-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    original, resolved = str(workspace), os.path.realpath(workspace)
    args += ["--bind-try", original, original]
    if resolved != original:
        args += ["--bind-try", resolved, resolved]
    allowed = child(settings, "tools", "sandboxAllowedPaths")
    for path in allowed if isinstance(allowed, list) else []:
        if isinstance(path, str) and path.startswith("/"):
            args += ["--bind-try", path, path]
    git = workspace / ".git"
    if git.exists():
        args += ["--ro-bind", str(git), str(git)]
    return args


def _launch_gap(m: Mismatch) -> Finding | None:
    """An attack across launches that worked where Gemini starts: check's TWS473, as it
    reports it (no Gemini setting protects anything there)."""
    from twsrt.agents.gemini.rules import GEMINI_MANDATORY_NAMES_OPEN

    if m.probe.kind not in FAMILIES or m.observed is not Outcome.ALLOWED:
        return None
    found = m.reports(GEMINI_MANDATORY_NAMES_OPEN)
    return m.as_reported(found) if found is not None else None


def _gaps() -> tuple[GapRule, ...]:
    from twsrt.agents.gemini.rules import (
        GEMINI_NETWORK_OFF,
        GEMINI_NETWORK_OPEN,
        GEMINI_SHELL_READ_OPEN,
        GEMINI_WORKSPACE_WRITE_OPEN,
    )
    from twsrt.rules import LOSSY_WRITE_ROOT

    allowed, denied = Outcome.ALLOWED, Outcome.DENIED
    return (
        kind_gap(
            GEMINI_SHELL_READ_OPEN,
            allowed,
            ("deny-read",),
            "Gemini's sandbox mounts / readable: {rule} is open to shell commands",
        ),
        kind_gap(
            GEMINI_WORKSPACE_WRITE_OPEN,
            allowed,
            ("deny-write",),
            "Gemini's sandbox binds the directory it starts in read-write whole: {rule} is "
            "writable there",
        ),
        kind_gap(
            LOSSY_WRITE_ROOT,
            denied,
            ("allow-write",),
            "Gemini's sandbox writes only the directory it starts in: {rule} is not writable",
        ),
        kind_gap(
            GEMINI_NETWORK_OFF,
            denied,
            ("allow-domain",),
            "Gemini's sandbox network is off: {rule} is not reachable",
        ),
        kind_gap(
            GEMINI_NETWORK_OPEN,
            allowed,
            ("deny-domain", "canary-domain", "allow-domain"),
            "Gemini's sandbox network is on under --yolo, with no domain filter: {rule} is "
            "reachable",
        ),
        *LAUNCH_GAPS,
        _launch_gap,
    )


class GeminiEngine:
    name = "gemini"
    agent = "gemini"
    hint = GEMINI_HINT
    gaps = _gaps()

    def __init__(self, bwrap: str | None = None) -> None:
        self.bwrap = bwrap or locate_bwrap()
        self.args: list[str] = []

    @property
    def unsandboxed(self) -> bool:
        """Gemini builds no sandbox for the file (toolSandboxing off)."""
        return not self.args

    def reads(self, ctx: Context) -> list[Path]:
        from twsrt.agents.gemini.declaration import SETTINGS_KEY

        path = ctx.config.targets.get(SETTINGS_KEY)
        return [] if path is None else [path]

    def check_available(self, ctx: Context) -> None:
        require_bwrap(self.name, self.bwrap, GEMINI_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings

        self.root, self.upstream = root, upstream
        files = self.reads(ctx)
        settings = read_settings(files[0], ctx.config, ctx.documents) if files else {}
        self.args = gemini_bwrap_args(settings, root / "work", ctx.yolo)
        self.plan = root / "gemini-plan.json"
        body = {"settings": settings, "yolo": ctx.yolo}
        self.plan.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        return self.plan

    def run(self, shell: str, timeout: float) -> Run:
        from twsrt.testing.engines import base_env, run_process

        env = base_env(self.root)
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        # built for each call, as Gemini does (a .git that appeared since is bound read-only),
        # from the input file read back: a test may weaken it after prepare (Tamper)
        plan = json.loads(self.plan.read_text(encoding="utf-8"))
        args = gemini_bwrap_args(plan["settings"], self.root / "work", plan["yolo"])
        argv = ["sh", "-c", shell]
        if args:
            argv = [str(self.bwrap), *args, "--remount-ro", "/tmp", "--", *argv]
        return run_process(argv, env, self.root / "work", timeout)


ENGINE = GeminiEngine
