"""The pi engine: srt run with the settings pi's sandbox extension derives from the file on
disk. pi's sandbox IS srt (the extension passes its document to srt's library), so this engine
MODELS the extension's loadConfig (it does not run pi itself) and runs the canonical srt on the
result; the model is pinned by real runs of pi 1.4.0 (tests/real/test_pi_generated.py):

- the document is merged over the extension's defaults (a key left out takes the default:
  npm, PyPI and GitHub hosts, ``.`` and ``/tmp`` writable; pi rows 3-4), ``network`` and
  ``filesystem`` member by member;
- ``enabled`` other than true: the extension runs every command unsandboxed, and so does the
  engine (every deny probe fails: never a PASS);
- on Linux srt 0.0.26 binds only paths that exist: an entry with a glob character (``P/**``
  too) enforces nothing, so the engine leaves it out (a denied probe it allows is TWS464);
- no bwrap, socat or rg on PATH (Linux): srt cannot start and the extension runs bash
  unsandboxed with no word headless (row 11); the engine does the same, and each probe that
  then comes out allowed is this gap (TWS510).

Not modelled: a project ``.pi/sandbox.json`` (``check`` reports it, TWS650), pi's file tools
(never sandboxed, TWS462), and any other difference between the extension's srt 0.0.26 and the
srt run here (a denyWrite glob under a write root fails every later command in 0.0.26).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.agents.pi.declaration import NAME, SANDBOX_KEY, SANDBOX_TOOLS
from twsrt.agents.pi.rules import (
    PI_ENGINE_FAILS_OPEN,
    PI_ENGINE_PORT_LEFT_OUT,
    PI_GLOB_DENY_SKIPPED,
    PI_NESTED_UNPROTECTED,
)
from twsrt.testing.engine_srt import SRT_HINT, SrtEngine
from twsrt.testing.engines import EngineUnavailable, executable
from twsrt.testing.gaps import SRT_GAPS, Mismatch, probe_gap
from twsrt.testing.launches import FAMILIES, LAUNCH_GAPS, reported_at_root
from twsrt.testing.model import SRT_REQUIRED, Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

PI_HINT = "the pi engine runs srt with the settings pi's sandbox extension derives: " + SRT_HINT
MODELS = "models pi's sandbox extension: srt runs the settings it derives from its file"
DISABLED = "enabled is not true: pi's sandbox extension runs every command unsandboxed"

# the extension's built-in defaults (its DEFAULT_CONFIG, pi 1.4.0)
DEFAULTS: dict[str, Any] = {
    "enabled": True,
    "network": {
        "allowedDomains": [
            "npmjs.org",
            "*.npmjs.org",
            "registry.npmjs.org",
            "registry.yarnpkg.com",
            "pypi.org",
            "*.pypi.org",
            "github.com",
            "*.github.com",
            "api.github.com",
            "raw.githubusercontent.com",
        ],
        "deniedDomains": [],
    },
    "filesystem": {
        "denyRead": ["~/.ssh", "~/.aws", "~/.gnupg"],
        "allowWrite": [".", "/tmp"],
        "denyWrite": [".env", ".env.*", "*.pem", "*.key"],
    },
}
# what the extension hands srt besides network and filesystem
PASSED = ("ignoreViolations", "enableWeakerNestedSandbox")


def missing_tools() -> list[str]:
    """The tools srt needs on Linux that this machine lacks (none elsewhere)."""
    if not sys.platform.startswith("linux"):
        return []
    return [tool for tool in SANDBOX_TOOLS if shutil.which(tool) is None]


def extension_settings(document: dict[str, Any]) -> dict[str, Any] | None:
    """The srt settings the extension runs bash with for a global file read as ``document``
    (None: the sandbox is off)."""
    merged: dict[str, Any] = json.loads(json.dumps(DEFAULTS))
    if "enabled" in document:
        merged["enabled"] = document["enabled"]
    for section in ("network", "filesystem"):
        part = document.get(section)
        if isinstance(part, dict):
            merged[section] = {**merged[section], **json.loads(json.dumps(part))}
    if not merged.pop("enabled"):
        return None
    if sys.platform.startswith("linux"):  # srt 0.0.26 binds only paths that exist there
        filesystem = merged["filesystem"]
        for key in ("denyRead", "allowWrite", "denyWrite"):
            items = filesystem.get(key)
            if isinstance(items, list):
                filesystem[key] = [p for p in items if not (isinstance(p, str) and _glob(p))]
    for key in PASSED:
        if key in document:
            merged[key] = json.loads(json.dumps(document[key]))
    return merged


def _glob(path: str) -> bool:
    """srt 0.0.26's containsGlobChars (``P/**`` included: it strips nothing there)."""
    return any(char in path for char in "*?[]")


