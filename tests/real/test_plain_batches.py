"""Batched plain probes give the verdicts the probes give one by one, in the real sandboxes:
every example (the srt engine on each, Codex and DeepCode on the dotfiles one), and generated
policies through srt and Codex.
Each plain probe is compared on its verdict and on what its control and its sandboxed run saw
(ran, allowed or denied); attacks were batched before and are left out of the comparison.

Needs srt 0.0.83 on bubblewrap, Codex 0.171.0 and Node >= 22.6 for DeepCode's sandbox
(.ci/install-*.sh); skips without them, fails under TWSRT_REQUIRE_REAL_TOOLS=1.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from support.sandbox import REPO_ROOT
from support.strategies import tree_policy

from twsrt.invocation import open_invocation
from twsrt.request import Request
from twsrt.testing.model import ProbeReport
from twsrt.testing.run import run_tests

from .probing import generated

pytestmark = pytest.mark.real

# example -> (request options, engines). One by one a probe costs a sandbox start (~0.3 s of
# CPU), so each engine is compared where it adds a runner: srt, Codex and DeepCode on the dotfiles
# example (the claude engine is srt with Claude's settings: srt's runner), srt on the others.
# The managed example's srt file is the dotfiles one (asserted below): the same probes.
EXAMPLES = {
    "dotfiles": ({}, ["srt", "codex", "deepcode"]),
    "project": ({}, ["srt"]),
    "profiles": ({"profile": "work"}, ["srt"]),
}
GENERATED = int(os.environ.get("TWSRT_PROPERTY_BATCHES", "5"))


def seen(report: ProbeReport) -> dict[tuple[str, str], tuple[Any, ...]]:
    def look(o: Any) -> Any:
        return (o.ran, o.outcome) if o is not None else None

    return {
        (r.engine, r.probe.name): (r.verdict, look(r.control), look(r.sandboxed))
        for r in report.results
    }


def compare(ctx: Any, engines: Any, factory: Any) -> int:
    one_by_one = run_tests(ctx, engines, factory=factory, attacks=False, batched=False)
    batched = run_tests(ctx, engines, factory=factory, attacks=False)
    assert batched.engines == one_by_one.engines
    before, after = seen(one_by_one), seen(batched)
    changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()}
    assert {k: v for k, v in changed.items() if v[0] != v[1]} == {}
    return len(after)


@pytest.mark.long
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_every_example_gets_the_same_verdicts_batched(
    example: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, factory: Any
) -> None:
    options, engines = EXAMPLES[example]
    repo = tmp_path / example
    shutil.copytree(REPO_ROOT / "examples" / example, repo, symlinks=True)
    if example == "project":  # its user policy is the dotfiles example beside it
        shutil.copytree(REPO_ROOT / "examples" / "dotfiles", tmp_path / "dotfiles", symlinks=True)
    (repo / ".git").mkdir()
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(repo)
    ctx = open_invocation(Request(**options)).context
    assert compare(ctx, engines, factory) > 10 * len(engines)  # it compared something


def test_the_managed_example_has_the_dotfiles_srt_file() -> None:
    examples = REPO_ROOT / "examples"
    managed = examples / "managed" / "policy" / "srt-settings.json"
    assert (
        managed.read_bytes()
        == (examples / "dotfiles" / "policy" / "srt-settings.json").read_bytes()
    )


@pytest.mark.long
@settings(
    derandomize=True,
    max_examples=GENERATED,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(srt=tree_policy())
def test_generated_policies_get_the_same_verdicts_batched(factory: Any, srt: Any) -> None:
    with tempfile.TemporaryDirectory(prefix="twsrt-batches-") as tmp:
        ctx = generated(Path(tmp), srt)
        assume(ctx.policy.enabled)
        compare(ctx, ["srt", "codex"], factory)
