"""``twsrt check``: every problem with the policy and its targets, as findings (read-only)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.agents import AGENTS
from twsrt.agents.base import Context, Drift, DriftItem, Result
from twsrt.config import (
    Config,
    discover,
    git_root,
    home_dir,
    load_config,
    repo_root,
)
from twsrt.diffs import line_opcodes, render_diff
from twsrt.effective import effective_findings
from twsrt.findings import MESSAGE_LIMIT, Finding, Level, TwsrtError, fail, finding, quoted
from twsrt.lints import lint_policy
from twsrt.locations import Location
from twsrt.outcome import Outcome
from twsrt.policy import Policy
from twsrt.redact import redact_item, redact_key
from twsrt.report import CheckedFile, CheckReport, Suppression
from twsrt.rules import (
    DRIFT_CHANGED,
    DRIFT_OUT_OF_BAND,
    DRIFT_UNAPPLIED,
    DRIFT_UNPINNED_HOME,
    IGNORE_NOT_ALLOWED,
    TARGET_MISSING,
)
from twsrt.run import (
    context,
    find_config_error,
    fix_command,
    foreign_home,
    select_agents,
    unpinned_home_advice,
)
from twsrt.safeio import real
from twsrt.sources import read_sources
from twsrt.wildcard import fnmatch

if TYPE_CHECKING:
    from collections.abc import Mapping

    from twsrt.reports import RenderOptions
    from twsrt.scopes import ScopeRequest


def run_check(
    explicit_config: str | None,
    agent: str | None,
    yolo: bool,
    fail_on: Level | None,
    no_ignores: bool,
    sandbox: str | None = None,
    scope: ScopeRequest | None = None,
    user_config: Path | None = None,
) -> CheckReport:
    """Load, lint, compile and compare. A config it cannot use (none found, unreadable,
    invalid) does not raise: it becomes an aborted report (exit code 2) whose findings say why,
    so every requested output, CI's included, carries the reason. ``user_config``:
    ``--user-config``, the user policy a project-scope check compares with (userpolicy.py)."""
    cwd, home = Path.cwd(), home_dir()
    # every file is named relative to the repository root, so that reports (SARIF, JUnit,
    # annotations) carry repo-relative paths even when run from a subdirectory; before a
    # config is found, the working repository's
    root = repo_root(cwd)
    try:
        path = discover(explicit_config, cwd, home, root)
        if path is None:
            raise find_config_error(home, cwd, root)
    except TwsrtError as exc:
        return aborted_report(exc, fail_on, root)
    root = repo_root(real(path))
    try:
        named = (scope, user_config)
        return _run_check(path, home, cwd, root, agent, yolo, fail_on, no_ignores, sandbox, named)
    except TwsrtError as exc:
        return aborted_report(exc, fail_on, root)


def check_outcome(
    report: CheckReport, output_format: str, options: RenderOptions, files: Mapping[str, str]
) -> Outcome:
    """What ``check`` prints and writes: the report on stdout in ``output_format``, each file of
    ``files`` (format name -> path), and the report's exit code, whatever the format."""
    from twsrt.reports import REPORTERS, render, write_reports

    outcome = Outcome()
    with outcome.stopping() as out:
        reporter = REPORTERS[output_format]
        out.out(
            render(output_format, report, options),
            colour=options.colour if reporter.coloured else None,  # FORCE_COLOR off a pipe too
            encoded=reporter.encoded,
        )
        if report.aborted and reporter.for_programs:  # stdout is for a program: tell the person
            for item in report.findings:
                out.err(item.render())
        # links inside the checkout (or, before a config is found, the working repository) are
        # never followed to a report
        write_reports(report, files, out, (report.root, repo_root(Path.cwd())))
        out.exit_code = report.exit_code
    return outcome


