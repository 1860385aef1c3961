"""OpenCode: what it loads beside twsrt's keys that grants more than the policy. In the user's
file, a ``permission`` key after twsrt's that matches the same calls (the last matching rule
wins, row 6) and an agent's own ``permission`` (merged after the top level); in the
environment of the check, ``OPENCODE_PERMISSION``, ``OPENCODE_CONFIG_CONTENT`` and
``OPENCODE_CONFIG`` (rows 14, 18); in the home directory, a project file that the walk-up of a
non-git directory loads (row 15)."""

from __future__ import annotations

import os
from pathlib import Path

from twsrt.agents.base import Context, read_target
from twsrt.agents.opencode.declaration import (
    INSTALL_PATHS,
    LABEL,
    NAME,
    PROJECT_KEY,
    SETTINGS_KEY,
)
from twsrt.agents.opencode.rules import (
    OPENCODE_ANCESTOR_LAYER,
    OPENCODE_ENV_OVERRIDE,
)
from twsrt.agents.opencodegrammar import (
    managed_findings,
    permission_findings,
)
from twsrt.agents.opencodelayers import project_layer_findings
from twsrt.effective import Layer
from twsrt.findings import Finding, TwsrtError, finding

ENV_OVERRIDES = ("OPENCODE_PERMISSION", "OPENCODE_CONFIG_CONTENT", "OPENCODE_CONFIG")
ANCESTOR_FILES = ("opencode.json", "opencode.jsonc", ".opencode")
# the project files OpenCode 1.18.33 loads (row 14)
PROJECT_FILES = (
    "opencode.jsonc",
    "opencode.json",
    ".opencode/opencode.jsonc",
    ".opencode/opencode.json",
)


def findings(ctx: Context) -> list[Finding]:
    out = _environment(ctx) + _ancestors(ctx) + _managed(ctx)
    out += project_layer_findings(ctx, PROJECT_FILES, PROJECT_KEY, NAME, LABEL)
    # the file twsrt writes in this scope: the user's, or the project's (its own late keys)
    key = PROJECT_KEY if ctx.config.scope == "project" else SETTINGS_KEY
    path = ctx.config.targets.get(key)
    if path is None:
        return out
    layer = _layer(ctx, path)
    if layer is None:
        return out
    return out + permission_findings(layer, NAME)


def _layer(ctx: Context, path: Path) -> Layer | None:
    from twsrt.jsonpos import JsonSyntaxError, parse_jsonc

    display = ctx.config.display_path(path)
    try:
        text = read_target(path, display, ctx.config, ctx.documents)
    except TwsrtError:
        return None  # the compile reports it
    if text is None:
        return None
    try:
        parsed = parse_jsonc(text)
    except JsonSyntaxError:
        return None  # the compile reports it
    return Layer(path, display, parsed.value, parsed)


def _environment(ctx: Context) -> list[Finding]:
    where = ctx.config.location(f"/targets/{SETTINGS_KEY}")
    return [
        finding(
            OPENCODE_ENV_OVERRIDE,
            f"{variable} is set in this environment: OpenCode started here merges it after "
            "the config file twsrt writes, over its permission rules",
            where,
            agent=NAME,
        )
        for variable in ENV_OVERRIDES
        if os.environ.get(variable)
    ]


def _ancestors(ctx: Context) -> list[Finding]:
    where = ctx.config.location(f"/targets/{SETTINGS_KEY}")
    out = []
    for name in ANCESTOR_FILES:
        found = ctx.config.home / name
        if os.path.lexists(found):
            out.append(
                finding(
                    OPENCODE_ANCESTOR_LAYER,
                    f"'~/{name}' is a project layer of every directory below the home that is "
                    "not in a git repository: OpenCode loads it after the user's config, over "
                    "twsrt's rules",
                    where,
                    agent=NAME,
                )
            )
    return out


# observed on Linux (row 17); the other systems from the bundle (declaration)
MANAGED = INSTALL_PATHS


def _managed(ctx: Context) -> list[Finding]:
    """This machine's managed config (user scope), when it is there."""
    from twsrt.effective import host_path
    from twsrt.jsonpos import JsonSyntaxError, parse_jsonc

    path = host_path(MANAGED)
    if ctx.config.scope != "user" or not os.path.isfile(path):
        return []
    try:
        text = path.read_text(encoding="utf-8")
        parsed = parse_jsonc(text)
    except (OSError, UnicodeDecodeError, JsonSyntaxError):
        return []
    return managed_findings(Layer(path, str(path), parsed.value, parsed), NAME)
