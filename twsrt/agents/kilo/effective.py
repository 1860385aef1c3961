"""Kilo Code CLI: what it loads beside twsrt's keys that grants more than the policy, or looks
as if it confined and does not: a misplaced ``experimental.sandbox`` in the user's file (row
39), and ``KILO_PERMISSION``, ``KILO_CONFIG_CONTENT``, ``KILO_CONFIG`` and ``KILO_BWRAP_PATH``
in the environment of the check (rows 30-31, 38)."""

from __future__ import annotations

import os

from twsrt.agents.base import Context, read_target
from twsrt.agents.kilo.declaration import (
    INSTALL_PATHS,
    LABEL,
    NAME,
    PROJECT_KEY,
    SETTINGS_KEY,
)
from twsrt.agents.kilo.rules import KILO_ENV_OVERRIDE, KILO_EXPERIMENTAL_SANDBOX
from twsrt.agents.opencodegrammar import (
    managed_findings,
    permission_findings,
)
from twsrt.agents.opencodelayers import project_layer_findings
from twsrt.effective import Layer, child, report
from twsrt.findings import Finding, TwsrtError, finding

ENV_OVERRIDES = ("KILO_PERMISSION", "KILO_CONFIG_CONTENT", "KILO_CONFIG", "KILO_BWRAP_PATH")
# the project files Kilo 7.7.7 loads (row 30: kilo.jsonc, opencode.json, .kilo/kilo.jsonc
# observed; their twins by the same loader)
PROJECT_FILES = tuple(
    f"{directory}{name}"
    for directory in ("", ".kilo/", ".opencode/")
    for name in ("kilo.jsonc", "kilo.json", "opencode.jsonc", "opencode.json")
)


def findings(ctx: Context) -> list[Finding]:
    where = ctx.config.location(f"/targets/{SETTINGS_KEY}")
    out = [
        finding(
            KILO_ENV_OVERRIDE,
            f"{variable} is set in this environment: the Kilo started here takes it over the "
            "config file twsrt writes",
            where,
            agent=NAME,
        )
        for variable in ENV_OVERRIDES
        if os.environ.get(variable)
    ]
    out += _managed(ctx)
    out += project_layer_findings(ctx, PROJECT_FILES, PROJECT_KEY, NAME, LABEL)
    # the file twsrt writes in this scope: the user's, or the project's (its own late keys)
    key = PROJECT_KEY if ctx.config.scope == "project" else SETTINGS_KEY
    path = ctx.config.targets.get(key)
    if path is None:
        return out
    from twsrt.jsonpos import JsonSyntaxError, parse_jsonc

    display = ctx.config.display_path(path)
    try:
        text = read_target(path, display, ctx.config, ctx.documents)
        parsed = None if text is None else parse_jsonc(text)
    except (TwsrtError, JsonSyntaxError):
        return out  # the compile reports it
    if parsed is None:
        return out
    layer = Layer(path, display, parsed.value, parsed)
    out += permission_findings(layer, NAME)
    if child(layer.value, "experimental", "sandbox") is not None:
        out.append(
            report(
                KILO_EXPERIMENTAL_SANDBOX,
                "experimental.sandbox is ignored by Kilo: only the top-level sandbox object, "
                "which twsrt writes, confines its commands",
                layer,
                "/experimental/sandbox",
                NAME,
            )
        )
    return out


# observed on Linux (row 31); the other systems from the bundle (declaration)
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
