"""Factory Droid: what it loads beside twsrt's keys that grants more than the policy.

In the user's ``~/.factory/settings.json`` twsrt owns the sandbox and the three command lists;
``permissionRules`` there (Droid's newer rule list) decides commands past them (TWS660). Droid
also loads ``settings.local.json`` beside it, and a key there replaces the same key of
``settings.json`` whole (observed: a local ``sandbox`` switches twsrt's off, a local
``commandBlocklist`` drops it; TWS661). A project's ``.factory/settings.json`` (the repository's
own, which a Droid started anywhere in it loads) and this machine's org-managed settings
(``/etc/factory/settings.json`` on Linux, below ``effective.host_root()``) add to the user's
instead (observed), so only an allowlist entry there that names a command of the policy is
worth a note: twsrt's lists win over it (TWS662). ``FACTORY_HOME_OVERRIDE`` in the environment
makes Droid read another directory's settings, dropping twsrt's sandbox (observed; TWS663)."""

from __future__ import annotations

import os
from os.path import lexists
from pathlib import Path

from twsrt.agents.base import Context
from twsrt.agents.droid.declaration import (
    ALLOWLIST,
    INSTALL_PATHS,
    LIST_KEYS,
    NAME,
    PROJECT_KEY,
    SANDBOX_KEY,
    SETTINGS_KEY,
)
from twsrt.agents.droid.rules import (
    DROID_HOME_OVERRIDE,
    DROID_LAYER_ALLOWLIST,
    DROID_LOCAL_OVERRIDE,
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
        return found + ([] if beside is None else _check(beside, ctx.policy, True))
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
        if layer is not None:  # it adds to the user's, as a project file does (observed)
            out += _check(layer, ctx.policy, True, project=True)
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
    # a local file's key replaces the target's (observed); a project's or the org-managed
    # settings add to the user's (observed): only their lists are worth a note
    if not project:
        for key in (SANDBOX_KEY, *LIST_KEYS):
            if key in layer.value:
                out.append(
                    report(
                        DROID_LOCAL_OVERRIDE,
                        f"{key} in {layer.path.name} replaces the {key} twsrt writes in "
                        "settings.json whole: "
                        + (
                            'without "enabled": true Droid\'s sandbox is off'
                            if key == SANDBOX_KEY
                            else "the policy's commands there are dropped"
                        ),
                        layer,
                        f"/{key}",
                        NAME,
                    )
                )
    for command, pointer in strings(layer.value.get(ALLOWLIST), f"/{ALLOWLIST}"):
        reached = _reached(command, policy)
        if reached is not None:
            kind, rule = reached
            out.append(
                report(
                    DROID_LAYER_ALLOWLIST,
                    f"commandAllowlist entry '{quoted(command)}' names a command the policy "
                    f"{kind}s ('{quoted(rule)}'); twsrt's command lists win over it",
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
