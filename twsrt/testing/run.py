"""Run ``twsrt test``: per engine, lanes of fixture trees, each probe without and with the sandbox.

For each lane of an engine: a fresh fixture tree (see ``twsrt.testing``), the engine's input
compiled from the policy into it, a smoke run that proves the sandbox starts here, then batch by
batch a control run without the sandbox and, for the probes whose control succeeded, the same
commands inside the sandbox (``testing.plain`` for the plain probes, ``testing.batches`` for the
attacks).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from twsrt.documents import Documents
from twsrt.findings import Finding, TwsrtError, finding
from twsrt.locations import Location
from twsrt.rules import CONFIG_INVALID, DISABLED_SANDBOX
from twsrt.testing.attacks import derive_attacks
from twsrt.testing.batches import batches
from twsrt.testing.derive import select
from twsrt.testing.engines import (
    SMOKE,
    Engine,
    EngineUnavailable,
    Run,
    Tamper,
    build_fixtures,
    control_run,
    default_jobs,
    make_engine,
    root_base,
    upstream_stub,
)
from twsrt.testing.launches import launch_attacks, runs_attack
from twsrt.testing.model import (
    MARK,
    Attack,
    Fixtures,
    Outcome,
    Plan,
    Probe,
    ProbeReport,
    Result,
    Skipped,
    Verdict,
)
from twsrt.testing.modes import mode_policy, plan_for_mode
from twsrt.testing.ondisk import reported_findings
from twsrt.testing.selection import (
    Factory,
    Requested,
    drift_of,
    select_engines,
    targeted_agents,
)
from twsrt.testing.verdicts import explain_gap, judge

Reported = tuple[Finding, ...]  # what check reports for an engine's agent (gaps.Mismatch)
Tick = Callable[[int], None]  # told how many more probes of an engine are done

if TYPE_CHECKING:
    from twsrt.agents.base import Context
    from twsrt.policy import Policy
    from twsrt.testing.progress import Progress


@contextmanager
def _lane(
    engine: Engine,
    ctx: Context,
    fixtures: Fixtures,
    upstream: str,
    timeout: float,
    tamper: Tamper | None,
    smoke: bool = True,
) -> Iterator[Path]:
    """One fixture tree with the engine's input in it; ``smoke``: proven to start a sandbox
    by a run of its own (a lane of batches proves it with its first batch: ``_Started``)."""
    with tempfile.TemporaryDirectory(prefix="twsrt-test-", dir=root_base()) as tmp:
        root = Path(tmp)
        listeners, _ = build_fixtures(fixtures, root)
        try:
            engine_input = engine.prepare(ctx, root, upstream)
            if tamper is not None:
                tamper(engine.name, engine_input)
            if smoke:
                started = engine.run(SMOKE, timeout)
                if f"{MARK} allowed" not in started.output:
                    raise _not_started(engine, started)
            yield root
        finally:
            for sock in listeners:
                sock.close()


def _not_started(engine: Engine, run: Run) -> EngineUnavailable:
    last = (run.output.strip().splitlines() or ["no output"])[-1]
    problem = f"the sandbox does not start here (exit {run.exit_code}): {last}"
    return EngineUnavailable(engine.name, problem, engine.hint)


class _Started:
    """A lane's sandbox runs. Each is a batch, whose script prints its opening marker first of
    all, so a first run without it never started: the engine cannot run here (exit 2 with its
    install hint), found without a start of its own for the proof."""

    def __init__(self, engine: Engine, proven: bool) -> None:
        self.engine, self.proven = engine, proven

    def run(self, shell: str, timeout: float) -> Run:
        from twsrt.testing.batches import START

        done = self.engine.run(shell, timeout)
        if not self.proven:
            if START not in done.output:
                raise _not_started(self.engine, done)
            self.proven = True
        return done


def run_engine(
    name: str,
    factory: Factory,
    ctx: Context,
    probes: list[Probe],
    fixtures: Fixtures,
    timeout: float,
    upstream: str,
    tamper: Tamper | None = None,
    jobs: int = 2,
    attacks: Sequence[Attack] = (),
    reported: Reported = (),
    batched: bool = True,
    tick: Tick | None = None,
    groups: list[list[Attack]] | None = None,
) -> list[Result]:
    """Run the probes and attacks in at most ``jobs`` lanes (``tick``: told how many more are
    done, as they finish; ``groups``: the run's attack batches, made once for all its engines
    and cut down to these attacks here). Each lane has its own fixture tree and runs one sandbox
    at a time: sandboxes create mount placeholders in the tree while they start (srt for its
    mandatory denies, Codex for missing deny targets), so two sandboxes starting in one tree at
    once break each other. The plain probes run first in lane 0, in batches (``testing.plain``),
    before any attack stages anything in its tree; the attack batches are dealt to the lanes in
    turn, starting with the next one."""
    from twsrt.testing.batches import within_groups

    made = within_groups(groups or [], attacks)
    grouped = {id(a) for group in made for a in group}
    made += batches([a for a in attacks if id(a) not in grouped])  # none when groups has all
    units = (1 if probes else 0) + len(made)
    lanes = max(1, min(jobs, units))
    first = 1 % lanes if probes else 0
    index = {id(a): i for i, a in enumerate(attacks)}
    dealt: list[list[list[Attack]]] = [[] for _ in range(lanes)]
    for n, batch in enumerate(made):
        dealt[(first + n) % lanes].append(batch)

    def lane_job(lane: int) -> list[tuple[int, Result]]:
        engine = factory(name)
        # one by one, a probe's run has no marker: a smoke start proves the sandbox first
        with _lane(engine, ctx, fixtures, upstream, timeout, tamper, not batched) as root:
            runs = _Started(engine, proven=not batched)
            out = []
            if lane == 0:
                out = _plain(engine, runs, ctx, probes, root, upstream, timeout, batched, tick)
            found = _attack(engine, runs, ctx, dealt[lane], root, upstream, timeout, reported, tick)
        return out + [(len(probes) + index[id(r.probe)], r) for r in found]

    if not units:
        return []
    with ThreadPoolExecutor(max_workers=lanes) as pool:
        done = [item for items in pool.map(lane_job, range(lanes)) for item in items]
    return [result for _, result in sorted(done, key=lambda item: item[0])]


def _python(engine: Engine) -> str:
    """The Python the probe commands run: the engine's when its sandbox cannot see ours."""
    return str(getattr(engine, "python", None) or sys.executable)