def _denied(probe: Probe) -> bool:
    return probe.expect is Outcome.DENIED


def _fails_open(probe: Probe) -> bool:
    return _denied(probe) and bool(missing_tools())


fails_open = probe_gap(
    PI_ENGINE_FAILS_OPEN,
    "srt cannot start on this machine (no bwrap, socat or rg on PATH), so pi's sandbox "
    "extension runs bash unsandboxed and {rule} does not hold",
    Outcome.ALLOWED,
    _fails_open,
)


port_left_out = probe_gap(
    PI_ENGINE_PORT_LEFT_OUT,
    "{rule} names a port, which pi's srt 0.0.26 cannot match: twsrt left it out of pi's file "
    "(TWS403), so the host is refused",
    Outcome.DENIED,
    lambda probe: probe.kind == "allow-domain" and probe.port,
)


glob_deny_skipped = probe_gap(
    PI_GLOB_DENY_SKIPPED,
    "{rule} is a glob, which pi's srt 0.0.26 does not enforce on Linux (TWS464)",
    Outcome.ALLOWED,
    lambda probe: probe.kind in ("deny-read", "deny-write") and probe.glob,
    linux=True,
)


def below_other_roots(m: Mismatch) -> Finding | None:
    """srt's mandatory set written below a write root other than the launch directory:
    check's TWS655 at that root (srt applies the set in the launch directory only)."""
    if m.probe.kind != "mandatory" or getattr(m.probe, "form", "").endswith(" top"):
        return None  # the top of every root is denied in the file: open there, it FAILs
    return reported_at_root(m, PI_NESTED_UNPROTECTED, ("mandatory",))


class PiEngine(SrtEngine):
    name = NAME
    agent: str | None = NAME
    hint = PI_HINT
    gaps = (
        fails_open,
        port_left_out,
        glob_deny_skipped,
        *SRT_GAPS,
        below_other_roots,
        *LAUNCH_GAPS,
    )
    models = MODELS
    launch_families = FAMILIES  # its file is compiled from the protected set
    launch_only = ()

    def reads(self, ctx: Context) -> list[Path]:
        path = ctx.config.targets.get(SANDBOX_KEY)
        return [path] if path is not None else []

    def check_available(self, ctx: Context) -> None:
        # a machine without bwrap is not unavailable: pi runs bash unsandboxed there, and so
        # does this engine (the fails_open gap); srt itself must be there for the other case
        if not executable(self.binary):
            problem = f"missing srt ({self.binary or 'not on PATH'})"
            raise EngineUnavailable(self.name, problem, PI_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings
        from twsrt.testing.globs import engine_path
        from twsrt.testing.hostrun import without_host_programs

        self.root, self.upstream = root, upstream
        document = read_settings(self.reads(ctx)[0], ctx.config, ctx.documents)
        derived = extension_settings(dict(document))
        self.disabled = derived is None
        self.fail_open = bool(missing_tools())
        body: dict[str, Any] = {"twsrt": DISABLED}
        if derived is not None:
            body = without_host_programs(derived)
            _map_paths(body, lambda p: engine_path(p, str(root)))
        self.settings = root / "pi-srt-settings.json"
        self.settings.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        return self.settings

    def runs_unconfined(self) -> bool:
        """The file turns the sandbox off, or srt cannot start and the extension fails open."""
        return self.disabled or self.fail_open


def _map_paths(settings: dict[str, Any], mapper: Any) -> None:
    """Every filesystem path into the fixture tree (``~`` and relative paths as srt takes
    them), and the lists srt requires."""
    from twsrt.policy import normalize_path

    filesystem = settings.get("filesystem")
    if isinstance(filesystem, dict):
        for key in ("denyRead", "allowWrite", "denyWrite"):
            items = filesystem.get(key)
            if isinstance(items, list):
                filesystem[key] = [
                    mapper(normalize_path(p)) if isinstance(p, str) else p for p in items
                ]
    for section, keys in SRT_REQUIRED.items():
        part = settings.setdefault(section, {})
        if isinstance(part, dict):
            for key in keys:
                part.setdefault(key, [])


ENGINE = PiEngine
