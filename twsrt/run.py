"""The stages behind each command, as plain functions the CLI calls."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.agents import primary_key
from twsrt.agents.base import Context, Drift, Result
from twsrt.config import Config
from twsrt.diffs import View, opaque, render_diff
from twsrt.drift import drift_report
from twsrt.findings import Finding, fail
from twsrt.invocation import Invocation, open_invocation
from twsrt.locations import Location, display_path, git_root, repo_root
from twsrt.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Outcome
from twsrt.request import Request
from twsrt.rules import CONFIG_INVALID, TARGET_UNUSABLE
from twsrt.safeio import real
from twsrt.suppressions import unsuppressed
from twsrt.writes import Change, FileWrite, SymlinkWrite, apply, describe, preflight

if TYPE_CHECKING:
    from twsrt.scopes import ScopeRequest


@dataclass
class Compiled:
    config: Config
    mode_line: str = ""
    results: list[Result] = field(default_factory=list)
    companions: list[Result] = field(default_factory=list)  # other-mode files, written too
    context: Context | None = None  # the run context, for the effective-configuration check
    recovered: list[str] = field(default_factory=list)  # interrupted writes finished first
    # the policy's own findings (lints.py: contradictions, cross-fragment conflicts, ...), the
    # same check reports, so generate counts them as check does
    lints: list[Finding] = field(default_factory=list)
    invocation: Invocation | None = None

    @property
    def findings(self) -> list[Finding]:
        seen: dict[Finding, None] = dict.fromkeys([*self.config.scope_findings, *self.lints])
        for result in self.results:
            for item in result.findings:
                seen.setdefault(item, None)
        return sorted(seen, key=lambda f: (f.location, f.rule_id, f.message))

    @property
    def views(self) -> dict[str, View]:
        """How reports may show each target file (display -> view); a later result wins for
        the same file, as in ``write_plan``."""
        return {d.display: d.view for r in (*self.companions, *self.results) for d in r.drift}


def compile_agents(
    explicit_config: str | None,
    agent: str | None,
    yolo: bool,
    *,
    companions: bool = False,
    sandbox: str | None = None,
    repo_names: bool = False,
    scope: ScopeRequest | None = None,
    recover: bool = False,
    profile: str | None = None,
) -> Compiled:
    """``compile_invocation`` of the request these name (``repo_names``: as for
    ``invocation.find_config``; ``recover``: as for ``open_invocation``)."""
    request = Request(explicit_config, profile, scope, agent, yolo, sandbox, repo_names=repo_names)
    return compile_invocation(open_invocation(request, recover=recover), companions)


def compile_invocation(invocation: Invocation, companions: bool = False) -> Compiled:
    """Compile the selected agents; with ``companions``, also the other mode's files of agents
    whose yolo target is configured explicitly, so one ``generate -w`` leaves no target stale
    (the ``settings.json`` symlink still follows the requested mode)."""
    from twsrt.lints import lint_policy

    config, ctx = invocation.config, invocation.context
    compiled = Compiled(
        config,
        invocation.mode_line,
        context=ctx,
        recovered=list(invocation.recovered),
        lints=lint_policy(invocation.policy, config),
        invocation=invocation,
    )
    for name in invocation.agents:
        compiled.results.append(invocation.compile(name))
        for mode in invocation.modes(name)[1:] if companions else ():
            other = invocation.compile(name, mode)
            files: list[Change] = [c for c in other.changes if isinstance(c, FileWrite)]
            companion = Result(name, other.render_preview, changes=files, drift=other.drift)
            compiled.companions.append(companion)
    return compiled


def require_targets(compiled: Compiled, agent: str | None, printed: bool = False) -> list[Result]:
    """Results that have a target; an explicitly named agent without one is an error, unless
    ``printed`` (``generate -w``) and its output goes to stdout when the target is omitted."""
    usable = [r for r in compiled.results if r.target_configured]
    if printed and any(r.stdout for r in compiled.results):
        return usable
    if agent and not usable:
        key = primary_key(agent)
        raise fail(
            CONFIG_INVALID,
            f"no [targets] {key} configured for {agent}",
            compiled.config.location("/targets"),
        )
    return usable


def write_plan(results: list[Result], companions: list[Result] | None = None) -> list[Change]:
    """Every change once, checked before any write. A companion (the other mode's file) gives
    way to the requested mode's change of the same file; two results that write one file (also
    by two spellings of its directory) are refused, as one would silently overwrite the other."""
    by_path: dict[str, tuple[Change, bool]] = {}
    planned = [(c, True) for result in companions or [] for c in result.changes]
    planned += [(c, False) for result in results for c in result.changes]
    for change, companion in planned:
        path = change.link if isinstance(change, SymlinkWrite) else change.path
        key = os.path.join(os.path.realpath(path.parent), path.name)
        earlier = by_path.pop(key, None)
        if earlier is not None and not (earlier[1] or companion) and earlier[0] != change:
            message = f"is the same file as {earlier[0].display}; two targets would overwrite it"
            raise fail(TARGET_UNUSABLE, message, Location(change.display))
        by_path[key] = (change, companion)
    changes = [change for change, _ in by_path.values()]
    preflight([c for c in changes if c.changed])
    return changes


def dry_run_report(changes: list[Change], views: dict[str, View]) -> str:
    """What ``generate -n -w`` would do, with the diff of each file's managed projection
    (``views``: display -> view, from the drift of each compiled target)."""
    out = []
    for change in changes:
        if not change.changed:
            out.append(f"unchanged {change.display}\n")
            continue
        out.append(f"would {describe(change)}\n")
        if isinstance(change, FileWrite):
            view = views.get(change.display, opaque)
            out.append(render_diff(change.display, change.old, change.text, view))
    return "".join(out)


def write(changes: list[Change], journal_dir: Path | None = None) -> list[Change]:
    try:
        return apply(changes, journal_dir)
    except OSError as exc:
        where = Location(str(exc.filename or "target"))
        raise fail(TARGET_UNUSABLE, f"write failed: {exc.strerror or exc}", where) from None


def symlink_display(change: SymlinkWrite) -> str:
    return f"{change.display} -> {change.target}"


def change_display(change: Change) -> str:
    """A change as the run reports it: a symlink with its target, a file by its name."""
    return symlink_display(change) if isinstance(change, SymlinkWrite) else change.display


def notices(results: list[Result], out: Outcome) -> None:
    """Each result's notices (what the user must know about an agent) on stderr."""
    for result in results:
        for notice in result.notices:
            out.err(notice)


