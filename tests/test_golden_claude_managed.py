"""Golden files for Claude Code's managed scope: ``managed-settings.json`` in the managed output
tree, through the CLI (``[managed]`` in the config, ``generate -w -v``).

A case (``tests/golden/claude-managed/<case>/``, ``support/golden.py``) holds the sources, an
optional ``existing.json`` (the administrator's managed file before the run, whose other keys
stay), the expected file (``expected.json``) and what ``generate -w -v`` prints (``stderr.txt``).
The three OS copies are the same bytes, readable by every user (0644).
"""

from __future__ import annotations

import json
import shutil

import pytest
from support.golden import GoldenCase, case_names
from support.sandbox import Sandbox

from twsrt.agents.claude.declaration import TREE_PATHS

MANAGED_CONFIG = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[managed]
root = "managed"
agents = ["claude"]
"""
TREE = "managed"
CASES = case_names("claude-managed")


@pytest.mark.parametrize("name", CASES)
def test_claude_managed_golden(sandbox: Sandbox, name: str) -> None:
    """The file at each OS's place, fresh or merged into the administrator's own; then no
    drift, a second run changes nothing, and the file is readable by every user."""
    case = GoldenCase("claude-managed", name)
    linux, *others = (sandbox.repo / TREE / path for path in TREE_PATHS.values())
    case.install(sandbox, MANAGED_CONFIG, f"{TREE}/{TREE_PATHS['linux']}")
    if case.existing() is not None:
        for path in others:
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(linux, path)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    text = linux.read_text(encoding="utf-8")
    case.expect(sandbox, None, "expected.json", text)
    case.expect(sandbox, None, "stderr.txt", run.stderr)
    assert [path.read_text(encoding="utf-8") for path in others] == [text, text]
    assert oct(linux.stat().st_mode & 0o777) == "0o644"
    document = json.loads(text)
    assert document["allowManagedPermissionRulesOnly"] is True
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0, again.stderr
    assert f"twsrt: unchanged {TREE}/{TREE_PATHS['linux']}" in again.stderr


def test_the_managed_option_writes_the_same_tree(sandbox: Sandbox) -> None:
    """``generate --managed DIR`` from a user config writes what a ``[managed]`` config does."""
    case = GoldenCase("claude-managed", "example")
    case.install(sandbox, MANAGED_CONFIG, f"{TREE}/{TREE_PATHS['linux']}")
    assert sandbox.run("generate", "-w").returncode == 0
    expected = (sandbox.repo / TREE / TREE_PATHS["linux"]).read_bytes()
    user_config = MANAGED_CONFIG.replace('[managed]\nroot = "managed"\nagents = ["claude"]\n', "")
    sandbox.write("twsrt.toml", user_config)
    run = sandbox.run("generate", "claude", "--managed", "out", "-w")
    assert run.returncode == 0, run.stderr
    for path in TREE_PATHS.values():
        assert (sandbox.repo / "out" / path).read_bytes() == expected
    drifted = sandbox.run("diff", "claude", "--managed", "out")
    assert drifted.returncode == 0, drifted.stdout


def test_a_hand_edit_of_a_binding_key_is_drift(sandbox: Sandbox) -> None:
    case = GoldenCase("claude-managed", "example")
    case.install(sandbox, MANAGED_CONFIG, f"{TREE}/{TREE_PATHS['linux']}")
    assert sandbox.run("generate", "-w").returncode == 0
    macos = sandbox.repo / TREE / TREE_PATHS["macos"]
    document = json.loads(macos.read_text(encoding="utf-8"))
    document["sandbox"]["network"]["allowManagedDomainsOnly"] = False
    macos.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    run = sandbox.run("diff")
    assert run.returncode == 1
    assert f"{TREE}/{TREE_PATHS['macos']}: drift detected" in run.stdout, run.stdout
    assert "+ sandbox.network.allowManagedDomainsOnly: true" in run.stdout, run.stdout
    assert "- sandbox.network.allowManagedDomainsOnly: false" in run.stdout, run.stdout


LINUX = f"{TREE}/{TREE_PATHS['linux']}"


def test_the_administrators_keys_in_the_tree_are_checked(sandbox: Sandbox) -> None:
    """The merge keeps the administrator's own keys in the managed file; check reports those
    that grant more than the policy (TWS611) at their lines, and nothing of twsrt's own."""
    box = sandbox
    box.write("twsrt.toml", MANAGED_CONFIG)
    assert box.run("generate", "-w").returncode == 0
    clean = box.run("check", "--format", "json", "-v")
    assert clean.returncode == 0, clean.stdout
    assert not [f for f in json.loads(clean.stdout)["findings"] if f["rule_id"] == "TWS611"]
    document = json.loads((box.repo / LINUX).read_text())
    document["permissions"]["allow"].insert(0, "Edit(//opt/**)")
    document["sandbox"]["excludedCommands"] = ["docker *"]
    document["model"] = "claude-opus-4"
    (box.repo / LINUX).write_text(json.dumps(document, indent=2) + "\n")
    assert box.run("diff").returncode == 0  # none of them is twsrt's: no drift
    result = box.run("check", "--format", "json", "-v")
    assert result.returncode == 1
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "TWS611"]
    text = (box.repo / LINUX).read_text().splitlines()
    lines = {
        n for n, line in enumerate(text, 1) if '"Edit(//opt/**)"' in line or "docker *" in line
    }
    assert len(lines) == 2
    assert {(f["location"]["path"], f["location"]["line"]) for f in found} == {
        (LINUX, line) for line in lines
    }
    # the organisation's own rules belong in a drop-in beside the file: checked the same way
    drop_in = f"{TREE}/linux/etc/claude-code/managed-settings.d/50-org.json"
    box.write(drop_in, {"permissions": {"deny": ["Bash(nc *)"], "allow": ["Edit(//srv/**)"]}})
    result = box.run("check", "--format", "json", "-v")
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "TWS611"]
    text = (box.repo / drop_in).read_text().splitlines()
    line = next(n for n, entry in enumerate(text, 1) if "Edit(//srv/**)" in entry)
    assert (drop_in, line) in {(f["location"]["path"], f["location"]["line"]) for f in found}
