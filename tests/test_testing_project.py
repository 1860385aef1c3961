"""``twsrt test`` on a project-scope policy: relative ``**/`` denies probed at several depths of
the project, and the claude engine reading the project file with its paths anchored at the
project root (the real runs are in tests/real/test_twsrt_test_project.py)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.cli import compiled as compile_request
from support.policies import make_policy
from support.sandbox import Sandbox

from twsrt.agents.claude.engine import ClaudeEngine, claude_srt_settings
from twsrt.documents import Documents
from twsrt.testing.attacks import derive_attacks
from twsrt.testing.derive import derive
from twsrt.testing.engines import EngineUnavailable, make_engine
from twsrt.testing.model import Outcome
from twsrt.testing.selection import select_engines

POLICY = {
    "filesystem": {
        "denyRead": ["**/*.pem", "./**/id_*", "secrets/**/*.key"],
        "allowRead": ["**/public.pem"],
        "denyWrite": ["**/*.lock"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}


def test_relative_globs_are_probed_at_the_top_and_deep_in_the_project() -> None:
    policy = make_policy(POLICY)
    plain = derive(policy)
    deep = derive(policy, depths=True)
    extra = {p.name: (p.target, p.expect) for p in deep.probes if p not in plain.probes}
    assert extra == {
        "deny-read **/*.pem [top]": ("work/twsrt-probe.pem", Outcome.DENIED),
        "deny-read **/*.pem [deep]": (
            "work/tw-x/tw-y/twsrt-probe/twsrt-probe.pem",
            Outcome.DENIED,
        ),
        "deny-read ./**/id_* [top]": ("work/id_twsrt-probe", Outcome.DENIED),
        "deny-read ./**/id_* [deep]": ("work/tw-x/tw-y/twsrt-probe/id_twsrt-probe", Outcome.DENIED),
        "deny-write **/*.lock [top]": ("work/twsrt-probe.lock", Outcome.DENIED),
        "deny-write **/*.lock [deep]": (
            "work/tw-x/tw-y/twsrt-probe/twsrt-probe.lock",
            Outcome.DENIED,
        ),
    }  # secrets/**/*.key is anchored below the root already: probed as before
    assert set(plain.probes) <= set(deep.probes)  # a user-scope plan is unchanged
    assert {"work/tw-x/tw-y/twsrt-probe", "work/tw-x"} <= set(deep.fixtures.dirs)


def test_depth_attacks_are_named_apart() -> None:
    policy = make_policy(POLICY)
    plain = derive_attacks(policy)
    deep = derive_attacks(policy, depths=True)
    names = [a.name for a in deep]
    assert len(names) == len(set(names))
    assert [a for a in deep if "top" not in a.form and "deep" not in a.form] == plain
    assert {
        "deny-read **/*.pem [file deep read]",
        "deny-read **/*.pem [file deep symlink-read]",
        "deny-write **/*.lock [file top rename-aside]",
        "deny-write **/*.lock [file deep symlink-replace]",
    } <= set(names)
    subjects = {a.subject for a in deep if a.name == "deny-read **/*.pem [file deep read]"}
    assert subjects == {"work/tw-x/tw-y/twsrt-probe/twsrt-probe.pem"}


def test_a_project_file_anchors_relative_paths_at_the_project_root() -> None:
    settings = {
        "sandbox": {
            "enabled": True,
            "filesystem": {"denyRead": ["**/*.pem", "~/.ssh", "/etc/x"]},
        },
        "permissions": {"deny": ["Read(/secrets)", "Edit(/locked)", "Read(//abs)"]},
    }
    user = claude_srt_settings(settings, "/R/home", "/R/work")
    project = claude_srt_settings(settings, "/R/home", "/R/work", anchor="/R/work")
    assert user is not None and project is not None
    assert user["filesystem"]["denyRead"] == [
        "/R/home/.claude/**/*.pem",
        "/R/home/.ssh",
        "/etc/x",
        "/R/home/.claude/secrets",
        "/abs",
    ]
    assert project["filesystem"]["denyRead"] == [
        "/R/work/**/*.pem",
        "/R/home/.ssh",
        "/etc/x",
        "/R/work/secrets",
        "/abs",
    ]
    assert project["filesystem"]["denyWrite"] == ["/R/work/locked"]


def test_the_claude_engine_reads_the_project_file(sandbox: Sandbox) -> None:
    from twsrt.invocation import context, find_config
    from twsrt.sources import load_policy

    user = sandbox.repo.joinpath("twsrt.toml").read_text()  # its user key has no project use
    user = user.replace('claude_settings = "home/.claude/settings.full.json"\n', "")
    sandbox.write("twsrt.toml", user + "[project]\n")
    config = find_config(str(sandbox.repo / "twsrt.toml"))
    ctx = context(config, load_policy(config), False, None)
    assert ClaudeEngine("srt").reads(ctx) == [sandbox.repo / ".claude" / "settings.json"]


CODEX_ONLY = """\
[sources]
srt = "srt.json"
bash_rules = "bash.json"

