"""The Claude Code engine: srt run with the sandbox settings Claude derives from its settings file.

Claude Code's Bash sandbox is the sandbox runtime (srt), configured from ``settings.json``. This
engine MODELS how Claude reads that file (it does not run Claude itself); the model is pinned by
real runs of Claude Code 2.1.332 driven headless (tests/real/test_twsrt_test_engines.py):

- ``sandbox.enabled`` must be ``true``; anything else means Claude runs every command
  unsandboxed, so the engine does exactly that (every deny probe fails: never a PASS).
- sandbox paths: ``~/x`` is home, ``/x`` and ``//x`` are absolute, and a relative path is
  anchored at ``~/.claude`` (the directory of the user settings file).
- permission rules are merged into the sandbox: ``Read(p)`` denies -> denyRead, ``Edit(p)``
  denies -> denyWrite, ``Edit(p)`` allows -> allowWrite, ``WebFetch(domain:d)`` allow/deny ->
  allowedDomains/deniedDomains. A rule path ``//x`` is absolute, ``~/x`` home, ``/x`` under
  ``~/.claude``, and ``x``/``./x`` under the launch directory.
- the launch directory is always writable.
- a PROJECT file (``.claude/settings.json`` of a project-scope run, read with the project as the
  launch directory) anchors what the user file anchors at ``~/.claude`` at the project root
  instead: a relative sandbox path and a ``/x`` rule path (``anchor``; pinned by
  tests/real/test_twsrt_test_project.py).

Not run: the programs the file's ``sandbox`` names for srt to start on the host (``ripgrep``,
``bwrapPath``, ``socatPath``; ``testing.hostrun``), reported as UNMODELLED.

Not modelled: Claude's own protections (its settings files, the per-user temp directory),
``excludedCommands`` and the ``dangerouslyDisableSandbox`` retry (a probe runs as one plain
command), and any difference between the srt bundled in Claude and the srt run here.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.agents.claude.rules import CLAUDE_NESTED_UNPROTECTED, LOSSY_READONLY_WORKSPACE
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.engines import EngineUnavailable
from twsrt.testing.gaps import SRT_GAPS, Mismatch, probe_gap
from twsrt.testing.hostrun import without_host_programs
from twsrt.testing.launches import FAMILIES, LAUNCH_GAPS, reported_at_root
from twsrt.testing.model import SRT_REQUIRED, Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding
    from twsrt.testing.model import Result

CLAUDE_HINT = (
    "the claude engine runs srt with the settings Claude Code derives from its file: "
    "install bubblewrap, socat and ripgrep (apt-get install -y bubblewrap socat ripgrep) and "
    "the sandbox runtime with Node >= 18 (npm install -g @anthropic-ai/sandbox-runtime@0.0.83), "
    "or point $TWSRT_SRT_BIN at srt"
)
MODELS = "models Claude Code's reading of its settings file: srt runs the settings Claude derives"
DISABLED = "sandbox.enabled is not true: Claude Code runs every command unsandboxed"
# Keys of Claude's sandbox section that srt has no use for (Claude acts on them itself).
CLAUDE_ONLY = (
    "enabled",
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "excludedCommands",
    "failIfUnavailable",
    "enabledPlatforms",
)
_RULE = re.compile(r"\A(Read|Edit|WebFetch)\((.*)\)\Z", re.S)
Mapper = Callable[[str], str]


def _identity(path: str) -> str:
    return path


def _join(base: str, rest: str) -> str:
    return posixpath.normpath(posixpath.join(base, rest)) if rest else base


def _tilde(path: str, home: str) -> str | None:
    if path == "~":
        return home
    if path.startswith("~/"):
        return _join(home, path[2:])
    return None


def sandbox_path(
    path: str, home: str, absolute: Mapper = _identity, anchor: str | None = None
) -> str:
    """A ``sandbox.*`` path of a settings file as Claude resolves it; ``anchor``: the directory
    a relative path hangs from (the user file's: ``~/.claude``; a project file's: its root)."""
    homed = _tilde(path, home)
    if homed is not None:
        return homed
    if path.startswith("/"):
        return absolute("/" + path.lstrip("/"))
    return _join(anchor or posixpath.join(home, ".claude"), path.removeprefix("./"))


def rule_path(
    spec: str, home: str, cwd: str, absolute: Mapper = _identity, anchor: str | None = None
) -> str:
    """A Read/Edit rule path of a settings file as Claude resolves it (``anchor``: as for
    ``sandbox_path``, the directory a ``/x`` rule hangs from)."""
    homed = _tilde(spec, home)
    if homed is not None:
        return homed
    if spec.startswith("//"):
        return absolute("/" + spec.lstrip("/"))
    if spec.startswith("/"):
        return _join(anchor or posixpath.join(home, ".claude"), spec.lstrip("/"))
    return _join(cwd, spec.removeprefix("./"))


def _rules(permissions: Any, kind: str) -> list[tuple[str, str]]:
    """(tool, specifier) of each ``Tool(spec)`` rule in permissions[kind]."""
    entries = permissions.get(kind) if isinstance(permissions, dict) else None
    out = []
    for entry in entries if isinstance(entries, list) else []:
        match = _RULE.match(entry) if isinstance(entry, str) else None
        if match and match.group(2):
            out.append((match.group(1), match.group(2)))
    return out


def _strings(section: Any, key: str) -> list[Any]:
    value = section.get(key) if isinstance(section, dict) else None
    return list(value) if isinstance(value, list) else []


def _table(section: dict[str, Any], key: str) -> dict[str, Any]:
    """``section``'s member ``key`` when it is an object, else an empty one."""
    value = section.get(key)
    return value if isinstance(value, dict) else {}


