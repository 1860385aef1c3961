"""What OpenCode and Kilo Code CLI share beyond the grammar: the findings about a project's
own config files and about a managed file that is not final (moved out of
``opencodegrammar``, which keeps the translation)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twsrt.agents.opencode.rules import (
    OPENCODE_MANAGED_NOT_FINAL,
    OPENCODE_PROJECT_LAYER,
    OPENCODE_PROJECT_LAYER_GRANTS,
    OPENCODE_PROJECT_MERGED,
)
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import pointer_join

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.config import Config

from twsrt.agents.opencodegrammar import DENY, PERMISSION_TOOLS, grants, matches


def project_layer_findings(
    ctx: Context, names: tuple[str, ...], own_key: str, agent: str, label: str
) -> list[Finding]:
    """Each project file of ``names`` (relative to the project root; project scope only) but
    the ones twsrt writes in this run (``own_key``, and OpenCode's for Kilo) whose
    ``permission`` allows or asks for one of twsrt's tools (TWS647), at the entry: the agent
    merges it after the user's file."""
    from twsrt.agents.base import read_target
    from twsrt.effective import Layer, report
    from twsrt.findings import TwsrtError
    from twsrt.jsonpos import JsonSyntaxError, parse_jsonc

    root = ctx.config.scope_root
    if ctx.config.scope != "project" or root is None:
        return []
    # twsrt's own project files of this run (Kilo also loads the opencode.json it writes for
    # OpenCode, from the same policy)
    own = {own_key, *(f"{name}_project" for name in ctx.config.scope_agents)}
    written = {ctx.config.targets[key].absolute() for key in own if key in ctx.config.targets}
    out: list[Finding] = []
    for name in names:
        path = root / name
        if path.absolute() in written:
            continue
        display = ctx.config.display_path(path)
        try:
            text = read_target(path, display, ctx.config, ctx.documents)
            parsed = None if text is None else parse_jsonc(text)
        except (TwsrtError, JsonSyntaxError):
            continue
        if parsed is None or not isinstance(parsed.value, dict):
            continue
        layer = Layer(path, display, parsed.value, parsed)
        permission = parsed.value.get("permission")
        if isinstance(permission, str):
            permission = {"*": permission}
        if not isinstance(permission, dict):
            continue
        for key, value in permission.items():
            if not any(matches(tool, key) for tool in PERMISSION_TOOLS) or not grants(value):
                continue
            pointer = pointer_join("/permission", key)
            entries = value.items() if isinstance(value, dict) else [(None, value)]
            for pattern, action in entries:
                if action == DENY:
                    continue
                where = pointer if pattern is None else pointer_join(pointer, pattern)
                spelled = key if pattern is None else f"{key} {pattern}"
                out.append(
                    report(
                        OPENCODE_PROJECT_LAYER_GRANTS,
                        f"{label} loads this project file after the user's and merges "
                        f"permission '{quoted(spelled)}': {quoted(str(action))} over twsrt's "
                        "rules, which lifts the denies (and asks) it matches",
                        layer,
                        where,
                        agent,
                    )
                )
    return out


def project_findings(
    config: Config, key: str, agent: str, label: str, prefix: str
) -> list[Finding]:
    """Where the project file binds (TWS670) and what still outranks it (TWS671), at the
    target key; shared with Kilo (``prefix`` spells its variables)."""
    where = config.location(f"/targets/{key}")
    display = config.display_path(config.targets[key])
    return [
        finding(
            OPENCODE_PROJECT_LAYER,
            f"{label} loads {display} when it starts in the project root or a directory "
            "below it (up to the git root); started elsewhere, only the user's and the "
            "managed config bind",
            where,
            agent=agent,
        ),
        finding(
            OPENCODE_PROJECT_MERGED,
            f"{label} merges {display} into the user's config key by key: a user rule written "
            "after a pattern this file denies keeps winning for the calls it matches, "
            f"{prefix}_DISABLE_PROJECT_CONFIG=1 drops the file and {prefix}_PERMISSION is "
            "merged after it; the user's config must not allow more",
            where,
            agent=agent,
        ),
    ]


def not_final(config: Config, key: str, agent: str, label: str, prefix: str) -> Finding:
    """What still beats the managed file (TWS673), at its first target key; shared with Kilo
    (``prefix`` spells its variable)."""
    return finding(
        OPENCODE_MANAGED_NOT_FINAL,
        f"{label}'s managed config is merged after the user's and the project's files, but "
        f"{prefix}_PERMISSION is merged after it, and a user or project object that already "
        "has one of its patterns keeps it in its own place, so a more specific allow written "
        "after it there still wins; keep the variable out of the users' environment",
        config.location(f"/targets/{key}"),
        agent=agent,
    )
