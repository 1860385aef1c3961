"""The Qwen Code engine: the real bubblewrap with the arguments Qwen Code 0.24.4 builds for a
shell tool call, from the ``tools.executionSandbox`` of the settings file on disk.

Qwen builds its sandbox in its own process for each call (its bundle's ``executeBwrap``, run
through a relay that only adds a status pipe), so this engine MODELS that function rather than
running the agent; the model is pinned by real runs of the agent (tests/real/test_qwen_engine.py
runs the same actions in both):

- ``tools.executionSandbox`` must be an object Qwen admits (``filesystem`` ``read-only`` or
  ``workspace-write``, ``network`` ``open`` or ``closed``, ``backend`` ``auto`` or ``bwrap``,
  no other member); without one Qwen runs every command unsandboxed (with an invalid one it does
  not start), so the engine runs the probes unsandboxed (every deny probe fails: never a PASS).
  ``auto`` always means bwrap on Linux, with no fallback: without ``/usr/bin/bwrap`` Qwen
  stops at start and runs nothing (docs/agents/qwen-observed.md, row 22).
- ``--ro-bind / / --unshare-pid --proc /proc --dev /dev --die-with-parent``, then a fresh
  scratch directory bound read-write (``$TMPDIR/qwen-sandbox-XXXXXX``, which ``TMPDIR``, ``TMP``
  and ``TEMP`` name inside; removed after the command), the directory Qwen starts in bound
  read-write for ``workspace-write``, a tmpfs over its ``.qwen/review-leases`` (Qwen makes the
  directory first when the workspace is writable), ``--unshare-net`` for ``closed``, and
  ``--chdir`` the command's directory.

Nothing needs adjusting for the host to see what a probe did: ``/tmp`` is part of the read-only
``/`` (no private tmpfs), and the scratch directory lies outside every probe's path.

Not modelled: the permission rules (their Bash, Read and Edit denies only refuse more, and the
probes' own commands are not the policy's), the file tools (they share this boundary, row 14),
and system settings: ``/etc/qwen-code/settings.json`` outranks the user's sandbox, so an engine
that finds the key there does not run (``check_available``).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.testing.bwrapmodel import bwrap_hint, child, kind_gap, locate_bwrap, require_bwrap
from twsrt.testing.engines import EngineUnavailable, Run
from twsrt.testing.gaps import GapRule, Mismatch
from twsrt.testing.launches import FAMILIES, LAUNCH_GAPS
from twsrt.testing.model import Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

QWEN_HINT = bwrap_hint("qwen", "Qwen Code")
FILESYSTEMS, NETWORKS, BACKENDS = (
    ("read-only", "workspace-write"),
    ("open", "closed"),
    ("auto", "bwrap"),
)
# the mask Qwen adds below the workspace (loadCliConfig's maskedPaths)
MASK = (".qwen", "review-leases")
SYSTEM_ENV, SYSTEM_DEFAULT = "QWEN_CODE_SYSTEM_SETTINGS_PATH", "/etc/qwen-code/settings.json"


def execution_sandbox(settings: Any) -> dict[str, str] | None:
    """``tools.executionSandbox`` as Qwen admits it (parseExecutionSandboxSettings); None when
    it is missing or one Qwen refuses."""
    value = child(settings, "tools", "executionSandbox")
    if not isinstance(value, dict) or set(value) - {"backend", "filesystem", "network"}:
        return None
    if value.get("filesystem") not in FILESYSTEMS or value.get("network") not in NETWORKS:
        return None
    if "backend" in value and value["backend"] not in BACKENDS:
        return None
    return {str(key): str(item) for key, item in value.items()}


def mask_path(workspace: Path) -> Path:
    """The mask's real path (a planted ``.qwen`` link is followed, as Qwen follows it)."""
    return Path(os.path.realpath(Path(workspace).joinpath(*MASK)))


