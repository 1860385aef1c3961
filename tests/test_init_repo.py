"""`twsrt init --repo`: a dotfiles repo that `twsrt check` passes, with a pre-commit config."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml
from conftest import Sandbox

FIXTURES = Path(__file__).parent / "fixtures" / "precommit"


def test_init_repo_scaffolds_a_clean_repository(sandbox: Sandbox) -> None:
    repo = sandbox.home / "dots"
    (repo / ".git").mkdir(parents=True)
    result = sandbox.run("init", "--repo", str(repo))
    assert result.returncode == 0, result.stderr
    for path in (
        "twsrt.toml",
        "policy/srt-settings.json",
        "policy/bash-rules.json",
        ".pre-commit-config.yaml",
        "home/.claude/settings.full.json",
        "home/.claude/settings.yolo.json",
        "home/.codex/config.toml",
        "home/.codex/rules/twsrt.rules",
    ):
        assert (repo / path).is_file(), path
    assert os.readlink(repo / "home/.claude/settings.json") == "settings.full.json"
    check = sandbox.run("check", "--format", "json", cwd=repo)
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["summary"]["error"] == 0
    assert sandbox.run("diff", cwd=repo).returncode == 0


def test_pre_commit_config_is_valid_and_uses_the_hooks(sandbox: Sandbox) -> None:
    from jsonschema import Draft7Validator

    repo = sandbox.home / "dots"
    assert sandbox.run("init", "--repo", str(repo)).returncode == 0
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    schema = json.loads((FIXTURES / "pre-commit-config.schema.json").read_text())
    assert list(Draft7Validator(schema).iter_errors(config)) == []
    hooks = {hook["id"] for repo_entry in config["repos"] for hook in repo_entry["hooks"]}
    declared = {
        h["id"]
        for h in yaml.safe_load(
            (Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text()
        )
    }
    assert hooks <= declared


def test_init_repo_keeps_existing_files(sandbox: Sandbox) -> None:
    repo = sandbox.home / "dots"
    assert sandbox.run("init", "--repo", str(repo)).returncode == 0
    (repo / "policy/bash-rules.json").write_text('{"deny": ["sudo"]}\n')
    again = sandbox.run("init", "--repo", str(repo))
    assert again.returncode == 0
    assert "policy/bash-rules.json exists, kept" in again.stderr
    assert (repo / "policy/bash-rules.json").read_text() == '{"deny": ["sudo"]}\n'
    assert sandbox.run("diff", cwd=repo).returncode == 0


def test_dir_and_repo_exclude_each_other(sandbox: Sandbox) -> None:
    result = sandbox.run("init", "--repo", "a", "--dir", "b")
    assert result.returncode == 2
    assert "exclude each other" in result.stderr
