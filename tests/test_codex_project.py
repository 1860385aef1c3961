"""Codex's project layer (agents/codex/project.py): the project profile under its own name,
relative policy paths as ``:workspace_roots`` entries, the merge into a project's own
``.codex/config.toml`` (golden files in tests/golden/codex-project: ``srt.json``, ``bash.json``,
optionally ``existing.toml``; ``expected.config.toml`` and ``expected.twsrt.rules``;
``UPDATE_GOLDEN=1`` rewrites them), the launch-anchored write roots and denies (TWS457, TWS458)
and what the user's config.toml on this machine decides (TWS616, TWS617)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.golden import GOLDEN_ROOT, GoldenCase, assert_golden
from support.policies import named
from support.sandbox import Sandbox

from tests.support.policies import fs, make_policy
from twsrt.agents.codex.agent import merged_config, translate
from twsrt.agents.codex.launches import protected_names
from twsrt.agents.codex.project import (
    PROJECT_CONFIG,
    PROJECT_PROFILE,
    translate_project,
)
from twsrt.agents.codex.rules import CODEX_LAUNCH_ANCHORED_DENY, CODEX_LAUNCH_ANCHORED_WRITE
from twsrt.documents import Documents
from twsrt.findings import TwsrtError
from twsrt.protection import protected_context

GOLDEN = GOLDEN_ROOT / "codex-project"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def _case_policy(case: Path):
    srt = json.loads((case / "srt.json").read_text("utf-8"))
    bash = json.loads((case / "bash.json").read_text("utf-8"))
    return make_policy(srt, bash)


@pytest.mark.parametrize("name", CASES)
def test_project_layer_golden(name: str) -> None:
    case = GOLDEN / name
    compiled, _ = translate_project(_case_policy(case), "workspace-write", "/home/user")
    existing = case / "existing.toml"
    before = existing.read_text("utf-8") if existing.exists() else None
    merged = merged_config(before, compiled)
    # the policy as written; the CLI's file (expected.config.toml) adds the protected set
    assert_golden(case / "translated.config.toml", merged)
    assert_golden(case / "expected.twsrt.rules", compiled.rules)
    # a second merge changes nothing
    assert merged_config(merged, compiled) == merged
    if before is not None:  # the project's own keys survive, byte for byte where untouched
        for line in ('model = "gpt-5.3-codex"   # the team\'s model', "[mcp_servers.docs]"):
            assert line in merged
        value = tomllib.loads(merged)
        assert value["permissions"]["twsrt"] == {"extends": ":workspace"}


TWSRT_TOML = """\
home = "/home/user"
checkout = "~/dotfiles"
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[project]
agents = ["codex"]
"""
LAYER = ".codex/config.toml"
RULES = ".codex/rules/twsrt.rules"


@pytest.mark.parametrize("name", CASES)
def test_project_layer_golden_through_the_cli(sandbox: Sandbox, name: str) -> None:
    """``generate -w`` in a project repository writes the golden layer and rules, prints the
    golden findings; then no drift, a second run changes nothing, and check agrees."""
    case = GoldenCase("codex-project", name)
    layer = case.install(sandbox, TWSRT_TOML, LAYER)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    case.expect(sandbox, None, "expected.config.toml", layer.read_text(encoding="utf-8"))
    case.expect(sandbox, None, "expected.twsrt.rules", (sandbox.repo / RULES).read_text())
    case.expect(sandbox, None, "stderr.txt", run.stderr)
    assert stat.S_IMODE(layer.stat().st_mode) == (0o644 if case.existing() else 0o600)
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0 and f"twsrt: unchanged {LAYER}" in again.stderr
    check = sandbox.run("check", "--format", "json")
    found = {f["rule_id"] for f in json.loads(check.stdout)["findings"]}
    assert not found & {"TWS301", "TWS302", "TWS303", "TWS616", "TWS617"}, found


def test_project_option_writes_the_layer_into_the_project(sandbox: Sandbox, tmp_path: Path) -> None:
    """``--project DIR`` from a dotfiles config writes the same layer into DIR and leaves the
    user's config.toml alone."""
    case = GoldenCase("codex-project", "relative-denies")
    shutil.copy(case.path / "srt.json", sandbox.repo / ".srt-settings.json")
    shutil.copy(case.path / "bash.json", sandbox.repo / "bash-rules.json")
    user = TWSRT_TOML.replace('[project]\nagents = ["codex"]\n', "")
    sandbox.write("twsrt.toml", user + '[targets]\ncodex_config = "home/.codex/config.toml"\n')
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    run = sandbox.run("generate", "codex", "-w", "--project", str(project))
    assert run.returncode == 0, run.stderr
    # the project's own config and sources are write-denied where the project holds them; the
    # dotfiles config keeps them outside the project (its checkout protects them)
    own = ('".srt-settings.json" = ', '"bash-rules.json" = ', '"twsrt.toml" = ')
    expected = "".join(
        line
        for line in case.read("expected.config.toml").splitlines(True)
        if not line.startswith(own)
    )
    assert (project / LAYER).read_text(encoding="utf-8") == expected
    assert not (sandbox.repo / "home").exists()
    assert sandbox.run("diff", "codex", "--project", str(project)).returncode == 0
    # the preview names the layer's files as the project holds them, not the user's
    preview = sandbox.run("generate", "codex", "--project", str(project)).stdout
    assert preview.startswith("# .codex/config.toml (managed keys only)\n"), preview
    assert "\n# .codex/rules/twsrt.rules\n" in preview


