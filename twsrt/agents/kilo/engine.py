"""The Kilo Code CLI engine: the real bubblewrap with the arguments Kilo Code CLI 7.7.7 builds
for a shell call, from the top-level ``sandbox`` of the config file on disk.

Kilo builds its sandbox in its own process for each call, so this engine MODELS that function
rather than running the agent (seen in an ``strace -f -e trace=execve`` of a headless run and in
the bundle's Linux sandbox profile); tests/real/test_kilo_engine.py runs the same commands in
both:

- ``sandbox.enabled`` must be ``true``; otherwise Kilo runs every command unsandboxed, and so
  does the engine (every deny probe fails: never a PASS). ``allowed_hosts`` with a host while
  the network is restricted means Kilo's proxy mode, whose relay 7.7.7 as npm installs it lacks:
  every call fails, and so does every probe here.
- ``--unshare-user --disable-userns --unshare-pid``, ``--unshare-net`` unless ``network`` is
  ``"allow"``, ``--die-with-parent --new-session --ro-bind / / --dev /dev``; then, shortest
  first, each writable root that is a directory bound read-write: the directory Kilo starts in,
  its own data, cache, config, state, tmp, bin, log and repos directories and each
  ``writable_paths`` entry (``~`` is the home); then read-only again: its sandbox-policy
  directory and its config directory, and every ``.git`` found below a writable root; ``--proc
  /proc``, ``--chdir`` the command's directory. ``TMPDIR``, ``TMP`` and ``TEMP`` name Kilo's tmp
  directory inside. A writable root holding a mount point below it, or the bwrap itself, makes
  Kilo refuse the call.

Reads are never restricted (``/`` is bound whole): the policy's denyRead probes come out
allowed, reported as the read loss translate emits (TWS460). Not modelled: the permission
rules (they only refuse more, and the probes' commands are not the policy's) and the file tools
(they share this boundary, observed row 33).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.testing.bwrapmodel import bwrap_hint, child, kind_gap, locate_bwrap, require_bwrap
from twsrt.testing.engines import Run
from twsrt.testing.gaps import GapRule, Mismatch
from twsrt.testing.launches import FAMILIES, LAUNCH_GAPS
from twsrt.testing.model import Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

KILO_HINT = bwrap_hint("kilo", "Kilo Code CLI")
PROXY_PROBLEM = "Linux sandbox proxy dependencies are unavailable"


def kilo_sandbox(settings: Any) -> dict[str, Any] | None:
    """The sandbox as Kilo resolves it (``enabled``, ``mode``: allow, deny or proxy,
    ``writable``); None when it is off (every command runs unsandboxed)."""
    value = child(settings, "sandbox")
    if not isinstance(value, dict) or value.get("enabled") is not True:
        return None
    restricted = value.get("network") != "allow"
    hosts = value.get("allowed_hosts") or []
    mode = ("proxy" if hosts else "deny") if restricted else "allow"
    paths = value.get("writable_paths") or []
    writable = [str(p) for p in paths if isinstance(p, str)] if isinstance(paths, list) else []
    return {"mode": mode, "writable": writable}


def kilo_dirs(home: Path, tmpdir: Path) -> dict[str, Path]:
    """Kilo's own directories for this ``HOME`` (no XDG variables set) and ``$TMPDIR``."""
    data, cache = home / ".local" / "share" / "kilo", home / ".cache" / "kilo"
    state = home / ".local" / "state" / "kilo"
    return {
        "data": data,
        "cache": cache,
        "config": home / ".config" / "kilo",
        "state": state,
        "tmp": tmpdir / "kilo",
        "bin": cache / "bin",
        "log": data / "log",
        "repos": data / "repos",
        "policy": state.parent / "kilo-sandbox-policy",
    }


def _real(path: str | Path) -> str:
    return os.path.realpath(path)


def _inside(root: str, path: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _git_below(root: str, found: set[str]) -> None:
    """Every ``.git`` below a writable root (Kilo's denyNames walk; it does not go into one)."""
    if os.path.basename(root) == ".git":
        found.add(root)
        return
    for top, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            if name == ".git":
                found.add(os.path.join(top, name))
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(top, d))]


def mount_points() -> list[str]:
    try:
        text = Path("/proc/self/mountinfo").read_text(encoding="utf-8")
    except OSError:
        return []
    points = [line.split(" ")[4] for line in text.splitlines() if len(line.split(" ")) > 4]
    return [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), p) for p in points]


