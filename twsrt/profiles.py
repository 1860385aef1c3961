"""[fragments] and [profiles] in the config: which fragments the run composes, and why.

A profile names fragments (``extends``) and may override [targets] key by key; one profile is
selected per run: ``--profile``, ``$TWSRT_PROFILE``, the one profile whose ``hosts`` match this
machine, the ``profile`` default. Every mistake is a finding at its config entry (TWS014,
TWS015); the files themselves are read and composed by ``sources``/``compose``.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import replace
from pathlib import Path
from typing import Any

from twsrt.config import PROFILE_ENV, Config, Fragment, Selection, resolve_path
from twsrt.findings import Finding, TwsrtError, finding, quoted
from twsrt.locations import Location, pointer_join
from twsrt.rules import PROFILE_INVALID, PROFILE_NOT_SELECTED
from twsrt.wildcard import fnmatch


def host_names() -> list[str]:
    """This machine's names a ``hosts`` pattern is matched against: the full name and, when it
    has a domain, the short one (lower case; no DNS lookup, twsrt stays offline)."""
    full = socket.gethostname().lower()
    short = full.split(".", 1)[0]
    return [full] if short == full else [full, short]


def apply_profiles(config: Config, data: dict[str, Any], flag: str | None) -> Config:
    """``config`` with the selected profile's fragments, targets and selection."""
    profiles: dict[str, Any] = data.get("profiles", {})
    problems = _structure(config, data)
    fragments = {
        name: Fragment(
            name,
            _path(config, table.get("srt")),
            _path(config, table.get("bash_rules")),
        )
        for name, table in data.get("fragments", {}).items()
    }
    for name, table in profiles.items():
        problems += _profile_problems(config, name, table, fragments)
    if problems:
        raise TwsrtError(problems)
    selection = select(config, data, flag)
    table = profiles[selection.name]
    chosen = tuple(fragments[name] for name in table["extends"])
    targets = dict(config.targets)
    aliases = {}
    for key, raw in table.get("targets", {}).items():
        targets[key] = config.resolve(raw)
        aliases[pointer_join("/targets", key)] = pointer_join(
            pointer_join(pointer_join("/profiles", selection.name), "targets"), key
        )
    srt = next(f.srt for f in chosen if f.srt is not None)
    bash = next(f.bash_rules for f in chosen if f.bash_rules is not None)
    return replace(
        config,
        srt=srt,
        bash_rules=bash,
        targets=targets,
        selection=selection,
        fragments=chosen,
        all_fragments=fragments,
        aliases=aliases,
    )


def item_locations(config: Config, pointer: str, items: list[str]) -> list[Location]:
    """Each string of the config array at ``pointer``: the TOML positions name the array, so
    each item's quoted text is looked for after the previous one (the array's own position
    when it cannot be found, as for a multi-line string)."""
    array = config.location(pointer)
    positions = config.positions
    if positions is None or not array.line:
        return [array] * len(items)
    index = positions.index
    offset = index.starts[array.line - 1] + array.column - 1
    out = []
    for number, item in enumerate(items):
        spellings = (json.dumps(item, ensure_ascii=False), f"'{item}'")
        found = [(at, len(q)) for q in spellings if (at := positions.text.find(q, offset)) >= 0]
        if not found:
            out.append(array)
            continue
        offset, length = min(found)
        line, col = index.line_col(offset)  # a quoted string found on one line: no newline
        out.append(Location(array.path, line, col, f"{pointer}/{number}", line, col + length))
        offset += 1
    return out


def _path(config: Config, raw: str | None) -> Path | None:
    return None if raw is None else resolve_path(raw, config.path.parent, config.home)


def _structure(config: Config, data: dict[str, Any]) -> list[Finding]:
    """The tables that cannot stand together."""
    found = []
    if "profiles" not in data:
        for key in ("fragments", "profile"):
            if key in data:
                message = f"'{key}' needs a [profiles] table that composes the fragments"
                found.append(finding(PROFILE_INVALID, message, config.location(f"/{key}")))
    elif "sources" in data:
        message = (
            "[sources] names the one policy of a config without profiles; with [profiles], "
            "name the files in [fragments] tables and list them in each profile's extends"
        )
        found.append(finding(PROFILE_INVALID, message, config.location("/sources")))
    elif not data["profiles"]:
        found.append(
            finding(PROFILE_INVALID, "[profiles] defines no profile", config.location("/profiles"))
        )
    return found


