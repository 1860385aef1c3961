"""Codex target: fail-safe refusals, the merge, and never-widen properties."""

from __future__ import annotations

import json
import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.sandbox import Sandbox, tree_snapshot

from twsrt.agents.codex import agent as codex
from twsrt.findings import TwsrtError
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

CONFIG = (
    '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
    '[targets]\ncodex_config = "home/.codex/config.toml"\n'
    'codex_rules = "home/.codex/rules/twsrt.rules"\n'
)
TARGET = "home/.codex/config.toml"


@pytest.fixture
def codex_box(sandbox: Sandbox) -> Sandbox:
    sandbox.write("twsrt.toml", CONFIG)
    return sandbox


def refuse(box: Sandbox, *args: str) -> str:
    before = tree_snapshot(box.home)
    result = box.run(*args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert tree_snapshot(box.home) == before
    return result.stderr.splitlines()[0]


@pytest.mark.parametrize(
    "args",
    [
        ("generate", "codex", "-w"),
        ("generate", "codex"),
        ("generate", "codex", "-n", "-w"),
        ("diff", "codex"),
    ],
)
def test_disabled_sandbox_is_refused(codex_box: Sandbox, args: tuple[str, ...]) -> None:
    codex_box.write(".srt-settings.json", '{\n  "enabled": false,\n  "filesystem": {}\n}\n')
    line = refuse(codex_box, *args)
    assert line.startswith(
        ".srt-settings.json:2:14: error[TWS201] the canonical sandbox is disabled"
    )


def test_malformed_home_path_is_refused(codex_box: Sandbox) -> None:
    codex_box.write(".srt-settings.json", '{"filesystem": {"denyRead": ["/~/.aws"]}}')
    line = refuse(codex_box, "generate", "codex", "-w")
    assert line.startswith(".srt-settings.json:1:30: error[TWS411] malformed path '/~/.aws'")


def test_whole_home_deny_is_refused_not_dropped(codex_box: Sandbox) -> None:
    codex_box.write(".srt-settings.json", '{"filesystem": {"denyRead": ["~/**"]}}')
    line = refuse(codex_box, "generate", "codex", "-w")
    assert "error[TWS411] '~/**' covers the whole home directory" in line


@pytest.mark.parametrize(
    ("existing", "position", "key"),
    [
        ('model = "o3"\nsandbox_mode = "workspace-write"\n', "2:1", "sandbox_mode"),
        (
            'model = "o3"\n\n[sandbox_workspace_write]\nnetwork_access = true\n',
            "3:2",
            "sandbox_workspace_write",
        ),
        (
            '[profiles.fast]\nmodel = "o3"\nsandbox_mode = "danger-full-access"\n',
            "3:1",
            "sandbox_mode",
        ),
        (
            '[permissions.other]\nextends = ":workspace"\nsandbox_mode = "read-only"\n',
            "3:1",
            "sandbox_mode",
        ),
    ],
)
def test_legacy_sandbox_settings_are_refused(
    codex_box: Sandbox, existing: str, position: str, key: str
) -> None:
    codex_box.write(TARGET, existing)
    line = refuse(codex_box, "generate", "codex", "-w")
    assert line.startswith(f"{TARGET}:{position}: error[TWS202] legacy '{key}'")


def test_broken_target_toml_is_refused(codex_box: Sandbox) -> None:
    codex_box.write(TARGET, 'model = "o3"\n[features\n')
    line = refuse(codex_box, "generate", "codex", "-w")
    assert line.startswith(f"{TARGET}:2:10: error[TWS004] invalid TOML")


def test_reminder_on_every_generate_and_diff(codex_box: Sandbox) -> None:
    for args in (("generate", "codex"), ("generate", "codex", "-w"), ("diff", "codex")):
        result = codex_box.run(*args)
        assert "silently deactivates the twsrt profile" in result.stderr


def test_drift_is_reported_without_user_values(codex_box: Sandbox) -> None:
    assert codex_box.run("generate", "codex", "-w").returncode == 0
    path = codex_box.repo / TARGET
    text = path.read_text()
    text = text.replace('"~/.aws" = "deny"', '"~/.aws" = "read"')
    text += '\n[mcp_servers.x]\nenv = { TOKEN = "SECRET_TOKEN_VALUE" }\n'
    path.write_text(text)
    result = codex_box.run("diff", "codex")
    assert result.returncode == 1
    assert '+ permissions.twsrt.filesystem.~/.aws: "deny"' in result.stdout
    assert '- permissions.twsrt.filesystem.~/.aws: "read"' in result.stdout
    assert "SECRET_TOKEN_VALUE" not in result.stdout + result.stderr
    # unmanaged tables are not drift
    assert "mcp_servers" not in result.stdout


def test_missing_rules_file_is_missing(codex_box: Sandbox) -> None:
    assert codex_box.run("generate", "codex", "-w").returncode == 0
    (codex_box.repo / "home/.codex/rules/twsrt.rules").unlink()
    result = codex_box.run("diff", "codex")
    assert result.returncode == 2
    assert "home/.codex/rules/twsrt.rules: missing" in result.stdout


def test_features_key_leaves_when_domains_leave(codex_box: Sandbox) -> None:
    assert codex_box.run("generate", "codex", "-w").returncode == 0
    data = tomllib.loads((codex_box.repo / TARGET).read_text())
    assert data["features"] == {"network_proxy": True}
    codex_box.write(".srt-settings.json", {"filesystem": {"denyRead": ["~/.aws"]}})
    assert codex_box.run("generate", "codex", "-w").returncode == 0
    data = tomllib.loads((codex_box.repo / TARGET).read_text())
    assert "network_proxy" not in data.get("features", {})
    assert data["permissions"]["twsrt"]["network"] == {"enabled": False, "domains": {}}


# ---------------------------------------------------------------- properties

SEGMENT = st.text(alphabet="abcdefgh.-_", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..")
)
CONCRETE = st.builds(
    lambda prefix, parts: prefix + "/".join(parts),
    st.sampled_from(["~/", "/"]),
    st.lists(SEGMENT, min_size=1, max_size=3),
)
GLOBBED = st.builds(
    lambda base, tail: f"{base}/{tail}", CONCRETE, st.sampled_from(["*.pem", "**", "**/x"])
)
RELATIVE = st.sampled_from(["**/.env", "secrets", "build/out", "**/*.key"])
PATH = st.one_of(CONCRETE, GLOBBED, RELATIVE)
HOST = st.builds(
    lambda parts, star: ("*." if star else "") + ".".join(parts) + ".com",
    st.lists(st.text(alphabet="abcxyz", min_size=1, max_size=4), min_size=1, max_size=2),
    st.booleans(),
)
DOMAIN = st.one_of(HOST, st.builds(lambda h: f"{h}:443", HOST))
SOCKET = st.one_of(CONCRETE.map(lambda p: "/" + p.lstrip("~/") + ".sock"), st.just("/tmp/dir/"))


@st.composite
def policies(draw: st.DrawFn) -> dict:
    return {
        "filesystem": {
            "denyRead": draw(st.lists(PATH, max_size=5)),
            "denyWrite": draw(st.lists(PATH, max_size=5)),
            "allowWrite": draw(
                st.lists(st.one_of(CONCRETE, GLOBBED, st.just("."), st.just("~")), max_size=5)
            ),
        },
        "network": {
            "allowedDomains": draw(st.lists(DOMAIN, max_size=4)),
            "deniedDomains": draw(st.lists(DOMAIN, max_size=3)),
            "allowUnixSockets": draw(st.lists(SOCKET, max_size=3)),
        },
    }


def compile_policy(srt: dict, bash: dict | None = None):  # noqa: ANN201
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash or {})), "bash.json"
        )
    )
    return codex.translate(policy)