def test_a_relative_write_root_is_located_at_its_policy_line(sandbox: Sandbox) -> None:
    sandbox.write(
        ".srt-settings.json", '{\n  "filesystem": {\n    "allowWrite": ["build"]\n  }\n}\n'
    )
    sandbox.write("bash-rules.json", "{}")
    sandbox.write("twsrt.toml", TWSRT_TOML)
    check = sandbox.run("check")
    assert check.returncode == 1
    assert (
        ".srt-settings.json:3:20: error[TWS457] Codex anchors relative write root 'build' at "
        "the directory it starts in" in check.stdout
    )


def test_check_reads_the_trust_of_this_machine(sandbox: Sandbox) -> None:
    """check in a project repository reads the user's Codex config.toml ($CODEX_HOME) and
    reports an untrusted project at the layer (a warning: --fail-on warning fails)."""
    case = GoldenCase("codex-project", "relative-denies")
    case.install(sandbox, TWSRT_TOML, LAYER)
    assert sandbox.run("generate", "-w").returncode == 0
    codex_home = sandbox.home / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text('model = "o3"\n')
    check = sandbox.run("check", "--fail-on", "warning", CODEX_HOME=str(codex_home))
    assert check.returncode == 1
    assert (
        ".codex/config.toml:1:1: warning[TWS616] ~/codex-home/config.toml does not trust "
        f"'{os.path.realpath(sandbox.repo)}'" in check.stdout
    )
    trusted = f'[projects."{os.path.realpath(sandbox.repo)}"]\ntrust_level = "trusted"\n'
    (codex_home / "config.toml").write_text(trusted)
    check = sandbox.run("check", "--format", "json", CODEX_HOME=str(codex_home))
    found = {f["rule_id"] for f in json.loads(check.stdout)["findings"]}
    assert "TWS616" not in found


def test_project_profile_has_its_own_name() -> None:
    policy = fs(deny_read=["**/*.pem", "./secrets", "~/.aws"], allow_write=["."])
    compiled, _ = translate_project(policy)
    value = tomllib.loads(merged_config(None, compiled))
    assert value["default_permissions"] == PROJECT_PROFILE
    assert list(value["permissions"]) == [PROJECT_PROFILE]
    profile = value["permissions"][PROJECT_PROFILE]
    assert profile["extends"] == ":read-only"
    assert "workspace_roots" not in profile  # a relative one would hang from the launch dir
    scoped = profile["filesystem"][":workspace_roots"]
    protected = dict.fromkeys(protected_names(named()), "read")  # srt's mandatory set, the layers
    assert scoped == {".": "write", "**/*.pem": "deny", "secrets": "deny", **protected}
    assert profile["filesystem"]["~/.aws"] == "deny"
    # the same filesystem and network as the user's profile: only the name differs
    user, _ = translate(policy)
    assert profile == user.profile
    # drift and reports see the project profile as twsrt's own
    keys = {item.key for item in PROJECT_CONFIG.items(value)}
    assert f"permissions.{PROJECT_PROFILE}.filesystem.:workspace_roots.**/*.pem" in keys
    assert "default_permissions" in keys