def aborted_report(error: TwsrtError, fail_on: Level | None, root: Path) -> CheckReport:
    """The report of a run that could not check: the error's findings, nothing checked."""
    findings = sorted(_dedupe(error.findings), key=_order)
    return CheckReport(findings=findings, fail_on=fail_on or Level.ERROR, root=root, aborted=True)


def _run_check(
    path: Path,
    home: Path,
    cwd: Path,
    root: Path,
    agent: str | None,
    yolo: bool,
    fail_on: Level | None,
    no_ignores: bool,
    sandbox: str | None,
    named: tuple[ScopeRequest | None, Path | None] = (None, None),
) -> CheckReport:
    """``named``: what the command line named, the scope (--project/--managed) and the user
    policy (--user-config)."""
    scope, user_config = named
    config = load_config(path, home, cwd, display_root=root, scope=scope)
    if user_config is not None:
        from twsrt.userpolicy import with_user_config

        config = with_user_config(config, user_config)
    settings = config.check
    report = CheckReport(fail_on=fail_on or Level(settings.get("fail_on", "error")), root=root)
    report.selection, report.scope = config.selection, config.scope
    report.checked.append(CheckedFile(config.display, "config"))
    from twsrt.placement import placement_findings

    git = git_root(real(path))
    placement = placement_findings(config, git, yolo)  # before anything is read
    config = config.confined(git)
    findings = placement + _check(config, agent, yolo, report, sandbox, placement)
    findings += config.scope_findings
    findings += ignore_findings(config)
    ignores = _by_rule([] if no_ignores else _suppressions(config))
    for item in _dedupe(findings):
        rule = _first_match(ignores, item)
        if rule is None:
            report.findings.append(item)
        else:
            report.suppressed.append((item, rule))
    report.findings.sort(key=_order)
    return report


def _order(item: Finding) -> tuple:
    return (
        item.location.path,
        item.location.line,
        item.location.column,
        item.rule_id,
        item.message,
    )


def _dedupe(findings: list[Finding]) -> list[Finding]:
    return list(dict.fromkeys(findings))


def _check(
    config: Config,
    agent: str | None,
    yolo: bool,
    report: CheckReport,
    sandbox: str | None,
    placement: list[Finding],
) -> list[Finding]:
    """Everything after the config; targets (or sources) a placement finding names are
    neither read nor compiled."""
    from twsrt.placement import blocked_agents, sources_blocked

    if sources_blocked(placement):
        return []
    read = read_sources(config)
    report.checked += [CheckedFile(display, "source") for display in read.displays]
    findings = read.findings
    if read.policy is None:
        return findings  # an invalid source cannot be compiled safely
    policy = read.policy
    findings += _policy_findings(policy, config, agent)
    ctx = context(config, policy, yolo, sandbox)
    report.sandbox_mode = ctx.sandbox_mode
    blocked = blocked_agents(placement)
    for name in select_agents(agent, config):
        if name not in blocked:
            findings += _agent_findings(name, ctx, config, report)
    report.checked = list(dict.fromkeys(report.checked))
    return findings


def policy_findings(policy: Policy, config: Config) -> list[Finding]:
    """What ``check`` reports about the policy and this machine, before any agent is compiled
    (``twsrt test`` explains a gap with them)."""
    return _policy_findings(policy, config, None)


def _policy_findings(policy: Policy, config: Config, agent: str | None) -> list[Finding]:
    """The policy's own mistakes, this machine's paths, and the engines' known gaps."""
    findings = lint_policy(policy, config)
    from twsrt.hostchecks import file_root_findings, repository_findings, symlink_findings

    # about this machine's paths, so the running user's home, not the pinned one
    findings += symlink_findings(policy, config.home, Path.cwd())
    if "codex" in select_agents(agent, config):
        findings += file_root_findings(policy, config.home, Path.cwd())
    findings += repository_findings(config, agent)
    from twsrt.testing.gaps import static_gaps

    # Engine gaps found by `twsrt test` (srt itself, so not with --agent); always the Linux ones
    # so the report is host-independent.
    if agent is None:
        findings += static_gaps(policy, "linux")
    if config.scope == "project":  # a project policy may only narrow the user's (narrowing.py)
        from twsrt.userpolicy import narrowing_check

        findings += narrowing_check(policy, config, select_agents(agent, config))
    return findings


