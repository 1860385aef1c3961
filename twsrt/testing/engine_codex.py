"""The Codex engine: ``codex sandbox`` with the generated config.toml as it is on disk."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.findings import quoted
from twsrt.testing.domains import domain_matches, instance_host, split_domain
from twsrt.testing.engines import EngineUnavailable, Run, base_env, executable, locate, run_process
from twsrt.testing.gaps import Mismatch
from twsrt.testing.model import Action, Attack, Outcome

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


def glob_snapshot(m: Mismatch) -> Finding | None:
    """An attack that makes a new path matching a deny glob after Codex started."""
    from twsrt.rules import LOSSY_GLOB_SNAPSHOT

    probe = m.probe
    fresh = isinstance(probe, Attack) and probe.attack in ("create", "create-match")
    deny = probe.kind.startswith("deny-")
    if probe.glob and fresh and deny and m.observed is Outcome.ALLOWED:
        return m.gap(
            LOSSY_GLOB_SNAPSHOT,
            f"Codex expands the deny glob '{quoted(probe.rule)}' when its sandbox starts: a "
            "matching file created later stays writable",
        )
    return None


def temp_writable(m: Mismatch) -> Finding | None:
    from twsrt.rules import CODEX_TEMP_WRITABLE

    if m.probe.kind == "write-tmp" and m.observed is Outcome.ALLOWED:
        return m.gap(
            CODEX_TEMP_WRITABLE,
            "Codex's :workspace base profile lets sandboxed commands write /tmp and $TMPDIR "
            "although no allowWrite rule names them",
        )
    return None


def no_allow_read(m: Mismatch) -> Finding | None:
    from twsrt.rules import CODEX_NO_ALLOW_READ

    if m.probe.kind == "allow-read" and m.observed is Outcome.DENIED:
        return m.gap(
            CODEX_NO_ALLOW_READ,
            f"the Codex profile has no allowRead: '{quoted(m.probe.rule)}' stays denied with the "
            "denyRead region around it",
        )
    return None


def network_off(m: Mismatch) -> Finding | None:
    """A deniedDomains entry for every host on a port switches Codex's network off."""
    from twsrt.rules import LOSSY_PORT_DOMAIN

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
    from twsrt.rules import LOSSY_PORT_DOMAIN

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


def skipped_write_root(m: Mismatch) -> Finding | None:
    """The allowWrite roots the Codex translation drops (TWS408)."""
    from twsrt.rules import LOSSY_WRITE_ROOT

    probe = m.probe
    skipped = probe.glob or probe.rule.removesuffix("/**") in ("~", "/")
    if probe.kind == "allow-write" and m.observed is Outcome.DENIED and skipped:
        return m.gap(
            LOSSY_WRITE_ROOT,
            f"allowWrite '{quoted(probe.rule)}' cannot be a Codex workspace root and is skipped",
        )
    return None


def linux_unix_sockets(m: Mismatch) -> Finding | None:
    from twsrt.rules import CODEX_LINUX_UNIX_SOCKETS

    if m.linux and m.probe.kind == "allow-unix-socket" and m.observed is Outcome.DENIED:
        return m.gap(
            CODEX_LINUX_UNIX_SOCKETS,
            f"Codex on Linux gives its sandbox no Unix sockets; '{quoted(m.probe.rule)}' is "
            "blocked",
        )
    return None


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
    )

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or locate("codex", CODEX_ENV, CODEX_DEFAULT)

    def reads(self, ctx: Context) -> list[Path]:
        targets = ctx.config.targets
        if CONFIG_KEY not in targets:
            return []
        return [targets[key] for key in (CONFIG_KEY, RULES_KEY) if key in targets]

    def check_available(self, ctx: Context) -> None:
        if not executable(self.binary):
            problem = f"missing codex ({self.binary or 'not on PATH'})"
            raise EngineUnavailable(self.name, problem, CODEX_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.agents.base import read_target
        from twsrt.findings import fail
        from twsrt.locations import Location
        from twsrt.rules import TARGET_UNUSABLE
        from twsrt.testing.inputs import codex_config

        self.root, self.upstream = root, upstream
        # Codex will not put its helpers in a TMPDIR that contains CODEX_HOME: keep them apart
        self.home = root / "codex" / "home"
        self.tmpdir = root / "codex" / "tmp"
        (self.home / "rules").mkdir(parents=True)
        self.tmpdir.mkdir(parents=True)
        source = ctx.config.targets[CONFIG_KEY]
        display = ctx.config.display_path(source)
        text = read_target(source, display, ctx.config) or ""  # missing: Codex runs on its defaults
        try:
            mapped = codex_config(text, str(root))
        except ValueError as exc:
            raise fail(TARGET_UNUSABLE, f"not valid TOML: {exc}", Location(display)) from None
        config = self.home / "config.toml"
        config.write_text(route_network(mapped), encoding="utf-8")
        rules = ctx.config.targets.get(RULES_KEY)
        rules_text = (
            read_target(rules, ctx.config.display_path(rules), ctx.config) if rules else None
        )
        if rules_text is not None:
            (self.home / "rules" / "twsrt.rules").write_text(rules_text, encoding="utf-8")
        return config

    def run(self, shell: str, timeout: float) -> Run:
        env = base_env(self.root)
        env.update(CODEX_HOME=str(self.home), TMPDIR=str(self.tmpdir))
        # Codex's proxy forwards what its lists allow to the local stub (see route_network)
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = self.upstream
        argv = [str(self.binary), "sandbox", "--", "sh", "-c", shell]
        return run_process(argv, env, self.root / "work", timeout)


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
