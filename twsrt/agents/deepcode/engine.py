"""The DeepCode engine: DeepCode's own Linux sandbox code, run on the settings file on disk, and
the real bubblewrap with the arguments it builds.

DeepCode (oratis/deepcode) turns ``settings.sandbox`` into a sandbox with plain TypeScript:
``resolveSandboxMode``/``sandboxConfigForMode`` (``sandbox/policy.ts``) and
``buildLinuxBwrapArgs`` (``sandbox/profile.ts``), shipped unmodified beside this module in
``sandbox/`` (MIT, see its LICENSE and README). Node >= 22.6 runs them as they are
(``--experimental-strip-types``) in the workspace, exactly the calls DeepCode's Bash tool makes;
each probe then runs as ``bwrap ARGS -- sh -c CMD`` (plainly when ARGS is empty: DeepCode builds
no sandbox then).

Not run: macOS (Seatbelt), the Linux domain allow-list (a non-empty ``allowedDomains`` goes
through a DNS proxy and slirp4netns that are not shipped here; without them the code gives such
a list the full network, so network probes are not modelled then: ``not_modelled``), and the
layers above the sandbox (permission rules, ``excludedCommands``, settings merging).

Two adjustments make a probe's answer inside the sandbox say what happened on the host, and
change nothing a command can do to the host: bubblewrap's root and DeepCode's ``/tmp`` are
throwaway tmpfs mounts, so a write there "succeeds" and is gone when the sandbox ends (the file
on disk never changes); the engine remounts them read-only, and such a write fails as the host
sees it. And the probe commands run the system Python (``/usr`` is mounted), not the one
twsrt runs under, which the sandbox cannot see. A probe whose setting the sandbox cannot see at
all (a symlink staged outside every directory DeepCode mounts) is not modelled.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.findings import quoted
from twsrt.testing.engines import EngineUnavailable, Run, locate
from twsrt.testing.gaps import Mismatch
from twsrt.testing.globs import within
from twsrt.testing.launches import LAUNCH_GAPS
from twsrt.testing.model import Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

NODE_ENV, NODE_DEFAULT = "TWSRT_NODE22_BIN", "/opt/twsrt-tools/srt/node_modules/node/bin/node"
NODE_MIN = (22, 6)  # the first Node with --experimental-strip-types
BWRAP_ENV, BWRAP_DEFAULT = "TWSRT_BWRAP_BIN", "/usr/bin/bwrap"
DEEPCODE_HINT = (
    "install Node >= 22.6 (e.g. npm install -g node@22) and bubblewrap "
    f"(apt-get install -y bubblewrap), or point ${NODE_ENV} at node and ${BWRAP_ENV} at bwrap"
)
SOURCES_DIR = Path(__file__).resolve().parent / "sandbox"
SOURCES = ("sandbox-policy.ts", "sandbox-profile.ts")
PLAN_TIMEOUT = 60.0
# a Python the sandbox can see (DeepCode mounts /usr, /bin, /lib and /etc of the system)
SYSTEM_PYTHONS = ("/usr/bin/python3", "/bin/python3")
HIDDEN_LINK = (
    "the probe's symlink {link} lies outside every directory DeepCode's sandbox mounts, so the "
    "sandbox cannot see it (its view is narrower than srt's): nothing to tell about the rule"
)
NETWORK_NOT_MODELLED = (
    "DeepCode enforces a non-empty allowedDomains on Linux through its DNS proxy and "
    "slirp4netns, which this engine does not run"
)
# The runner: the calls DeepCode's Bash tool makes on Linux, with the workspace as cwd.
_RUNNER = """\
import { resolveSandboxMode, sandboxConfigForMode } from './sandbox-policy.ts';
import { buildLinuxBwrapArgs } from './sandbox-profile.ts';
const sandbox = JSON.parse(process.argv[2]);
const mode = resolveSandboxMode(sandbox);
const cfg = sandboxConfigForMode(sandbox, mode, process.cwd());
console.log(JSON.stringify({ mode, args: buildLinuxBwrapArgs(cfg, process.cwd()) }));
"""


def node_version(path: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\s*", out)
    return tuple(int(part) for part in match.groups()) if match else None


def find_node() -> str | None:
    """$TWSRT_NODE22_BIN, else the Node srt's install brings, else ``node`` on PATH."""
    return locate("node", NODE_ENV, NODE_DEFAULT)


def find_bwrap() -> str | None:
    return locate("bwrap", BWRAP_ENV, BWRAP_DEFAULT)


