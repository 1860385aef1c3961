"""The effective configuration: user-owned keys and other config layers that undo the policy.

twsrt owns declared sections of each target and keeps every other key of the user's. Some of
those keys (and other files the agent loads beside the target) grant more than the policy; this
package reads every such file twsrt can see and reports each widening key at its own line. Keys
twsrt manages are left to drift detection, and keys that narrow the policy stay quiet.

Each agent's check is a module of its package (``AgentSpec.effective`` names it) that provides
``findings(ctx) -> list[Finding]``, built on this kit; ``twsrt.agents.effective_findings`` is the
only entry point. Everything here reads files and never writes; every file is parsed once, so the
work stays linear in the size of the files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from twsrt.agents.abspaths import glob_prefix
from twsrt.agents.base import Context
from twsrt.config import Config
from twsrt.documents import Documents
from twsrt.findings import Finding, finding
from twsrt.locations import Location, located, pointer_join
from twsrt.policy import Entry, PathRule, Policy, is_glob
from twsrt.positions import PositionedDocument
from twsrt.records import record
from twsrt.rules import EFFECTIVE_LAYER_UNREADABLE, Rule
from twsrt.wildcard import fnmatch, star_match

# ---------------------------------------------------------------- layers


@record(frozen=False)
class Layer:
    """One parsed config file and where its keys sit."""

    path: Path
    display: str
    value: Any
    positions: PositionedDocument

    def at(self, pointer: str, *, key: bool = True) -> Location:
        return located(self.display, self.positions, pointer, key=key)


def load_layer(
    path: Path, kind: str, agent: str, config: Config, documents: Documents
) -> tuple[Layer | None, list[Finding]]:
    """The parsed file (``kind`` ``json`` or ``toml``), named and read as ``config``'s run
    names and confines files, through the run's ``documents`` (the compile read and parsed the
    targets already); None when it does not exist, with a finding when it exists but
    cannot be read."""
    from twsrt.jsonpos import JsonSyntaxError
    from twsrt.safeio import FileProblem, problem_finding
    from twsrt.tomlpos import TomlSyntaxError

    display = config.display_path(path)
    try:
        text = documents.read(path, confine=config.target_confine)
    except FileProblem as exc:
        if exc.kind in ("missing", "dangling", "directory"):
            return None, []  # nothing the agent could load either
        if exc.kind == "outside":
            where = Location(display)
            return None, [problem_finding(exc, EFFECTIVE_LAYER_UNREADABLE, where, agent=agent)]
        return None, [_unreadable(f"cannot read: {exc.reason}", Location(display), agent)]
    try:
        parsed = documents.json(text) if kind == "json" else documents.toml(text)
    except (JsonSyntaxError, TomlSyntaxError) as exc:
        where = Location(display, exc.line, exc.column)
        return None, [_unreadable(f"invalid {kind.upper()}: {exc.message}", where, agent)]
    if kind == "json" and not isinstance(parsed.value, dict):
        return None, [_unreadable("not a JSON object", Location(display, 1, 1), agent)]
    return Layer(path, display, parsed.value, parsed), []


def _unreadable(detail: str, where: Location, agent: str) -> Finding:
    return finding(
        EFFECTIVE_LAYER_UNREADABLE,
        f"{where.path} is loaded by {agent} but {detail}; its keys could not be checked",
        where,
        agent=agent,
    )


def child(data: Any, *keys: str) -> Any:
    """``data[k1][k2]...`` or None when a step is missing or not an object."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def strings(value: Any, pointer: str) -> list[tuple[str, str]]:
    """The string items of a JSON list with their pointers (anything else yields nothing)."""
    if not isinstance(value, list):
        return []
    return [
        (item, pointer_join(pointer, index))
        for index, item in enumerate(value)
        if isinstance(item, str)
    ]


def report(
    rule: Rule,
    message: str,
    layer: Layer,
    pointer: str,
    agent: str,
    related: Iterable[Location] = (),
    *,
    key: bool = True,
) -> Finding:
    return finding(
        rule,
        message,
        layer.at(pointer, key=key),
        agent=agent,
        related=tuple(related),
    )


def sandbox_origin(policy: Policy) -> Location:
    """Where the policy turns its sandbox on: ``enabled`` when written, else the file."""
    if "enabled" in policy.srt:
        return policy.srt_location("/enabled", key=True)
    return policy.srt_location("")


def srt_key(policy: Policy, pointer: str) -> list[Location]:
    """The srt settings key at ``pointer`` as a related location, when the file writes it."""
    node: Any = policy.srt
    for part in pointer.strip("/").split("/"):
        if not isinstance(node, dict) or part not in node:
            return []
        node = node[part]
    return [policy.srt_location(pointer, key=True)]


# ---------------------------------------------------------------- policy questions


