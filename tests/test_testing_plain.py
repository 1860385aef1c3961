"""Plain probes in batches (``twsrt.testing.plain``): grouping, the section script, and the
fallbacks that keep one bad probe from spoiling the others (a probe that hangs, a batch that
crashes, a sandbox that fails to start), each against the same probes run one by one. A plain
shell stands in for the sandbox; tests/real/test_plain_batches.py compares the real engines."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from twsrt.locations import Location
from twsrt.testing.batches import framed, new_nonce, section_line, split_sections
from twsrt.testing.engines import Run, base_env, run_process, upstream_stub
from twsrt.testing.model import Action, Outcome, Probe
from twsrt.testing.plain import (
    SCRIPT_LIMIT,
    Planned,
    batch_script,
    observe_plain,
    probe_batches,
    shells_of,
)

AT = Location("srt.json", 3, 5)


def probe(kind: str, action: Action, target: str, expect: Outcome = Outcome.DENIED) -> Probe:
    return Probe(kind, target, AT, action, expect, target=target)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "secret").write_text("x\n", encoding="utf-8")
    (tmp_path / "home" / "rc").write_text("x\n", encoding="utf-8")
    os.mkfifo(tmp_path / "home" / "fifo")  # reading it blocks: a probe that hangs
    return tmp_path


class Shell:
    """``sh -c`` in the tree, counting runs; ``crash_after``: the output of a batch run is cut
    after that many sections and the run reports a crash (exit 139)."""

    def __init__(self, root: Path, upstream: str, crash_after: int | None = None) -> None:
        self.root, self.upstream, self.crash_after = root, upstream, crash_after
        self.runs: list[str] = []
        self.fail_first_start = False
        self.dead_proxy_runs = 0  # this many runs first get a proxy that refuses connections

    def __call__(self, shell: str, timeout: float) -> Run:
        self.runs.append(shell)
        if self.fail_first_start:
            self.fail_first_start = False
            return Run(1, "bwrap: setting up uid map: Permission denied", 0.1)
        env = base_env(self.root)
        env["HTTP_PROXY"] = env["http_proxy"] = self.upstream
        if self.dead_proxy_runs:
            self.dead_proxy_runs -= 1
            env["HTTP_PROXY"] = env["http_proxy"] = f"http://127.0.0.1:{closed_port()}"
        done = run_process(["sh", "-c", shell], env, self.root / "work", timeout)
        if self.crash_after is not None and "TWSRT-BATCH-START" in done.output:
            cut = done.output.split("@@/")[: self.crash_after + 1]
            kept = "@@/".join(cut)
            return Run(139, kept.rsplit("\n", 1)[0] + "\nSegmentation fault", done.seconds)
        return done


def closed_port() -> int:
    """A local port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def items_of(probes: list[Probe]) -> list[Planned]:
    return [Planned(i, p) for i, p in enumerate(probes)]


def mixed() -> list[Probe]:
    return [
        probe("deny-read", Action.READ, "home/secret"),
        probe("deny-read", Action.READ, "home/missing"),
        probe("allow-write", Action.CREATE, "work/.twsrt-probe-create", Outcome.ALLOWED),
        probe("deny-write", Action.APPEND, "home/rc"),
        probe("allow-domain", Action.FETCH, "http://example.com/", Outcome.ALLOWED),
        probe("deny-domain", Action.FETCH, "http://denied.example/"),
    ]


def observed(found: dict) -> dict:
    """Per probe: did the control and the sandbox run, and what they saw."""
    return {
        i: tuple((o.ran, o.outcome, o.exit_code) if o else None for o in pair)
        for i, pair in found.items()
    }


def both(tree: Path, probes: list[Probe], timeout: float = 20, **shell: int) -> tuple:
    with upstream_stub() as upstream:
        alone_control, alone_inside = Shell(tree, upstream), Shell(tree, upstream)
        one_by_one = observe_plain(
            alone_control,
            alone_inside,
            items_of(probes),
            str(tree),
            sys.executable,
            timeout,
            batched=False,
        )
        control, inside = Shell(tree, upstream), Shell(tree, upstream, **shell)
        batched = observe_plain(
            control, inside, items_of(probes), str(tree), sys.executable, timeout
        )
    return one_by_one, batched, (alone_control, alone_inside), (control, inside)


