"""The stages behind each command, as plain functions the CLI calls."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.agents import AGENTS, primary_key
from twsrt.agents.base import Context, Drift, Result
from twsrt.config import DEFAULT_SANDBOX_MODE, Config
from twsrt.configload import CONFIG_NAMES, discover, load_config, user_config_path
from twsrt.diffs import View, opaque, render_diff
from twsrt.drift import drift_report
from twsrt.findings import Finding, TwsrtError, fail
from twsrt.locations import Location, display_path, git_root, home_dir, repo_root
from twsrt.outcome import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Outcome
from twsrt.policy import Policy
from twsrt.report import profile_clause
from twsrt.rules import CONFIG_INVALID, CONFIG_NOT_FOUND, TARGET_UNUSABLE
from twsrt.safeio import real
from twsrt.sources import load_policy
from twsrt.suppressions import unsuppressed
from twsrt.writes import Change, FileWrite, SymlinkWrite, apply, describe, preflight

if TYPE_CHECKING:
    from twsrt.scopes import ScopeRequest


def find_config_error(home: Path, cwd: Path, display_root: Path | None = None) -> TwsrtError:
    """No config anywhere: located at the twsrt.toml the search would find first from every
    directory of the repository (its root; the working directory outside a repository), so
    an annotation or SARIF result has a file to stand on; named from ``display_root``
    (default: ``cwd``)."""
    return fail(
        CONFIG_NOT_FOUND,
        "no twsrt config found (looked for twsrt.toml or .twsrt.toml up to the git root, "
        f"then {display_path(user_config_path(home), display_root)}); run `twsrt init` to "
        "create one",
        Location(display_path(repo_root(cwd) / CONFIG_NAMES[0], display_root or cwd)),
    )


def find_config(
    explicit: str | None, *, repo_names: bool = False, scope: ScopeRequest | None = None
) -> Config:
    """The config the search finds. With ``repo_names`` (the CLI's generate, diff, edit and
    test), a config in a git repository names files as ``check`` does: relative to the
    repository root; else relative to the working directory (a library caller's own).
    ``scope``: ``--project DIR``/``--managed DIR`` (see ``scopes``)."""
    cwd = Path.cwd()
    home = home_dir()
    path = discover(explicit, cwd, home)
    if path is None:
        raise find_config_error(home, cwd)
    root = git_root(real(path)) if repo_names else None
    return load_config(path, home, cwd, display_root=root, scope=scope)


def select_agents(agent: str | None, config: Config) -> list[str]:
    """The named agent, else every agent with a target in the config (all when none has one);
    in a project or managed run, the agents with a file in that scope (``scopes.select``)."""
    if config.scope != "user":
        from twsrt.scopes import select

        return select(agent, config)
    if agent:
        return [agent]
    configured = [
        name
        for name, module in AGENTS.items()
        if any(key in config.targets for key in module.target_keys)
    ]
    return configured or list(AGENTS)


def context(config: Config, policy: Policy, yolo: bool, sandbox_flag: str | None) -> Context:
    """The run context: ``--sandbox`` wins over ``[sandbox] mode``, else workspace-write;
    ``--yolo`` in a project or managed run is a usage error (those files have no yolo twin)."""
    if yolo and config.scope != "user":
        from twsrt.scopes import refuse_yolo

        raise refuse_yolo(config)
    if sandbox_flag:
        return Context(config, policy, yolo, sandbox_flag, Location(config.display), True)
    if config.sandbox_mode:
        origin = config.location("/sandbox/mode")
        return Context(config, policy, yolo, config.sandbox_mode, origin)
    return Context(config, policy, yolo, DEFAULT_SANDBOX_MODE)


def mode_line(ctx: Context) -> str:
    """The resolved pair, as every preview and diff shows it (with the profile, when there
    is one); a project or managed run names its scope and root instead of an approval mode
    (its files apply in every mode)."""
    config = ctx.config
    clause = profile_clause(config.selection)
    if config.scope != "user" and config.scope_root is not None:
        where = config.display_path(config.scope_root) or "."
        return f"twsrt: {config.scope} scope {where}, sandbox mode {ctx.sandbox_mode}{clause}"
    return f"twsrt: approval mode {ctx.mode}, sandbox mode {ctx.sandbox_mode}{clause}"


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
) -> Compiled:
    """Compile the selected agents; with ``companions``, also the other mode's files of agents
    whose yolo target is configured explicitly, so one ``generate -w`` leaves no target stale
    (the ``settings.json`` symlink still follows the requested mode); ``repo_names``: as for
    ``find_config``; ``scope``: ``--project``/``--managed``; ``recover``: first finish what
    a killed ``generate -w`` of this config left half written (``journal``), before any
    target is read."""
    from twsrt.placement import guard

    config = find_config(explicit_config, repo_names=repo_names, scope=scope)
    recovered = []
    if recover:
        from twsrt.journal import recover as finish

        recovered = finish(config.path.parent)
    compiled = _compile(config.confined(guard(config, yolo)), agent, yolo, companions, sandbox)
    compiled.recovered = recovered
    return compiled


def _compile(
    config: Config, agent: str | None, yolo: bool, companions: bool, sandbox: str | None
) -> Compiled:
    policy = load_policy(config)
    ctx = context(config, policy, yolo, sandbox)
    from twsrt.lints import lint_policy

    compiled = Compiled(config, mode_line(ctx), context=ctx, lints=lint_policy(policy, config))
    for name in select_agents(agent, config):
        module = AGENTS[name]
        compiled.results.append(module.compile(ctx))
        has_yolo_target = any(
            t.yolo_of is not None and t.key in config.targets for t in module.spec.targets
        )
        if companions and has_yolo_target:
            other = module.compile(replace(ctx, yolo=not yolo))
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


def fix_command(ctx: Context) -> str:
    """The ``generate`` run that rewrites what a run in ``ctx`` compared: same approval mode
    and, when chosen on the command line, the same sandbox mode, profile and scope."""
    command = "twsrt generate -w"
    if ctx.yolo:
        command += " --yolo"
    if ctx.sandbox_flag:
        command += f" --sandbox {ctx.sandbox_mode}"
    selection = ctx.config.selection
    if selection is not None and selection.chosen_by == "--profile":
        command += f" --profile {selection.name}"
    config = ctx.config
    if config.scope_by_option and config.scope_root is not None:  # --project / --managed DIR
        import shlex

        command += f" --{config.scope} {shlex.quote(config.display_path(config.scope_root))}"
    return command


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
) -> Outcome:
    """``twsrt diff``: each target's drift on stdout, exit code by ``diff_exit_code``; files
    named as ``check`` names them."""
    from twsrt.rules import DANGER_FULL_ACCESS

    outcome = Outcome()
    with outcome.stopping() as out:
        compiled = compile_agents(
            explicit_config, agent, yolo, sandbox=sandbox, repo_names=True, scope=scope
        )
        results = require_targets(compiled, agent)
        out.err(compiled.mode_line)
        # danger-full-access is loud on every run, diff included
        loud = [f for f in compiled.findings if f.rule_id == DANGER_FULL_ACCESS.id]
        out.findings(loud, False)
        out.findings(_effective(compiled, results), False)
        notices(compiled.results, out)
        fix = fix_command(compiled.context) if compiled.context else "twsrt generate -w"
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


def _effective(compiled: Compiled, results: list[Result]) -> list[Finding]:
    """User keys that undo the policy (TWS6xx), minus the config's suppressions; diff prints
    them but keeps its drift exit code."""
    from twsrt.agents import effective_findings

    assert compiled.context is not None  # compile_agents always sets it
    found = [f for r in results for f in effective_findings(compiled.context, r.agent)]
    return unsuppressed(compiled.config, list(dict.fromkeys(found)))[0]


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
