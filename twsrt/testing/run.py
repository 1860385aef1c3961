"""Run ``twsrt test``: per engine, lanes of fixture trees, each probe without and with the sandbox.

For each engine: a fresh fixture tree (see ``twsrt.testing``), the engine's input compiled from
the policy into it, a smoke run that proves the sandbox starts here, then per probe a control
run without the sandbox and, when the control succeeded, the same command inside the sandbox.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

from twsrt.findings import TwsrtError, finding
from twsrt.locations import Location
from twsrt.policy import Policy
from twsrt.testing.commands import command, observe
from twsrt.testing.derive import derive, select
from twsrt.testing.engines import (
    CODEX_HINT,
    ENGINES,
    SMOKE,
    SRT_HINT,
    CodexEngine,
    EngineUnavailable,
    SrtEngine,
    Tamper,
    build_fixtures,
    control_run,
    default_jobs,
    make_engine,
    root_base,
    upstream_stub,
)
from twsrt.testing.model import MARK, Fixtures, Observation, Probe, ProbeReport, Result, Verdict
from twsrt.testing.verdicts import explain_gap, judge


@contextmanager
def _lane(
    engine: SrtEngine | CodexEngine,
    policy: Policy,
    fixtures: Fixtures,
    upstream: str,
    timeout: float,
    tamper: Tamper | None,
) -> Iterator[Path]:
    """One fixture tree with the engine's input in it, proven to start a sandbox."""
    with tempfile.TemporaryDirectory(prefix="twsrt-test-", dir=root_base()) as tmp:
        root = Path(tmp)
        listeners, _ = build_fixtures(fixtures, root)
        try:
            engine_input = engine.prepare(policy, root, upstream)
            if tamper is not None:
                tamper(engine.name, engine_input)
            smoke = engine.run(SMOKE, timeout)
            if f"{MARK} allowed" not in smoke.output:
                raise EngineUnavailable(
                    engine.name,
                    f"the sandbox does not start here (exit {smoke.exit_code}): "
                    + (smoke.output.strip().splitlines() or ["no output"])[-1],
                    SRT_HINT if engine.name == "srt" else CODEX_HINT,
                )
            yield root
        finally:
            for sock in listeners:
                sock.close()


def run_engine(
    name: str,
    factory: Callable[[str], SrtEngine | CodexEngine],
    policy: Policy,
    probes: list[Probe],
    fixtures: Fixtures,
    timeout: float,
    tamper: Tamper | None = None,
    jobs: int = 1,
) -> list[Result]:
    """Run the probes in ``jobs`` lanes. Each lane has its own fixture tree and runs its probes
    one after the other: sandboxes create mount placeholders in the tree while they start
    (srt for its mandatory denies, Codex for missing deny targets), so two sandboxes starting
    in one tree at once break each other."""
    python = sys.executable
    lanes = max(1, min(jobs, len(probes)))
    engines = [factory(name) for _ in range(lanes)]
    with upstream_stub() as upstream, ExitStack() as stack:
        roots = [
            stack.enter_context(_lane(engine, policy, fixtures, upstream, timeout, tamper))
            for engine in engines
        ]

        def lane_job(lane: int) -> list[tuple[int, Result]]:
            engine, root = engines[lane], roots[lane]
            return [
                (i, _one(engine, policy, probes[i], root, upstream, python, i, timeout))
                for i in range(lane, len(probes), lanes)
            ]

        with ThreadPoolExecutor(max_workers=lanes) as pool:
            done = [item for items in pool.map(lane_job, range(lanes)) for item in items]
    return [result for _, result in sorted(done, key=lambda item: item[0])]


def _one(
    engine: SrtEngine | CodexEngine,
    policy: Policy,
    probe: Probe,
    root: Path,
    upstream: str,
    python: str,
    index: int,
    timeout: float,
) -> Result:
    if probe.problem:
        verdict, detail = judge(probe, None, None)
        return Result(engine.name, probe, verdict, detail)
    shell = command(probe, str(root), python, index, net_timeout=max(1.0, timeout / 2))
    ran = control_run(shell, root, upstream, timeout)
    control: Observation = observe(probe, ran.exit_code, ran.output, ran.seconds)
    sandboxed: Observation | None = None
    gap = None
    if control.ran and control.outcome is not None and control.outcome.value == "allowed":
        ran = engine.run(shell, timeout)
        sandboxed = observe(probe, ran.exit_code, ran.output, ran.seconds)
        if not sandboxed.ran and ran.exit_code is not None:
            # no result line: the sandbox failed to start; once more before calling it ERROR
            ran = engine.run(shell, timeout)
            sandboxed = observe(probe, ran.exit_code, ran.output, ran.seconds)
        if sandboxed.outcome is not None and sandboxed.outcome is not probe.expect:
            gap = explain_gap(engine.name, probe, sandboxed.outcome, policy, sys.platform)
    verdict, detail = judge(probe, control, sandboxed, gap)
    return Result(
        engine.name,
        probe,
        verdict,
        detail,
        gap if verdict is Verdict.GAP else None,
        control,
        sandboxed,
    )


def run_tests(
    policy: Policy,
    engines: list[str],
    keyword: str | None = None,
    timeout: float = 60.0,
    strict: bool = False,
    tamper: Tamper | None = None,
    factory: Callable[[str], SrtEngine | CodexEngine] = make_engine,
    jobs: int | None = None,
) -> ProbeReport:
    """Derive the probes, run them in every named engine, and collect the verdicts.

    Raises EngineUnavailable before running anything when any engine cannot run here, so a
    missing sandbox is never mistaken for a passing one.
    """
    if not policy.enabled:
        raise TwsrtError(
            finding(
                "disabled-sandbox",
                "the canonical sandbox is disabled (enabled = false); there is nothing to test",
                policy.srt_location("/enabled"),
            )
        )
    plan = derive(policy)
    for name in engines:
        factory(name).check_available(policy)
    report = ProbeReport(engines=list(engines), strict=strict)
    start = time.monotonic()
    for name in engines:
        probes = select(plan, name, keyword)
        if probes:
            report.results += run_engine(
                name,
                factory,
                policy,
                probes,
                plan.fixtures,
                timeout,
                tamper,
                jobs or default_jobs(),
            )
    report.seconds = time.monotonic() - start
    if keyword and not report.results:
        raise TwsrtError(
            finding("config-invalid", f"no probe matches -k {keyword!r}", Location("twsrt test"))
        )
    return report


def test_policy(
    explicit_config: str | None,
    sandbox: str,
    keyword: str | None = None,
    timeout: float = 60.0,
    strict: bool = False,
) -> ProbeReport:
    """``twsrt test``: the config's policy, probed in the chosen sandbox(es)."""
    from twsrt.run import find_config
    from twsrt.sources import load_policy

    policy = load_policy(find_config(explicit_config))
    engines = list(ENGINES) if sandbox == "all" else [sandbox]
    return run_tests(policy, engines, keyword, timeout, strict)