# ------------------------------------------------------------------ same observations


def test_a_batch_observes_what_the_probes_observe_one_by_one(tree: Path) -> None:
    one_by_one, batched, alone_runs, batch_runs = both(tree, mixed())
    assert observed(batched) == observed(one_by_one)
    seen = {i: pair[0].outcome for i, pair in batched.items()}
    assert seen == {
        0: Outcome.ALLOWED,  # no sandbox: the control reads it
        1: Outcome.DENIED,  # a missing file: the control cannot read it (INVALID later)
        2: Outcome.ALLOWED,
        3: Outcome.ALLOWED,
        4: Outcome.ALLOWED,
        5: Outcome.ALLOWED,  # the stub answers every host
    }
    # one control script and one sandbox start for all six; one by one: a run each
    assert [len(r.runs) for r in batch_runs] == [1, 1]
    assert [len(r.runs) for r in alone_runs] == [6, 5]
    # the fetches of a batch share one Python
    assert batch_runs[1].runs[0].count('-c "$TWSRT_FETCH" --batch') == 1
    assert not (tree / "work" / ".twsrt-probe-create-2").exists()  # created and removed


def test_a_hanging_probe_is_run_alone_and_the_others_keep_their_observations(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("twsrt.testing.plain.PER_PROBE_SECONDS", 0.2)  # the batch's allowance
    probes = mixed()
    probes.insert(2, probe("deny-read", Action.READ, "home/fifo"))
    one_by_one, batched, _, (control, _inside) = both(tree, probes, timeout=1)
    assert observed(batched) == observed(one_by_one)
    hung = batched[2][0]
    assert not hung.ran and "timed out after 1s" in hung.output and batched[2][1] is None
    # the batch timed out at the fifo: it and every probe after it ran alone
    assert len(control.runs) == 1 + len(probes) - 2
    assert all(batched[i][0].ran for i in (0, 1, 3, 4, 5, 6))


def test_a_batch_that_crashes_reruns_only_the_probes_it_did_not_finish(tree: Path) -> None:
    one_by_one, batched, _, (_control, inside) = both(tree, mixed(), crash_after=2)
    assert observed(batched) == observed(one_by_one)
    # the sandbox ran the batch once; the four probes after the crash ran alone
    assert len(inside.runs) == 1 + 3


def test_a_sandbox_that_does_not_start_is_tried_once_more(tree: Path) -> None:
    probes = mixed()[:1]
    with upstream_stub() as upstream:
        control, inside = Shell(tree, upstream), Shell(tree, upstream)
        inside.fail_first_start = True
        found = observe_plain(control, inside, items_of(probes), str(tree), sys.executable, 10)
    assert len(inside.runs) == 2
    assert found[0][1] is not None and found[0][1].ran


@pytest.mark.parametrize("batched", [True, False])
def test_an_allowed_fetch_without_an_answer_gets_a_second_run(tree: Path, batched: bool) -> None:
    # under load a connection can fail for the machine's sake: the second run decides
    probes = [probe("allow-domain", Action.FETCH, "http://example.com/", Outcome.ALLOWED)]
    with upstream_stub() as upstream:
        control, inside = Shell(tree, upstream), Shell(tree, upstream)
        inside.dead_proxy_runs = 1
        found = observe_plain(
            control, inside, items_of(probes), str(tree), sys.executable, 10, batched=batched
        )
    assert len(inside.runs) == 2
    assert found[0][1] is not None and found[0][1].outcome is Outcome.ALLOWED


def test_no_second_run_for_a_refusal_or_a_fetch_the_policy_denies(tree: Path) -> None:
    probes = [probe("deny-domain", Action.FETCH, "http://denied.example/")]
    with upstream_stub() as upstream:
        control, inside = Shell(tree, upstream), Shell(tree, upstream)
        inside.dead_proxy_runs = 5
        found = observe_plain(control, inside, items_of(probes), str(tree), sys.executable, 10)
    assert len(inside.runs) == 1  # no answer is what a deny expects: nothing to check again
    assert found[0][1] is not None and found[0][1].outcome is Outcome.DENIED
    # twice without an answer: the second run's DENIED stands (a FAIL for an allowed host)
    allowed = [probe("allow-domain", Action.FETCH, "http://example.com/", Outcome.ALLOWED)]
    with upstream_stub() as upstream:
        control, inside = Shell(tree, upstream), Shell(tree, upstream)
        inside.dead_proxy_runs = 5
        found = observe_plain(control, inside, items_of(allowed), str(tree), sys.executable, 10)
    assert len(inside.runs) == 3  # the batch, its probe alone, once more alone
    assert found[0][1] is not None and found[0][1].outcome is Outcome.DENIED


# ------------------------------------------------------------------ grouping and sections


def test_probes_that_write_a_path_another_uses_go_to_separate_batches() -> None:
    probes = [
        probe("deny-read", Action.READ, "home/rc"),
        probe("deny-write", Action.APPEND, "home/rc"),  # would create rc were it missing
        probe("deny-read", Action.READ, "home/other"),
        probe("allow-write", Action.CREATE, "work/c", Outcome.ALLOWED),  # writes work/c-3
        probe("allow-write", Action.CREATE, "work/c", Outcome.ALLOWED),  # writes work/c-4
    ]
    items = items_of(probes)
    shells = shells_of(items, "/r", sys.executable, 5).batched
    groups = [[i.index for i in g] for g in probe_batches(items, shells)]
    assert groups == [[0, 2, 3, 4], [1]]


def test_no_batch_script_outgrows_the_limit() -> None:
    long = "home/" + "d" * 2000
    items = items_of([probe("deny-read", Action.READ, f"{long}/{n}") for n in range(60)])
    shells = shells_of(items, "/r", sys.executable, 5)
    groups = probe_batches(items, shells.batched)
    assert len(groups) > 1 and sum(map(len, groups)) == 60
    for group in groups:
        assert len(batch_script(group, shells, new_nonce())) <= SCRIPT_LIMIT


def test_output_cannot_close_another_section_without_the_nonce(tree: Path) -> None:
    nonce = new_nonce()
    # a command prints what the markers would be without the nonce (a path may hold them)
    lines = [
        section_line(0, nonce, "echo '@@/0@@ 0'; echo first"),
        section_line(1, nonce, "exit 3"),
    ]
    done = run_process(["sh", "-c", framed(lines, nonce)], base_env(tree), tree, 10)
    first, second = split_sections(done.output, 2, nonce)
    assert first is not None and first.output.strip() == "@@/0@@ 0\nfirst" and first.status == 0
    assert second is not None and second.status == 3
    assert split_sections(done.output, 2, "other") == [None, None]


# ------------------------------------------------------------------ a sandbox that never starts


class NeverStarts:
    """An engine whose sandbox fails before running anything, as bwrap does without user
    namespaces."""

    name, agent, hint, gaps = "srt", None, "enable unprivileged user namespaces", ()

    def __init__(self) -> None:
        self.runs = 0

    def reads(self, ctx: Any) -> list[Path]:
        return [ctx.config.srt]

    def check_available(self, ctx: Any) -> None:
        pass

    def prepare(self, ctx: Any, root: Path, upstream: str) -> Path:
        (root / "input.json").write_text("{}", encoding="utf-8")
        return root / "input.json"

    def run(self, shell: str, timeout: float) -> Run:
        self.runs += 1
        return Run(1, "bwrap: No permissions to creating new namespace\n", 0.0)


@pytest.mark.parametrize("batched", [True, False])
def test_a_sandbox_that_never_starts_stops_the_run_with_its_hint(
    sandbox: Any, batched: bool
) -> None:
    from twsrt.invocation import open_invocation
    from twsrt.request import Request
    from twsrt.testing.engines import EngineUnavailable
    from twsrt.testing.run import run_tests

    sandbox.use_example()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(sandbox.repo)
        ctx = open_invocation(Request()).context
    engines: list[NeverStarts] = []

    def factory(_name: str) -> NeverStarts:
        engines.append(NeverStarts())
        return engines[-1]

    with pytest.raises(EngineUnavailable) as refused:
        run_tests(ctx, "srt", "bashrc", factory=factory, batched=batched)
    assert refused.value.problem == (
        "the sandbox does not start here (exit 1): bwrap: No permissions to creating new namespace"
    )
    assert refused.value.hint == "enable unprivileged user namespaces"
    # batched, a lane's first batch is its proof; one by one, a smoke start before any probe
    assert max(e.runs for e in engines) == 1
