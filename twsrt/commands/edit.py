"""``twsrt edit [SOURCE]``: open one canonical source in ``$VISUAL``/``$EDITOR``, then validate it
as ``check`` reads it; without a source, list them."""

from __future__ import annotations

import os
from pathlib import Path

from twsrt.config import Config
from twsrt.findings import Finding, Level
from twsrt.invocation import find_config
from twsrt.locations import display_path, git_root, repo_root
from twsrt.outcome import EXIT_FINDINGS, EXIT_OK, Outcome, Refused
from twsrt.request import Request
from twsrt.safeio import real


def run(request: Request, source: str | None) -> Outcome:
    """The listing, or the editor's exit code when it fails, else the source's findings on
    stderr and exit 1 when one is an error; a source that does not parse is the outcome's
    error (exit 2), a name that is no source or an editor that cannot start is refused."""
    import shlex
    import subprocess

    outcome = Outcome()
    with outcome.stopping() as out:
        config = find_config(request.config, repo_names=True, profile=request.profile)
        if source is None:
            out.out(sources_listing(config))
            return outcome
        try:
            editor = shlex.split(editor_command()) or ["vi"]
        except ValueError as exc:
            raise Refused(f"cannot parse $VISUAL/$EDITOR: {exc}") from None
        try:
            command = [*editor, str(source_path(config, source)[0])]
        except EditRefused as exc:
            raise Refused(str(exc), param="'[SOURCE]'") from None
        try:
            code = subprocess.call(command)
        except OSError as exc:
            raise Refused(f"cannot start editor {command[0]!r}: {exc.strerror}") from None
        if code != EXIT_OK:  # the editor's own failure (or `:cq`): its exit code, nothing to check
            out.exit_code = code
            return outcome
        findings = validate_source(config, source)
        out.findings(findings, True)
        out.exit_code = EXIT_FINDINGS if any(f.level is Level.ERROR for f in findings) else EXIT_OK
    return outcome


def source_paths(config: Config) -> dict[str, Path]:
    """The canonical sources by the name ``edit`` takes: srt and bash, or with profiles every
    fragment file as ``<fragment>.srt`` / ``<fragment>.bash``."""
    if config.all_fragments:
        return {
            f"{name}.{'srt' if kind == 'srt' else 'bash'}": path
            for name, fragment in config.all_fragments.items()
            for kind, path in fragment.files()
        }
    return {"srt": config.srt, "bash": config.bash_rules}


def source_path(config: Config, name: str) -> tuple[Path, str]:
    """The file ``edit NAME`` opens and its schema ("srt" or "bash"). With profiles,
    ``srt``/``bash`` name the selected profile's one fragment file of that kind; several are
    refused, listing them."""
    paths = source_paths(config)
    if name in paths:
        return paths[name], name.rpartition(".")[2]
    if config.fragments and name in ("srt", "bash"):
        kind = "srt" if name == "srt" else "bash_rules"
        named = [f"{f.name}.{name}" for f in config.fragments if getattr(f, kind) is not None]
        if len(named) == 1:
            return paths[named[0]], name
        profile = config.selection.name if config.selection else ""
        raise EditRefused(
            f"profile {profile} composes {len(named)} {name} fragments; name one: "
            + ", ".join(named)
        )
    raise EditRefused(f"unknown source {name!r}; one of: " + ", ".join(paths))


class EditRefused(Exception):
    """``edit`` was given a name that is no source of this config (a usage error)."""


def sources_listing(config: Config) -> str:
    """``edit`` without a source: each one's path, and whether it is missing."""
    paths = source_paths(config)
    width = max(5, *(len(name) + 1 for name in paths))
    lines = []
    for name, path in paths.items():
        state = "" if path.exists() else "  (missing)"
        lines.append(f"{name:{width}} {config.display_path(path)}{state}\n")
    return "".join(lines)


def validate_source(config: Config, name: str) -> list[Finding]:
    """After ``edit``: parse and schema-check one canonical source (a name ``source_path``
    knows), read and named as ``check`` reads and names it. A file that does not parse
    raises TwsrtError."""
    from twsrt.sources import read_json_source

    path, schema = source_path(config, name)
    where = real(config.path)
    confined = config.confined(git_root(where))
    display = display_path(path, repo_root(where))
    # srt reads the srt source itself, never a fragment: comments only where srt does not read
    srt_reads = schema == "srt" and not config.all_fragments
    return read_json_source(path, display, schema, confined, srt_reads=srt_reads)[1]


def editor_command() -> str:
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