def test_danger_full_access_selects_the_built_in_profile() -> None:
    compiled, _ = translate_project(fs(deny_read=["./secrets"]), "danger-full-access")
    value = tomllib.loads(merged_config(None, compiled))
    assert value["default_permissions"] == ":danger-full-access"
    assert "permissions" not in value
    # a stale project profile is removed, the user's own tables stay
    stale = merged_config(None, translate_project(fs(deny_read=["./x"]))[0])
    left = tomllib.loads(
        merged_config(stale + '[permissions.mine]\nextends = ":read-only"\n', compiled)
    )
    assert list(left["permissions"]) == ["mine"]


def _anchored(policy, mode: str = "workspace-write") -> list:
    _, findings = translate_project(policy, mode)
    return [f for f in findings if f.rule is CODEX_LAUNCH_ANCHORED_WRITE]


def test_a_relative_write_root_is_reported_where_codex_anchors_it_twice() -> None:
    policy = fs(allow_write=["build", "~/.cache/proj", "./dist/**"])
    found = _anchored(policy)
    assert [f.location.pointer for f in found] == [
        "/filesystem/allowWrite/0",
        "/filesystem/allowWrite/2",
    ]
    assert found[0].level.value == "error"
    assert "'build'" in found[0].message and "'dist'" in found[1].message
    assert (found[0].location.line, found[0].location.column) == (
        policy.srt_location("/filesystem/allowWrite/0").line,
        policy.srt_location("/filesystem/allowWrite/0").column,
    )


@pytest.mark.parametrize(
    ("allow_write", "deny", "mode"),
    [
        ([".", "build"], [], "workspace-write"),  # the project is writable: nothing is wider
        (["./", "build"], [], "workspace-write"),
        (["build"], [], "read-only"),  # no write roots at all
        (["build"], ["build"], "workspace-write"),  # the deny wins, the root is skipped
        (["~/cache"], [], "workspace-write"),  # not relative
    ],
)
def test_no_launch_anchor_finding_where_nothing_is_wider(
    allow_write: list[str], deny: list[str], mode: str
) -> None:
    assert _anchored(fs(allow_write=allow_write, deny_write=deny), mode) == []


def test_a_relative_deny_is_a_note_of_where_it_holds() -> None:
    policy = fs(deny_read=["**/*.pem", "~/.aws"], deny_write=["./secrets"])
    _, findings = translate_project(policy)
    found = [f for f in findings if f.rule is CODEX_LAUNCH_ANCHORED_DENY]
    assert [f.location.pointer for f in found] == [
        "/filesystem/denyRead/0",
        "/filesystem/denyWrite/0",
    ]
    assert found[0].level.value == "note" and "'**/*.pem'" in found[0].message


def test_the_user_translation_is_unchanged() -> None:
    """The user's profile keeps its name and reports nothing of the project layer's."""
    compiled, findings = translate(fs(deny_read=["./x"], allow_write=["build"]))
    assert compiled.name == "twsrt"
    rules = {CODEX_LAUNCH_ANCHORED_WRITE, CODEX_LAUNCH_ANCHORED_DENY}
    assert not [f for f in findings if f.rule in rules]


# ---------------------------------------------------------------- the layer as Codex loads it