def qwen_bwrap_args(
    sandbox: dict[str, str] | None, workspace: Path, scratch: Path, cwd: Path | None = None
) -> list[str]:
    """The bubblewrap arguments of one shell call, as Qwen Code 0.24.4 builds them for the
    admitted sandbox, its per-command ``scratch`` directory and the command's ``cwd`` (the
    workspace by default); [] without a sandbox (the command runs unsandboxed). Paths are
    their real paths, as Qwen resolves them."""
    if sandbox is None:
        return []
    space, tmp = os.path.realpath(workspace), os.path.realpath(scratch)
    args = ["--ro-bind", "/", "/", "--unshare-pid", "--proc", "/proc", "--dev", "/dev"]
    args += ["--die-with-parent", "--bind", tmp, tmp]
    writable = sandbox["filesystem"] == "workspace-write"
    if writable:
        args += ["--bind", space, space]
    mask = mask_path(workspace)
    if writable or mask.is_dir():
        args += ["--tmpfs", str(mask)]
    if sandbox["network"] == "closed":
        args.append("--unshare-net")
    return [*args, "--chdir", os.path.realpath(cwd or workspace)]


def mask_problem(sandbox: dict[str, str], workspace: Path) -> str:
    """Why Qwen refuses to run a command for this mask ("" when it runs), after making the
    mask's directory in a writable workspace as Qwen does."""
    mask, space = mask_path(workspace), os.path.realpath(workspace)
    if not mask.as_posix().startswith(space + "/"):
        return "Sandbox mask paths must remain inside the workspace."
    if not mask.exists() and sandbox["filesystem"] == "workspace-write":
        try:
            mask.mkdir(parents=True)
        except OSError as exc:
            return f"cannot make {mask}: {exc.strerror}"
    if mask.exists() and not mask.is_dir():
        return "Sandbox mask paths must be directories."
    return ""


def system_sandbox() -> str:
    """The system settings file, when it sets ``tools.executionSandbox`` (or cannot be read):
    it outranks the user's (readOperatorSandboxSettings), and the engine does not model it."""
    path = os.environ.get(SYSTEM_ENV) or SYSTEM_DEFAULT
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"{path}: {exc.strerror}"
    try:
        value = json.loads(text.removeprefix("\ufeff"))
    except ValueError:
        return f"{path}: not JSON"
    return path if child(value, "tools", "executionSandbox") is not None else ""


def _in_workspace(probe: Probe) -> bool:
    target = getattr(probe, "subject", "") or probe.target
    return target == "work" or target.startswith("work/")


def _launch_gap(m: Mismatch) -> Finding | None:
    """An attack across launches that worked in the writable directory Qwen starts in: check's
    TWS487, as it reports it (an interpreter writes past twsrt's Edit rules there)."""
    from twsrt.agents.qwen.rules import QWEN_PROJECT_LAYER_OPEN

    if m.probe.kind not in FAMILIES or m.observed is not Outcome.ALLOWED:
        return None
    found = m.reports(QWEN_PROJECT_LAYER_OPEN)
    return m.as_reported(found) if found is not None else None


def _workspace_write_gap(m: Mismatch) -> Finding | None:
    """A denyWrite path inside the writable directory Qwen starts in: TWS484 (its Edit rules
    stop the tools and redirects, not an interpreter; the sandbox binds the directory whole)."""
    from twsrt.agents.qwen.rules import QWEN_WRITE_DENY_LEAKS

    if m.probe.kind != "deny-write" or m.observed is not Outcome.ALLOWED:
        return None
    if not _in_workspace(m.probe):
        return None
    return m.gap(
        QWEN_WRITE_DENY_LEAKS,
        f"Qwen's sandbox binds the directory it starts in read-write whole: '{m.probe.rule}' "
        "is writable there by a command its Edit rules do not know",
    )


