"""What generate, diff and init's scaffold share: every selected agent of an invocation compiled
(``compile_invocation``: companions by ``Invocation.modes``), the results that have a target,
the write plan checked before any write, the dry-run diff, the writes, the notices."""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path

from twsrt.agents import primary_key
from twsrt.agents.base import Context, Result
from twsrt.config import Config
from twsrt.diffs import View, opaque, render_diff
from twsrt.findings import Finding, fail
from twsrt.invocation import Invocation
from twsrt.locations import Location
from twsrt.outcome import Outcome
from twsrt.records import record
from twsrt.rules import CONFIG_INVALID, TARGET_UNUSABLE
from twsrt.writes import Change, FileWrite, SymlinkWrite, apply, describe, preflight


@record(frozen=False)
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