def _agent_findings(name: str, ctx: Context, config: Config, report: CheckReport) -> list[Finding]:
    """One agent: each mode compiled and compared with its files (the requested mode, plus yolo
    when a yolo target is configured), then the effective configuration it loads."""
    module = AGENTS[name]
    modes = [True] if ctx.yolo else [False]
    if not ctx.yolo and any(
        t.yolo_of is not None and t.key in config.targets for t in module.spec.targets
    ):
        modes.append(True)
    findings: list[Finding] = []
    for mode in modes:
        try:
            result = module.compile(replace(ctx, yolo=mode))
        except TwsrtError as exc:
            findings += [_with_agent(item, name) for item in exc.findings]
            continue
        findings += result.findings
        if not result.target_configured:
            continue
        for drift in result.drift:
            report.checked.append(CheckedFile(drift.display, "target", name))
            findings += drift_findings(drift, result, config, fix_command(ctx))
    if any(key in config.targets for key in module.target_keys):
        # user keys and other config layers the agent loads (one pass over every mode's files)
        findings += effective_findings(ctx, name)
    return findings


def _with_agent(item: Finding, agent: str) -> Finding:
    if item.agent:
        return item
    return Finding(
        item.rule_id, item.message, item.location, item.level, agent, item.related, item.diff
    )


