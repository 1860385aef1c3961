"""Claude Code between launches (issue 25; real runs in tests/real/test_claude_layers.py):
what every Claude file carries against a layer a sandboxed command could plant
(agents/claude/layers.py), and `check`'s TWS628 where no setting can stop it
(agents/claude/effective_layers.py).

The machine's managed directory is ``$TWSRT_MANAGED_ROOT/etc/claude-code`` (the Sandbox points
the root at an empty directory; a test plants the files), never the real /etc.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.policies import named
from support.sandbox import Sandbox

from twsrt.agents.claude.layers import permission_rules, root_denies
from twsrt.agents.rootnames import of
from twsrt.mandatory import GIT_PROTECTED, MANDATORY_DIRS, MANDATORY_FILES

TARGET = "home/.claude/settings.full.json"


def generated(box: Sandbox, *args: str) -> dict[str, Any]:
    run = box.run("generate", "claude", "-w", *args)
    assert run.returncode == 0, run.stderr
    return json.loads((box.repo / TARGET).read_text())


def findings(box: Sandbox, *args: str, rule: str = "TWS628") -> tuple[int, list[dict[str, Any]]]:
    run = box.run("check", "--format", "json", *args)
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(run.stdout)
    return run.returncode, [f for f in report["findings"] if f["rule_id"] == rule]


def plant_managed(box: Sandbox, document: dict[str, Any]) -> None:
    path = box.home.parent / "host-root" / "etc" / "claude-code" / "managed-settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


# ---------------------------------------------------------------- what the files carry


def test_the_protected_names_are_srts_set_and_every_agents_project_layers() -> None:
    protected = dict(of(named()))
    for name in (*MANDATORY_FILES, *MANDATORY_DIRS, *GIT_PROTECTED):
        assert name in protected
    assert protected[".vscode"] and protected[".git/hooks"] and not protected[".git/config"]
    for layer in (".claude/settings.json", ".codex/config.toml", ".deepcode/settings.json"):
        assert protected[layer] is False
    assert protected[".github/agents"] is True  # Copilot's custom agents: a tree
    assert len(protected) == len(of(named()))  # each once


def test_every_file_denies_the_names_to_the_file_tools_and_at_the_write_roots(
    sandbox: Sandbox,
) -> None:
    """The default policy (write roots ``.`` and ``/tmp``): the Edit rules follow the
    policy's own denies, and each name is denied under /tmp, not under ``.``."""
    document = generated(sandbox)
    deny = document["permissions"]["deny"]
    assert deny[-len(permission_rules(named())) :] == permission_rules(named())
    assert "Edit(//**/.claude/settings.json)" in deny and "Edit(.codex/config.toml)" in deny
    assert "Edit(//**/.git/hooks/**)" in deny and "Edit(//**/.github/agents/**)" in deny
    # the launch directory must stay able to get a .git and a .github inside the sandbox
    assert not [rule for rule in deny if rule.startswith(("Edit(.git/", "Edit(.github/"))]
    filesystem = document["sandbox"]["filesystem"]
    assert filesystem["allowWrite"] == ["/tmp"]
    assert (
        "/tmp/.git/hooks" in filesystem["denyWrite"] and "/tmp/.bashrc" in filesystem["denyWrite"]
    )
    assert not [p for p in filesystem["denyWrite"] if p.startswith("./")]


@pytest.mark.parametrize(
    ("roots", "expected"),
    [
        (["~"], ["~/.bashrc", "~/.git/hooks"]),
        (["~/dev/"], ["~/dev/.bashrc", "~/dev/.claude/settings.json"]),
        (["/"], ["/.bashrc", "/.git/config"]),
        ([".", "./", "~/dev/*", "**/x"], []),
    ],
)
def test_root_denies_for_each_root_that_is_no_glob(roots: list[str], expected: list[str]) -> None:
    denies = root_denies(roots, named())
    assert len(denies) == len(of(named())) * (len(roots) if expected else 0)
    assert set(expected) <= set(denies)


@pytest.mark.parametrize("mode", ["read-only", "workspace-write", "danger-full-access"])
def test_every_sandbox_mode_keeps_the_denies(sandbox: Sandbox, mode: str) -> None:
    document = generated(sandbox, "--sandbox", mode)
    assert set(permission_rules(named())) <= set(document["permissions"]["deny"])
    assert "/tmp/.git/config" in document["sandbox"]["filesystem"]["denyWrite"]


def test_the_managed_file_binds_hooks_and_mcp_servers(sandbox: Sandbox) -> None:
    config = (
        (sandbox.repo / "twsrt.toml")
        .read_text()
        .replace('[targets]\nclaude_settings = "home/.claude/settings.full.json"\n', "")
    )
    sandbox.write("twsrt.toml", config + '\n[managed]\nroot = "managed"\nagents = ["claude"]\n')
    assert sandbox.run("generate", "-w").returncode == 0
    path = sandbox.repo / "managed/linux/etc/claude-code/managed-settings.json"
    document = json.loads(path.read_text())
    assert list(document)[:3] == [
        "allowManagedPermissionRulesOnly",
        "allowManagedHooksOnly",
        "allowedMcpServers",
    ]
    assert document["allowManagedHooksOnly"] is True and document["allowedMcpServers"] == []
    assert set(permission_rules(named())) <= set(document["permissions"]["deny"])
    _code, found = findings(sandbox)
    assert found == []  # the managed scope binds the next launch itself


