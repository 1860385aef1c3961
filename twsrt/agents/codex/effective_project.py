"""Codex's project layer as Codex loads it: what the user's ``config.toml`` on this machine
decides about the ``.codex/config.toml`` twsrt writes into a project.

Observed with Codex 0.171.0 (tests/real/test_codex_project.py): the layer of a directory is
read only when the user's config.toml has ``[projects."<dir>"] trust_level = "trusted"`` for
its real path, or, without an entry of its own, for its project root (the nearest directory at
or above it with a ``project_root_markers`` marker, ``.git``); without a marker, only a Codex
started in the directory itself reads it. A ``[permissions.twsrt-project]`` table of the
user's is merged under the project's, adding its entries to the project profile. These are
facts about this machine, so they are findings only, never an output change.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from twsrt.agents.base import Context
from twsrt.agents.codex.profile_files import PROFILE_SUFFIX, profile_files
from twsrt.agents.codex.project import CONFIG_KEY, PROJECT_PROFILE
from twsrt.agents.codex.rules import CODEX_PROJECT_NOT_LOADED, CODEX_PROJECT_PROFILE_MERGED
from twsrt.effective import Layer, load_layer, report
from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location

NAME = "codex"
TRUSTED = "trusted"
DEFAULT_ROOT_MARKERS = (".git",)  # Codex's project_root_markers when the user sets none


def user_config_path(config_home: Path) -> Path:
    """The user's Codex config.toml on this machine: ``$CODEX_HOME``, else ``~/.codex``."""
    codex_home = os.environ.get("CODEX_HOME")
    return (
        Path(codex_home) / "config.toml" if codex_home else config_home / ".codex" / "config.toml"
    )


def findings(ctx: Context) -> list[Finding]:
    project_config = ctx.config.targets.get(CONFIG_KEY)
    root = ctx.config.scope_root
    if project_config is None or root is None:
        return []
    # the user's own file lies outside the project (and any repository): read it where it is,
    # as a file of the user's scope, unconfined
    config = replace(ctx.config, scope="user", confine_root=None)
    user, out = load_layer(user_config_path(ctx.config.home), "toml", NAME, config, ctx.documents)
    if user is None:
        return out  # no Codex config on this machine (CI): nothing loads the layer here
    real_root = Path(os.path.realpath(root))
    layer = _selected_at(ctx, project_config)
    marked = _marked_root(user, real_root)
    trust, trusted_by = _trust(user, str(real_root), marked, layer)
    out += trust
    if trusted_by is not None and not (ctx.read_only or ctx.full_access):
        from twsrt.agents.codex.effective_trust import planted_findings

        out += planted_findings(user, ctx.policy, ctx.config.home, [trusted_by], project=True)
    if marked is None:
        out.append(_no_marker(user, real_root, layer))
    out += _merged_profile(user, layer, "")
    for path in profile_files(user.path):  # `codex --profile NAME` loads NAME.config.toml too
        profile, problems = load_layer(path, "toml", NAME, config, ctx.documents)
        out += problems
        if profile is not None:
            out += _merged_profile(profile, layer, path.name[: -len(PROFILE_SUFFIX)])
    return out


def _merged_profile(user: Layer, layer: Location, profile: str) -> list[Finding]:
    """A table of the project profile's name in one of the user's files (``profile``: the
    ``codex --profile`` name of a profile file, empty for config.toml)."""
    tables = user.value.get("permissions")
    if not (isinstance(tables, dict) and PROJECT_PROFILE in tables):
        return []
    runs = f"`codex --profile {profile}` merges" if profile else "Codex merges"
    return [
        report(
            CODEX_PROJECT_PROFILE_MERGED,
            f"{user.display} defines [permissions.{PROJECT_PROFILE}], which {runs} under the "
            f"profile of {layer.path}: its entries are added to the project policy",
            user,
            _first_entry(tables[PROJECT_PROFILE], f"/permissions/{PROJECT_PROFILE}"),
            NAME,
            [layer],
        )
    ]


def _selected_at(ctx: Context, project_config: Path) -> Location:
    """Where the project layer selects its profile (the file itself before it is generated;
    an unreadable file is the compile's to report)."""
    layer, _ = load_layer(project_config, "toml", NAME, ctx.config, ctx.documents)
    if layer is not None and isinstance(layer.value, dict) and "default_permissions" in layer.value:
        return layer.at("/default_permissions")
    return Location(ctx.config.display_path(project_config))


def _trust(
    user: Layer, root: str, marked: Path | None, layer: Location
) -> tuple[list[Finding], str | None]:
    """The trust Codex gives the layer's directory: its own ``[projects]`` entry, else its
    project root's (the nearest directory with a marker); no other directory counts. Returns
    the findings and the key of the entry that trusts it (None when none does)."""
    projects = user.value.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    keys = [root] + ([str(marked)] if marked is not None and str(marked) != root else [])
    for key in keys:
        entry: Any = projects.get(key)
        level = entry.get("trust_level") if isinstance(entry, dict) else None
        if level == TRUSTED:
            return [], key
        if isinstance(level, str):
            untrusted = [
                report(
                    CODEX_PROJECT_NOT_LOADED,
                    f"'{quoted(key)}' is trusted as '{quoted(level)}', so Codex ignores "
                    f"{layer.path} and its rules: the project policy is not applied",
                    user,
                    f"/projects/{_escaped(key)}/trust_level",
                    NAME,
                    [layer],
                )
            ]
            return untrusted, None
    missing = [
        finding(
            CODEX_PROJECT_NOT_LOADED,
            f"{user.display} does not trust '{quoted(root)}' ([projects.\"...\"] trust_level = "
            f'"{TRUSTED}"), so Codex ignores {layer.path} and its rules: the project policy is '
            "not applied",
            layer,
            agent=NAME,
            related=(Location(user.display),),
        )
    ]
    return missing, None


def _markers(user: Layer) -> list[str]:
    markers = user.value.get("project_root_markers", list(DEFAULT_ROOT_MARKERS))
    if not isinstance(markers, list):
        return list(DEFAULT_ROOT_MARKERS)
    return [m for m in markers if isinstance(m, str)]  # []: the launch directory is the root


def _marked_root(user: Layer, root: Path) -> Path | None:
    """Codex's project root for a launch in ``root``: the nearest directory at or above it that
    holds a project root marker; None without one (Codex then takes the launch directory)."""
    markers = _markers(user)
    for directory in (root, *root.parents):
        if any((directory / marker).exists() for marker in markers):
            return directory
    return None


def _no_marker(user: Layer, root: Path, layer: Location) -> Finding:
    named = ", ".join(f"'{quoted(m)}'" for m in _markers(user)) or "no marker"
    return finding(
        CODEX_PROJECT_NOT_LOADED,
        f"neither '{quoted(str(root))}' nor a directory above it has a project root marker "
        f"({named}), so Codex loads {layer.path} only when it starts in that directory itself, "
        "not in a subdirectory",
        layer,
        agent=NAME,
    )


def _first_entry(table: Any, pointer: str) -> str:
    """The pointer of the table's first value that is not a table: a line of its own (a table
    made only by a header below it, ``[a.b.c]``, has no line of its own)."""
    while isinstance(table, dict) and table:
        key, table = next(iter(table.items()))
        pointer = f"{pointer}/{_escaped(key)}"
    return pointer


def _escaped(key: str) -> str:
    """A JSON pointer token for a key (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")
