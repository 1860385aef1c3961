"""The pi target on its own terms: every member the sandbox extension merges over its defaults
written out (a key left out would fall back to them, pi rows 3-4), the protected names under
each write root, the sandbox modes, one file for both approval modes, the user's other keys
kept by the merge, and the effective check (a project .pi/sandbox.json, $PI_CODING_AGENT_DIR,
the target's place). Each behaviour has its control: the same run without what it is about."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.rule_cases import config
from support.sandbox import Sandbox

from twsrt.agents.pi.engine import DEFAULTS, extension_settings

TARGET = "home/.pi/agent/extensions/sandbox.json"
SRT = {
    "filesystem": {
        "denyRead": ["~/.ssh", "/etc/shadow"],
        "denyWrite": ["./build/out"],
        "allowWrite": [".", "/srv/data"],
    },
    "network": {"allowedDomains": ["github.com", "*.github.com"], "deniedDomains": ["evil.com"]},
}
BASH = {"deny": ["rm -rf"], "ask": ["git push"], "allow": ["gh pr view"]}


def _setup(sandbox: Sandbox, srt: dict[str, Any] | None = None, target: str = TARGET) -> None:
    sandbox.write("twsrt.toml", config(f'pi_sandbox = "{target}"\n'))
    sandbox.write(".srt-settings.json", srt if srt is not None else SRT)
    sandbox.write("bash-rules.json", BASH)


def _generate(sandbox: Sandbox, *args: str) -> dict[str, Any]:
    result = sandbox.run("generate", "pi", "-w", *args)
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads((sandbox.repo / TARGET).read_text())
    return loaded


def test_every_member_the_extension_merges_is_written(sandbox: Sandbox) -> None:
    _setup(sandbox)
    document = _generate(sandbox)
    assert list(document) == [
        "enabled",
        "network",
        "filesystem",
        "ignoreViolations",
        "enableWeakerNestedSandbox",
    ]
    assert document["enabled"] is True
    assert document["network"] == {
        "allowedDomains": ["github.com", "*.github.com"],
        "deniedDomains": ["evil.com"],
    }
    filesystem = document["filesystem"]
    assert filesystem["denyRead"] == ["~/.ssh", "/etc/shadow"]
    assert filesystem["allowWrite"] == [".", "/srv/data"]
    assert filesystem["denyWrite"][0] == "./build/out"
    assert document["enableWeakerNestedSandbox"] is False


def test_an_empty_policy_still_writes_every_list(sandbox: Sandbox) -> None:
    """The control of the extension's defaults: an empty policy gets empty lists, not npm,
    PyPI and GitHub hosts and /tmp writes (what a missing key would give, row 4)."""
    _setup(sandbox, {})
    document = _generate(sandbox)
    assert document["network"] == {"allowedDomains": [], "deniedDomains": []}
    assert document["filesystem"]["denyRead"] == []
    assert document["filesystem"]["allowWrite"] == []
    derived = extension_settings(document)
    assert derived is not None
    assert derived["network"]["allowedDomains"] == []
    assert "/tmp" not in derived["filesystem"]["allowWrite"]
    # the control: without the members, the extension's defaults come back
    defaults = extension_settings({})
    assert defaults is not None
    assert defaults["filesystem"]["allowWrite"] == DEFAULTS["filesystem"]["allowWrite"]


def test_protected_names_are_denied_under_every_write_root(sandbox: Sandbox) -> None:
    _setup(sandbox)
    deny = _generate(sandbox)["filesystem"]["denyWrite"]
    for name in (".pi", ".codex", ".qwen", ".github", ".bashrc", ".vscode"):
        assert {f"./{name}", f"/srv/data/{name}"} <= set(deny)
    # in the launch directory .git and .claude names stay exact (srt binds its own mandatory
    # names inside those there); below another root the directory is denied whole
    for name in (".git/hooks", ".git/config", ".claude/settings.json", ".claude/commands"):
        assert f"./{name}" in deny
        assert f"/srv/data/{name}" not in deny
    assert {"/srv/data/.git", "/srv/data/.claude"} <= set(deny)
    assert "./.git" not in deny and "./.claude" not in deny
    # the user-level layers of every agent, pi's agent directory among them
    assert {"~/.pi", "~/.claude", "~/.codex"} <= set(deny)


def test_no_deny_below_another_one(sandbox: Sandbox) -> None:
    """srt 0.0.26 would bind a stub for a missing outer path and then fail on the inner one
    (pi row 14): an entry below another one is left out (the outer one covers it)."""
    _setup(sandbox, {"filesystem": {"allowWrite": ["~"], "denyWrite": ["~/a", "~/a/b"]}})
    deny = _generate(sandbox)["filesystem"]["denyWrite"]
    assert "~/a" in deny and "~/a/b" not in deny
    assert "~/.claude" in deny and "~/.claude/commands" not in deny
    assert "~/.git" in deny and "~/.git/hooks" not in deny


def test_a_glob_write_root_gets_no_protected_names(sandbox: Sandbox) -> None:
    _setup(sandbox, {"filesystem": {"allowWrite": ["/srv/*/cache"]}})
    deny = _generate(sandbox)["filesystem"]["denyWrite"]
    assert not [entry for entry in deny if entry.startswith("/srv/")]


@pytest.mark.parametrize(
    ("mode", "enabled", "roots"),
    [
        ("workspace-write", True, [".", "/srv/data"]),
        ("read-only", True, []),
        ("danger-full-access", False, [".", "/srv/data"]),
    ],
)
def test_the_sandbox_modes(sandbox: Sandbox, mode: str, enabled: bool, roots: list[str]) -> None:
    _setup(sandbox)
    document = _generate(sandbox, "--sandbox", mode)
    assert document["enabled"] is enabled
    assert document["filesystem"]["allowWrite"] == roots


def test_yolo_compiles_the_same_bytes(sandbox: Sandbox) -> None:
    """pi never asks before a bash call: one file serves both approval modes."""
    _setup(sandbox)
    full = sandbox.run("generate", "pi")
    yolo = sandbox.run("generate", "pi", "--yolo")
    assert full.returncode == yolo.returncode == 0
    assert full.stdout == yolo.stdout
    assert sandbox.run("generate", "pi", "-w", "--yolo").returncode == 0
    assert sandbox.run("diff", "pi").returncode == 0


def test_a_port_is_left_out_of_allowed_hosts_and_dropped_from_denied_ones(
    sandbox: Sandbox,
) -> None:
    """srt 0.0.26 matches host names without a port: an allowed host:port would match
    nothing (left out, a note), a denied one is denied on every port (stricter)."""
    _setup(
        sandbox,
        {
            "network": {
                "allowedDomains": ["a.example:8443", "b.example"],
                "deniedDomains": ["c.example:99"],
            }
        },
    )
    result = sandbox.run("generate", "pi", "-w", "-v")
    assert result.returncode == 0, result.stderr
    network = json.loads((sandbox.repo / TARGET).read_text())["network"]
    assert network == {"allowedDomains": ["b.example"], "deniedDomains": ["c.example"]}
    assert "[TWS403]" in result.stderr


def test_the_merge_keeps_the_users_other_keys_and_replaces_the_owned_ones(
    sandbox: Sandbox,
) -> None:
    _setup(sandbox)
    existing = (
        '{\n  "comment": "mine",\n  "enabled": false,\n'
        '  "network": {"allowedDomains": ["npmjs.org"], "allowLocalBinding": true}\n}\n'
    )
    sandbox.write(TARGET, existing)
    document = _generate(sandbox)
    assert document["comment"] == "mine"
    assert document["enabled"] is True
    assert "allowLocalBinding" not in document["network"]  # owned whole: srt would take it
    text = (sandbox.repo / TARGET).read_text()
    assert text.startswith('{\n  "comment": "mine",\n')
    assert sandbox.run("diff", "pi").returncode == 0


def test_a_hand_added_key_inside_an_owned_section_is_drift(sandbox: Sandbox) -> None:
    _setup(sandbox)
    document = _generate(sandbox)
    document["network"]["allowLocalBinding"] = True
    sandbox.write(TARGET, json.dumps(document, indent=2) + "\n")
    assert sandbox.run("diff", "pi").returncode == 1


def test_the_losses_are_findings(sandbox: Sandbox) -> None:
    _setup(sandbox, {**SRT, "filesystem": {**SRT["filesystem"], "denyWrite": ["**/.env"]}})
    result = sandbox.run("generate", "pi", "-v")
    assert result.returncode == 0, result.stderr
    err = result.stderr
    assert "warning[TWS462] pi's read tool is not sandboxed" in err
    assert "warning[TWS462] pi's write and edit tools are not sandboxed" in err
    assert "warning[TWS463] bash deny rule 'rm -rf'" in err
    assert "warning[TWS463] bash ask rule 'git push'" in err
    assert "'gh pr view'" not in err  # pi runs every command unasked: an allow loses nothing
    assert "warning[TWS464] filesystem.denyWrite '**/.env'" in err
    assert "note[TWS470]" in err


def test_a_disabled_policy_is_refused(sandbox: Sandbox) -> None:
    _setup(sandbox, {"enabled": False})
    result = sandbox.run("generate", "pi", "-w")
    assert result.returncode != 0
    assert "TWS" in result.stderr and "disabled" in result.stderr
    assert not (sandbox.repo / TARGET).exists()


# ------------------------------------------------------------------ the effective check


def _check(sandbox: Sandbox, **env: str) -> str:
    result = sandbox.run("check", "--agent", "pi", "-v", **env)
    return result.stdout + result.stderr


def test_a_project_file_that_widens_is_an_error(sandbox: Sandbox) -> None:
    _setup(sandbox)
    _generate(sandbox)
    project = {
        "enabled": False,
        "network": {"allowedDomains": ["github.com", "npmjs.org"]},
        "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": []},
        "enableWeakerNestedSandbox": True,
    }
    sandbox.write(".pi/sandbox.json", project)
    out = _check(sandbox)
    found = [line for line in out.splitlines() if "[TWS650]" in line]
    assert len(found) == 5, out
    joined = "\n".join(found)
    assert "enabled false turns the sandbox off" in joined
    assert "its allowedDomains replaces twsrt's and adds 'npmjs.org'" in joined
    assert "its denyRead replaces twsrt's and leaves out '/etc/shadow'" in joined
    assert "its denyWrite replaces twsrt's and leaves out './build/out'" in joined
    assert "enableWeakerNestedSandbox weakens" in joined


def test_a_project_file_that_only_narrows_is_quiet(sandbox: Sandbox) -> None:
    _setup(sandbox)
    _generate(sandbox)
    sandbox.write(".pi/sandbox.json", {"enabled": True, "network": {"allowedDomains": []}})
    assert "[TWS650]" not in _check(sandbox)


def test_the_agent_dir_variable_is_an_error_unless_it_names_the_usual_place(
    sandbox: Sandbox,
) -> None:
    _setup(sandbox)
    _generate(sandbox)
    assert "[TWS651]" in _check(sandbox, PI_CODING_AGENT_DIR=str(sandbox.home / "other"))
    usual = str(sandbox.home / ".pi" / "agent")
    assert "[TWS651]" not in _check(sandbox, PI_CODING_AGENT_DIR=usual)
    assert "[TWS651]" not in _check(sandbox)


def test_a_target_outside_extensions_is_an_error(sandbox: Sandbox) -> None:
    _setup(sandbox, target="home/.pi/agent/sandbox.json")
    assert sandbox.run("generate", "pi", "-w").returncode == 0
    assert "[TWS653]" in _check(sandbox)


def test_missing_sandbox_tools_matter_only_where_pi_runs(sandbox: Sandbox) -> None:
    _setup(sandbox)
    _generate(sandbox)
    assert "[TWS652]" not in _check(sandbox, PATH="/nonexistent")  # no ~/.pi/agent here
    (sandbox.home / ".pi" / "agent").mkdir(parents=True)
    assert "[TWS652]" in _check(sandbox, PATH="/nonexistent")


# ------------------------------------------------------------------ the engine's model


def test_the_engine_merges_over_the_extensions_defaults() -> None:
    assert extension_settings({"enabled": False}) is None
    merged = extension_settings({"filesystem": {"denyRead": []}, "enableWeakerNestedSandbox": True})
    assert merged is not None
    assert merged["filesystem"]["denyRead"] == []  # a list given replaces the default (row 3)
    assert merged["filesystem"]["allowWrite"] == [".", "/tmp"]  # one left out is the default
    assert merged["network"] == DEFAULTS["network"]
    assert merged["enableWeakerNestedSandbox"] is True


def test_dots_are_folded_and_a_climbing_deny_is_refused(sandbox: Sandbox) -> None:
    """srt 0.0.26 does not resolve ``..`` after ``~/`` and then binds outside the write roots
    (every command fails, seen in a property run): twsrt folds what has one meaning, refuses
    a deny it cannot name and leaves such a write root out."""
    _setup(
        sandbox, {"filesystem": {"allowWrite": ["~/a/../b", "~/../c"], "denyWrite": ["~/b/./x"]}}
    )
    result = sandbox.run("generate", "pi", "-w", "-v")
    assert result.returncode == 0, result.stderr
    filesystem = json.loads((sandbox.repo / TARGET).read_text())["filesystem"]
    assert filesystem["allowWrite"] == ["~/b"]
    assert filesystem["denyWrite"][0] == "~/b/x"
    assert "allowWrite '~/../c' climbs above" in result.stderr
    _setup(sandbox, {"filesystem": {"denyWrite": ["~/../proj/x"]}})
    refused = sandbox.run("generate", "pi", "-w")
    assert refused.returncode != 0
    assert "[TWS411]" in refused.stderr and "'~/../proj/x' climbs above" in refused.stderr


def test_a_protected_claude_directory_is_opened_to_its_names_but_a_policy_deny_stays(
    sandbox: Sandbox,
) -> None:
    """In project scope the protected set denies the project's .claude whole (its generated
    file); srt 0.0.26 then cannot bind its own .claude/commands inside (every command failed in
    a real run), so pi's file names the protected names inside it instead. A .git the policy
    itself denies whole stays as written."""
    sandbox.write(
        "twsrt.toml",
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[project]\nagents = ["pi"]\n',
    )
    sandbox.write(
        ".srt-settings.json", {"filesystem": {"allowWrite": ["."], "denyWrite": [".git"]}}
    )
    sandbox.write("bash-rules.json", {})
    result = sandbox.run("generate", "-w")
    assert result.returncode == 0, result.stderr
    deny = json.loads((sandbox.repo / ".pi" / "sandbox.json").read_text())["filesystem"][
        "denyWrite"
    ]
    assert ".claude" not in deny
    assert {"./.claude/settings.json", "./.claude/commands"} <= set(deny)
    assert ".git" in deny


def test_a_tree_suffix_is_the_directory_and_a_write_glob_is_left_out(sandbox: Sandbox) -> None:
    """pi's srt 0.0.26 gets the lists unfiltered and binds only paths that exist: ``P/**``
    would name nothing (written as ``P``), and a denyWrite glob would leave a stub that fails
    every later command (left out, TWS464; both seen in tests/real/test_pi_generated.py)."""
    srt = {"filesystem": {"denyRead": ["~/.aws/**", "**/.npmrc"], "denyWrite": ["~/k/**", "*.pem"]}}
    _setup(sandbox, srt)
    result = sandbox.run("generate", "pi", "-w", "-v")
    assert result.returncode == 0, result.stderr
    filesystem = json.loads((sandbox.repo / TARGET).read_text())["filesystem"]
    assert filesystem["denyRead"] == ["~/.aws", "**/.npmrc"]  # a read glob is harmless
    assert "~/k" in filesystem["denyWrite"]
    assert not [p for p in filesystem["denyWrite"] if "*" in p]
    assert "filesystem.denyWrite '*.pem' is a glob, left out" in result.stderr
    assert "filesystem.denyRead '**/.npmrc' is a glob, which pi's srt 0.0.26 skips" in result.stderr
