"""The verdict for one probe, and the engine gap (``gaps``) that explains a mismatch."""

from __future__ import annotations

import posixpath

from twsrt.findings import Finding
from twsrt.policy import Policy
from twsrt.testing.gaps import Mismatch, first_gap
from twsrt.testing.model import Action, Attack, Observation, Outcome, Probe, Verdict


def explain_gap(
    engine: str,
    probe: Probe,
    observed: Outcome,
    policy: Policy,
    platform: str,
    reported: tuple[Finding, ...] = (),
) -> Finding | None:
    """The documented limitation of ``engine`` that explains a mismatch, as a finding at the
    rule: the first match in the engine's own gap table (``gaps`` on its class); ``reported``:
    what ``check`` reports for the engine's agent (``Mismatch.reported``)."""
    from twsrt.testing.engines import engine_class

    linux = platform.startswith("linux")
    mismatch = Mismatch(engine, probe, observed, policy, linux, reported)
    return first_gap(engine_class(engine).gaps, mismatch)


def judge(
    probe: Probe,
    control: Observation | None,
    sandboxed: Observation | None,
    gap: Finding | None = None,
) -> tuple[Verdict, str]:
    """PASS / FAIL / INVALID / ERROR / GAP / MOOT for one probe, with a one-line reason."""
    if probe.problem:
        return Verdict.ERROR, probe.problem
    if control is None or not control.ran:
        why = control.output.splitlines()[-1] if control and control.output else "no output"
        return Verdict.INVALID, f"the control could not run without the sandbox ({why})"
    if control.outcome is not Outcome.ALLOWED:
        return (
            Verdict.INVALID,
            f"the control was {control.outcome} without the sandbox, so a denial proves nothing",
        )
    if sandboxed is None or not sandboxed.ran:
        why = sandboxed.output.splitlines()[-1] if sandboxed and sandboxed.output else "no output"
        code = sandboxed.exit_code if sandboxed else None
        return Verdict.ERROR, f"the sandboxed run gave no result (exit {code}: {why})"
    if sandboxed.outcome is None:
        why = sandboxed.output.splitlines()[-1] if sandboxed.output else "no output"
        return (
            Verdict.INVALID,
            f"{_action_text(probe)} was refused before the sandbox's domain lists could decide "
            f"({why}): the answer proves nothing about the rule",
        )
    said = f"{_action_text(probe)} was {sandboxed.outcome}"
    if sandboxed.outcome is probe.expect and probe.moot:
        return Verdict.MOOT, f"{said}, but the probe is not discriminating: {probe.moot}"
    if sandboxed.outcome is probe.expect:
        return Verdict.PASS, f"{said}, as the policy says"
    if gap is not None:
        return Verdict.GAP, f"{said}, the policy says {probe.expect} (engine gap {gap.rule_id})"
    return Verdict.FAIL, f"{said}, but the policy says {probe.expect}"


def _action_text(probe: Probe) -> str:
    if isinstance(probe, Attack):  # an attack says what it tried
        return probe.does
    return {
        Action.READ: f"reading {probe.target}",
        Action.APPEND: f"opening {probe.target} for writing",
        Action.CREATE: f"creating a file in {posixpath.dirname(probe.target)}",
        Action.FETCH: f"fetching {probe.target}",
        Action.CONNECT: f"connecting to {probe.target}",
        Action.LOAD: f"loading {probe.rule}",
        Action.RUN: f"running {probe.rule}",
    }[probe.action]