def kilo_bwrap_args(
    sandbox: dict[str, Any], workspace: Path, dirs: dict[str, Path], bwrap: str, cwd: Path | None
) -> list[str] | str:
    """The bubblewrap arguments of one shell call as Kilo 7.7.7 builds them, or the error with
    which Kilo refuses the call."""
    if sandbox["mode"] == "proxy":
        return PROXY_PROBLEM
    own = [dirs[k] for k in ("data", "cache", "config", "state", "tmp", "bin", "log", "repos")]
    roots: list[str] = []
    for path in [workspace, *own, *sandbox["writable"]]:
        real = _real(path)
        if os.path.isdir(real) and os.access(real, os.R_OK) and real not in roots:
            roots.append(real)
    roots.sort(key=len)
    if any(_inside(root, _real(bwrap)) for root in roots):
        return f"Bubblewrap executable is writable by the sandbox profile: {bwrap}"
    points = mount_points()
    for root in roots:
        nested = [p for p in points if p != root and _inside(root, p)]
        if nested:
            return f"Writable root contains a nested mount point: {nested[0]}"
    locked = {_real(dirs[k]) for k in ("policy", "config") if os.path.exists(dirs[k])}
    for root in roots:
        _git_below(root, locked)
    args = ["--unshare-user", "--disable-userns", "--unshare-pid"]
    if sandbox["mode"] != "allow":
        args.append("--unshare-net")
    args += ["--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev"]
    for root in roots:
        args += ["--bind", root, root]
    for path in sorted(locked, key=len):
        args += ["--ro-bind", path, path]
    return [*args, "--proc", "/proc", "--chdir", _real(cwd or workspace)]


def _in_write_root(probe: Probe) -> bool:
    """A relative deny (inside the directory Kilo starts in) or a name at the top of a root."""
    if probe.kind == "mandatory":
        return True
    target = getattr(probe, "subject", "") or probe.target
    if target:
        return target == "work" or target.startswith("work/")
    return not probe.rule.startswith(("~", "/"))


def _launch_gap(m: Mismatch) -> Finding | None:
    """An attack across launches that worked in the writable directory Kilo starts in: check's
    TWS461, as it reports it."""
    from twsrt.agents.kilo.rules import KILO_WORKSPACE_OPEN

    if m.probe.kind not in FAMILIES or m.observed is not Outcome.ALLOWED:
        return None
    found = m.reports(KILO_WORKSPACE_OPEN)
    return m.as_reported(found) if found is not None else None


def _workspace_write_gap(m: Mismatch) -> Finding | None:
    """A denyWrite path or a protected name inside a root Kilo binds writable: TWS461 (the
    sandbox binds each root read-write whole and has no per-path deny)."""
    from twsrt.agents.kilo.rules import KILO_WORKSPACE_OPEN

    if m.probe.kind not in ("deny-write", "mandatory") or m.observed is not Outcome.ALLOWED:
        return None
    if not _in_write_root(m.probe):  # a deny inside a writable_paths root: check says so
        here = next((f for f in _root_denies(m) if f.location == m.probe.origin), None)
        return m.as_reported(here) if here is not None else None
    return m.gap(
        KILO_WORKSPACE_OPEN,
        "Kilo's sandbox binds the directory it starts in and each writable_paths entry "
        f"read-write whole: '{m.probe.rule}' is writable there by a command its edit rules do "
        "not know",
    )


def _root_denies(m: Mismatch) -> list[Finding]:
    """The TWS461 findings translate emits at the denyWrite paths inside a ``writable_paths``
    root (the same for every home: both sides are expanded with it)."""
    from twsrt.agents.kilo.rules import KILO_WORKSPACE_OPEN
    from twsrt.agents.kilo.translate import translate
    from twsrt.findings import TwsrtError

    try:
        _, findings = translate(m.policy, "workspace-write", False, "/home/twsrt")
    except TwsrtError:
        return []
    return [f for f in findings if f.rule_id == KILO_WORKSPACE_OPEN.id]