def _gaps() -> tuple[GapRule, ...]:
    from twsrt.agents.qwen.rules import QWEN_NETWORK_OFF, QWEN_READ_DENY_LEAKS
    from twsrt.rules import LOSSY_WRITE_ROOT

    return (
        kind_gap(
            QWEN_READ_DENY_LEAKS,
            Outcome.ALLOWED,
            ("deny-read",),
            "Qwen's sandbox mounts / readable: {rule} is read by a shell command its Read "
            "rules do not know",
        ),
        _workspace_write_gap,
        kind_gap(
            LOSSY_WRITE_ROOT,
            Outcome.DENIED,
            ("allow-write",),
            "Qwen's sandbox writes only the directory it starts in: {rule} is not writable",
        ),
        kind_gap(
            QWEN_NETWORK_OFF,
            Outcome.DENIED,
            ("allow-domain",),
            "Qwen's sandbox network is closed: {rule} is not reachable",
        ),
        *LAUNCH_GAPS,
        _launch_gap,
    )


class QwenEngine:
    name = "qwen"
    agent = "qwen"
    hint = QWEN_HINT
    gaps = _gaps()

    def __init__(self, bwrap: str | None = None) -> None:
        self.bwrap = bwrap or locate_bwrap()
        self.sandbox: dict[str, str] | None = None

    @property
    def unsandboxed(self) -> bool:
        """Qwen builds no sandbox for the file (no executionSandbox Qwen admits)."""
        return self.sandbox is None

    def reads(self, ctx: Context) -> list[Path]:
        from twsrt.agents.qwen.declaration import SETTINGS_KEY

        path = ctx.config.targets.get(SETTINGS_KEY)
        return [] if path is None else [path]

    def check_available(self, ctx: Context) -> None:
        require_bwrap(self.name, self.bwrap, QWEN_HINT)
        system = system_sandbox()
        if system:
            problem = f"{system} sets tools.executionSandbox over the user's, not modelled"
            raise EngineUnavailable(self.name, problem, QWEN_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings

        self.root, self.upstream = root, upstream
        files = self.reads(ctx)
        settings = read_settings(files[0], ctx.config, ctx.documents) if files else {}
        self.sandbox = execution_sandbox(settings)
        self.scratch_root = root / "qwen-tmp"
        self.scratch_root.mkdir(exist_ok=True)
        self.plan = root / "qwen-plan.json"
        body = {"executionSandbox": self.sandbox}
        self.plan.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        return self.plan

    def run(self, shell: str, timeout: float) -> Run:
        from twsrt.testing.engines import base_env

        env = base_env(self.root)
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        # read back for each call: a test may weaken the input after prepare (Tamper)
        sandbox = json.loads(self.plan.read_text(encoding="utf-8"))["executionSandbox"]
        work = self.root / "work"
        return run_as_qwen(self.bwrap, sandbox, work, self.scratch_root, shell, env, timeout)


def run_as_qwen(
    bwrap: str | None,
    sandbox: dict[str, str] | None,
    workspace: Path,
    scratch_root: Path,
    shell: str,
    env: dict[str, str],
    timeout: float,
) -> Run:
    """``sh -c shell`` in ``workspace`` as Qwen runs a shell call: unsandboxed without a
    sandbox, else in bubblewrap with a scratch directory of its own under ``scratch_root``
    (Qwen's ``$TMPDIR``). ``sh``, as every engine runs a probe: Qwen's payload is
    ``/bin/bash -c``, under the same mounts."""
    from twsrt.testing.engines import run_process

    if sandbox is None:
        return run_process(["sh", "-c", shell], env, workspace, timeout)
    problem = mask_problem(sandbox, workspace)
    if problem:  # Qwen refuses the call before bwrap starts
        return Run(1, problem, 0.0)
    scratch = Path(tempfile.mkdtemp(prefix="qwen-sandbox-", dir=scratch_root))
    try:
        inside = {**env, "TMPDIR": str(scratch), "TMP": str(scratch), "TEMP": str(scratch)}
        inside["QWEN_CODE"] = "1"
        args = qwen_bwrap_args(sandbox, workspace, scratch)
        argv = [str(bwrap), *args, "--", "sh", "-c", shell]
        return run_process(argv, inside, workspace, timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


ENGINE = QwenEngine
