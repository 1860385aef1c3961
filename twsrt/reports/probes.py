"""The reports of ``twsrt test``: text, JSON and JUnit XML renderings of a ProbeReport (the exit
code is the report's). They keep the conventions of ``check``'s reporters (colours, JSON header,
locations and layout, JUnit names and XML) by calling the same helpers."""

from __future__ import annotations

from typing import Any

from twsrt.report import profile_clause
from twsrt.reports.json_report import dump, header, location_json, selection_json
from twsrt.reports.junit import selection_properties, unique_name, xml_text
from twsrt.reports.text import paint
from twsrt.testing.model import Attack, Observation, ProbeReport, Result, Verdict

REPORT_VERSION = 1  # of the JSON document; it changes only when a reader would break
_COLOURS = {
    Verdict.PASS: "32",
    Verdict.GAP: "33",
    Verdict.FAIL: "31",
    Verdict.INVALID: "35",
    Verdict.ERROR: "31",
    Verdict.UNENFORCED: "33",
    Verdict.MOOT: "36",
    Verdict.UNMODELLED: "36",
}


def render_text(report: ProbeReport, *, colour: bool = False, verbose: bool = False) -> str:
    """The modes and inputs, one line per probe (passes only with ``verbose``), the engines left
    out and the drift of the files probed, then a summary line."""
    width = max([5, *(len(e) for e in report.engines)])
    indent = " " * (width + 9)
    out: list[str] = [modes_line(report)]
    for engine in report.engines:
        results = [r for r in report.results if r.engine == engine]
        if not verbose and results and all(r.verdict is Verdict.UNENFORCED for r in results):
            word = _word(Verdict.UNENFORCED, colour)
            out.append(f"{engine:{width}} {word} {len(results)} probes not run")
            out.append(f"{indent}{results[0].detail}")
            continue
        for result in results:
            if result.verdict is Verdict.PASS and not verbose:
                continue
            word = _word(result.verdict, colour)
            out.append(f"{engine:{width}} {word} {result.probe.name}  ({result.probe.origin})")
            out.append(f"{indent}{result.detail}")
            if result.gap is not None:
                rule = result.gap.rule
                out.append(f"{indent}{result.gap.rule_id} {rule.name}: {result.gap.message}")
            if result.verdict in (Verdict.FAIL, Verdict.ERROR, Verdict.INVALID):
                for label, seen in (("control", result.control), ("sandbox", result.sandboxed)):
                    if seen is not None and seen.output and (verbose or not seen.ran):
                        tail = seen.output.splitlines()[-3:]
                        out.extend(f"{indent}{label}: {line}" for line in tail)
    for skipped in report.skipped:
        out.append(f"twsrt test: skipped {skipped.engine}: {skipped.reason}")
    for item in report.drift:
        out.append(f"twsrt test: drift (probed as on disk): {item.render()}")
    out.append(summary(report))
    return "\n".join(out) + "\n"


def _word(verdict: Verdict, colour: bool) -> str:
    return paint(f"{verdict.value:7}", _COLOURS[verdict], colour)


def modes_line(report: ProbeReport) -> str:
    reads = "; ".join(
        f"{e} reads {', '.join(report.inputs.get(e, []))}"
        + (f" (this engine {report.models[e]})" if e in report.models else "")
        for e in report.engines
    )
    return (
        f"twsrt test: sandbox mode {report.sandbox_mode}, approval mode {report.approval_mode}"
        + profile_clause(report.selection)
        + (f"; {reads}" if reads else "")
    )


def summary(report: ProbeReport) -> str:
    parts = []
    for engine in report.engines:
        results = [r for r in report.results if r.engine == engine]
        counts = {v: sum(1 for r in results if r.verdict is v) for v in Verdict}
        shown = ", ".join(f"{n} {v.value.lower()}" for v, n in counts.items() if n)
        noun = "probe" if len(results) == 1 else "probes"
        parts.append(f"{engine}: {len(results)} {noun} ({shown or 'none'})")
    tail = f"; {report.seconds:.1f}s" if report.seconds else ""
    strict = " (--strict: gaps fail)" if report.strict else ""
    return f"twsrt test: {'; '.join(parts)}{tail}{strict}"


