"""The Factory Droid engine: srt run with the sandbox settings Droid derives from its file.

Droid's ``Execute`` sandbox is the sandbox runtime (srt) inside its bundle. This engine MODELS
how Droid 0.225.2 turns ``sandbox`` into srt's settings (it does not run Droid itself); the
model is read from the bundle, and its paths and lists are pinned by real runs
(tests/real/test_droid_generated.py, test_droid_observed.py):

- ``sandbox.enabled`` must be ``true``; anything else runs every command unsandboxed (observed:
  a block without it confines nothing), and so does the engine.
- paths: ``~/x`` is home, a relative path hangs from the launch directory (observed).
- writable: the launch directory and Droid's ``~/.factory`` working directories, always, then
  ``filesystem.allowWrite``; denied for writing: Droid's own settings, hooks, MCP servers and
  login files, then ``filesystem.denyWrite``; denied for reading: its login files, then
  ``filesystem.denyRead``. ``allowRead`` is not passed on (Droid's file tools take it).
- the network: Factory's own hosts before ``allowedDomains``, no ``deniedDomains``, and the
  socket, binding and proxy keys as written; nothing else of srt's reaches it.

Not modelled: Droid's file tools (Read, Create, Edit check the same lists by path prefix), the
command lists (a probe runs as one plain command) and any difference between the srt bundled in
Droid and the srt run here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.agents.droid.declaration import (
    FACTORY_HOME,
    FACTORY_TEMP,
    FACTORY_WRITABLE,
    NAME,
    SETTINGS_KEY,
)
from twsrt.agents.droid.rules import DROID_NESTED_LAYERS_OPEN, DROID_OWN_GRANTS
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.engines import EngineUnavailable
from twsrt.testing.gaps import SRT_GAPS, Mismatch, probe_gap
from twsrt.testing.globs import engine_path
from twsrt.testing.hostrun import without_host_programs
from twsrt.testing.launches import FAMILIES, LAUNCH_GAPS
from twsrt.testing.model import SRT_REQUIRED, Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

DROID_HINT = (
    "the droid engine runs srt with the settings Factory Droid derives from its file: install "
    "bubblewrap, socat and ripgrep (apt-get install -y bubblewrap socat ripgrep) and the "
    "sandbox runtime with Node >= 18 (npm install -g @anthropic-ai/sandbox-runtime@0.0.83), or "
    "point $TWSRT_SRT_BIN at srt"
)
MODELS = "models Factory Droid's reading of its sandbox block: srt runs the settings Droid derives"
DISABLED = "sandbox.enabled is not true: Factory Droid runs every command unsandboxed"

# Droid 0.225.2's own lists (its bundle), under ~/.factory
ALWAYS_WRITABLE = (
    *(path.removeprefix(FACTORY_HOME + "/") for path in FACTORY_WRITABLE),
    FACTORY_TEMP.removeprefix(FACTORY_HOME + "/"),
)
LOGIN_FILES = ("auth.v2.file", "auth.v2.key", "auth.v2.keyring", "auth.encrypted", "config.json")
ALWAYS_WRITE_DENIED = (
    *LOGIN_FILES,
    "settings.json",
    "hooks.json",
    "mcp.json",
    "update-policy.json",
    "settings.local.json",
    "org-managed-settings.json",
    "host.json",
    "computer.json",
    "certs",
    "bin",
    "tools",
)
FACTORY_HOSTS = (
    "api.factory.ai",
    "dev.api.factory.ai",
    "staging.api.factory.ai",
    "preprod.api.factory.ai",
    "app.factory.ai",
    "dev.app.factory.ai",
    "staging.app.factory.ai",
    "preprod.app.factory.ai",
    "telemetry.factory.ai",
    "dev.telemetry.factory.ai",
    "relay.factory.ai",
    "relay-dev.factory.ai",
    "relay.eu.factory.ai",
    "relay-dev.eu.factory.ai",
    "api.eu.factory.ai",
    "dev.api.eu.factory.ai",
    "staging.api.eu.factory.ai",
    "preprod.api.eu.factory.ai",
    "downloads.factory.ai",
    "test.api.factory.ai",
    "test.factory.ai",
    "api.workos.com",
    "auth.workos.com",
)
NETWORK_KEYS = (
    "allowUnixSockets",
    "allowAllUnixSockets",
    "allowLocalBinding",
    "httpProxyPort",
    "socksProxyPort",
)


def _strings(section: Any, key: str) -> list[str]:
    value = section.get(key) if isinstance(section, dict) else None
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def droid_srt_settings(settings: dict[str, Any], root: str) -> dict[str, Any] | None:
    """The srt settings Droid runs an ``Execute`` call with, for a settings file read as
    ``settings``, in the fixture tree at ``root`` (HOME ``root/home``, launch directory
    ``root/work``). None: the sandbox is off."""
    sandbox = settings.get("sandbox")
    if not isinstance(sandbox, dict) or sandbox.get("enabled") is not True:
        return None

    def path(item: str) -> str:
        return engine_path(item.rstrip("/") or "/", root)

    def factory(names: Any) -> list[str]:
        return [path(f"{FACTORY_HOME}/{name}") for name in names]

    fs_in = sandbox.get("filesystem")
    net_in = sandbox.get("network")
    filesystem = {
        "allowWrite": _unique(
            [
                str(Path(root) / "work"),
                *factory(ALWAYS_WRITABLE),
                *map(path, _strings(fs_in, "allowWrite")),
            ]
        ),
        "denyWrite": _unique(
            [*factory(ALWAYS_WRITE_DENIED), *map(path, _strings(fs_in, "denyWrite"))]
        ),
        "denyRead": _unique([*factory(LOGIN_FILES), *map(path, _strings(fs_in, "denyRead"))]),
    }
    allowed = [host for host in _strings(net_in, "allowedDomains") if host not in FACTORY_HOSTS]
    network: dict[str, Any] = {"allowedDomains": [*FACTORY_HOSTS, *allowed], "deniedDomains": []}
    for key in NETWORK_KEYS:
        if isinstance(net_in, dict) and key in net_in:
            value = net_in[key]
            network[key] = [path(p) for p in value] if key == "allowUnixSockets" else value
    out: dict[str, Any] = {"filesystem": filesystem, "network": network}
    for section, keys in SRT_REQUIRED.items():
        part = out.setdefault(section, {})
        for key in keys:
            part.setdefault(key, [])
    return out


def _launch_dir(probe: Probe) -> bool:
    return probe.kind in ("read-only-root", "launch-dir") and probe.rule in (".", "./")


# Droid always lets commands write the directory it starts in, read-only or not
launch_dir_writable = probe_gap(
    DROID_OWN_GRANTS,
    "Factory Droid's sandbox always makes the launch directory writable; its settings cannot "
    "take that away",
    Outcome.ALLOWED,
    _launch_dir,
)


def below_other_roots(m: Mismatch) -> Finding | None:
    """srt's mandatory set (a nested repository's hooks, shell rc files) written below a write
    root other than the launch directory, where srt does not apply it: check's TWS499 (twsrt
    protects the top of each root, not what lies deeper)."""
    if m.probe.kind != "mandatory" or getattr(m.probe, "form", "").endswith(" top"):
        return None  # the Droid file protects the top of every root: open there, it FAILs
    if m.observed is not Outcome.ALLOWED:
        return None
    found = m.reports(DROID_NESTED_LAYERS_OPEN)
    return m.as_reported(found) if found is not None else None


class DroidEngine(SrtEngine):
    name = NAME
    agent = NAME
    hint = DROID_HINT
    # Droid's sandbox is srt (this engine runs it): srt's gaps are Droid's
    gaps = (*SRT_GAPS, launch_dir_writable, below_other_roots, *LAUNCH_GAPS)
    models = MODELS
    launch_families = FAMILIES  # every one: its file is compiled from the protected set
    launch_only = ()

    def reads(self, ctx: Context) -> list[Path]:
        path = ctx.config.targets.get(SETTINGS_KEY)
        return [path] if path is not None and ctx.config.scope == "user" else []

    def check_available(self, ctx: Context) -> None:
        try:
            super().check_available(ctx)
        except EngineUnavailable as exc:
            raise EngineUnavailable(self.name, exc.problem, DROID_HINT) from None

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings

        self.root, self.upstream = root, upstream
        settings = read_settings(self.reads(ctx)[0], ctx.config, ctx.documents)
        derived = droid_srt_settings(settings, str(root))
        self.settings = root / "droid-srt-settings.json"
        self.disabled = derived is None
        body = {"twsrt": DISABLED} if derived is None else without_host_programs(derived)
        self.settings.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        return self.settings

    def host_programs(self, ctx: Context) -> list[Any]:
        return []  # Droid passes srt none of the keys that name a program


ENGINE = DroidEngine