def _attack(
    engine: Engine,
    runs: _Started,
    ctx: Context,
    groups: list[list[Attack]],
    root: Path,
    upstream: str,
    timeout: float,
    reported: Reported = (),
    tick: Tick | None = None,
) -> list[Result]:
    """Every attack of the batches ``groups`` run without and then with the sandbox, judged by
    its effect on the host."""
    from twsrt.testing.batches import observe_all, within_groups

    attacks = [a for group in groups for a in group]
    if not attacks:
        return []

    def control(shell: str) -> Run:
        return control_run(shell, root, upstream, timeout)

    def sandboxed(shell: str) -> Run:
        return runs.run(shell, timeout)

    out = []
    skipped = {i: why for i, a in enumerate(attacks) if (why := _unmodelled(engine, a))}
    tried = [a for i, a in enumerate(attacks) if i not in skipped]
    if tick is not None and skipped:
        tick(len(skipped))
    cut = within_groups(groups, tried)
    found = observe_all(control, sandboxed, tried, root, tick, cut)
    observed = {id(a): (o, s) for a, o, s in found}
    for i, attack in enumerate(attacks):
        if i in skipped:
            out.append(Result(engine.name, attack, Verdict.UNMODELLED, skipped[i]))
            continue
        plain, seen = observed[id(attack)]
        gap = None
        if seen is not None and seen.outcome is not None and seen.outcome is not attack.expect:
            gap = _gap(engine, ctx, attack, seen.outcome, reported)
        verdict, detail = judge(attack, plain, seen, gap)
        kept = gap if verdict is Verdict.GAP else None
        out.append(Result(engine.name, attack, verdict, detail, kept, plain, seen))
    return out


