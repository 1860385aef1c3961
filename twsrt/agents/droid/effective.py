"""Factory Droid: what it loads beside twsrt's keys that grants more than the policy.

In the user's ``~/.factory/settings.json`` twsrt owns the sandbox and the three command lists;
``permissionRules`` there (Droid's newer rule list) decides commands past them. Droid also loads
``settings.local.json`` beside it: its ``commandAllowlist`` runs a command without a prompt (a
user or project allowlist beats read-only mode, observed) and its ``sandbox`` is merged into
the one twsrt writes. ``FACTORY_HOME_OVERRIDE`` in the environment makes Droid read another
directory's settings, dropping twsrt's sandbox (observed). This machine's org-managed settings
(``/etc/factory/settings.json`` on Linux, below ``effective.host_root()``) are checked as the
local file is, and so is the repository's own ``.factory/settings.json`` (and its local
twin), which a Droid started anywhere in the repository loads (observed), but for its sandbox
block, which cannot disable or widen the user's (observed)."""

from __future__ import annotations

import os
from os.path import lexists
from pathlib import Path

from twsrt.agents.base import Context
from twsrt.agents.droid.declaration import (
    ALLOWLIST,
    INSTALL_PATHS,
    NAME,
    PROJECT_KEY,
    SANDBOX_KEY,
    SETTINGS_KEY,
)
from twsrt.agents.droid.rules import (
    DROID_HOME_OVERRIDE,
    DROID_LOCAL_ALLOWLIST,
    DROID_LOCAL_SANDBOX,
    DROID_PERMISSION_RULES,
)
from twsrt.bashrules import command_within
from twsrt.effective import Layer, child, host_path, load_layer, report, strings
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import git_root
from twsrt.policy import Policy

LOCAL_NAME = "settings.local.json"
HOME_VARIABLE = "FACTORY_HOME_OVERRIDE"


def findings(ctx: Context) -> list[Finding]:
    if ctx.config.scope == "project":  # the local file beside the project's
        project = ctx.config.targets.get(PROJECT_KEY)
        if project is None:
            return []
        beside, found = load_layer(
            project.with_name(LOCAL_NAME), "json", NAME, ctx.config, ctx.documents
        )
        return found + ([] if beside is None else _check(beside, ctx.policy, True, project=True))
    settings = ctx.config.targets.get(SETTINGS_KEY)
    if settings is None or ctx.config.scope != "user":
        return []
    out: list[Finding] = []
    for path, local in ((settings, False), (settings.with_name(LOCAL_NAME), True)):
        layer, problems = load_layer(path, "json", NAME, ctx.config, ctx.documents)
        out += problems
        if layer is not None:
            out += _check(layer, ctx.policy, local)
    out += _home_override(ctx, settings)
    root = git_root(ctx.config.path)
    if root is not None:  # a Droid started anywhere in this repository loads its project layer
        for name in ("settings.json", LOCAL_NAME):
            path = root / ".factory" / name
            if path == settings or path == settings.with_name(LOCAL_NAME):
                continue
            layer, problems = load_layer(path, "json", NAME, ctx.config, ctx.documents)
            out += problems
            if layer is not None:
                out += _check(layer, ctx.policy, True, project=True)
    if lexists(host_path(INSTALL_PATHS)):  # this machine's org-managed settings
        config = ctx.config.confined(None)  # a system file, outside any repository
        layer, problems = load_layer(host_path(INSTALL_PATHS), "json", NAME, config, ctx.documents)
        out += problems
        if layer is not None:
            out += _check(layer, ctx.policy, True)
    return out


def _check(layer: Layer, policy: Policy, local: bool, *, project: bool = False) -> list[Finding]:
    out: list[Finding] = []
    for pointer in ("/permissionRules", "/general/permissionRules"):
        if child(layer.value, *pointer.strip("/").split("/")) is not None:
            out.append(
                report(
                    DROID_PERMISSION_RULES,
                    "permissionRules decide Droid's commands beside twsrt's command lists, and "
                    "twsrt does not check them: one may allow what the policy denies or asks",
                    layer,
                    pointer,
                    NAME,
                )
            )
    if not local:
        return out  # twsrt owns the sandbox and the lists of its own file (drift)
    # another layer: settings.local.json beside the target, or the org-managed settings
    # a project's sandbox cannot disable or widen the user's (observed): only its lists count
    if SANDBOX_KEY in layer.value and not project:
        out.append(
            report(
                DROID_LOCAL_SANDBOX,
                f"a sandbox block in {layer.path.name} is merged into the one twsrt writes, and "
                "twsrt cannot tell which of its keys win: remove it and let the policy carry "
                "the sandbox",
                layer,
                f"/{SANDBOX_KEY}",
                NAME,
            )
        )
    for command, pointer in strings(layer.value.get(ALLOWLIST), f"/{ALLOWLIST}"):
        reached = _reached(command, policy)
        if reached is not None:
            kind, rule = reached
            out.append(
                report(
                    DROID_LOCAL_ALLOWLIST,
                    f"commandAllowlist entry '{quoted(command)}' runs, without a prompt, a "
                    f"command the policy {kind}s ('{quoted(rule)}')",
                    layer,
                    pointer,
                    NAME,
                    key=False,
                )
            )
    return out


def _reached(command: str, policy: Policy) -> tuple[str, str] | None:
    """The policy deny or ask rule an allowlist entry reaches, if any: Droid's lists match a
    command by its leading words, so an entry reaches every command it begins (``git`` reaches
    ``git push``) and every command that begins it."""
    words = " ".join(command.split())
    for kind, entries in (("deny", policy.bash_deny), ("ask", policy.bash_ask)):
        for entry in entries:
            rule = " ".join(entry.value.split())
            if command_within(rule, words) or command_within(words, rule):
                return kind, entry.value
    return None


def _home_override(ctx: Context, settings: Path) -> list[Finding]:
    """``FACTORY_HOME_OVERRIDE`` set where twsrt runs and naming another directory than the one
    holding the target: Droid started from this environment reads that directory's settings."""
    value = os.environ.get(HOME_VARIABLE)
    if not value:
        return []
    if Path(value).expanduser() / ".factory" / settings.name == settings:
        return []
    return [
        finding(
            DROID_HOME_OVERRIDE,
            f"{HOME_VARIABLE}={quoted(value)} in this environment makes Droid read "
            f"{quoted(value)}/.factory/settings.json instead of the target, so the sandbox and "
            "the command lists twsrt writes do not apply to a Droid started from here",
            ctx.config.location(f"/targets/{SETTINGS_KEY}"),
            agent=NAME,
        )
    ]