def _gaps() -> tuple[GapRule, ...]:
    from twsrt.agents.opencodegrammar import OPENCODE_TOOL_DENY_ONLY
    from twsrt.rules import LOSSY_WRITE_ROOT, UNCOMPILED_KEY_NOTE

    return (
        kind_gap(
            OPENCODE_TOOL_DENY_ONLY,
            Outcome.ALLOWED,
            ("deny-read",),
            "Kilo's sandbox mounts / readable: {rule} is read by a shell command its read "
            "rules do not know",
        ),
        _workspace_write_gap,
        kind_gap(
            LOSSY_WRITE_ROOT,
            Outcome.DENIED,
            ("allow-write",),
            "Kilo's sandbox writes only directories that exist: {rule} is not writable",
        ),
        kind_gap(
            UNCOMPILED_KEY_NOTE,
            Outcome.DENIED,
            ("allow-domain",),
            "Kilo's sandbox network is closed (twsrt keeps allowed_hosts empty): {rule} is not "
            "reachable",
        ),
        *LAUNCH_GAPS,
        _launch_gap,
    )


class KiloEngine:
    name = "kilo"
    agent = "kilo"
    hint = KILO_HINT
    gaps = _gaps()

    def __init__(self, bwrap: str | None = None) -> None:
        self.bwrap = bwrap or locate_bwrap()
        self.sandbox: dict[str, Any] | None = None

    @property
    def unsandboxed(self) -> bool:
        """Kilo builds no sandbox for the file (``sandbox.enabled`` is not true)."""
        return self.sandbox is None

    def reads(self, ctx: Context) -> list[Path]:
        from twsrt.agents.kilo.declaration import SETTINGS_KEY

        path = ctx.config.targets.get(SETTINGS_KEY)
        return [] if path is None else [path]

    def check_available(self, ctx: Context) -> None:
        require_bwrap(self.name, self.bwrap, KILO_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings
        from twsrt.testing.globs import engine_path

        self.root, self.upstream = root, upstream
        files = self.reads(ctx)
        settings = read_settings(files[0], ctx.config, ctx.documents) if files else {}
        self.sandbox = kilo_sandbox(settings)
        if self.sandbox is not None:
            home = str(ctx.config.output_home).rstrip("/")
            mapped = []
            for path in self.sandbox["writable"]:
                if home and (path == home or path.startswith(home + "/")):
                    path = "~" + path[len(home) :]
                mapped.append(engine_path(path, str(root)))
            self.sandbox["writable"] = mapped
        self.dirs = kilo_dirs(root / "home", root / "kilo-tmp")
        for path in self.dirs.values():  # Kilo makes them at start
            path.mkdir(parents=True, exist_ok=True)
        self.plan = root / "kilo-plan.json"
        self.plan.write_text(json.dumps({"sandbox": self.sandbox}, indent=2) + "\n", "utf-8")
        return self.plan

    def run(self, shell: str, timeout: float) -> Run:
        from twsrt.testing.engines import base_env

        env = base_env(self.root)
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        env["TMPDIR"] = str(self.root / "kilo-tmp")
        # read back for each call: a test may weaken the input after prepare (Tamper)
        sandbox = json.loads(self.plan.read_text(encoding="utf-8"))["sandbox"]
        return run_as_kilo(self.bwrap, sandbox, self.root / "work", self.dirs, shell, env, timeout)


def run_as_kilo(
    bwrap: str | None,
    sandbox: dict[str, Any] | None,
    workspace: Path,
    dirs: dict[str, Path],
    shell: str,
    env: dict[str, str],
    timeout: float,
) -> Run:
    """``sh -c shell`` in ``workspace`` as Kilo runs a shell call: unsandboxed without a
    sandbox, else in bubblewrap with Kilo's arguments (``sh``, as every engine runs a probe:
    Kilo's payload is ``/usr/bin/bash -c``, under the same mounts)."""
    from twsrt.testing.engines import run_process

    if sandbox is None:
        return run_process(["sh", "-c", shell], env, workspace, timeout)
    args = kilo_bwrap_args(sandbox, workspace, dirs, str(bwrap), None)
    if isinstance(args, str):  # Kilo refuses the call before bwrap starts
        return Run(1, args, 0.0)
    tmp = str(dirs["tmp"])
    inside = {**env, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp, "KILO": "1", "AGENT": "1"}
    return run_process([str(bwrap), *args, "--", "sh", "-c", shell], inside, workspace, timeout)


ENGINE = KiloEngine