class PolicyView:
    """The policy's answers to "is this granted?", with ``~`` expanded by the output home."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.policy = ctx.policy
        self.home = ctx.config.output_home.rstrip("/") or "/"
        roots = [] if ctx.read_only else ctx.policy.allow_write
        self.write_roots = [
            (self.expand(rule.path), rule)
            for rule in roots
            if not rule.glob and self.absolute(rule.path)
        ]
        self.cwd_writable = not ctx.read_only and any(
            rule.path in (".", "./") for rule in ctx.policy.allow_write
        )

    @property
    def sandboxed(self) -> bool:
        """The policy's sandbox applies in this run (not danger-full-access, not disabled)."""
        return self.policy.enabled and not self.ctx.full_access

    @staticmethod
    def absolute(path: str) -> bool:
        return path.startswith("/") or path == "~" or path.startswith("~/")

    def expand(self, path: str) -> str:
        """``~`` forms to absolute, ``//x`` to ``/x``, no trailing slash, ``..`` folded."""
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        if path.startswith("//"):
            path = path[1:]
        if path.startswith("/") and ".." in path.split("/"):
            path = os.path.normpath(path)
        return path.rstrip("/") or "/"

    def writable(self, path: str) -> PathRule | None:
        """The write root that covers an absolute path, None when no root does."""
        target = self.expand(path)
        for root, rule in self.write_roots:
            if inside(target, root):
                return rule
        return None

    def denied(self, path: str, rules: list[PathRule]) -> PathRule | None:
        """The first policy path rule that covers ``path`` (or a path below it, for a glob
        ``path`` such as ``~/.ssh/**``)."""
        target = self.expand(path)
        base = self.expand(glob_prefix(path)) if is_glob(path) else target
        for rule in rules:
            if not self.absolute(rule.path):
                continue
            spelled = self.expand(rule.path)
            if rule.glob:
                if fnmatch(target, spelled) or fnmatch(base, spelled):
                    return rule
            elif inside(base, spelled):
                return rule
        return None

    def domain_allowed(self, host: str) -> bool:
        return any(domain_matches(host, entry.value) for entry in self.policy.allowed_domains)

    def domain_denied(self, host: str) -> Entry | None:
        return next((e for e in self.policy.denied_domains if domain_matches(host, e.value)), None)


def inside(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def domain_matches(host: str, pattern: str) -> bool:
    """Does a policy domain entry (``*.x``, ``*``, ``host:port``) cover ``host``?"""
    from twsrt.domains import split_port

    pattern_host, port = split_port(pattern)
    if port is not None:
        return False  # a single port never covers every port of the host
    host, pattern_host = host.lower().rstrip("."), pattern_host.lower().rstrip(".")
    if pattern_host == "*":
        return True
    if pattern_host.startswith("*."):
        return host.endswith(pattern_host[1:]) and host != pattern_host[2:]
    return host == pattern_host


def command_reaches(spec: str, command: str) -> bool:
    """Does a ``Bash(spec)`` allow rule match ``command`` or ``command <args>`` (the forms a
    policy rule denies), or name a command the policy rule covers? ``*`` is the only wildcard;
    a trailing ``:*`` is the legacy prefix form. A rule for every command (``*``) is skipped:
    it names nothing in particular. ``star_match``, never a regex: the spec is a target's text."""
    spec = spec.strip()
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    if not spec.replace("*", "").strip():
        return False
    if star_match(spec, command) or star_match(spec, command + " x"):
        return True
    sample = " ".join(spec.replace("*", " ").split())
    return sample == command or sample.startswith(command + " ")


# ---------------------------------------------------------------- this machine's managed files

# Each agent reads its managed (administrator-deployed) files from fixed system paths (Claude
# Code /etc/claude-code on Linux). twsrt looks for them under ``host_root()``: ``/`` (``C:\`` on
# Windows), or $TWSRT_MANAGED_ROOT when set: the tests use a temporary tree instead of the real
# /etc, and an administrator can check users' files against a managed output tree before
# deploying it (its ``<os>/`` directory is such a root). Findings only, never an output change.
MANAGED_ROOT_VARIABLE = "TWSRT_MANAGED_ROOT"


def host_system() -> str:
    """This machine's OS as the agents' managed paths name it: linux, macos or windows."""
    import sys

    if sys.platform == "darwin":
        return "macos"
    return "windows" if sys.platform.startswith("win") else "linux"


def host_root() -> Path:
    """The directory the managed paths hang from (see ``MANAGED_ROOT_VARIABLE``)."""
    configured = os.environ.get(MANAGED_ROOT_VARIABLE)
    if configured:
        return Path(configured)
    return Path("C:\\") if host_system() == "windows" else Path("/")


def host_path(install_paths: dict[str, str]) -> Path:
    """Where this machine keeps a managed file, from its install path per OS (``C:\\x`` and
    ``/x`` both hang from ``host_root()``)."""
    raw = install_paths[host_system()]
    parts = [part for part in raw.split(":", 1)[-1].replace("\\", "/").split("/") if part]
    return host_root().joinpath(*parts)