def _plain(
    engine: Engine,
    runs: _Started,
    ctx: Context,
    probes: list[Probe],
    root: Path,
    upstream: str,
    timeout: float,
    batched: bool = True,
    tick: Tick | None = None,
) -> list[tuple[int, Result]]:
    """Every plain probe run without and, when that was allowed, with the sandbox, in batches;
    each judged on its own observations."""
    from twsrt.testing.plain import Planned, observe_plain

    out: list[tuple[int, Result]] = []
    items = []
    for index, probe in enumerate(probes):
        if probe.problem:
            verdict, detail = judge(probe, None, None)
            out.append((index, Result(engine.name, probe, verdict, detail)))
        elif why := _unmodelled(engine, probe):
            out.append((index, Result(engine.name, probe, Verdict.UNMODELLED, why)))
        else:
            items.append(Planned(index, probe))

    def control(shell: str, limit: float) -> Run:
        return control_run(shell, root, upstream, limit)

    def sandboxed(shell: str, limit: float) -> Run:
        return runs.run(shell, limit)

    python = _python(engine)
    if tick is not None and out:
        tick(len(out))  # nothing to run for these
    seen = observe_plain(control, sandboxed, items, str(root), python, timeout, batched, tick)
    for item in items:
        plain, inside = seen[item.index]
        gap = None
        if (
            inside is not None
            and inside.outcome is not None
            and inside.outcome is not item.probe.expect
        ):
            gap = _gap(engine, ctx, item.probe, inside.outcome)
        verdict, detail = judge(item.probe, plain, inside, gap)
        kept = gap if verdict is Verdict.GAP else None
        out.append(
            (item.index, Result(engine.name, item.probe, verdict, detail, kept, plain, inside))
        )
    return out


def _unmodelled(engine: Engine, probe: Probe) -> str:
    """Why the engine cannot model what the agent does for this probe ("" when it can)."""
    ask = getattr(engine, "unmodelled", None)
    return str(ask(probe)) if callable(ask) else ""


def _gap(
    engine: Engine, ctx: Context, probe: Probe, observed: Outcome, reported: Reported = ()
) -> Finding | None:
    """The documented gap behind a mismatch; none when the engine ran the command without any
    sandbox (a file that switches the sandbox off): then the mismatch is the file's fault."""
    if getattr(engine, "unsandboxed", False):
        return None
    return explain_gap(engine.name, probe, observed, ctx.policy, sys.platform, reported)


# ------------------------------------------------------------------ the run