def _project_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_toml: str | None):
    """A run in project scope over ``tmp_path/proj`` (a git checkout) with ``user_toml`` as the
    user's Codex config.toml (``$CODEX_HOME``); returns the context and the layer's path."""
    from twsrt.config import Config

    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    layer = root / ".codex" / "config.toml"
    layer.parent.mkdir()
    policy = fs(deny_read=["**/*.pem"], allow_write=["."])
    layer.write_text(merged_config(None, translate_project(policy)[0]))
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    if user_toml is not None:
        (codex_home / "config.toml").write_text(user_toml)
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    config = Config(
        path=root / "twsrt.toml",
        display="twsrt.toml",
        home=tmp_path / "home",
        srt=root / "srt.json",
        bash_rules=root / "bash.json",
        targets={"codex_project_config": layer},
        scope="project",
        scope_root=root,
        display_root=root,
    )
    return protected_context(config, policy), layer


def _effective(ctx) -> list:
    from twsrt.agents import effective_findings

    return effective_findings(ctx, "codex")


def _loading(ctx) -> list:
    """The findings about whether Codex loads the layer, without TWS625 (what a trusted
    project also loads: its own test)."""
    return [f for f in _effective(ctx) if f.rule.id != "TWS625"]


def _trusted(root: Path, level: str = "trusted") -> str:
    return f'[projects."{root}"]\ntrust_level = "{level}"\n'


def test_a_trusted_git_project_loads_and_planted_layers_would_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = 'model = "o3"\n\n' + _trusted(tmp_path / "proj")
    ctx, _ = _project_ctx(tmp_path, monkeypatch, user)
    (found,) = _effective(ctx)
    assert (found.rule.id, found.level.value) == ("TWS625", "error")
    assert (found.location.line, found.location.column) == (4, 1)
    assert found.location.path == str(Path(os.environ["CODEX_HOME"]) / "config.toml")
    assert "start Codex only in the project root" in found.message
    assert [r.pointer for r in found.related] == ["/filesystem/allowWrite/0"]
    for mode in ("read-only", "danger-full-access"):  # no write root, or no sandbox at all
        assert _effective(replace(_fresh(ctx), sandbox_mode=mode)) == []


def test_no_user_config_is_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, _ = _project_ctx(tmp_path, monkeypatch, None)
    assert _effective(ctx) == []


@pytest.mark.parametrize(
    "user_toml",
    [
        'model = "o3"\n',
        '[projects."/elsewhere"]\ntrust_level = "trusted"\n',
        "PARENT",  # a trusted parent directory does not count (observed)
    ],
)
def test_an_untrusted_project_is_reported_at_the_layer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, user_toml: str
) -> None:
    if user_toml == "PARENT":
        user_toml = _trusted(tmp_path)
    ctx, layer = _project_ctx(tmp_path, monkeypatch, user_toml)
    (found,) = _effective(ctx)
    assert found.rule.id == "TWS616" and found.level.value == "warning"
    assert (found.location.path, found.location.line, found.location.column) == (
        ".codex/config.toml",
        1,
        1,
    )
    assert found.location.pointer == "/default_permissions"
    assert str(tmp_path / "proj") in found.message
    assert [r.path for r in found.related] == [str(Path(os.environ["CODEX_HOME"]) / "config.toml")]


def test_an_explicitly_untrusted_project_is_reported_at_its_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = 'model = "o3"\n\n' + _trusted(tmp_path / "proj", "untrusted")
    ctx, _ = _project_ctx(tmp_path, monkeypatch, user)
    (found,) = _effective(ctx)
    assert found.rule.id == "TWS616"
    assert (found.location.line, found.location.column) == (4, 1)
    assert "'untrusted'" in found.message


# a marker no directory above the tests' temporary tree holds (a stray /tmp/.git would count)
MARKER = "twsrt-test-root-marker"


def test_a_project_without_a_root_marker_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = f'project_root_markers = ["{MARKER}"]\n' + _trusted(tmp_path / "proj")
    ctx, _ = _project_ctx(tmp_path, monkeypatch, user)
    (found,) = _loading(ctx)
    assert found.rule.id == "TWS616" and f"'{MARKER}'" in found.message
    assert "only when it starts in that directory itself" in found.message
    (tmp_path / "proj" / MARKER).write_text("")
    assert _loading(_fresh(ctx)) == []


