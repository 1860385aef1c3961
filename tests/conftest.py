"""Fixtures and hooks only; shared helpers live in ``tests/support/``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from support.hypothesis_validation import keep_filtered_validation
from support.nodecache import start_session_cache
from support.sandbox import Sandbox, make_sandbox

# The rewritten test modules and twsrt's own modules are cached as bytecode even where the
# environment sets PYTHONDONTWRITEBYTECODE (this machine does): without the cache every xdist
# worker rewrites the asserts of every test module again (~5 s of CPU per process against ~1.5 s),
# and every twsrt the tests start compiles twsrt again. The caches are __pycache__/ (ignored).
sys.dont_write_bytecode = False

# Speed is measured by benchmarks/bench.py, never by a test: hypothesis's per-example deadline
# only fails a property when the machine is loaded (xdist workers, CI), so it is off everywhere.
settings.register_profile("twsrt", deadline=None)
settings.load_profile("twsrt")
keep_filtered_validation()  # hypothesis re-validated each filtered strategy on every draw

pytest_plugins = ("pytester",)  # tests/test_markers.py runs pytest on a small test file


def pytest_configure(config: pytest.Config) -> None:
    """One Node compile cache for the whole session (support/nodecache.py), made before the
    xdist workers start so that they inherit its name, removed when the session ends."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller made it
        return
    drop = start_session_cache()
    if drop is not None:
        config.add_cleanup(drop)


@pytest.fixture(autouse=True, scope="session")
def _no_host_managed_files(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The agents' managed files of this machine (/etc/claude-code, ...) stay out of every
    test: twsrt looks for them under an empty root (tests that plant them set their own)."""
    os.environ["TWSRT_MANAGED_ROOT"] = str(tmp_path_factory.mktemp("host-root"))


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A temporary HOME with a dotfiles repo holding the default config and sources."""
    return make_sandbox(tmp_path)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``long`` (minutes each, mostly real agents) first, so that xdist starts
    them while the many short ones fill the other workers, instead of finishing on them."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # noqa: ANN201
    """With TWSRT_REQUIRE_REAL_TOOLS=1 (CI), a skipped test is a failed test: a `real` or `tool`
    test whose tool is missing, and any other skip."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("TWSRT_REQUIRE_REAL_TOOLS") == "1" and report.skipped:
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped, but TWSRT_REQUIRE_REAL_TOOLS=1 forbids skips: {reason}"