def _tree(path: str) -> str:
    """The spelling the profile uses: ``P/**`` and ``P/`` are the directory ``P``."""
    path = path.rstrip("/") or "/"
    if path.endswith("/**") and "*" not in path[:-3] and path[:-3] not in ("", "~"):
        path = path[:-3]
    return path.removeprefix("./") if path != "./" else "."


def _access(profile: dict, path: str) -> str | None:
    compiled_fs = profile.get("filesystem", {})
    path = _tree(path)
    if path.startswith(("/", "~/")):
        if "*" in path:
            prefix, rest = codex._split_glob(path)
            return compiled_fs.get(prefix, {}).get(rest)
        value = compiled_fs.get(path)
        return value if isinstance(value, str) else (value or {}).get(".")
    return compiled_fs.get(":workspace_roots", {}).get(path)


def _written(profile: dict) -> list[str]:
    """Every path the profile makes writable, spelled as in the policy (relative = launch dir)."""
    out = []
    for key, value in profile.get("filesystem", {}).items():
        if key == "glob_scan_max_depth":
            continue
        scoped = {".": value} if isinstance(value, str) else value
        for sub, mode in scoped.items():
            if mode == "write":
                base = "." if key == ":workspace_roots" else key
                out.append(base if sub == "." else sub if base == "." else f"{base}/{sub}")
    return out


