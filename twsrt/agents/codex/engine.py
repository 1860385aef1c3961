"""The Codex engine: ``codex sandbox`` with the generated config.toml as it is on disk; in project
scope with the project's layer (``.codex/config.toml`` and its rules) in a trusted checkout, the
work tree being the project root Codex starts in."""

from __future__ import annotations

import time
import tomllib
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.agents.codex.rules import (
    CODEX_LAUNCH_PINS_DEPTH,
    CODEX_LINUX_UNIX_SOCKETS,
    CODEX_NESTED_UNPROTECTED,
    CODEX_NO_ALLOW_READ,
    CODEX_TEMP_WRITABLE,
    LOSSY_GLOB_SNAPSHOT,
)
from twsrt.findings import quoted
from twsrt.policy import is_glob, normalize_path
from twsrt.rules import LOSSY_PORT_DOMAIN, LOSSY_WRITE_ROOT
from twsrt.testing.domains import domain_matches, instance_host, split_domain
from twsrt.testing.engines import EngineUnavailable, Run, base_env, executable, locate, run_process
from twsrt.testing.gaps import Mismatch, probe_gap
from twsrt.testing.globs import engine_path
from twsrt.testing.hostrun import CODEX_HOST_KEYS
from twsrt.testing.launches import LAUNCH_GAPS, reported_at_root
from twsrt.testing.model import Action, Attack, Outcome, Probe

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.findings import Finding

CODEX_ENV = "TWSRT_CODEX_BIN"
CODEX_DEFAULT = "/opt/twsrt-tools/codex/bin/codex"
CODEX_HINT = (
    "install the Codex CLI (npm install -g @openai/codex@0.171.0) and bubblewrap "
    f"(apt-get install -y bubblewrap), or point ${CODEX_ENV} at codex"
)
CONFIG_KEY, RULES_KEY = "codex_config", "codex_rules"
PROJECT_KEYS = ("codex_project_config", "codex_project_rules")


def _keys(ctx: Context) -> tuple[str, str]:
    """The [targets] keys of the config layer the run probes: the project's in project scope."""
    return PROJECT_KEYS if ctx.config.scope == "project" else (CONFIG_KEY, RULES_KEY)


def _fresh_in_deny_glob(probe: Probe) -> bool:
    """An attack that makes a new path matching a deny glob (after Codex started)."""
    fresh = isinstance(probe, Attack) and probe.attack in ("create", "create-match")
    return probe.glob and fresh and probe.kind.startswith("deny-")


glob_snapshot = probe_gap(
    LOSSY_GLOB_SNAPSHOT,
    "Codex expands the deny glob '{rule}' when its sandbox starts: a matching file created "
    "later stays writable",
    Outcome.ALLOWED,
    _fresh_in_deny_glob,
)


def nested_unprotected(m: Mismatch) -> Finding | None:
    """What a later launch loads or runs, written below the top of a write root (a planted
    layer, a nested repository's hooks): check's TWS465 at that write root."""
    return reported_at_root(m, CODEX_NESTED_UNPROTECTED, ("plant-layer", "mandatory"))


def launch_pins_depth(m: Mismatch) -> Finding | None:
    """A deny's ancestor renamed aside where check says it lies too deep to pin (TWS466)."""
    if m.probe.kind != "rename-ancestor" or m.observed is not Outcome.ALLOWED:
        return None
    found = m.reports(CODEX_LAUNCH_PINS_DEPTH)
    return m.as_reported(found) if found is not None else None


temp_writable = probe_gap(
    CODEX_TEMP_WRITABLE,
    "Codex's :workspace base profile lets sandboxed commands write /tmp and $TMPDIR although "
    "no allowWrite rule names them",
    Outcome.ALLOWED,
    "write-tmp",
)


no_allow_read = probe_gap(
    CODEX_NO_ALLOW_READ,
    "the Codex profile has no allowRead: '{rule}' stays denied with the denyRead region around it",
    Outcome.DENIED,
    "allow-read",
)