def diff(
    explicit_config: str | None,
    agent: str | None,
    yolo: bool,
    sandbox: str | None,
    scope: ScopeRequest | None = None,
    *,
    profile: str | None = None,
) -> Outcome:
    """``diff_outcome`` of the request these name (files named as ``check`` names them)."""
    return diff_outcome(Request(explicit_config, profile, scope, agent, yolo, sandbox))


def diff_outcome(request: Request) -> Outcome:
    """``twsrt diff``: each target's drift on stdout, exit code by ``diff_exit_code``."""
    from twsrt.rules import DANGER_FULL_ACCESS

    outcome = Outcome()
    with outcome.stopping() as out:
        invocation = open_invocation(request)
        compiled = compile_invocation(invocation)
        results = require_targets(compiled, request.agent)
        out.err(compiled.mode_line)
        # danger-full-access is loud on every run, diff included
        loud = [f for f in compiled.findings if f.rule_id == DANGER_FULL_ACCESS.id]
        out.findings(loud, False)
        out.findings(_effective(invocation, results), False)
        notices(compiled.results, out)
        fix = invocation.fix_command()
        for result in results:
            for drift in result.drift:
                out.out(f"{result.agent}: {drift_report(drift, compiled.config, fix)}")
        out.exit_code = diff_exit_code([d for r in results for d in r.drift])
    return outcome


def diff_exit_code(drifts: list[Drift]) -> int:
    """0: no drift, 1: drift, 2: a target file is missing (wins over drift)."""
    if any(d.missing_file for d in drifts):
        return EXIT_USAGE
    return EXIT_FINDINGS if any(d.drifted for d in drifts) else EXIT_OK


def _effective(invocation: Invocation, results: list[Result]) -> list[Finding]:
    """User keys that undo the policy (TWS6xx), minus the config's suppressions; diff prints
    them but keeps its drift exit code."""
    found = [f for r in results for f in invocation.effective(r.agent)]
    return unsuppressed(invocation.config, list(dict.fromkeys(found)))[0]


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


def edited(config: Config, name: str) -> Outcome:
    """After ``edit``: the source's findings on stderr, exit 1 when one is an error; a source
    that does not parse is the outcome's error (exit 2)."""
    from twsrt.findings import Level

    outcome = Outcome()
    with outcome.stopping() as out:
        findings = validate_source(config, name)
        out.findings(findings, True)
        out.exit_code = EXIT_FINDINGS if any(f.level is Level.ERROR for f in findings) else EXIT_OK
    return outcome


def validate_source(config: Config, name: str) -> list[Finding]:
    """After ``edit``: parse and schema-check one canonical source (a name ``source_path``
    knows), read and named as ``check`` reads and names it. A file that does not parse
    raises TwsrtError."""
    from twsrt.sources import read_json_source

    path, schema = source_path(config, name)
    where = real(config.path)
    confined = config.confined(git_root(where))
    return read_json_source(path, display_path(path, repo_root(where)), schema, confined)[1]


def editor_command() -> str:
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