def _under(path: str, root: str) -> bool:
    if root == ".":
        return not path.startswith(("/", "~"))
    return path == root or path.startswith(root.rstrip("/") + "/")


@settings(max_examples=150, deadline=None)
@given(policies())
def test_every_deny_read_is_denied(srt: dict) -> None:
    compiled, _ = compile_policy(srt)
    for path in srt["filesystem"]["denyRead"]:
        assert _access(compiled.profile, path.rstrip("/")) == "deny", path


@settings(max_examples=150, deadline=None)
@given(policies())
def test_deny_write_is_never_writable(srt: dict) -> None:
    compiled, _ = compile_policy(srt)
    for path in srt["filesystem"]["denyWrite"]:
        assert _access(compiled.profile, path) in ("read", "deny"), path


@settings(max_examples=150, deadline=None)
@given(policies())
def test_never_widen(srt: dict) -> None:
    compiled, _ = compile_policy(srt)
    profile = compiled.profile
    # only the policy's roots are writable: no :workspace base that opens the launch directory,
    # /tmp and $TMPDIR, and every write entry lies in an allowWrite root and outside every deny
    assert profile["extends"] == ":read-only" and "workspace_roots" not in profile
    roots = [_tree(p) for p in srt["filesystem"]["allowWrite"]]
    denies = [_tree(p) for p in srt["filesystem"]["denyRead"] + srt["filesystem"]["denyWrite"]]
    for path in _written(profile):
        assert "*" not in path and path not in ("~", "/"), path
        assert any(_under(path, root) for root in roots), path
        for deny in denies:
            assert not _under(path, deny) and not fnmatchcase(path, deny), (path, deny)
    hosts = {d for d in srt["network"]["allowedDomains"] if ":" not in d}
    for host, mode in profile["network"]["domains"].items():
        if mode == "allow":
            assert host in hosts
    if profile["network"]["enabled"]:
        assert any(mode == "allow" for mode in profile["network"]["domains"].values())
        assert compiled.network_proxy
    for sock in profile["network"].get("unix_sockets", {}):
        assert sock in srt["network"]["allowUnixSockets"]


@settings(max_examples=60, deadline=None)
@given(policies(), st.text(alphabet="ABCDEFGHJK0123456789", min_size=12, max_size=20))
def test_secrets_never_reach_previews_or_drift(srt: dict, secret: str) -> None:
    compiled, _ = compile_policy(srt)
    user = (
        f'model = "o3"\n[mcp_servers.x]\nenv = {{ TOKEN = "{secret}" }}\n'
        f'[permissions.other.network.domains]\n"{secret.lower()}.com" = "allow"\n'
    )
    merged = codex.merged_config(user, compiled)
    assert secret in merged  # the user's table survives
    view = json.dumps(codex.managed_view(tomllib.loads(merged)))
    assert secret not in view and secret.lower() not in view
    assert secret not in codex.preview_toml(compiled)


def test_merge_keeps_unmanaged_bytes() -> None:
    compiled, _ = compile_policy({"filesystem": {"denyRead": ["~/.aws"]}})
    user = Path(__file__).parent / "golden" / "codex" / "merge-preserve" / "existing.toml"
    text = user.read_text()
    merged = codex.merged_config(text, compiled)
    for block in (
        '[mcp_servers.github]\ncommand = "github-mcp"\nargs = ["--stdio"]\n'
        'env = { GITHUB_TOKEN = "ghp_SECRET_DO_NOT_PRINT" }\n',
        '\n[permissions.readonly-review]\nextends = ":workspace"\n\n[projects."/home/user/src/app"]'
        '\ntrust_level = "trusted"\n',
        '[shell_environment_policy]\ninherit = "core"\nset = { API_KEY = "SECRET_ENV_VALUE" }\n',
        "# Codex config — hand-maintained.\n",
    ):
        assert block in merged
    assert codex.merged_config(merged, compiled) == merged