def run_tests(
    ctx: Context,
    engines: Requested = None,
    keyword: str | None = None,
    timeout: float = 60.0,
    strict: bool = False,
    tamper: Tamper | None = None,
    factory: Factory = make_engine,
    jobs: int | None = None,
    attacks: bool = True,
    batched: bool = True,
    progress: Progress | None = None,
) -> ProbeReport:
    """Derive the probes for ctx's modes, run them in the selected engines (``engines``: names,
    ``all``, or None for every engine that can run here), and collect the verdicts;
    ``attacks``: also the adversarial probes of ``testing.attacks`` (judged on the host);
    ``batched`` False: each plain probe in a sandbox start of its own (for the comparison);
    ``progress``: counts the probes done per engine as they finish (a terminal's line).

    Raises EngineUnavailable before running anything when a named engine (or, by default,
    every engine) cannot run here, so a missing sandbox is never mistaken for a passing one.
    """
    ctx = replace(ctx, documents=Documents())  # one run: the files as they are now
    # the probes are the policy's rules as written; the engines' files carry the protected set
    policy = ctx.written or ctx.policy
    _refuse_disabled(policy)
    # a project-scope run launches in the project root: its **/ denies are probed at depths
    depths = ctx.config.scope == "project"
    plan = plan_for_mode(policy, ctx.sandbox_mode, depths)
    in_mode = mode_policy(policy, ctx.sandbox_mode)
    tried = derive_attacks(in_mode, depths) + launch_attacks(ctx.config, in_mode) if attacks else []
    attack_plan = Plan(tuple(tried), Fixtures())
    groups = batches(tried)  # once for every engine: grouping is quadratic in the attacks
    names, skipped = select_engines(ctx, engines, factory)
    report = _report(ctx, names, skipped, strict, factory)
    start = time.monotonic()
    report.results += _on_disk(ctx, names, factory, keyword)
    # what check reports for the agents of the run: a gap across launches must be one of them
    reported = reported_findings(ctx, targeted_agents(ctx)) if attacks else ()

    def engine_job(name: str) -> list[Result]:
        probes = select(plan, name, keyword)
        engine = factory(name)
        selected = cast(list[Attack], select(attack_plan, name, keyword))
        tries = [a for a in selected if runs_attack(engine, a)]
        if ctx.full_access:
            return [_unenforced(ctx, name, p) for p in [*probes, *tries]]
        if not (probes or tries):
            return []
        lanes = jobs or default_jobs()
        fixtures = plan.fixtures
        tick = None
        if progress is not None:
            progress.start(name, len(probes) + len(tries))
            tick = partial(progress.advance, name)
        return run_engine(
            name,
            factory,
            ctx,
            probes,
            fixtures,
            timeout,
            upstream,
            tamper,
            lanes,
            tries,
            reported,
            batched,
            tick,
            groups,
        )

    # engines side by side, each in trees of its own; one stub answers for all of them
    try:
        with upstream_stub() as upstream, ThreadPoolExecutor(max(1, len(names))) as pool:
            for results in pool.map(engine_job, names):
                report.results += results
    finally:
        if progress is not None:
            progress.close()  # the line is erased before anything else is printed
    report.seconds = time.monotonic() - start
    if keyword and not report.results:
        raise TwsrtError(
            finding(CONFIG_INVALID, f"no probe matches -k {keyword!r}", Location("twsrt test"))
        )
    return report


def _refuse_disabled(policy: Policy) -> None:
    if not policy.enabled:
        raise TwsrtError(
            finding(
                DISABLED_SANDBOX,
                "the canonical sandbox is disabled (enabled = false); there is nothing to test",
                policy.srt_location("/enabled"),
            )
        )


def _report(
    ctx: Context, names: list[str], skipped: list[Skipped], strict: bool, factory: Factory
) -> ProbeReport:
    """The run's report before any probe: its engines, modes, inputs, models and drift."""
    report = ProbeReport(
        engines=names,
        strict=strict,
        sandbox_mode=ctx.sandbox_mode,
        approval_mode=ctx.mode,
        skipped=skipped,
        selection=ctx.config.selection,
    )
    report.inputs = {n: [ctx.config.display_path(p) for p in factory(n).reads(ctx)] for n in names}
    report.models = {n: m for n in names if (m := getattr(factory(n), "models", ""))}
    report.drift = drift_of(ctx, names, factory)
    return report


def _on_disk(ctx: Context, names: list[str], factory: Factory, keyword: str | None) -> list[Result]:
    """What the files on disk grant that no probe can show, and the programs the checkout
    names that no engine starts (nothing under danger-full-access)."""
    if ctx.full_access:
        return []
    from twsrt.testing.ondisk import on_disk_results

    found = on_disk_results(ctx, [factory(n) for n in names])
    for name in names:
        ask = getattr(factory(name), "host_programs", None)
        found += ask(ctx) if callable(ask) else []
    return [r for r in found if _matches(r.probe, r.engine, keyword)]


def _matches(probe: Probe, engine: str, keyword: str | None) -> bool:
    return not keyword or keyword.lower() in f"{engine}: {probe.name}".lower()


def _unenforced(ctx: Context, engine: str, probe: Probe) -> Result:
    origin = ctx.sandbox_origin or Location(ctx.config.display)
    chosen = "--sandbox" if ctx.sandbox_flag else f"[sandbox] mode at {origin}"
    detail = (
        f"sandbox mode danger-full-access ({chosen}): {engine} runs commands without a "
        "sandbox, so there is nothing to enforce; not probed"
    )
    return Result(engine, probe, Verdict.UNENFORCED, detail)
