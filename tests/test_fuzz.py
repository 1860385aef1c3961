"""The seeded fuzzer (issue 26 acceptance): 500 runs of hostile checkouts through the read-only
commands and ``generate -w``, with 0 exit 3, 0 tracebacks, 0 runs over 10 s, 0 changed files on
a read-only command, and no write outside the repository, into ``.git`` or through a link.

tests/support/fuzzing.py draws each run from ``random.Random`` of (SEED, run): deterministic,
no hypothesis database. The runs are split into chunks so xdist spreads them over the workers
(about 18 s of CPU for the 500, most of it the
copies and fsyncs). A failure names its run: ``plan(SEED, run)`` rebuilds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fuzzing import copy_of, judge, make_template, plan

SEED = 20261201
RUNS = 500
CHUNKS = 10


def violations(root: Path, runs: range) -> list[str]:
    """Every violation of ``runs``, each prefixed with its run and command."""
    template = make_template(root / "template")
    found = []
    for run in runs:
        fuzz = plan(SEED, run)
        box = copy_of(template, root / str(run))
        found += [f"run {run} {fuzz.args}: {problem}" for problem in judge(box, fuzz)]
    return found


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz(tmp_path: Path, chunk: int) -> None:
    """Every input the fuzzer draws, the names no file may have (a NUL, a component over
    NAME_MAX, a config symlink loop), targets in .git/ and executable targets included."""
    assert violations(tmp_path, range(chunk, RUNS, CHUNKS)) == []


def test_the_judge_sees_each_violation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks have teeth: a run that writes outside, through a planted link and into .git,
    exits 3 and prints the checkout token is reported for each."""
    from support.cli import Run
    from support.fuzzing import Plan
    from support.sandbox import Sandbox

    def hostile_run(self: Sandbox, *args: str, **env: str) -> Run:
        (self.home.parent / "outside" / "secret").write_text("changed\n", encoding="utf-8")
        (self.repo / "bash-rules.json").write_text("{}\n", encoding="utf-8")  # the link's end
        (self.repo / ".git" / "hooks" / "commit-msg").write_text("#!/bin/sh\n", encoding="utf-8")
        return Run(3, "c2VjcmV0", "twsrt: internal error: boom\n")

    template = make_template(tmp_path / "template")
    monkeypatch.setattr(Sandbox, "run", hostile_run)
    box = copy_of(template, tmp_path / "run")
    problems = judge(box, Plan(links={"flags.sh": "{repo}/bash-rules.json"}, args=("check",)))
    expected = [
        "exit 3: twsrt: internal error: boom",
        "wrote outside HOME",
        "read-only command changed ['dotfiles/.git/hooks/commit-msg', 'dotfiles/bash-rules.json']",
        "wrote into .git: ['dotfiles/.git/hooks/commit-msg']",
        "printed the token of .git/config",
        f"wrote through the link flags.sh -> {box.repo}/bash-rules.json",
    ]
    assert problems == expected
