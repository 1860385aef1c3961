"""The droid engine's model of how Factory Droid 0.225.2 turns its sandbox block into srt's
settings (pure: the derivation and the gap table; tests/real/test_droid_engine.py runs
`twsrt test --engine droid`, srt on it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from twsrt.agents.droid.engine import FACTORY_HOSTS, droid_srt_settings
from twsrt.locations import Location
from twsrt.testing.model import Action, Outcome, Probe
from twsrt.testing.verdicts import explain_gap

ROOT = "/r"
BLOCK: dict[str, Any] = {
    "sandbox": {
        "enabled": True,
        "mode": "per-command",
        "filesystem": {
            "allowWrite": [".", "~/proj"],
            "allowRead": ["~/.ssh/known_hosts"],
            "denyWrite": ["guarded", "~/.claude"],
            "denyRead": ["~/.ssh", "/etc/shadow"],
        },
        "network": {
            "allowedDomains": ["github.com", "api.factory.ai"],
            "allowUnixSockets": [],
            "allowAllUnixSockets": False,
            "allowLocalBinding": True,
        },
    }
}


def test_the_derived_settings_are_droid_s() -> None:
    derived = droid_srt_settings(BLOCK, ROOT)
    assert derived is not None
    fs = derived["filesystem"]
    # the launch directory and Droid's ~/.factory working directories first, then the file's
    assert fs["allowWrite"][0] == "/r/work"
    assert "/r/home/.factory/temp" in fs["allowWrite"] and "/r/home/proj" in fs["allowWrite"]
    assert {"/r/work/guarded", "/r/home/.claude", "/r/home/.factory/settings.json"} <= set(
        fs["denyWrite"]
    )
    assert {"/r/home/.ssh", "/r/fs/etc/shadow", "/r/home/.factory/auth.v2.file"} <= set(
        fs["denyRead"]
    )
    assert "allowRead" not in fs  # Droid passes it to its file tools only
    network = derived["network"]
    assert network["allowedDomains"][: len(FACTORY_HOSTS)] == list(FACTORY_HOSTS)
    assert network["allowedDomains"][len(FACTORY_HOSTS) :] == ["github.com"]
    assert network["deniedDomains"] == [] and network["allowLocalBinding"] is True


@pytest.mark.parametrize("enabled", [False, None, "true"])
def test_a_block_without_enabled_true_runs_unsandboxed(enabled: Any) -> None:
    block = json.loads(json.dumps(BLOCK))
    if enabled is None:
        del block["sandbox"]["enabled"]
    else:
        block["sandbox"]["enabled"] = enabled
    assert droid_srt_settings(block, ROOT) is None
    assert droid_srt_settings({}, ROOT) is None


def test_the_launch_directory_is_droid_s_documented_gap() -> None:
    at = Location("s")
    root = Probe("read-only-root", ".", at, Action.CREATE, Outcome.DENIED)
    other = Probe("read-only-root", "~/.cache", at, Action.CREATE, Outcome.DENIED)
    from support.policies import fs

    def gap(probe: Probe) -> str | None:
        found = explain_gap("droid", probe, Outcome.ALLOWED, fs(), "linux")
        return found.rule_id if found else None

    assert gap(root) == "TWS495"
    assert gap(other) is None
