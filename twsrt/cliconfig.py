"""The options of every command that reads the config: ``-c/--config FILE`` and ``--profile
NAME``. Imports only click: the CLI loads it on every run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


def _profile_chosen(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """``--profile NAME`` holds for the command's run (``twsrt.config.PROFILE_OPTION``), so
    every stage that loads the config sees it without a parameter in each signature; given
    to the group (``twsrt --profile P check``) or to the command."""
    if value is None:
        return
    from twsrt.config import PROFILE_OPTION

    token = PROFILE_OPTION.set(value)
    ctx.call_on_close(lambda: PROFILE_OPTION.reset(token))


def config_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``-c/--config FILE`` (passed as ``config``) and ``--profile NAME`` (kept, see above)."""
    func = click.option(
        "--profile",
        metavar="NAME",
        expose_value=False,
        callback=_profile_chosen,
        help="Profile of the config's [profiles] to compose (default: $TWSRT_PROFILE, a hosts "
        "match, then the config's profile).",
    )(func)
    return click.option(
        "-c",
        "--config",
        "config",
        metavar="FILE",
        help="twsrt config file (default: $TWSRT_CONFIG, nearest twsrt.toml, "
        "~/.config/twsrt/config.toml).",
    )(func)
