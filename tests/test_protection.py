"""The protected set (twsrt/protection.py): what it holds, in which spelling, from which entry."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.sandbox import Sandbox

from twsrt.agents import config_layers, specs
from twsrt.configload import load_config
from twsrt.locations import Location
from twsrt.mandatory import GIT_PROTECTED, MANDATORY_DIRS, MANDATORY_FILES
from twsrt.protection import Protected, protected_policy, protected_set
from twsrt.sources import load_policy


def _load(box: Sandbox, config: Path | None = None) -> tuple[object, object]:
    path = config or box.repo / "twsrt.toml"
    config = load_config(path, box.home, cwd=box.repo, display_root=box.repo)
    return config, load_policy(config)


def test_srt_mandatory_set_as_srt_0083_declares_it() -> None:
    assert MANDATORY_FILES == (
        ".gitconfig",
        ".gitmodules",
        ".bashrc",
        ".bash_profile",
        ".zshrc",
        ".zprofile",
        ".profile",
        ".ripgreprc",
        ".mcp.json",
    )
    assert MANDATORY_DIRS == (".vscode", ".idea", ".claude/commands", ".claude/agents")
    assert GIT_PROTECTED == (".git/hooks", ".git/config")


def test_every_agent_declares_its_user_layers_under_home() -> None:
    for spec in specs():
        users = [layer for layer in spec.layers if layer.scope == "user"]
        assert users, spec.name
        assert all(layer.path.startswith("~/") for layer in users), spec.name
        projects = [layer for layer in spec.layers if layer.scope == "project"]
        assert all(not layer.path.startswith(("~", "/")) for layer in projects), spec.name
    names = {agent for agent, _ in config_layers()}
    assert names == {spec.name for spec in specs()}
    assert ("claude", "~/.claude.json") in {(a, x.path) for a, x in config_layers("user")}
    assert ("codex", "~/.codex/rules") in {(a, x.path) for a, x in config_layers("user")}


def test_repo_mode_holds_the_checkout_the_layers_the_targets_and_the_secrets(
    sandbox: Sandbox,
) -> None:
    text = (sandbox.repo / "twsrt.toml").read_text()
    flags = 'copilot_output = "home/.config/twsrt/copilot-flags.txt"\n'
    sandbox.write("twsrt.toml", text + flags)
    config, policy = _load(sandbox)  # the default config names checkout = "~/dotfiles"
    found = {item.path: item for item in protected_set(config, policy)}
    assert found["~/dotfiles"] == Protected(
        "~/dotfiles",
        True,
        "policy",
        "the policy repository (checkout)",
        Location("twsrt.toml", 1, 12, "/checkout"),
    )
    # every registered agent's user layers, Claude's and Codex's alike, each config
    # directory as one tree (a file below it is not listed again)
    assert found["~/.codex"].agent == "codex"
    assert found["~/.claude"].tree
    assert "~/.claude/settings.json" not in found
    assert "~/.claude/settings.full.json" not in found
    # the agent-side place of a target under home/, located at its key
    target = found["~/.config/twsrt/copilot-flags.txt"]
    assert (target.kind, target.agent, target.origin.pointer) == (
        "layer",
        "copilot",
        "/targets/copilot_output",
    )
    # denyRead paths, at their entries
    secret = found["~/.ssh"]
    assert (secret.kind, secret.tree) == ("secret", True)
    assert secret.origin.path == ".srt-settings.json"
    # in a repository the config and sources are the checkout's, not named one by one
    assert not any(item.path.endswith("twsrt.toml") for item in found.values())


def test_classic_mode_holds_the_config_and_sources_as_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a stray .git above the temporary tree (a sandbox can leave one in /tmp) is no repository
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    home = tmp_path / "home"
    directory = home / ".config" / "twsrt"
    directory.mkdir(parents=True)
    (directory / "config.toml").write_text(
        '[sources]\nsrt = "~/.srt-settings.json"\nbash_rules = "bash-rules.json"\n'
    )
    (home / ".srt-settings.json").write_text('{"filesystem": {"denyRead": ["~/.aws"]}}\n')
    (directory / "bash-rules.json").write_text('{"allow": [], "deny": [], "ask": []}\n')
    config = load_config(directory / "config.toml", home, cwd=home)
    found = {item.path: item for item in protected_set(config, load_policy(config))}
    assert (found["~/.config/twsrt"].kind, found["~/.config/twsrt"].tree) == ("policy", True)
    assert found["~/.srt-settings.json"].origin.pointer == "/sources/srt"
    # the config and a source in the config directory are held by it
    assert "~/.config/twsrt/config.toml" not in found
    assert "~/.config/twsrt/bash-rules.json" not in found


def test_classic_mode_elsewhere_names_the_config_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.toml").write_text('[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n')
    (home / "srt.json").write_text("{}\n")
    (home / "bash.json").write_text('{"allow": [], "deny": [], "ask": []}\n')
    config = load_config(home / "policy.toml", home, cwd=home)
    found = {item.path: item for item in protected_set(config, load_policy(config))}
    assert found["~/policy.toml"].kind == "policy"
    assert found["~/bash.json"].origin.pointer == "/sources/bash_rules"
    assert "~/.config/twsrt" not in found


def test_protected_policy_adds_each_path_once_with_its_origin(sandbox: Sandbox) -> None:
    config, policy = _load(sandbox)
    protected = protected_set(config, policy)
    compiled = protected_policy(policy, protected)
    paths = [rule.path for rule in compiled.deny_write]
    assert paths[: len(policy.deny_write)] == [rule.path for rule in policy.deny_write]
    assert len(paths) == len(set(paths))
    by_path = {rule.path: rule.origin for rule in compiled.deny_write}
    assert by_path["~/.aws"] == next(r.origin for r in policy.deny_read if r.path == "~/.aws")
    assert {item.path for item in protected} <= set(paths)
    # the policy itself is left as it was
    assert "~/.aws" not in {rule.path for rule in policy.deny_write}
    assert protected_policy(compiled, protected) is compiled


def test_checkout_must_be_home_relative_or_absolute(sandbox: Sandbox) -> None:
    text = (sandbox.repo / "twsrt.toml").read_text()
    sandbox.write("twsrt.toml", text.replace('"~/dotfiles"', '"dotfiles"'))
    run = sandbox.run("check")
    assert run.returncode == 2
    assert "twsrt.toml:1:12: error[TWS102]" in run.stdout


def test_a_copy_without_git_compiles_the_same_set(sandbox: Sandbox) -> None:
    """A config that names its checkout protects the same paths in a copy of the repository
    without .git (a release tarball, a CI cache): the bytes never depend on the host's .git."""
    config, policy = _load(sandbox)
    before = protected_set(config, policy)
    (sandbox.repo / ".git").rmdir()
    config, policy = _load(sandbox)
    assert protected_set(config, policy) == before


def test_a_context_made_without_the_protected_set_is_refused(sandbox: Sandbox) -> None:
    """Only protection.protected_context makes a Context: one built directly would compile the
    policy without the protected set (every layer a later launch loads writable)."""
    from twsrt.agents.base import Context

    config, policy = _load(sandbox)
    with pytest.raises(ValueError, match="protected_context"):
        Context(config, policy)