def test_a_project_below_its_root_takes_the_roots_trust_unless_it_has_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project in a subdirectory of a repository (observed): Codex finds the repository's
    root by its marker and loads the layer when the project's own entry trusts it, else when
    the root's does; an entry of the project's own wins, and no other directory counts."""
    (tmp_path / MARKER).write_text("")  # tmp_path is the repository, proj a directory in it
    markers = f'project_root_markers = ["{MARKER}"]\n'
    proj, repo = tmp_path / "proj", tmp_path
    quiet = [
        markers + _trusted(repo),
        markers + _trusted(proj),
        markers + _trusted(repo, "untrusted") + _trusted(proj),
    ]
    for user in quiet:
        ctx, _ = _project_ctx(tmp_path, monkeypatch, user)
        assert _loading(ctx) == [], user
        shutil.rmtree(proj)
        shutil.rmtree(tmp_path / "codex-home")
    ctx, _ = _project_ctx(tmp_path, monkeypatch, markers + _trusted(repo) + _trusted(proj, "no"))
    (found,) = _loading(ctx)
    assert found.rule.id == "TWS616" and f"'{proj}' is trusted as 'no'" in found.message


def _fresh(ctx):
    """The same run's context reading every file afresh (the user's config changed)."""
    from dataclasses import replace

    return replace(ctx, documents=Documents())


def test_a_user_table_of_the_project_profile_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = _trusted(tmp_path / "proj") + '\n[permissions.twsrt-project.filesystem]\n"/" = "write"\n'
    ctx, _ = _project_ctx(tmp_path, monkeypatch, user)
    (found,) = _loading(ctx)
    assert found.rule.id == "TWS617" and found.level.value == "error"
    # at the user's first entry in the table
    assert (found.location.line, found.location.column) == (5, 1)
    assert found.location.pointer == "/permissions/twsrt-project/filesystem/~1"
    assert [(r.path, r.line) for r in found.related] == [(".codex/config.toml", 1)]


def test_a_profile_file_table_of_the_project_profile_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx, _ = _project_ctx(tmp_path, monkeypatch, _trusted(tmp_path / "proj"))
    profile = tmp_path / "codex-home" / "wide.config.toml"
    profile.write_text('model = "o3"\n[permissions.twsrt-project.network]\nenabled = true\n')
    (found,) = _loading(ctx)
    assert found.rule.id == "TWS617" and "`codex --profile wide` merges" in found.message
    assert (found.location.path, found.location.line) == (str(profile), 3)


def test_the_user_scope_does_not_read_the_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    ctx, _ = _project_ctx(tmp_path, monkeypatch, 'model = "o3"\n')
    user_scope = replace(ctx, config=replace(ctx.config, scope="user", scope_root=None))
    assert _effective(user_scope) == []


def test_a_project_layer_in_sync_is_not_merged_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast paths know the project profile's name: a fresh layer is rendered as text and
    one in sync is returned as it is, without tomlkit; a stale one is found for the splice."""
    from importlib import import_module

    files = import_module("twsrt.agents.codex.files")
    compiled, _ = translate_project(fs(deny_read=["**/*.pem"], allow_write=["."]))
    stale, _ = translate_project(fs(deny_read=["./old"], allow_write=["."]))
    layer = merged_config(None, compiled)
    before = merged_config(None, stale)
    whole = merged_config(before, compiled)  # tomlkit's merge, for the splice to equal
    assert whole == layer

    def refuse(*_: object) -> str:
        raise AssertionError("tomlkit merged a file the fast paths know")

    monkeypatch.setattr(files, "_merged_with_tomlkit", refuse)
    assert merged_config(None, compiled) == layer
    assert merged_config(layer, compiled) == layer
    assert files._profile_region(before, PROJECT_PROFILE) is not None


