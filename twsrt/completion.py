"""Shell completion and name suggestions for the CLI: the values click's completion script asks
for (``twsrt completion SHELL``; ``_TWSRT_COMPLETE`` set) that depend on the catalog or the
config, and "did you mean" for a misspelt name. A config that cannot be read completes nothing:
completion never prints an error."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import click

from twsrt.agents import AGENTS


def did_you_mean(value: str, names: Sequence[str]) -> str:
    """``; did you mean 'codex'?`` for the name closest to ``value``, or nothing."""
    import difflib  # only for a name that is wrong

    close = difflib.get_close_matches(value, names, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _matching(names: Iterable[str], incomplete: str) -> list[Any]:
    from click.shell_completion import CompletionItem

    return [CompletionItem(name) for name in names if name.startswith(incomplete)]


def _given(ctx: click.Context | None, name: str) -> Any:
    """An option as the command line gave it so far, to the command or before it to the group."""
    while ctx is not None:
        if ctx.params.get(name) is not None:
            return ctx.params[name]
        ctx = ctx.parent
    return None


def complete_rules(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    from twsrt.rules import CATALOG

    if incomplete[:1].isupper() or incomplete.upper().startswith("TWS"):
        return _matching(CATALOG, incomplete.upper())
    return _matching([rule.name for rule in CATALOG.values()], incomplete)


def complete_sources(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    from twsrt.commands.edit import source_paths
    from twsrt.invocation import find_config

    try:
        config = find_config(_given(ctx, "config"), repo_names=True, profile=_given(ctx, "profile"))
    except Exception:  # noqa: BLE001 - no usable config: nothing to complete
        return []
    names = list(source_paths(config))
    return _matching([*names, "srt", "bash"] if config.fragments else names, incomplete)


def complete_profiles(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    import tomllib

    from twsrt.configload import discover
    from twsrt.locations import home_dir
    from twsrt.safeio import read_text

    try:
        path = discover(_given(ctx, "config"), Path.cwd(), home_dir())
        profiles = tomllib.loads(read_text(path)).get("profiles") if path else None
    except Exception:  # noqa: BLE001 - no readable config: nothing to complete
        return []
    return _matching(sorted(profiles) if isinstance(profiles, dict) else [], incomplete)


def complete_agent_list(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    """``--agents claude,co<TAB>``: the next name of the comma-separated list."""
    done, comma, _ = incomplete.rpartition(",")
    chosen = done.split(",") if comma else []
    # 'all' stands alone; each agent once
    names = [name for name in AGENTS if name not in chosen] if chosen else [*AGENTS, "all"]
    return _matching([done + comma + name for name in names], incomplete)


class _ProfileName(click.types.StringParamType):
    """``--profile NAME``: any text, completed from the config's ``[profiles]``."""

    def shell_complete(self, ctx: click.Context, param: click.Parameter, incomplete: str) -> Any:
        return complete_profiles(ctx, param, incomplete)


def complete_profile_options(cli: click.Group) -> None:
    """Every ``--profile`` (``exits.config_option``, on the group and on each command) completes
    the config's profile names."""
    for command in (cli, *cli.commands.values()):
        for param in command.params:
            if param.name == "profile":
                param.type = _ProfileName()
