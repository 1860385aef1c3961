"""OpenCode: what it loads beside twsrt's keys that grants more than the policy. In the user's
file, a ``permission`` key after twsrt's that matches the same calls (the last matching rule
wins, row 6) and an agent's own ``permission`` (merged after the top level); in the
environment of the check, ``OPENCODE_PERMISSION``, ``OPENCODE_CONFIG_CONTENT`` and
``OPENCODE_CONFIG`` (rows 14, 18); in the home directory, a project file that the walk-up of a
non-git directory loads (row 15)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context, read_target
from twsrt.agents.opencode.declaration import NAME, PERMISSION_KEYS, SETTINGS_KEY
from twsrt.agents.opencode.rules import (
    OPENCODE_AGENT_PERMISSION,
    OPENCODE_ANCESTOR_LAYER,
    OPENCODE_ENV_OVERRIDE,
    OPENCODE_PERMISSION_KEY_LIFTS,
)
from twsrt.effective import Layer, report
from twsrt.findings import Finding, TwsrtError, finding, quoted
from twsrt.locations import pointer_join

ENV_OVERRIDES = ("OPENCODE_PERMISSION", "OPENCODE_CONFIG_CONTENT", "OPENCODE_CONFIG")
ANCESTOR_FILES = ("opencode.json", "opencode.jsonc", ".opencode")


def matches(value: str, pattern: str) -> bool:
    """OpenCode's wildcard match (1.18.33): ``*`` any run of characters, ``/`` included, ``?``
    one, a trailing `` *`` optional, every other character itself."""
    spelled = "".join(
        ".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern
    )
    if pattern.endswith(" *"):
        spelled = spelled[: -len(re.escape(" ") + ".*")] + "( .*)?"
    return re.fullmatch(spelled, value, re.DOTALL) is not None


def grants(value: Any) -> bool:
    """A permission value that allows or asks for anything (a plain ``deny`` only refuses)."""
    if isinstance(value, str):
        return value != "deny"
    if isinstance(value, dict):
        return any(action != "deny" for action in value.values())
    return False


def findings(ctx: Context) -> list[Finding]:
    out = _environment(ctx) + _ancestors(ctx)
    path = ctx.config.targets.get(SETTINGS_KEY)
    if path is None:
        return out
    layer = _layer(ctx, path)
    if layer is None:
        return out
    permission = layer.value.get("permission") if isinstance(layer.value, dict) else None
    if isinstance(permission, dict):
        out += _late_keys(layer, permission)
    agents = layer.value.get("agent") if isinstance(layer.value, dict) else None
    if isinstance(agents, dict):
        for name, agent in agents.items():
            own = agent.get("permission") if isinstance(agent, dict) else None
            if isinstance(own, str):
                own = {"*": own}
            if not isinstance(own, dict):
                continue
            for key, value in own.items():
                if grants(value) and any(matches(tool, key) for tool in PERMISSION_KEYS):
                    base = pointer_join(pointer_join("/agent", name), "permission")
                    pointer = pointer_join(base, key)
                    out.append(
                        report(
                            OPENCODE_AGENT_PERMISSION,
                            f"agent '{quoted(name)}' permission '{quoted(key)}' is merged "
                            "after twsrt's rules and can allow what they deny",
                            layer,
                            pointer,
                            NAME,
                        )
                    )
    return out


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


def _late_keys(layer: Layer, permission: dict[str, Any]) -> list[Finding]:
    """User keys after the first of twsrt's that match one of its tools and grant."""
    out: list[Finding] = []
    seen_managed = False
    for key, value in permission.items():
        if key in PERMISSION_KEYS:
            seen_managed = True
            continue
        if not seen_managed or not grants(value):
            continue
        tools = [tool for tool in PERMISSION_KEYS if matches(tool, key)]
        if tools:
            out.append(
                report(
                    OPENCODE_PERMISSION_KEY_LIFTS,
                    f"permission '{quoted(key)}' comes after twsrt's '{tools[0]}' rules and "
                    "matches the same calls, so it wins over their denies",
                    layer,
                    pointer_join("/permission", key),
                    NAME,
                )
            )
    return out


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