_name = st.sampled_from(["a", "b", ".git", "secrets"])
_below = st.lists(_name, min_size=1, max_size=3).map("/".join)
_path = st.one_of(
    _below,
    _below.map(lambda p: "./" + p),
    _below.map(lambda p: "~/" + p),
    _below.map(lambda p: "/srv/" + p),
    st.sampled_from([".", "./", "**/*.pem", "a/**", "~/.ssh/*.key"]),
)
_paths = st.lists(_path, max_size=5)


@settings(max_examples=300, deadline=None)
@given(_paths, _paths, _paths, st.sampled_from(["workspace-write", "read-only"]))
def test_the_project_layer_grants_what_the_user_translation_grants(
    deny_read: list[str], deny_write: list[str], allow_write: list[str], mode: str
) -> None:
    """Never wider than the user translation, which the never-widen properties cover: the
    project profile is the same table under its own name, the layer selects it, and every
    finding of the user translation is reported too (plus the launch-anchor findings)."""
    policy = fs(deny_read=deny_read, deny_write=deny_write, allow_write=allow_write)
    try:
        user, user_findings = translate(policy, mode)
    except TwsrtError as exc:  # refused for the user: refused alike for the project
        with pytest.raises(TwsrtError) as project_error:
            translate_project(policy, mode)
        assert str(project_error.value) == str(exc)
    else:
        _same_as_the_user(policy, mode, user, user_findings)


def _same_as_the_user(policy, mode: str, user, user_findings: list) -> None:
    compiled, findings = translate_project(policy, mode)
    assert compiled.profile == user.profile
    assert compiled.top == {**user.top, "default_permissions": PROJECT_PROFILE}
    assert (compiled.rules, compiled.network_proxy) == (user.rules, user.network_proxy)
    value = tomllib.loads(merged_config(None, compiled))
    assert list(value["permissions"]) == [PROJECT_PROFILE]
    extra = [f for f in findings if f not in user_findings]
    assert findings[: len(user_findings)] == user_findings
    assert {f.rule for f in extra} <= {CODEX_LAUNCH_ANCHORED_WRITE, CODEX_LAUNCH_ANCHORED_DENY}


def test_diff_of_the_layer_shows_only_what_twsrt_owns(sandbox: Sandbox) -> None:
    """The project's own keys (an MCP server's token) never reach a report: diff and check
    show the drifted profile entry of the project layer, not the rest of the file."""
    case = GoldenCase("codex-project", "relative-denies")
    layer = case.install(sandbox, TWSRT_TOML, LAYER)
    assert sandbox.run("generate", "-w").returncode == 0
    text = layer.read_text(encoding="utf-8").replace('secrets = "deny"', 'secrets = "read"')
    layer.write_text(text + '\n[mcp_servers.x]\nenv = { TOKEN = "ghp_PROJECT_SECRET" }\n')
    diff = sandbox.run("diff")
    assert diff.returncode == 1
    drifted = "permissions.twsrt-project.filesystem.:workspace_roots.secrets"
    assert f'+ {drifted}: "deny"' in diff.stdout and f'- {drifted}: "read"' in diff.stdout
    check = sandbox.run("check", "--format", "json")
    assert check.returncode == 1
    for output in (diff.stdout, diff.stderr, check.stdout, check.stderr):
        assert "ghp_PROJECT_SECRET" not in output


def test_a_legacy_sandbox_key_in_the_project_layer_is_refused(sandbox: Sandbox) -> None:
    """As in the user's config.toml: a legacy sandbox_mode in the project's own layer makes
    Codex ignore default_permissions, so generate refuses at its line and writes nothing."""
    case = GoldenCase("codex-project", "relative-denies")
    layer = case.install(sandbox, TWSRT_TOML, LAYER)
    layer.parent.mkdir(parents=True)
    layer.write_text('model = "o3"\nsandbox_mode = "danger-full-access"\n')
    run = sandbox.run("generate", "-w")
    assert run.returncode == 2
    assert ".codex/config.toml:2:1: error[TWS202] legacy 'sandbox_mode'" in run.stderr
    assert layer.read_text() == 'model = "o3"\nsandbox_mode = "danger-full-access"\n'
    assert not (sandbox.repo / RULES).exists()