def _profile_problems(
    config: Config, name: str, table: dict[str, Any], fragments: dict[str, Fragment]
) -> list[Finding]:
    pointer = pointer_join(pointer_join("/profiles", name), "extends")
    extends: list[str] = table.get("extends", [])
    if not extends:
        where = config.location(pointer if "extends" in table else pointer.rsplit("/", 1)[0])
        return [finding(PROFILE_INVALID, f"profile '{quoted(name)}' extends no fragment", where)]
    found = []
    seen: set[str] = set()
    for fragment, where in zip(extends, item_locations(config, pointer, extends), strict=True):
        if fragment in seen:
            message = f"profile '{quoted(name)}' extends fragment '{quoted(fragment)}' twice"
            found.append(finding(PROFILE_INVALID, message, where))
        elif fragment not in fragments:
            known = ", ".join(sorted(fragments)) or "none"
            message = (
                f"profile '{quoted(name)}' extends fragment '{quoted(fragment)}', which "
                f"[fragments] does not define (fragments: {known})"
            )
            found.append(finding(PROFILE_INVALID, message, where))
        seen.add(fragment)
    if found:
        return found
    for kind, what in (("srt", "an srt file"), ("bash_rules", "a bash rules file")):
        if not any(getattr(fragments[f], kind) is not None for f in extends):
            message = (
                f"profile '{quoted(name)}' composes no {kind} file: none of its fragments "
                f"names {what} (a fragment may name one holding empty lists)"
            )
            found.append(finding(PROFILE_INVALID, message, config.location(pointer)))
    return found


def select(config: Config, data: dict[str, Any], flag: str | None) -> Selection:
    """The profile this run composes, in the documented order."""
    profiles: dict[str, Any] = data["profiles"]
    listing = ", ".join(profiles)
    everywhere = config.location(pointer_join("/profiles", next(iter(profiles))))
    for name, chosen_by in ((flag, "--profile"), (os.environ.get(PROFILE_ENV), f"${PROFILE_ENV}")):
        if name:
            if name not in profiles:
                message = (
                    f"profile '{quoted(name)}' named by {chosen_by} is not defined "
                    f"(profiles: {listing})"
                )
                raise TwsrtError(finding(PROFILE_NOT_SELECTED, message, everywhere))
            return Selection(name, chosen_by, config.location(pointer_join("/profiles", name)))
    matched = _host_matches(config, profiles)
    if len(matched) > 1:
        (first, host, pattern, where), (other, _, other_pattern, other_where) = matched[:2]
        message = (
            f"host {host} matches hosts of two profiles: '{quoted(pattern)}' of {first} and "
            f"'{quoted(other_pattern)}' of {other} (at {other_where}); choose one with "
            f"--profile or ${PROFILE_ENV}"
        )
        raise TwsrtError(finding(PROFILE_NOT_SELECTED, message, where, related=(other_where,)))
    if matched:
        name, host, pattern, where = matched[0]
        return Selection(name, "hosts", where, host, pattern)
    default = data.get("profile")
    if default is not None:
        where = config.location("/profile")
        if default not in profiles:
            message = f"default profile '{quoted(default)}' is not defined (profiles: {listing})"
            raise TwsrtError(finding(PROFILE_NOT_SELECTED, message, where))
        return Selection(default, "default", where)
    message = (
        f"no profile selected: name one with --profile or ${PROFILE_ENV}, match this host "
        f"({host_names()[0]}) in a profile's hosts, or set profile = ... (profiles: {listing})"
    )
    raise TwsrtError(finding(PROFILE_NOT_SELECTED, message, everywhere))


def _host_matches(config: Config, profiles: dict[str, Any]) -> list[tuple[str, str, str, Location]]:
    """(profile, host, pattern, location) of the first matching hosts entry of each profile."""
    names = host_names()
    matched = []
    for name, table in profiles.items():
        patterns = table.get("hosts", [])
        pointer = pointer_join(pointer_join("/profiles", name), "hosts")
        for pattern, where in zip(patterns, item_locations(config, pointer, patterns), strict=True):
            host = next((h for h in names if fnmatch(h.lower(), pattern.lower())), None)
            if host is not None:
                matched.append((name, host, pattern, where))
                break
    return matched