def first_difference(old: str, new: str) -> int:
    """1-based line in ``old`` where it first differs from ``new``."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    for tag, i1, _i2, _j1, _j2 in line_opcodes(old_lines, new_lines, autojunk=False):
        if tag != "equal":
            return min(i1 + 1, max(len(old_lines), 1))
    return 1


def quote_item(item: DriftItem) -> str:
    """A managed entry as reports quote it: key and value, credentials redacted."""
    return f"{quoted(redact_key(item.key))} {quoted(redact_item(item.key, item.value))}"


def _origin(result: Result, drift: Drift) -> tuple[Location, ...]:
    for item in [*drift.missing, *drift.extra]:
        candidates = [item.key.rsplit(".", 1)[-1], item.value]
        try:  # a Codex rule pattern such as ["git", "push"] names the bash command
            tokens = json.loads(item.key.removeprefix("rules."))
            if isinstance(tokens, list):
                candidates.append(" ".join(str(t) for t in tokens))
        except ValueError:
            pass
        try:
            decoded = json.loads(item.value)
            if isinstance(decoded, str):
                candidates.append(decoded)
        except ValueError:
            pass
        for candidate in candidates:
            if candidate in result.origins:
                return (result.origins[candidate],)
    return ()


def drift_findings(
    drift: Drift, result: Result, config: Config, fix: str = "twsrt generate -w"
) -> list[Finding]:
    """``fix``: the command that rewrites the target (``fix_command``)."""
    agent = result.agent
    key = drift.target_key
    if drift.missing_file:
        location = (
            config.location(f"/targets/{key}") if key in config.targets else Location(drift.display)
        )
        return [
            finding(
                TARGET_MISSING,
                f"{drift.display} does not exist; run `{fix}` to create it",
                location,
                agent=agent,
            )
        ]
    if not drift.drifted or drift.old_text is None:
        return []
    line = first_difference(drift.old_text, drift.new_text)
    location = Location(drift.display, line, 1)
    home = foreign_home(drift, config)
    if home is not None:  # regenerating would only trade one machine's paths for another's
        message = f"{drift.display} differs from the policy: {unpinned_home_advice(home, config)}"
        return [
            finding(
                DRIFT_UNPINNED_HOME,
                message,
                location,
                agent=agent,
                related=(Location(config.display),),
                diff=render_diff(drift.display, drift.old_text, drift.new_text, drift.view),
            )
        ]
    missing, extra = len(drift.missing), len(drift.extra)
    if missing:
        rule = DRIFT_UNAPPLIED
        detail = f"{missing} managed entr{'y is' if missing == 1 else 'ies are'} missing"
        detail += f" (first: {quote_item(drift.missing[0])})"
        if extra:
            detail += f" and {extra} extra"
    elif extra:
        rule = DRIFT_OUT_OF_BAND
        detail = f"{extra} managed entr{'y was' if extra == 1 else 'ies were'} added by hand"
        detail += f" (first: {quote_item(drift.extra[0])})"
    else:
        rule = DRIFT_CHANGED
        detail = "managed entries are in a different order"
    return [
        finding(
            rule,
            f"{drift.display} differs from the policy: {detail}. Run `{fix}`.",
            location,
            agent=agent,
            related=_origin(result, drift),
            diff=render_diff(drift.display, drift.old_text, drift.new_text, drift.view),
        )
    ]


def _suppressions(config: Config) -> list[Suppression]:
    out = []
    for index, entry in enumerate(config.check.get("ignore", [])):
        out.append(
            Suppression(
                rule=entry["rule"],
                reason=quoted(entry["reason"], MESSAGE_LIMIT),
                path=entry.get("path", ""),
                pointer=entry.get("pointer", ""),
                agent=entry.get("agent", ""),
                index=index,
            )
        )
    return out


def ignore_findings(config: Config) -> list[Finding]:
    """TWS008 for every ``[[check.ignore]]`` naming an unknown or unsuppressible rule."""
    from twsrt.rules import lookup

    out = []
    for index, entry in enumerate(config.check.get("ignore", [])):
        name = entry["rule"]
        rule = lookup(name)
        if rule is not None and rule.suppressible:
            continue
        why = (
            f"{rule.id} cannot be suppressed: fix the input it reports instead"
            if rule is not None
            else "no rule has this id or name (see `twsrt explain` and docs/rules.md)"
        )
        location = config.location(f"/check/ignore/{index}/rule")
        out.append(finding(IGNORE_NOT_ALLOWED, f"ignore entry '{quoted(name)}': {why}", location))
    return out


def unsuppressed(config: Config, findings: list[Finding]) -> tuple[list[Finding], int]:
    """The findings no ``[[check.ignore]]`` entry matches, and how many were suppressed: what
    generate and diff count and print, as check does."""
    ignores = _by_rule(_suppressions(config))
    active = [f for f in findings if _first_match(ignores, f) is None]
    return active, len(findings) - len(active)


def _by_rule(suppressions: list[Suppression]) -> dict[str, list[Suppression]]:
    """The ignore entries by the rule id or name they give, each list in config order: a
    finding is then matched against the entries of its own rule, not against all of them."""
    out: dict[str, list[Suppression]] = {}
    for entry in suppressions:
        out.setdefault(entry.rule, []).append(entry)
    return out


def _first_match(ignores: dict[str, list[Suppression]], item: Finding) -> Suppression | None:
    """The first ignore entry (in config order) that suppresses ``item``, if any."""
    rule = item.rule
    if not rule.suppressible:
        return None
    first: Suppression | None = None
    for key in (item.rule_id, rule.name):
        for entry in ignores.get(key, ()):
            if first is not None and entry.index > first.index:
                break
            if _matches(entry, item):
                first = entry
                break
    return first


def _matches(rule: Suppression, item: Finding) -> bool:
    if not item.rule.suppressible:
        return False
    if rule.rule not in (item.rule_id, item.rule.name):
        return False
    if rule.path and not fnmatch(item.location.path, rule.path):
        return False
    if rule.pointer and not fnmatch(item.location.pointer, rule.pointer):
        return False
    return not (rule.agent and rule.agent != item.agent)


__all__ = ["aborted_report", "run_check", "fail"]