def _unique(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def claude_srt_settings(
    settings: dict[str, Any],
    home: str,
    cwd: str,
    absolute: Mapper = _identity,
    anchor: str | None = None,
) -> dict[str, Any] | None:
    """The srt settings Claude Code runs a Bash command with, for a settings file read as
    ``settings``, HOME ``home`` and launch directory ``cwd``; ``absolute`` maps an absolute
    path (the fixture tree re-roots them); ``anchor``: where the file's relative paths hang
    (None: a user file's ``~/.claude``; a project file's root). None: the sandbox is off."""
    sandbox = settings.get("sandbox")
    if not isinstance(sandbox, dict) or sandbox.get("enabled") is not True:
        return None
    out: dict[str, Any] = {
        key: json.loads(json.dumps(value))
        for key, value in sandbox.items()
        if key not in CLAUDE_ONLY and key not in ("filesystem", "network")
    }
    permissions = settings.get("permissions")
    deny, allow = _rules(permissions, "deny"), _rules(permissions, "allow")

    def spath(path: Any) -> Any:
        return sandbox_path(path, home, absolute, anchor) if isinstance(path, str) else path

    def rpath(spec: str) -> str:
        return rule_path(spec, home, cwd, absolute, anchor)

    def rules(pairs: list[tuple[str, str]], tool: str) -> list[str]:
        return [rpath(spec) for name, spec in pairs if name == tool]

    fs_in = _table(sandbox, "filesystem")
    filesystem = {k: json.loads(json.dumps(v)) for k, v in fs_in.items()}
    filesystem["denyRead"] = _unique(
        [spath(p) for p in _strings(fs_in, "denyRead")] + rules(deny, "Read")
    )
    if "allowRead" in fs_in:
        filesystem["allowRead"] = [spath(p) for p in _strings(fs_in, "allowRead")]
    filesystem["allowWrite"] = _unique(
        [cwd, *(spath(p) for p in _strings(fs_in, "allowWrite")), *rules(allow, "Edit")]
    )
    filesystem["denyWrite"] = _unique(
        [spath(p) for p in _strings(fs_in, "denyWrite")] + rules(deny, "Edit")
    )
    filesystem.pop("allowManagedReadPathsOnly", None)
    out["filesystem"] = filesystem

    out["network"] = _network(sandbox, allow, deny, spath)
    _finish(out, spath)
    return out


def _domains(pairs: list[tuple[str, str]]) -> list[str]:
    return [s[7:] for n, s in pairs if n == "WebFetch" and s.startswith("domain:")]


def _network(
    sandbox: dict[str, Any],
    allow: list[tuple[str, str]],
    deny: list[tuple[str, str]],
    spath: Callable[[Any], Any],
) -> dict[str, Any]:
    """srt's network section: the settings' hosts plus the WebFetch domain rules."""
    net_in = _table(sandbox, "network")
    network = {k: json.loads(json.dumps(v)) for k, v in net_in.items()}
    network["allowedDomains"] = _unique(_strings(net_in, "allowedDomains") + _domains(allow))
    network["deniedDomains"] = _unique(_strings(net_in, "deniedDomains") + _domains(deny))
    if "allowUnixSockets" in net_in:
        network["allowUnixSockets"] = [spath(p) for p in _strings(net_in, "allowUnixSockets")]
    network.pop("allowManagedDomainsOnly", None)
    return network


def _finish(out: dict[str, Any], spath: Callable[[Any], Any]) -> None:
    """Credential file paths mapped as the sandbox paths are, and the lists srt requires."""
    credentials = out.get("credentials")
    if isinstance(credentials, dict) and isinstance(credentials.get("files"), list):
        credentials["files"] = [
            {**item, "path": spath(item["path"])} if isinstance(item, dict) else item
            for item in credentials["files"]
        ]
    for section, keys in SRT_REQUIRED.items():
        part = out.setdefault(section, {})
        if isinstance(part, dict):
            for key in keys:
                part.setdefault(key, [])


def _launch_dir(probe: Probe) -> bool:
    return probe.kind in ("read-only-root", "launch-dir") and probe.rule in (".", "./")


# Claude Code always lets commands write the directory it starts in, read-only or not
launch_dir_writable = probe_gap(
    LOSSY_READONLY_WORKSPACE,
    "Claude Code's sandbox always makes the launch directory writable; its settings cannot take "
    "that away",
    Outcome.ALLOWED,
    _launch_dir,
)


def below_other_roots(m: Mismatch) -> Finding | None:
    """srt's mandatory set (a nested repository's hooks, shell rc files, .vscode/) written
    below a write root other than the launch directory: check's TWS629 at that root (srt
    applies the set in the launch directory only)."""
    if m.probe.kind != "mandatory" or getattr(m.probe, "form", "").endswith(" top"):
        return None  # the Claude files protect the top of every root: open there, it FAILs
    return reported_at_root(m, CLAUDE_NESTED_UNPROTECTED, ("mandatory",))


class ClaudeEngine(SrtEngine):
    name = "claude"
    agent = "claude"
    hint = CLAUDE_HINT
    # Claude Code's sandbox is srt (this engine runs it): srt's gaps are Claude's
    gaps = (*SRT_GAPS, launch_dir_writable, below_other_roots, *LAUNCH_GAPS)
    models = MODELS
    launch_families = FAMILIES  # every one: its files are compiled from the protected set
    launch_only = ()  # and what twsrt compiles covers every write root

    def reads(self, ctx: Context) -> list[Path]:
        from twsrt.agents.claude.agent import target_path
        from twsrt.agents.claude.declaration import PROJECT_KEY

        if ctx.config.scope == "project":  # the project's file, the project the launch dir
            path = ctx.config.targets.get(PROJECT_KEY)
        else:
            path = target_path(ctx)
        return [path] if path is not None else []

    def check_available(self, ctx: Context) -> None:
        try:
            super().check_available(ctx)
        except EngineUnavailable as exc:
            raise EngineUnavailable(self.name, exc.problem, CLAUDE_HINT) from None

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.testing.engines import read_settings
        from twsrt.testing.globs import engine_path

        self.root, self.upstream = root, upstream
        settings = read_settings(self.reads(ctx)[0], ctx.config, ctx.documents)
        home, cwd = str(root / "home"), str(root / "work")
        anchor = cwd if ctx.config.scope == "project" else None
        derived = claude_srt_settings(
            settings, home, cwd, lambda p: engine_path(p, str(root)), anchor
        )
        self.settings = root / "claude-srt-settings.json"
        self.disabled = derived is None
        body = {"twsrt": DISABLED} if derived is None else without_host_programs(derived)
        self.settings.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        return self.settings

    def host_programs(self, ctx: Context) -> list[Result]:
        """The file's ``sandbox`` keys naming a program srt would start on the host (not run),
        at their place in the file; none when the file turns the sandbox off."""
        from twsrt.effective import load_layer
        from twsrt.testing.hostrun import named, results

        path = self.reads(ctx)[0]
        layer, _ = load_layer(path, "json", self.name, ctx.config, ctx.documents)
        sandbox = layer.value.get("sandbox") if layer is not None else None
        if layer is None or not isinstance(sandbox, dict) or sandbox.get("enabled") is not True:
            return []
        found = [(k, p, layer.at(f"/sandbox/{k}")) for k, p in named(sandbox)]
        return results(self.name, found)


ENGINE = ClaudeEngine
