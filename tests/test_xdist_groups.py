"""The suite's xdist groups hold (tests/run.sh: ``--dist loadgroup``): every test of a group
runs on one worker, so a module's expensive fixture (a wheel, a pre-commit environment, the
installed action) is built once. pytest 9.2 broke this silently with pytest-xdist 3.8 (every
group was split over the workers and each built its fixture again): this test names it."""

from __future__ import annotations

import pytest

GROUPED = """
import os
import pytest

pytestmark = pytest.mark.xdist_group("one")


@pytest.mark.parametrize("n", range(8))
def test_where(n):
    with open(os.environ["WORKERS_LOG"], "a") as log:
        log.write(f"{os.getpid()}\\n")
"""


@pytest.mark.tool  # a pytest with xdist in a subprocess: seconds
def test_a_group_runs_on_one_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = pytester.path / "workers.log"
    pytester.makepyfile(test_grouped=GROUPED)
    monkeypatch.setenv("WORKERS_LOG", str(log))
    result = pytester.runpytest_subprocess(
        "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=8)
    assert len(set(log.read_text().split())) == 1