def test_dotdot_above_the_launch_directory_is_refused(codex_box: Sandbox) -> None:
    """Codex will not load a profile with a `..` component; generate used to write one."""
    codex_box.write(".srt-settings.json", '{"filesystem": {"denyWrite": ["../outside"]}}')
    line = refuse(codex_box, "generate", "codex", "-w")
    assert line.startswith(".srt-settings.json:1:31: error[TWS411] '../outside' climbs above")
    codex_box.write(".srt-settings.json", '{"filesystem": {"allowWrite": ["~/../x"]}}')
    assert codex_box.run("generate", "codex", "-w").returncode == 0
    assert "/.." not in (codex_box.repo / TARGET).read_text()  # skipped (TWS408), not written


@pytest.mark.parametrize(
    ("path", "folded"),
    [
        ("~/a/./b/../c", "~/a/c"),
        ("/srv/x/..", "/srv"),
        ("/../etc", "/etc"),
        ("build/../out/", "out"),
        ("./a/..", "."),
        ("./x", "./x"),
        ("~/a/..", "~"),
        ("../up", "../up"),  # climbs above the launch directory: left for the agents to refuse
        ("~/../x", "~/../x"),
        ("**/../x", "**/../x"),
    ],
)
def test_dot_components_fold_where_unambiguous(path: str, folded: str) -> None:
    from twsrt.policy import has_dots, normalize_path

    assert normalize_path(path) == folded
    assert has_dots(folded) == (".." in folded)


def test_literal_glob_path_denies_its_parent_or_is_refused() -> None:
    compiled, findings = compile_policy(
        {"filesystem": {"denyRead": [{"path": "~/keys/odd[1]", "literal": True}]}}
    )
    assert compiled.profile["filesystem"]["~/keys"] == "deny"
    assert [f.rule_id for f in findings] == ["TWS407"]
    with pytest.raises(TwsrtError, match="too broad"):
        compile_policy({"filesystem": {"denyRead": [{"path": "~/odd[1]", "literal": True}]}})


def _mixed(allow_write: list[str], deny_write: list[str], home: str | None) -> tuple[str, list]:
    srt = {"filesystem": {"allowWrite": allow_write, "denyWrite": deny_write}}
    policy = with_root_names(
        build_policy(parse_json(json.dumps(srt)), "srt.json", parse_json("{}"), "bash.json")
    )
    compiled, findings = codex.translate(policy, "workspace-write", home)
    return codex.merged_config(None, compiled), findings


@pytest.mark.parametrize(
    ("root", "deny"),
    [("/home/u/proj", "~/proj/a/secrets"), ("~/proj", "/home/u/proj/a/secrets")],
)
def test_mixed_spelling_below_a_root_is_a_warning(root: str, deny: str) -> None:
    """tests/real/test_codex_widenings.py shows the rename it leaves open."""
    text, findings = _mixed([root], [deny], "/home/u")
    found = [f for f in findings if f.rule_id == "TWS418"]
    assert [(f.level.value, f.location.pointer) for f in found] == [
        ("warning", "/filesystem/denyWrite/0")
    ]
    assert "/home/u/proj/a" in found[0].message or "~/proj/a" in found[0].message
    # the finding never changes the output: the same bytes for any home, or none
    assert text == _mixed([root], [deny], "/elsewhere")[0] == _mixed([root], [deny], None)[0]


@pytest.mark.parametrize(
    ("root", "deny"),
    [
        ("~/proj", "~/proj/a/secrets"),  # same spelling: pinned
        ("/home/u/proj", "/home/u/proj/a/secrets"),
        ("/home/u/proj", "~/proj/secrets"),  # directly below the root: nothing to rename
        ("/home/u/other", "~/proj/a/secrets"),  # not below the root
    ],
)
def test_mixed_spelling_is_quiet_where_nothing_stays_open(root: str, deny: str) -> None:
    _, findings = _mixed([root], [deny], "/home/u")
    assert not [f for f in findings if f.rule_id == "TWS418"]