def network_off(m: Mismatch) -> Finding | None:
    """A deniedDomains entry for every host on a port switches Codex's network off."""
    cut = next((e for e in m.policy.denied_domains if split_domain(e.value)[0] == "*"), None)
    if m.probe.action is Action.FETCH and cut is not None and m.observed is Outcome.DENIED:
        return m.gap(
            LOSSY_PORT_DOMAIN,
            f"deniedDomains '{quoted(cut.value)}' ({cut.origin}) cannot be a Codex domain rule, so "
            "twsrt switches Codex's network off: every host is refused",
        )
    return None


def portless_domains(m: Mismatch) -> Finding | None:
    """Codex domain rules take no port: a port-scoped deny or allow covers every port."""
    probe = m.probe
    if probe.kind != "allow-domain" or m.observed is not Outcome.DENIED:
        return None
    host, _ = instance_host(probe.rule)
    for entry in m.policy.denied_domains:
        pattern, port = split_domain(entry.value)
        if port is not None and domain_matches(pattern, host, 80):
            return m.gap(
                LOSSY_PORT_DOMAIN,
                f"Codex domain rules take no port: deniedDomains '{quoted(entry.value)}' "
                f"({entry.origin}) denies the host on every port",
            )
    if probe.port:
        return m.gap(
            LOSSY_PORT_DOMAIN,
            f"Codex domain rules take no port; '{quoted(probe.rule)}' is not allowed",
        )
    return None


def _skipped_root(probe: Probe) -> bool:
    """An allowWrite root the Codex translation drops (TWS408)."""
    skipped = probe.glob or probe.rule.removesuffix("/**") in ("~", "/")
    return probe.kind == "allow-write" and skipped


skipped_write_root = probe_gap(
    LOSSY_WRITE_ROOT,
    "allowWrite '{rule}' cannot be a Codex workspace root and is skipped",
    Outcome.DENIED,
    _skipped_root,
)


linux_unix_sockets = probe_gap(
    CODEX_LINUX_UNIX_SOCKETS,
    "Codex on Linux gives its sandbox no Unix sockets; '{rule}' is blocked",
    Outcome.DENIED,
    "allow-unix-socket",
    linux=True,
)