def _observation(seen: Observation | None) -> dict[str, Any] | None:
    if seen is None:
        return None
    return {
        "ran": seen.ran,
        "outcome": seen.outcome.value if seen.outcome else None,
        "exit_code": seen.exit_code,
        "seconds": round(seen.seconds, 3),
        "output": seen.output,
    }


def render_json(report: ProbeReport) -> str:
    results = []
    for result in report.results:
        probe = result.probe
        gap = result.gap
        results.append(
            {
                "engine": result.engine,
                "name": probe.name,
                "kind": probe.kind,
                "attack": (probe.attack or None) if isinstance(probe, Attack) else None,
                "rule": probe.rule,
                "location": location_json(probe.origin),
                "action": probe.action.value,
                "target": probe.target,
                "expect": probe.expect.value,
                "verdict": result.verdict.value,
                "failing": report.failing(result),
                "detail": result.detail,
                "gap": None
                if gap is None
                else {
                    "rule_id": gap.rule_id,
                    "rule_name": gap.rule.name,
                    "level": gap.level.value,
                    "message": gap.message,
                },
                "control": _observation(result.control),
                "sandboxed": _observation(result.sandboxed),
            }
        )
    document = {
        **header(REPORT_VERSION),
        **({"profile": selection_json(report.selection)} if report.selection else {}),
        "summary": {
            **report.counts(),
            "probes": len(report.results),
            "engines": report.engines,
            "strict": report.strict,
            "exit_code": report.exit_code,
            "sandbox_mode": report.sandbox_mode,
            "approval_mode": report.approval_mode,
        },
        "inputs": report.inputs,
        "models": report.models,
        "skipped": [{"engine": s.engine, "reason": s.reason} for s in report.skipped],
        "drift": [
            {
                "rule_id": f.rule_id,
                "level": f.level.value,
                "agent": f.agent,
                "message": f.message,
                "location": location_json(f.location),
            }
            for f in report.drift
        ],
        "results": results,
    }
    return dump(document)


def junit_xml(report: ProbeReport) -> str:
    """One testsuite per engine, one testcase per probe; failing exactly as the exit code."""
    from junit_xml import TestCase, TestSuite

    suites = []
    seen: set[tuple[str, str]] = set()
    for engine in report.engines:
        cases = []
        for result in (r for r in report.results if r.engine == engine):
            probe = result.probe
            # the same rule twice in a list: unique testcase names within the engine's suite
            name = unique_name(seen, engine, probe.name)
            line = str(probe.origin.line) if probe.origin.line else None
            case = TestCase(
                name,
                classname=f"twsrt.test.{engine}.{probe.kind}",
                file=probe.origin.path,
                line=line,
                elapsed_sec=(result.sandboxed.seconds if result.sandboxed else 0.0),
            )
            text = _case_text(result)
            if result.verdict is Verdict.ERROR:
                case.add_error_info(f"ERROR: {result.detail}", text, "error")
            elif report.failing(result):
                case.add_failure_info(
                    f"{result.verdict.value}: {result.detail}", text, result.verdict.value
                )
            elif result.verdict in (Verdict.UNENFORCED, Verdict.MOOT, Verdict.UNMODELLED):
                case.add_skipped_info(result.detail)
            else:
                case.stdout = text
            cases.append(case)
        properties = selection_properties(report.selection)
        suites.append(TestSuite(f"twsrt test {engine}", cases, properties=properties))
    return xml_text(suites)


def _case_text(result: Result) -> str:
    lines = [f"{result.verdict.value}: {result.detail}", f"rule at {result.probe.origin}"]
    if result.gap is not None:
        lines.append(result.gap.render())
    for label, seen in (("control", result.control), ("sandboxed", result.sandboxed)):
        if seen is not None:
            lines.append(f"{label}: exit {seen.exit_code}, {seen.outcome}")
            lines += [f"  {line}" for line in seen.output.splitlines()[-10:]]
    return "\n".join(lines) + "\n"
