"""The engine gaps ``check`` shares with ``twsrt test`` (``twsrt.testing.gaps``): ``check`` loads
that light module and nothing of the prober (runner, engines, attacks, verdicts, reports)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.sandbox import REPO_ROOT

from twsrt.jsonpos import parse_json
from twsrt.locations import Location
from twsrt.policy import Policy
from twsrt.protection import with_root_names
from twsrt.sources import build_policy
from twsrt.testing.engines import engine_class
from twsrt.testing.gaps import SRT_GAPS
from twsrt.testing.model import Action, Attack, Outcome, Probe
from twsrt.testing.registry import ENGINES
from twsrt.testing.verdicts import explain_gap

# check_report on the shipped example in a fresh interpreter, then list what it imported
_CHECK_AND_LIST = """
import json, sys
from twsrt.checking import check_report
from twsrt.request import Request
report = check_report(Request())
print(json.dumps({"checked": len(report.checked),
                  "modules": sorted(m for m in sys.modules if m.startswith("twsrt."))}))
"""


def test_check_imports_the_gaps_but_nothing_of_the_prober() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", _CHECK_AND_LIST],
        cwd=REPO_ROOT / "examples" / "dotfiles",
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["checked"] > 2  # the run got as far as the targets, past the gap lookup
    modules = set(seen["modules"])
    assert "twsrt.testing.gaps" in modules
    prober = {
        "twsrt.testing.engines",
        "twsrt.testing.run",
        "twsrt.testing.attacks",
        "twsrt.testing.verdicts",
        "twsrt.reports.probes",
        *ENGINES.values(),
    }
    assert sorted(modules & prober) == []
    assert not [m for m in modules if m.startswith("twsrt.testing.engine")]


def test_every_engine_declares_its_gap_table_and_hint() -> None:
    for name in ENGINES:
        engine = engine_class(name)
        assert engine.hint
        assert all(callable(rule) for rule in engine.gaps)
    # the claude engine runs srt, so it carries every srt gap first
    assert engine_class("claude").gaps[: len(SRT_GAPS)] == SRT_GAPS
    assert engine_class("srt").gaps == SRT_GAPS


def _policy(**network: object) -> Policy:
    srt = {"filesystem": {}, "network": {"allowedDomains": [], "deniedDomains": [], **network}}
    bash = {"allow": [], "deny": [], "ask": []}
    return with_root_names(
        build_policy(
            parse_json(json.dumps(srt, indent=2)),
            "srt.json",
            parse_json(json.dumps(bash)),
            "b.json",
        )
    )


AT = Location("srt.json", 3, 5)
DENIED, ALLOWED = Outcome.DENIED, Outcome.ALLOWED
FRESH = Attack("deny-write", "**/.env", AT, Action.CREATE, DENIED, glob=True, attack="create-match")
APPEND_GLOB = Attack("deny-write", "**/.env", AT, Action.APPEND, DENIED, glob=True, attack="append")
READ_HOME = Probe("allow-read", "~/.ssh/known_hosts", AT, Action.READ, ALLOWED)
TMP = Probe("write-tmp", "/tmp", AT, Action.CREATE, DENIED)
FETCH_GH = Probe("allow-domain", "github.com", AT, Action.FETCH, ALLOWED)
FETCH_PORT = Probe("allow-domain", "a.test:8443", AT, Action.FETCH, ALLOWED, port=True)
ROOT_HOME = Probe("allow-write", "~/**", AT, Action.CREATE, ALLOWED, glob=True)
ROOT_PLAIN = Probe("allow-write", "~/out", AT, Action.CREATE, ALLOWED)
SOCKET = Probe("allow-unix-socket", "/run/x.sock", AT, Action.CONNECT, ALLOWED)


@pytest.mark.parametrize(
    ("probe", "observed", "network", "platform", "expected"),
    [
        (FRESH, ALLOWED, {}, "linux", "lossy-glob-snapshot"),
        (FRESH, ALLOWED, {}, "darwin", "lossy-glob-snapshot"),
        (APPEND_GLOB, ALLOWED, {}, "linux", None),  # an existing file: the glob holds
        (FRESH, DENIED, {}, "linux", None),
        (TMP, ALLOWED, {}, "linux", "codex-temp-writable"),
        (READ_HOME, DENIED, {}, "linux", "codex-no-allow-read"),
        (READ_HOME, ALLOWED, {}, "linux", None),
        (FETCH_GH, DENIED, {"deniedDomains": ["*:22"]}, "linux", "lossy-port-domain"),
        (FETCH_GH, DENIED, {"deniedDomains": ["github.com:22"]}, "linux", "lossy-port-domain"),
        (FETCH_GH, DENIED, {"deniedDomains": ["gitlab.com:22"]}, "linux", None),
        (FETCH_PORT, DENIED, {}, "linux", "lossy-port-domain"),
        (FETCH_GH, DENIED, {}, "linux", None),
        (ROOT_HOME, DENIED, {}, "linux", "lossy-write-root"),
        (ROOT_PLAIN, DENIED, {}, "linux", None),
        (SOCKET, DENIED, {}, "linux", "codex-linux-unix-sockets"),
        (SOCKET, DENIED, {}, "darwin", None),
    ],
)
def test_codex_gap_table(
    probe: Probe, observed: Outcome, network: dict, platform: str, expected: str | None
) -> None:
    gap = explain_gap("codex", probe, observed, _policy(**network), platform)
    assert (gap.rule.name if gap else None) == expected
    if gap is not None:
        assert gap.location == AT and gap.agent == "codex"


def test_codex_gap_messages_name_the_entry_that_explains_them() -> None:
    """The table is tried in order: with every host cut off, the network-off reason wins over
    the port of the denied entry; without it, the denied entry is named."""
    cut = _policy(deniedDomains=["github.com:22", "*:25"])
    gap = explain_gap("codex", FETCH_GH, DENIED, cut, "linux")
    assert (
        gap is not None
        and "'*:25'" in gap.message
        and "switches Codex's network off" in gap.message
    )
    ported = _policy(deniedDomains=["github.com:22"])
    gap = explain_gap("codex", FETCH_GH, DENIED, ported, "linux")
    assert gap is not None and "'github.com:22'" in gap.message and "every port" in gap.message
