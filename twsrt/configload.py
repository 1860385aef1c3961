"""Find, read and validate the twsrt config (``config.toml`` / ``twsrt.toml``) into its value
(``config.Config``): discovery, the TOML and its schema, profiles, the scope, and the placement
refusals that stop a run at load. It stands above the registry, whose agents name the keys."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.agents import target_specs
from twsrt.config import MODES, Config, resolve_path
from twsrt.findings import TwsrtError, fail
from twsrt.locations import Location, ancestors, display_path
from twsrt.placement import refusals
from twsrt.rules import CONFIG_INVALID
from twsrt.safeio import FileProblem, read_text
from twsrt.schemas import validate
from twsrt.scopes import apply_scope
from twsrt.tomlpos import PositionedToml, TomlSyntaxError, parse_toml

if TYPE_CHECKING:
    from twsrt.scopes import ScopeRequest

CONFIG_NAMES = ("twsrt.toml", ".twsrt.toml")
DEFAULT_SOURCES = {
    "srt": "~/.srt-settings.json",
    "bash_rules": "~/.config/twsrt/bash-rules.json",
}
EMPTY_CONFIG = (
    "the config is empty (no [sources], no [targets]): run `twsrt init` for a starter config "
    "in ~/.config/twsrt, or `twsrt init --repo DIR` for a dotfiles repository"
)


def user_config_path(home: Path) -> Path:
    return home / ".config" / "twsrt" / "config.toml"


def discover(
    explicit: str | None, cwd: Path, home: Path, display_root: Path | None = None
) -> Path | None:
    """The config file to use, in the documented order; ``None`` when there is none.

    ``-c`` then ``$TWSRT_CONFIG`` (both must exist), then the nearest ``twsrt.toml`` or
    ``.twsrt.toml`` from ``cwd`` up to the git root (only ``cwd`` outside a repository), then
    ``~/.config/twsrt/config.toml``. A missing named file is reported relative to
    ``display_root`` (default: ``cwd``).
    """
    named = explicit or os.environ.get("TWSRT_CONFIG") or None
    if named:
        path = Path(named).expanduser()
        path = path if path.is_absolute() else cwd / path
        origin = "-c/--config" if explicit else "$TWSRT_CONFIG"
        if not os.path.lexists(path) or path.is_dir():
            what = "is a directory" if path.is_dir() else "does not exist"
            where = Location(display_path(path, display_root or cwd))
            raise fail(CONFIG_INVALID, f"config file named by {origin} {what}", where)
        return path  # anything else (a FIFO, a loop) is refused with its reason when read
    for directory in _search_dirs(cwd):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if os.path.lexists(candidate) and not candidate.is_dir():
                return candidate
    fallback = user_config_path(home)
    return fallback if os.path.lexists(fallback) and not fallback.is_dir() else None


def _search_dirs(cwd: Path) -> list[Path]:
    chain = ancestors(cwd)
    for index, directory in enumerate(chain):
        if (directory / ".git").exists():
            return chain[: index + 1]
    return [cwd]


def load_config(
    path: Path,
    home: Path,
    cwd: Path | None = None,
    display_root: Path | None = None,
    scope: ScopeRequest | None = None,
    profile: str | None = None,
) -> Config:
    """The config at ``path``; ``display_root`` (default: ``cwd``) is where the run names
    files from (see ``Config.display_root``); ``scope``: ``--project``/``--managed`` (see
    ``scopes``); ``profile``: the profile asked for by name (default: the CLI's --profile),
    see ``twsrt.profiles``."""
    display = display_path(path, display_root or cwd)
    parsed = _parsed(path, display)
    data = parsed.value
    config = _value(path, display, home, parsed, display_root, by_option=scope is not None)
    if any(key in data for key in ("profiles", "fragments", "profile")):
        from twsrt.profiles import apply_profiles  # socket and all: only for profiles (start-up)

        config = apply_profiles(config, data, profile)
    if scope is None and "project" not in data and "managed" not in data:
        config = _user_scope(config)
    else:
        config = apply_scope(config, data, scope)
    refused = refusals(config)
    if refused:
        raise TwsrtError(refused)
    return config


def _parsed(path: Path, display: str) -> PositionedToml:
    """The config's TOML, positioned and valid against the config schema."""
    try:
        text = read_text(path)
    except FileProblem as exc:
        message = f"cannot read config: {exc.reason}"
        raise fail(CONFIG_INVALID, message, Location(display)) from None
    try:
        parsed = parse_toml(text)
    except TomlSyntaxError as exc:
        location = Location(display, exc.line, exc.column)
        raise fail(CONFIG_INVALID, f"invalid TOML: {exc.message}", location) from None
    if not parsed.value:  # nothing but blanks and comments: every source and target defaulted
        raise fail(CONFIG_INVALID, EMPTY_CONFIG, Location(display, 1, 1))
    findings = validate("config", parsed.value, display, parsed)
    if findings:
        raise TwsrtError(findings)
    return parsed


def _value(
    path: Path,
    display: str,
    home: Path,
    parsed: PositionedToml,
    display_root: Path | None,
    by_option: bool,
) -> Config:
    """The config as its file says it, before profiles and scope narrow it."""
    data = parsed.value
    sources = {**DEFAULT_SOURCES, **data.get("sources", {})}
    base = path.parent
    return Config(
        path=path,
        display=display,
        home=home,
        srt=resolve_path(sources["srt"], base, home),
        bash_rules=resolve_path(sources["bash_rules"], base, home),
        targets={k: resolve_path(v, base, home) for k, v in data.get("targets", {}).items()},
        overrides={mode: dict(data.get("sandbox_overrides", {}).get(mode, {})) for mode in MODES},
        positions=parsed,
        pinned_home=data.get("home"),
        checkout=data.get("checkout"),
        check=dict(data.get("check", {})),
        sandbox_mode=data.get("sandbox", {}).get("mode"),
        display_root=display_root,
        scope_by_option=by_option,
    )


def _user_scope(config: Config) -> Config:
    """A user-scope run keeps only the user keys of [targets] (scopes.py does the rest)."""
    scoped = {target.key for target in target_specs() if target.scope != "user"}
    if scoped.isdisjoint(config.targets):
        return config
    return replace(config, targets={k: v for k, v in config.targets.items() if k not in scoped})