def deepcode_plan(
    settings: Mapping[str, Any],
    cwd: str | Path,
    node: str,
    home: str | None = None,
) -> tuple[str, list[str]]:
    """Run DeepCode's sandbox code on ``settings["sandbox"]`` in the workspace ``cwd`` (HOME
    ``home`` for its ``~``). Returns (the resolved mode, the bubblewrap arguments; [] means
    unsandboxed). Raises RuntimeError when Node fails or prints something else."""
    sandbox = settings.get("sandbox", {})
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if home is not None:
        env["HOME"] = home
    with tempfile.TemporaryDirectory(prefix="twsrt-deepcode-") as tmp:
        for name in SOURCES:
            shutil.copyfile(SOURCES_DIR / name, Path(tmp, name))
        runner = Path(tmp, "run.mts")
        runner.write_text(_RUNNER, encoding="utf-8")
        argv = [node, "--no-warnings", "--experimental-strip-types", str(runner)]
        try:
            proc = subprocess.run(
                [*argv, json.dumps(sandbox)],
                cwd=str(cwd),
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=PLAN_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"could not run DeepCode's sandbox code: {exc}") from exc
    if proc.returncode != 0:
        raise RuntimeError(f"DeepCode's sandbox code failed ({proc.returncode}):\n{proc.stderr}")
    try:
        plan = json.loads(proc.stdout)
        mode, args = plan["mode"], plan["args"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise RuntimeError(f"unexpected output of DeepCode's sandbox code:\n{proc.stdout}") from exc
    if not isinstance(mode, str) or not all(isinstance(a, str) for a in args):
        raise RuntimeError(f"unexpected output of DeepCode's sandbox code:\n{proc.stdout}")
    return mode, list(args)


def map_settings(
    settings: dict[str, Any], output_home: str, root: str, absolute: Callable[[str], str]
) -> dict[str, Any]:
    """The settings with every filesystem path of the sandbox re-rooted into the fixture tree:
    the generated home (``output_home``) becomes ROOT/home, any other absolute path goes
    through ``absolute``; ``~`` and relative paths stay for DeepCode to resolve there."""
    out = json.loads(json.dumps(settings))
    filesystem = (out.get("sandbox") or {}).get("filesystem")
    if not isinstance(filesystem, dict):
        return out
    home = output_home.rstrip("/") or "/"

    def mapper(path: Any) -> Any:
        if not isinstance(path, str) or not path.startswith("/"):
            return path
        norm = posixpath.normpath(path)
        if norm == home or norm.startswith(home + "/"):
            return posixpath.join(root, "home", norm[len(home) :].lstrip("/")).rstrip("/")
        return absolute(norm)

    for key in ("allowRead", "allowWrite", "denyRead", "denyWrite"):
        if isinstance(filesystem.get(key), list):
            filesystem[key] = [mapper(p) for p in filesystem[key]]
    return out


def linux_deny_unenforced(m: Mismatch) -> Finding | None:
    from twsrt.agents.deepcode.rules import DEEPCODE_MANDATORY_NAMES_OPEN, LOSSY_LINUX_DENY
    from twsrt.testing.launches import FAMILIES

    key = {"deny-read": "denyRead", "deny-write": "denyWrite"}.get(m.probe.kind)
    if m.linux and key and m.observed is Outcome.ALLOWED:
        return m.gap(
            LOSSY_LINUX_DENY,
            f"DeepCode's Linux sandbox (bubblewrap) applies no {key}: '{quoted(m.probe.rule)}' is "
            "open wherever DeepCode mounts it",
        )
    # what a later launch loads is protected by write denies, which DeepCode does not apply:
    # check's TWS472 says so of srt's set and the layers (else its TWS432, of the write denies)
    if not (m.linux and m.probe.kind in FAMILIES and m.observed is Outcome.ALLOWED):
        return None
    named = m.reports(DEEPCODE_MANDATORY_NAMES_OPEN)
    if named is not None:
        return m.as_reported(named)
    reported = m.reports(LOSSY_LINUX_DENY)
    if reported is not None:
        return m.gap(
            LOSSY_LINUX_DENY,
            f"DeepCode's Linux sandbox (bubblewrap) applies no denyWrite, so nothing protects "
            f"'{quoted(m.probe.rule)}' from a command for a later launch ({reported.location})",
        )
    return None


class DeepcodeEngine:
    name = "deepcode"
    agent = "deepcode"
    hint = DEEPCODE_HINT
    gaps = (*LAUNCH_GAPS, linux_deny_unenforced)

    def __init__(self, node: str | None = None, bwrap: str | None = None) -> None:
        self.node = node or find_node()
        self.bwrap = bwrap or find_bwrap()
        self.not_modelled: dict[str, str] = {}  # probe action -> why this engine cannot tell
        self.python = next((p for p in SYSTEM_PYTHONS if os.access(p, os.X_OK)), None)
        self.args: list[str] = []

    @property
    def unsandboxed(self) -> bool:
        """DeepCode builds no sandbox for the file (e.g. danger-full-access)."""
        return not self.args

    def unmodelled(self, probe: Probe) -> str:
        """Why this engine cannot tell what DeepCode does for the probe ("" when it can)."""
        if probe.action.value in self.not_modelled:
            return self.not_modelled[probe.action.value]
        seen = _mounted(self.args)
        for link, _ in getattr(probe, "links", ()):
            path = posixpath.join(str(self.root), link)
            hidden = not any(within(path, mounted) for mounted in seen)
            if probe.expect is Outcome.ALLOWED and self.args and hidden:
                return HIDDEN_LINK.format(link=link)
        return ""

    def reads(self, ctx: Context) -> list[Path]:
        from twsrt.agents.deepcode.layer import target

        found = target(ctx)
        return [found[1]] if found is not None else []

    def check_available(self, ctx: Context) -> None:
        from twsrt.testing.engines import executable

        missing = []
        if not executable(self.node):
            missing.append(f"node ({self.node or 'not on PATH'})")
        else:
            version = node_version(str(self.node))
            if version is None or version[:2] < NODE_MIN:
                found = ".".join(map(str, version)) if version else "an unknown version"
                missing.append(f"Node >= 22.6 ({self.node} is {found})")
        if not executable(self.bwrap):
            missing.append(f"bwrap ({self.bwrap or 'not on PATH'})")
        if missing:
            raise EngineUnavailable(self.name, "missing " + ", ".join(missing), DEEPCODE_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings
        from twsrt.testing.globs import engine_path

        self.root, self.upstream = root, upstream
        settings = read_settings(self.reads(ctx)[0], ctx.config, ctx.documents)
        mapped = map_settings(
            settings, ctx.config.output_home, str(root), lambda p: engine_path(p, str(root))
        )
        network = (mapped.get("sandbox") or {}).get("network") or {}
        if isinstance(network, dict) and network.get("allowedDomains"):
            self.not_modelled = {"fetch": NETWORK_NOT_MODELLED, "connect": NETWORK_NOT_MODELLED}
        try:
            self.mode, self.args = deepcode_plan(
                mapped, root / "work", str(self.node), str(root / "home")
            )
        except RuntimeError as exc:
            raise EngineUnavailable(self.name, str(exc), DEEPCODE_HINT) from None
        self.plan = root / "deepcode-plan.json"
        body = {"settings": mapped, "mode": self.mode, "bwrap": self.args}
        self.plan.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        return self.plan

    def run(self, shell: str, timeout: float) -> Run:
        from twsrt.testing.engines import base_env, run_process

        env = base_env(self.root)
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        # read back from the input file: a test may weaken it after prepare (Tamper)
        args = json.loads(self.plan.read_text(encoding="utf-8"))["bwrap"]
        argv = ["sh", "-c", shell]
        if args:
            argv = [str(self.bwrap), *args, *_throwaway_read_only(args), "--", *argv]
        return run_process(argv, env, self.root / "work", timeout)


def _mounted(args: list[str]) -> list[str]:
    """The destinations bubblewrap mounts (binds and tmpfs), in argument order."""
    takes = {"--bind": 2, "--bind-try": 2, "--ro-bind": 2, "--ro-bind-try": 2, "--tmpfs": 1}
    out = []
    for i, arg in enumerate(args):
        if arg in takes and i + takes[arg] < len(args):
            out.append(args[i + takes[arg]])
    return out


def _throwaway_read_only(args: list[str]) -> list[str]:
    """Remount bubblewrap's tmpfs root and DeepCode's tmpfs mounts read-only (after every other
    mount): a write there never reaches the host, so it must not read as allowed."""
    tmpfs = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--tmpfs"]
    binds = {args[i + 2] for i, a in enumerate(args[:-2]) if a.startswith(("--bind", "--ro-bind"))}
    out = ["--remount-ro", "/"]
    for dest in tmpfs:
        if dest not in binds:  # a bind on top of the tmpfs is the host's directory
            out += ["--remount-ro", dest]
    return out


ENGINE = DeepcodeEngine