# ---------------------------------------------------------------- TWS628


def test_check_reports_a_planted_layer_at_the_write_roots(sandbox: Sandbox) -> None:
    generated(sandbox)
    code, found = findings(sandbox)
    assert code == 1
    [finding] = found
    assert (finding["level"], finding["agent"]) == ("error", "claude")
    location = finding["location"]
    assert (location["path"], location["pointer"]) == (
        ".srt-settings.json",
        "/filesystem/allowWrite",
    )
    assert (location["line"], location["column"]) == (10, 5)  # "allowWrite": [
    assert finding["related"][0]["path"] == TARGET
    message = finding["message"]
    assert "this machine has no Claude managed settings" in message
    assert "twsrt generate --managed DIR" in message


def test_a_binding_managed_layer_on_this_machine_keeps_check_quiet(sandbox: Sandbox) -> None:
    generated(sandbox)
    plant_managed(sandbox, {"sandbox": {"enabled": True}, "allowManagedHooksOnly": True})
    _code, [finding] = findings(sandbox)
    assert "do not set allowedMcpServers: []" in finding["message"]
    plant_managed(
        sandbox,
        {"sandbox": {"enabled": True}, "allowManagedHooksOnly": True, "allowedMcpServers": []},
    )
    _code, found = findings(sandbox)
    assert found == []


def test_no_finding_without_a_sandbox(sandbox: Sandbox) -> None:
    """Claude's sandbox off (the policy's, or danger-full-access): commands run unconfined
    anyway, which other findings report; TWS628 stays away."""
    sandbox.write(".srt-settings.json", {"enabled": False, "filesystem": {"allowWrite": ["."]}})
    generated(sandbox)
    assert findings(sandbox)[1] == []
    sandbox.write(".srt-settings.json", {"filesystem": {"allowWrite": ["."]}})
    generated(sandbox, "--sandbox", "danger-full-access")
    assert findings(sandbox, "--sandbox", "danger-full-access")[1] == []


def test_a_project_file_reports_it_too(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.write(
        "twsrt.toml",
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[project]\nagents = ["claude"]\n',
    )
    assert sandbox.run("generate", "-w").returncode == 0
    code, [finding] = findings(sandbox)
    assert code == 1 and finding["related"][0]["path"] == ".claude/settings.json"


def test_suppressed_with_a_reason(sandbox: Sandbox) -> None:
    generated(sandbox)
    sandbox.accept_planted_layers()
    code, found = findings(sandbox)
    assert (code, found) == (0, [])


# ---------------------------------------------------------------- TWS629


def test_check_reports_nested_repositories_at_each_write_root_but_the_launch_directory(
    sandbox: Sandbox,
) -> None:
    sandbox.write(".srt-settings.json", {"filesystem": {"allowWrite": [".", "/tmp", "~/c/**"]}})
    generated(sandbox)
    code, found = findings(sandbox, rule="TWS629")
    assert code == 1
    assert [(f["level"], f["agent"], f["location"]["pointer"]) for f in found] == [
        ("error", "claude", "/filesystem/allowWrite/1")
    ]
    assert found[0]["message"].startswith("below the top of write root '/tmp', Claude Code's")
    generated(sandbox, "--sandbox", "read-only")  # no write root: nothing below one
    assert findings(sandbox, "--sandbox", "read-only", rule="TWS629")[1] == []


# ---------------------------------------------------------------- fail closed


def test_a_policy_without_the_protected_names_is_refused() -> None:
    """The names reach the translations only on the policy (``protection.protected_policy``):
    a policy the sources wrote, unprotected, is refused, not compiled without them, and so is a
    Context whose policy lacks them."""
    from twsrt.agents.base import Context
    from twsrt.agents.claude.translate import translate
    from twsrt.jsonpos import parse_json
    from twsrt.sources import build_policy

    srt = parse_json('{"filesystem": {"allowWrite": ["/work"]}}')
    raw = build_policy(srt, "srt.json", parse_json("{}"), "bash.json")
    with pytest.raises(ValueError, match="protected names"):
        of(raw)
    with pytest.raises(ValueError, match="protected names"):
        translate(raw, False, {})
    with pytest.raises(ValueError, match="protected_context"):
        Context(None, raw, written=raw)  # type: ignore[arg-type]


def test_a_registered_agents_project_layer_is_denied_under_claudes_write_roots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The names come from the registry when the policy is protected: the toy agent, given a
    project layer, has it in Claude's denyWrite under every write root, with no other edit."""
    from dataclasses import replace

    from support import toyagent
    from support.policies import make_policy

    from twsrt.agents import REGISTRY
    from twsrt.agents.base import Layer
    from twsrt.agents.claude.translate import translate

    layer = Layer(".toy/sandbox.json", "project", False, "the toy's project settings")
    monkeypatch.setitem(REGISTRY, "toy", "support.toyagent")
    monkeypatch.setattr(toyagent, "AGENT_SPEC", replace(toyagent.AGENT_SPEC, layers=(layer,)))
    managed, _findings = translate(
        make_policy({"filesystem": {"allowWrite": ["/work"]}}), False, {}
    )
    assert "/work/.toy/sandbox.json" in managed.sandbox["filesystem"]["denyWrite"]
    assert "Edit(//**/.toy/sandbox.json)" in managed.deny
