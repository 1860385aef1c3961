"""Plain probes run in batches: one control script and one sandbox start for a group of probes
that cannot disturb each other, each probe still judged on its own output (its section of the
batch's output) and reported at its own policy line. A probe whose section did not finish (it
hung, or crashed the batch) is run again alone, as every probe was before batching, so one bad
probe never turns the others into FAIL or ERROR.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from twsrt.records import record
from twsrt.testing.batches import framed, new_nonce, section_line, split_sections
from twsrt.testing.commands import HELPERS_PRELUDE, command, fetches, observe, unanswered_fetch
from twsrt.testing.engines import Run
from twsrt.testing.globs import within
from twsrt.testing.model import Action, Observation, Outcome, Probe

# A batch's script is one argument of the sandbox's command line (Linux takes 128 KiB per
# argument, and a launcher may quote it again): probes beyond this many bytes start a new batch.
SCRIPT_LIMIT = 32 * 1024
# A batch may take its probe timeout plus this much per probe before it counts as hung.
PER_PROBE_SECONDS = 1.0


Runner = Callable[[str, float], Run]  # sh text and timeout -> the run (control or sandbox)


@record
class Planned:
    """A probe with its index in the engine's list (which keeps its created file unique)."""

    index: int
    probe: Probe


def written(item: Planned) -> str | None:
    """The path the probe's command may create or change; None for one that only looks."""
    if item.probe.action is Action.APPEND:  # writes nothing, but creates a missing file
        return item.probe.target
    if item.probe.action is Action.CREATE:
        return f"{item.probe.target}-{item.index}"
    return None


def conflict(a: Planned, b: Planned) -> bool:
    """True when one probe could change a path the other uses."""
    for first, second in ((a, b), (b, a)):
        path = written(first)
        if path is None:
            continue
        for other in (second.probe.target, written(second)):
            if other and (within(path, other) or within(other, path)):
                return True
    return False


def probe_batches(items: Sequence[Planned], shells: dict[int, str]) -> list[list[Planned]]:
    """Probes grouped (first fit, in order) so that no two in a group conflict and no group's
    script outgrows SCRIPT_LIMIT."""
    groups: list[list[Planned]] = []
    sizes: list[int] = []
    for item in items:
        size = len(shells[item.index]) + 64  # the markers around it
        for n, group in enumerate(groups):
            if sizes[n] + size <= SCRIPT_LIMIT and not any(conflict(item, o) for o in group):
                group.append(item)
                sizes[n] += size
                break
        else:
            groups.append([item])
            sizes.append(len(HELPERS_PRELUDE) + size)
    return groups


def observe_batch(
    run: Runner, batch: Sequence[Planned], shells: Shells, timeout: float, retry: bool
) -> dict[int, Observation]:
    """Each probe's observation from one run of the batch; a probe whose section did not finish
    is run alone (its self-contained command). ``retry``: a run that printed nothing of the
    batch (the sandbox failed to start) is tried once more, as a single probe's run was."""
    if not batch:
        return {}
    nonce = new_nonce()
    text = batch_script(batch, shells, nonce)
    limit = timeout + PER_PROBE_SECONDS * len(batch)
    done = run(text, limit)
    parts = split_sections(done.output, len(batch), nonce)
    if retry and done.exit_code is not None and not any(parts):
        done = run(text, limit)
        parts = split_sections(done.output, len(batch), nonce)
    out = {}
    for item, part in zip(batch, parts, strict=True):
        if part is None:
            single = shells.alone[item.index]
            out[item.index] = alone(run, item.probe, single, timeout, retry)
        else:
            seen = observe(item.probe, part.status, part.output, done.seconds)
            if retry and unanswered_fetch(item.probe, seen):
                seen = alone(run, item.probe, shells.alone[item.index], timeout, retry)
            out[item.index] = seen
    return out


def batch_script(batch: Sequence[Planned], shells: Shells, nonce: str) -> str:
    """The batch's script: each probe in its section, the fetches last and all in one Python
    (a Python start costs more than most probes)."""
    lines = []
    targets = []
    for position, item in enumerate(batch):
        if item.probe.action is Action.FETCH:
            targets.append((position, item.probe.target))
        else:
            lines.append(section_line(position, nonce, shells.batched[item.index]))
    if targets:
        lines.append(f"( {fetches(shells.python, nonce, shells.net, targets)} ) 2>&1")
    return framed(lines, nonce, HELPERS_PRELUDE)


def alone(run: Runner, probe: Probe, shell: str, timeout: float, retry: bool) -> Observation:
    """One probe in a run of its own."""
    ran = run(shell, timeout)
    seen = observe(probe, ran.exit_code, ran.output, ran.seconds)
    if retry and (not seen.ran and ran.exit_code is not None or unanswered_fetch(probe, seen)):
        # no result line (the sandbox failed to start) or an allowed fetch without an answer:
        # once more before calling it ERROR or FAIL
        ran = run(shell, timeout)
        seen = observe(probe, ran.exit_code, ran.output, ran.seconds)
    return seen


@record
class Shells:
    """Each probe's command as a batch runs it (the helpers from the batch's shell variables)
    and as it runs alone (self-contained)."""

    batched: dict[int, str]
    alone: dict[int, str]
    python: str
    net: float  # a fetch's timeout


def shells_of(items: Sequence[Planned], root: str, python: str, net: float) -> Shells:
    def text(item: Planned, helpers: bool) -> str:
        return command(item.probe, root, python, item.index, net_timeout=net, helpers=helpers)

    batched = {i.index: text(i, True) for i in items}
    return Shells(batched, {i.index: text(i, False) for i in items}, python, net)


def observe_plain(
    control: Runner,
    sandboxed: Runner,
    items: Sequence[Planned],
    root: str,
    python: str,
    timeout: float,
    batched: bool = True,
    tick: Callable[[int], None] | None = None,
) -> dict[int, tuple[Observation, Observation | None]]:
    """Every probe's control and sandboxed observation, batch by batch (``batched`` False: each
    probe alone, as before batching; the test that compares the two uses it). The sandbox runs
    only the probes whose control was allowed (the others prove nothing either way)."""
    net = max(1.0, timeout / 2)
    shells = shells_of(items, root, python, net)
    out: dict[int, tuple[Observation, Observation | None]] = {}
    if not batched:
        return {i.index: _each_alone(control, sandboxed, i, shells, timeout) for i in items}
    for batch in probe_batches(items, shells.batched):
        plain = observe_batch(control, batch, shells, timeout, False)
        live = [i for i in batch if _allowed(plain[i.index])]
        seen = observe_batch(sandboxed, live, shells, timeout, True)
        out.update({i.index: (plain[i.index], seen.get(i.index)) for i in batch})
        if tick is not None:
            tick(len(batch))
    return out


def _each_alone(
    control: Runner, sandboxed: Runner, item: Planned, shells: Shells, timeout: float
) -> tuple[Observation, Observation | None]:
    single = shells.alone[item.index]
    plain = alone(control, item.probe, single, timeout, False)
    if not _allowed(plain):
        return plain, None
    return plain, alone(sandboxed, item.probe, single, timeout, True)


def _allowed(seen: Observation) -> bool:
    return seen.ran and seen.outcome is Outcome.ALLOWED
