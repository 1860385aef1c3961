"""`twsrt init --repo`: a dotfiles repo that `twsrt check` passes, with a pre-commit config."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml
from support.precommit import schema_registry
from support.sandbox import Sandbox


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
        ".gitignore",
    ):
        assert (repo / path).is_file(), path
    assert os.readlink(repo / "home/.claude/settings.json") == "settings.full.json"
    # a plain `srt CMD` reads ~/.srt-settings.json: stow puts this link there
    assert os.readlink(repo / "home/.srt-settings.json") == "../policy/srt-settings.json"
    check = sandbox.run("check", "--format", "json", cwd=repo)
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["summary"]["error"] == 0
    assert sandbox.run("diff", cwd=repo).returncode == 0


def test_pre_commit_config_is_valid_and_uses_the_hooks(sandbox: Sandbox) -> None:
    from jsonschema import Draft7Validator

    repo = sandbox.home / "dots"
    assert sandbox.run("init", "--repo", str(repo)).returncode == 0
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    _hooks, schema, registry = schema_registry()
    assert list(Draft7Validator(schema, registry=registry).iter_errors(config)) == []
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


USER_CLAUDE = {
    "model": "opus",
    "env": {"EDITOR": "vim"},
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
    "permissions": {"allow": ["Bash(ls)"], "defaultMode": "plan"},
    "statusLine": {"type": "command", "command": "echo hi"},
}


def _user_repo(sandbox: Sandbox) -> Path:
    repo = sandbox.home / "dots"
    (repo / ".git").mkdir(parents=True)
    claude = repo / "home/.claude/settings.json"
    claude.parent.mkdir(parents=True)
    claude.write_text(json.dumps(USER_CLAUDE, indent=2) + "\n")
    return repo


def test_init_repo_keeps_user_settings_in_the_active_file_and_its_companion(
    sandbox: Sandbox,
) -> None:
    # Regression: the yolo run migrated settings.json into settings.yolo.json alone, and the
    # full file that settings.json then pointed to had none of the user's keys.
    repo = _user_repo(sandbox)
    result = sandbox.run("init", "--repo", str(repo))
    assert result.returncode == 0, result.stderr
    link = repo / "home/.claude/settings.json"
    assert os.readlink(link) == "settings.full.json"
    for name in ("settings.json", "settings.full.json", "settings.yolo.json"):
        settings = json.loads((repo / "home/.claude" / name).read_text())
        for key in ("model", "env", "hooks", "statusLine"):
            assert settings[key] == USER_CLAUDE[key], (name, key)
        assert settings["permissions"]["defaultMode"] == "plan", name
        assert "Bash(ls)" in settings["permissions"]["allow"], name
        assert "Bash(sudo)" in settings["permissions"]["deny"], name  # and the policy is in
    check = sandbox.run("check", "--format", "json", cwd=repo)
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["summary"]["error"] == 0
    assert sandbox.run("diff", cwd=repo).returncode == 0
    assert sandbox.run("diff", "--yolo", cwd=repo).returncode == 0


def test_init_repo_keeps_every_agents_user_files(sandbox: Sandbox) -> None:
    repo = _user_repo(sandbox)
    user_files = {
        "home/.codex/config.toml": 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
        "home/.copilot/settings.json": '{\n  "theme": "dark"\n}\n',
        "home/.deepcode/settings.json": '{\n  "model": "deepseek-chat"\n}\n',
    }
    for relative, content in user_files.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_text(content)
    result = sandbox.run("init", "--repo", str(repo), "--agents", "all")
    assert result.returncode == 0, result.stderr
    codex = (repo / "home/.codex/config.toml").read_text()
    assert codex.startswith('model = "o3"\n'), codex
    assert '[mcp_servers.docs]\ncommand = "docs-mcp"\n' in codex
    assert json.loads((repo / "home/.copilot/settings.json").read_text())["theme"] == "dark"
    deepcode = json.loads((repo / "home/.deepcode/settings.json").read_text())
    assert deepcode["model"] == "deepseek-chat"
    assert "permissions" in deepcode
    config = (repo / "twsrt.toml").read_text()
    # Copilot and DeepCode take absolute paths: the home directory is pinned for them
    assert f'\nhome = "{sandbox.home}"\n' in config
    check = sandbox.run("check", "--format", "json", cwd=repo)
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["summary"]["error"] == 0
    assert sandbox.run("diff", cwd=repo).returncode == 0


def _targets(repo: Path) -> set[str]:
    import tomllib

    return set(tomllib.loads((repo / "twsrt.toml").read_text())["targets"])


def test_init_repo_default_agents_are_claude_codex_and_the_ones_already_present(
    sandbox: Sandbox,
) -> None:
    plain = sandbox.home / "plain"
    assert sandbox.run("init", "--repo", str(plain)).returncode == 0
    assert _targets(plain) == {
        "claude_settings",
        "claude_settings_yolo",
        "codex_config",
        "codex_rules",
    }
    assert "\n# home = " in (plain / "twsrt.toml").read_text()  # nothing needs it pinned
    existing = sandbox.home / "existing"
    (existing / "home/.deepcode").mkdir(parents=True)
    (existing / "home/.deepcode/settings.json").write_text("{}\n")
    assert sandbox.run("init", "--repo", str(existing)).returncode == 0
    assert _targets(existing) == _targets(plain) | {"deepcode_settings"}
    only = sandbox.home / "only"
    assert sandbox.run("init", "--repo", str(only), "--agents", "codex").returncode == 0
    assert _targets(only) == {"codex_config", "codex_rules"}
    assert not (only / "home/.claude").exists()


def test_init_repo_prints_the_next_steps(sandbox: Sandbox) -> None:
    repo = sandbox.home / "dots"
    result = sandbox.run("init", "--repo", "dots", cwd=sandbox.home)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Next steps:\n")
    assert "twsrt generate -w" in result.stdout
    assert "stow --no-folding -d dots -t ~ home" in result.stdout
    assert "(~/.claude ~/.codex ~/.srt-settings.json)" in result.stdout
    assert "cd dots && git init && pip install pre-commit && pre-commit install" in result.stdout
    assert (repo / "twsrt.toml").is_file()


def test_init_repo_sources_name_their_schemas(sandbox: Sandbox) -> None:
    from twsrt.schemas import SCHEMA_FILES, load_schema, schema_url

    repo = sandbox.home / "dots"
    assert sandbox.run("init", "--repo", str(repo)).returncode == 0
    for relative, name in (
        ("policy/srt-settings.json", "srt"),
        ("policy/bash-rules.json", "bash"),
    ):
        document = json.loads((repo / relative).read_text())
        assert next(iter(document)) == "$schema"
        # the copy in the repository, by relative path (tests/test_schemas_for_editors.py)
        assert document["$schema"] == f"../schemas/{SCHEMA_FILES[name]}"
        assert json.loads((repo / "schemas" / SCHEMA_FILES[name]).read_text())["$id"] == (
            schema_url(name)
        )
    first = (repo / "twsrt.toml").read_text().splitlines()[0]
    assert first == "#:schema ./schemas/config.schema.json"  # taplo's directive, on line 1
    assert load_schema("config")["$id"] == schema_url("config")


def test_scaffolded_hook_runs_the_installed_twsrt_on_the_manifests_files(
    sandbox: Sandbox,
) -> None:
    repo = sandbox.home / "dots"
    assert sandbox.run("init", "--repo", str(repo)).returncode == 0
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    manifest = yaml.safe_load((Path(__file__).parent.parent / ".pre-commit-hooks.yaml").read_text())
    check = next(hook for hook in manifest if hook["id"] == "twsrt-check")
    [local] = config["repos"]
    assert local["repo"] == "local"  # no clone, no release needed, works offline
    [hook] = local["hooks"]
    assert hook["language"] == "system"
    for key in ("id", "entry", "pass_filenames", "require_serial", "files", "types_or"):
        assert hook[key] == check[key], key


def test_init_repo_refused_by_a_user_file_writes_nothing(sandbox: Sandbox) -> None:
    from support.sandbox import tree_snapshot

    repo = sandbox.home / "dots"
    link = repo / "home/.claude/settings.json"
    link.parent.mkdir(parents=True)
    link.write_text('{"model": "opus"}\n')
    (repo / "home/.claude/settings.full.json").write_text('{"model": "sonnet"}\n')
    before = tree_snapshot(sandbox.home)
    result = sandbox.run("init", "--repo", str(repo))
    assert result.returncode == 2
    assert "dots/home/.claude/settings.json: error[TWS004]" in result.stderr
    assert "merge them by hand" in result.stderr
    assert tree_snapshot(sandbox.home) == before


def _ignored(repo: Path, paths: list[str]) -> set[str]:
    import subprocess

    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=repo,
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
        env={"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"},
    )
    assert proc.returncode in (0, 1), proc.stderr
    return set(proc.stdout.splitlines())


def test_gitignore_keeps_every_agents_state_and_credentials_out(sandbox: Sandbox) -> None:
    """Every declared state or credential file of every registered agent (configured or not)
    is ignored under home/, by git itself; the files twsrt writes and the user's own config
    (commands, CLAUDE.md, skills) are not."""
    import subprocess

    from twsrt.agents import specs

    repo = sandbox.home / "dots"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert sandbox.run("init", "--repo", str(repo)).returncode == 0
    states = [
        "home/" + state.path[2:].replace("*", "x") for spec in specs() for state in spec.state_files
    ]
    assert {"home/.codex/auth.json", "home/.claude/.credentials.json"} <= set(states)
    assert "home/.copilot/config.json" in states and "home/.deepcode/credentials.json" in states
    # a directory's contents too (git check-ignore answers for the path asked)
    inside = ["home/.claude/projects/-home-you/abc.jsonl", "home/.codex/sessions/2026/x.jsonl"]
    assert _ignored(repo, states + inside) == set(states + inside)
    kept = [
        "home/.claude/settings.json",
        "home/.claude/settings.full.json",
        "home/.claude/CLAUDE.md",
        "home/.claude/commands/review.md",
        "home/.codex/config.toml",
        "home/.codex/rules/twsrt.rules",
        "home/.codex/skills/mine/SKILL.md",
        "home/.srt-settings.json",
        "policy/srt-settings.json",
        "twsrt.toml",
    ]
    assert _ignored(repo, kept) == set()
    check = sandbox.run("check", "--format", "json", cwd=repo)
    assert check.returncode == 0, check.stdout


def test_init_repo_keeps_an_existing_srt_settings_file(sandbox: Sandbox) -> None:
    repo = sandbox.home / "dots"
    (repo / "home").mkdir(parents=True)
    (repo / "home/.srt-settings.json").write_text("{}\n")
    result = sandbox.run("init", "--repo", str(repo), "--force")
    assert result.returncode == 0, result.stderr
    assert "home/.srt-settings.json exists, kept" in result.stderr
    assert (repo / "home/.srt-settings.json").read_text() == "{}\n"


def test_a_refused_init_takes_the_srt_link_back(sandbox: Sandbox) -> None:
    from support.sandbox import tree_snapshot

    repo = sandbox.home / "dots"
    (repo / "home/.claude").mkdir(parents=True)
    (repo / "home/.claude/settings.json").write_text("{not json\n")
    before = tree_snapshot(sandbox.home)
    assert sandbox.run("init", "--repo", str(repo)).returncode == 2
    assert not os.path.lexists(repo / "home/.srt-settings.json")
    assert tree_snapshot(sandbox.home) == before


def test_the_example_repository_has_the_scaffolds_gitignore_and_srt_link() -> None:
    from twsrt import templates

    example = Path(__file__).parent.parent / "examples" / "dotfiles"
    assert (example / ".gitignore").read_text() == templates.gitignore()
    relative, target = templates.SRT_LINK
    assert os.readlink(example / relative) == target