class CodexEngine:
    name = "codex"
    agent = "codex"
    hint = CODEX_HINT
    gaps = (
        glob_snapshot,
        temp_writable,
        no_allow_read,
        network_off,
        portless_domains,
        skipped_write_root,
        linux_unix_sockets,
        *LAUNCH_GAPS,
        nested_unprotected,
        launch_pins_depth,
    )

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or locate("codex", CODEX_ENV, CODEX_DEFAULT)

    def reads(self, ctx: Context) -> list[Path]:
        """The user config.toml and rules; in project scope the project's layer instead."""
        targets = ctx.config.targets
        config_key, rules_key = _keys(ctx)
        if config_key not in targets:
            return []
        return [targets[key] for key in (config_key, rules_key) if key in targets]

    def check_available(self, ctx: Context) -> None:
        if not executable(self.binary):
            problem = f"missing codex ({self.binary or 'not on PATH'})"
            raise EngineUnavailable(self.name, problem, CODEX_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.agents.base import read_target
        from twsrt.findings import fail
        from twsrt.locations import Location
        from twsrt.rules import TARGET_UNUSABLE

        self.root, self.upstream = root, upstream
        # Codex will not put its helpers in a TMPDIR that contains CODEX_HOME: keep them apart
        self.home = root / "codex" / "home"
        self.tmpdir = root / "codex" / "tmp"
        (self.home / "rules").mkdir(parents=True)
        self.tmpdir.mkdir(parents=True)
        files = self.reads(ctx)
        display = ctx.config.display_path(files[0])
        # a missing file: Codex's defaults
        text = read_target(files[0], display, ctx.config, ctx.documents) or ""
        try:
            mapped = route_network(codex_config(text, str(root)))
        except ValueError as exc:
            raise fail(TARGET_UNUSABLE, f"not valid TOML: {exc}", Location(display)) from None
        make_parents(mapped, root)
        make_protected_files(ctx, root)
        rules = files[1] if len(files) > 1 else None
        rules_text = (
            read_target(rules, ctx.config.display_path(rules), ctx.config, ctx.documents)
            if rules
            else None
        )
        if ctx.config.scope == "project":
            return self._project(root, mapped, rules_text)
        config = self.home / "config.toml"
        config.write_text(mapped, encoding="utf-8")
        if rules_text is not None:
            (self.home / "rules" / "twsrt.rules").write_text(rules_text, encoding="utf-8")
        return config

    def _project(self, root: Path, layer: str, rules: str | None) -> Path:
        """The project layer where Codex finds it, the work tree being the project root (a
        git checkout, trusted by the user config.toml, else Codex ignores the layer)."""
        project = root / "work"
        (project / ".git").mkdir(exist_ok=True)
        (project / ".codex" / "rules").mkdir(parents=True, exist_ok=True)
        trusted = f'[projects."{project}"]\ntrust_level = "trusted"\n'
        (self.home / "config.toml").write_text(trusted, encoding="utf-8")
        config = project / ".codex" / "config.toml"
        config.write_text(layer, encoding="utf-8")
        if rules is not None:
            (project / ".codex" / "rules" / "twsrt.rules").write_text(rules, encoding="utf-8")
        return config

    def run(self, shell: str, timeout: float) -> Run:
        env = base_env(self.root)
        env.update(CODEX_HOME=str(self.home), TMPDIR=str(self.tmpdir))
        # Codex's proxy forwards what its lists allow to the local stub (see route_network)
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        argv = [str(self.binary), "sandbox", "--", "sh", "-c", shell]
        for attempt in range(RACE_RETRIES):
            done = run_process(argv, env, self.root / "work", timeout)
            if not raced(done):
                return done
            # the other start holding the placeholder is mid-mount: let it finish first
            time.sleep(RACE_PAUSE_S * (attempt + 1))
        return run_process(argv, env, self.root / "work", timeout)


# Codex keeps a placeholder on the host for each missing read-only entry of its profile while a
# sandbox runs and removes it after; a placeholder of another sandbox (or srt's, in a shared
# write root such as /tmp) coming or going during bwrap's mounts stops this one from starting
# (docs/agents/codex.md). The command never ran, so such a start is tried again, at most 4 times;
# a start that fails so every time is reported as the failure it is.
PLACEHOLDER_RACE = (
    "Can't find source path",
    "Can't get type of source",
    "Can't mount tmpfs",
    "Unable to remount destination",
    "in mount table",  # the placeholder went away between bwrap's mount and its lookup
    "Can't create file at",  # a placeholder directory made read-only by another start
    # a placeholder removed between bwrap's lookup and its bind mount (seen in CI: Codex's
    # skills walker and AGENTS.md loader starting two helpers at once in one session)
    "Unable to mount source on destination",
    # Codex's own fs helper (AGENTS.md loader) stat'ing an entry that another start's
    # placeholder left and found gone when it built bwrap's arguments (seen in CI, session
    # start; no "bwrap:" prefix, so only the real-agent harness retries on it)
    "error building bubblewrap command: No such file or directory",
)
RACE_RETRIES = 4
RACE_PAUSE_S = 0.2  # after the n-th raced start: n times this (2 s in all at most)


def raced(done: Run) -> bool:
    """Whether a Codex sandbox failed to start on a placeholder race (bwrap's own message)."""
    return (
        done.exit_code != 0
        and "bwrap:" in done.output
        and any(text in done.output for text in PLACEHOLDER_RACE)
    )


def codex_config(text: str, root: str) -> str:
    """A Codex config.toml as on disk, with every absolute path re-rooted into the tree: the
    keys of each permissions profile's filesystem (any depth) and unix_sockets tables, and the
    legacy ``sandbox_workspace_write.writable_roots``; without the keys naming a program or a
    host directory the Codex process uses itself (``hostrun.CODEX_HOST_KEYS``). ``~`` stays for
    Codex to expand (HOME is the tree's home) and relative paths stay anchored at the workspace,
    the working directory. Raises ValueError for a file that is not TOML."""
    import tomlkit

    document = tomllib.loads(text)
    for key in CODEX_HOST_KEYS:  # programs and host directories of the Codex process itself
        document.pop(key, None)

    def mapper(path: str) -> str:
        return engine_path(normalize_path(path), root) if path.startswith("/") else path

    def rekey(table: Any) -> Any:
        if not isinstance(table, dict):
            return table
        return {mapper(key): rekey(value) for key, value in table.items()}

    permissions = document.get("permissions")
    for profile in permissions.values() if isinstance(permissions, dict) else ():
        if not isinstance(profile, dict):
            continue
        if isinstance(profile.get("filesystem"), dict):
            profile["filesystem"] = rekey(profile["filesystem"])
        network = profile.get("network")
        if isinstance(network, dict) and isinstance(network.get("unix_sockets"), dict):
            network["unix_sockets"] = rekey(network["unix_sockets"])
    legacy = document.get("sandbox_workspace_write")
    if isinstance(legacy, dict) and isinstance(legacy.get("writable_roots"), list):
        legacy["writable_roots"] = [
            mapper(p) if isinstance(p, str) else p for p in legacy["writable_roots"]
        ]
    return tomlkit.dumps(document)


def make_parents(text: str, root: Path) -> None:
    """The parent directory of every path a permissions profile names, made in the fixture
    tree. On the agent's machine they exist (the policy's own files, a project's sources);
    Codex 0.171.0 refuses to start when two read-only entries lie below one missing directory
    ("Unable to mount"), so without them the sandbox would not start at all."""
    document = tomllib.loads(text)
    permissions = document.get("permissions")
    for profile in permissions.values() if isinstance(permissions, dict) else ():
        table = profile.get("filesystem") if isinstance(profile, dict) else None
        for path in _named_paths(table, root / "work"):
            with suppress(OSError):  # a path the tree cannot hold proves nothing either way
                _fixture_parent(path, root).mkdir(parents=True, exist_ok=True)


def make_protected_files(ctx: Context, root: Path) -> None:
    """An empty file in the tree for every protected file (a source, a generated target) that
    is a file on this machine. Codex 0.171.0 keeps ``.codex`` at the top of a write root
    read-only, and bwrap must create a mount point for a read-only entry that does not exist:
    below such a directory that fails ("Can't create file ... Read-only file system") and the
    sandbox does not start. On the agent's machine the files exist, so the tree holds them."""
    from twsrt.protection import protected_set

    home = ctx.config.home
    for item in protected_set(ctx.config, ctx.written or ctx.policy):
        if item.tree or is_glob(item.path):
            continue
        host = Path(str(home) + item.path[1:]) if item.path.startswith("~/") else Path(item.path)
        if not host.is_absolute() or not host.is_file():
            continue
        placeholder = Path(engine_path(normalize_path(item.path), str(root)))
        if placeholder.is_relative_to(root) and placeholder.parent.is_dir():
            with suppress(OSError):  # a path the tree cannot hold proves nothing either way
                placeholder.touch(exist_ok=True)


def _named_paths(table: object, base: Path) -> list[str]:
    """The paths of a filesystem table (nested ``:workspace_roots`` tables: relative to the
    launch directory), without special (``:``) entries and globs."""
    out: list[str] = []
    if not isinstance(table, dict):
        return out
    for key, value in table.items():
        if key == ":workspace_roots" and isinstance(value, dict):
            out += [str(base / k) for k in value if not k.startswith(":") and "*" not in k]
        elif isinstance(key, str) and not key.startswith(":") and not is_glob(key):
            out.append(key)
    return out


def _fixture_parent(path: str, root: Path) -> Path:
    """Where the parent of a profile path lies in the tree (``~`` is the tree's HOME)."""
    if path == "~" or path.startswith("~/"):
        path = str(root / "home") + path[1:]
    parent = Path(path).parent
    if not parent.is_relative_to(root):
        raise OSError("outside the tree")
    return parent


def route_network(text: str) -> str:
    """Every permissions profile's network table made to forward allowed requests to $HTTP_PROXY
    (the local stub) and skip Codex's DNS/private-address check. Without this, an allowed host
    is looked up and dialled for real (off this machine), and a name that does not resolve is
    refused as ``not_allowed_local`` before its lists decide (real Codex 0.171.0), so an allow
    probe could not succeed and a deny probe could not tell its deny entry from that check. The
    domain lists, which are what the probes test, reach Codex unchanged."""
    import tomlkit

    document = tomlkit.parse(text)
    permissions = document.get("permissions")
    for profile in permissions.values() if isinstance(permissions, dict) else ():
        network = profile.get("network") if isinstance(profile, dict) else None
        if isinstance(network, dict):
            network["allow_upstream_proxy"] = True
            network["allow_local_binding"] = True
    return tomlkit.dumps(document)


ENGINE = CodexEngine