[project]
agents = ["codex"]
"""


def codex_project(tmp_path: Path) -> Any:
    """A project repository whose config compiles for Codex only, its layer generated."""
    from twsrt import run

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "srt.json").write_text(json.dumps(POLICY, indent=2))
    (root / "bash.json").write_text('{"allow": [], "deny": ["git push"], "ask": []}')
    (root / "twsrt.toml").write_text(CODEX_ONLY)
    compiled = compile_request(str(root / "twsrt.toml"))
    run.write(run.write_plan(compiled.results))
    assert compiled.context is not None
    ctx = compiled.context
    return replace(ctx, documents=Documents())  # the files as written, as a run reads them


class Here:
    def __call__(self, name: str) -> Any:
        engine = make_engine(name)
        engine.check_available = lambda ctx: None
        return engine


def test_a_codex_only_project_probes_the_codex_layer_and_no_claude_file(tmp_path: Path) -> None:
    """Before, the codex engine was skipped ("names no codex file") and the claude engine probed
    a .claude/settings.json twsrt never wrote, failing every deny."""
    ctx = codex_project(tmp_path)
    root = tmp_path / "proj"
    names, skipped = select_engines(ctx, None, Here())
    assert (names, skipped) == (["srt", "codex"], [])
    assert Here()("codex").reads(ctx) == [
        root / ".codex" / "config.toml",
        root / ".codex" / "rules" / "twsrt.rules",
    ]


def test_the_codex_engine_puts_the_layer_in_a_trusted_checkout(tmp_path: Path) -> None:
    """The work tree is the project root: a checkout (Codex finds the project by its .git)
    trusted by the user config.toml (else Codex ignores the layer), holding the layer and its
    rules as Codex reads them."""
    ctx = codex_project(tmp_path)
    tree = tmp_path / "tree"
    (tree / "work").mkdir(parents=True)
    engine = Here()("codex")
    layer = engine.prepare(ctx, tree, "http://127.0.0.1:9")
    assert layer == tree / "work" / ".codex" / "config.toml"
    assert (tree / "work" / ".git").is_dir()
    user = tomllib.loads((tree / "codex" / "home" / "config.toml").read_text())
    assert user == {"projects": {str(tree / "work"): {"trust_level": "trusted"}}}
    loaded = tomllib.loads(layer.read_text())
    assert loaded["default_permissions"] == "twsrt-project"
    profile = loaded["permissions"]["twsrt-project"]
    assert profile["filesystem"][":workspace_roots"]["**/*.pem"] == "deny"
    rules = (tree / "work" / ".codex" / "rules" / "twsrt.rules").read_text()
    assert rules == (tmp_path / "proj" / ".codex" / "rules" / "twsrt.rules").read_text()


def test_engine_given_twice_runs_both(tmp_path: Path) -> None:
    ctx = codex_project(tmp_path)
    assert select_engines(ctx, ("codex", "srt"), Here())[0] == ["srt", "codex"]
    with pytest.raises(EngineUnavailable) as refused:  # all: every one must run
        select_engines(ctx, ("srt", "all"), Here())
    assert (refused.value.engine, refused.value.problem) == (
        "claude",
        "this project-scope run compiles no claude file ([project] agents)",
    )
    assert select_engines(ctx, "codex", Here())[0] == ["codex"]
    assert select_engines(ctx, (), Here())[0] == ["srt", "codex"]  # none named: the default


@pytest.mark.parametrize("agent", ["gemini", "qwen"])
def test_an_engine_that_models_only_the_user_file_says_so_in_project_scope(
    tmp_path: Path, agent: str
) -> None:
    """Gemini's and Qwen's engines read the user-scope settings only: a project run that has
    the agent's project file is told that, not that no file is named."""
    from twsrt.invocation import open_invocation
    from twsrt.request import Request

    (tmp_path / "srt.json").write_text('{"filesystem": {"allowWrite": ["."]}}\n')
    (tmp_path / "bash.json").write_text('{"deny": ["curl"]}\n')
    (tmp_path / "twsrt.toml").write_text(
        '[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n\n'
        f'[project]\nagents = ["{agent}"]\n'
    )
    ctx = open_invocation(Request(config=tmp_path / "twsrt.toml")).context
    with pytest.raises(EngineUnavailable) as refused:
        select_engines(ctx, agent, Here())
    assert refused.value.problem.startswith(
        f"the {agent} engine does not model a project-scope file ([targets] {agent}_project"
    )
