"""``twsrt check``: every problem with the policy and its targets, as findings (read-only)."""

from __future__ import annotations

from pathlib import Path

from twsrt.agents import spec_of
from twsrt.config import Config
from twsrt.configload import discover, load_config
from twsrt.drift import drift_findings
from twsrt.findings import Finding, Level, TwsrtError, fail
from twsrt.invocation import Invocation, context, find_config_error, select_agents
from twsrt.lints import lint_policy
from twsrt.locations import git_root, home_dir, repo_root
from twsrt.policy import Policy
from twsrt.report import CheckedFile, CheckReport
from twsrt.request import Request
from twsrt.rules import settled
from twsrt.safeio import real
from twsrt.sources import read_sources
from twsrt.suppressions import by_rule, first_match, ignore_findings, suppressions


def check_report(
    request: Request, no_ignores: bool = False, user_config: Path | None = None
) -> CheckReport:
    """Load, lint, compile and compare. A config it cannot use (none found, unreadable,
    invalid) does not raise: it becomes an aborted report (exit code 2) whose findings say why,
    so every requested output, CI's included, carries the reason. ``no_ignores``: report
    suppressed findings too; ``user_config``: ``--user-config``, the user policy a
    project-scope check compares with (userpolicy.py)."""
    cwd, home = Path.cwd(), home_dir()
    # every file is named relative to the repository root, so that reports (SARIF, JUnit,
    # annotations) carry repo-relative paths even when run from a subdirectory; before a
    # config is found, the working repository's
    root = repo_root(cwd)
    try:
        path = discover(request.config, cwd, home, root)
        if path is None:
            raise find_config_error(home, cwd, root)
    except TwsrtError as exc:
        return aborted_report(exc, request.fail_on, root)
    root = repo_root(real(path))
    try:
        return _run_check(request, path, home, cwd, root, no_ignores, user_config)
    except TwsrtError as exc:
        return aborted_report(exc, request.fail_on, root)


def aborted_report(error: TwsrtError, fail_on: Level | None, root: Path) -> CheckReport:
    """The report of a run that could not check: the error's findings, nothing checked."""
    findings = sorted(_dedupe(error.findings), key=_order)
    return CheckReport(findings=findings, fail_on=fail_on or Level.ERROR, root=root, aborted=True)


def _run_check(
    request: Request,
    path: Path,
    home: Path,
    cwd: Path,
    root: Path,
    no_ignores: bool,
    user_config: Path | None,
) -> CheckReport:
    """``user_config``: the user policy the command line named (--user-config)."""
    config = load_config(
        path, home, cwd, display_root=root, scope=request.scope, profile=request.profile
    )
    if user_config is not None:
        from twsrt.userpolicy import with_user_config

        config = with_user_config(config, user_config)
    settings = config.check
    report = CheckReport(
        fail_on=request.fail_on or Level(settings.get("fail_on", "error")), root=root
    )
    report.selection, report.scope = config.selection, config.scope
    report.checked.append(CheckedFile(config.display, "config"))
    from twsrt.placement import placement_findings

    git = git_root(real(path))
    placement = placement_findings(config, git, request.yolo)  # before anything is read
    config = config.confined(git)
    findings = placement + _check(request, config, report, placement)
    findings += config.scope_findings
    findings += ignore_findings(config)
    ignores = by_rule([] if no_ignores else suppressions(config))
    # whether an entry may suppress a rule's findings, asked once per rule, not per finding
    # (at 50k rules ~43,000 notes no entry names): first_match's own first test
    may_match: dict[str, bool] = {}
    with settled():  # first_match asks each finding's rule: no registry question per finding
        for item in _dedupe(findings):
            maybe = may_match.get(item.rule_id)
            if maybe is None:
                found = item.rule
                named = item.rule_id in ignores or found.name in ignores
                maybe = may_match[item.rule_id] = found.suppressible and named
            rule = first_match(ignores, item) if maybe else None
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
    request: Request, config: Config, report: CheckReport, placement: list[Finding]
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
    findings += _policy_findings(policy, config, request.agent)
    ctx = context(config, policy, request.yolo, request.sandbox)
    invocation = Invocation(request, config, policy, ctx)
    report.sandbox_mode = ctx.sandbox_mode
    blocked = blocked_agents(placement)
    for name in invocation.agents:
        if name not in blocked:
            findings += _agent_findings(name, invocation, report)
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
    findings += file_root_findings(policy, config.home, Path.cwd(), select_agents(agent, config))
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


def _agent_findings(name: str, invocation: Invocation, report: CheckReport) -> list[Finding]:
    """One agent: each mode compiled and compared with its files (the requested mode, plus yolo
    when a yolo target is configured), then the effective configuration it loads."""
    config = invocation.config
    findings: list[Finding] = []
    for mode in invocation.modes(name, other=False):
        try:
            result = invocation.compile(name, mode)
        except TwsrtError as exc:
            findings += [_with_agent(item, name) for item in exc.findings]
            continue
        findings += result.findings
        if not result.target_configured:
            continue
        for drift in result.drift:
            report.checked.append(CheckedFile(drift.display, "target", name))
            findings += drift_findings(drift, result, config, invocation.fix_command())
    if any(key in config.targets for key in spec_of(name).keys):
        # user keys and other config layers the agent loads (one pass over every mode's files)
        findings += invocation.effective(name)
    return findings


def _with_agent(item: Finding, agent: str) -> Finding:
    if item.agent:
        return item
    return Finding(
        item.rule_id, item.message, item.location, item.level, agent, item.related, item.diff
    )


__all__ = ["aborted_report", "check_report", "fail"]
