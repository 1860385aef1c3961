"""Real-client checks of the Codex harness (tests/real/codex_client.py) on
hand-written configs: what Codex CLI 0.171.0 accepts in a permission profile,
what its exec-policy rules decide, and what its Linux sandbox and network
proxy actually enforce. Install the CLI with .ci/install-codex.sh.

The network tests stay on this machine: the only upstream is an HTTP server
on 127.0.0.1 started here; requests to other hosts are refused by Codex's
proxy before any connection (or DNS lookup) is made.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .codex_client import (
    FETCH_SCRIPT,
    NO_MATCH,
    UPSTREAM_BODY,
    codex_bin,
    config_loads,
    execpolicy_check,
    execpolicy_decision,
    sandbox_run,
)

pytestmark = pytest.mark.real

SECRET = "twsrt-secret-value"

PROFILE_HEAD = """\
default_permissions = "twsrt"

[permissions.twsrt]
extends = ":workspace"
"""

# The brief's shape, as twsrt will write it.
VALID_BASIC = """\
default_permissions = "twsrt"
approval_policy = "on-request"

[permissions.twsrt]
extends = ":workspace"

[permissions.twsrt.filesystem]
"~/.aws" = "deny"

[permissions.twsrt.network]
enabled = true

[permissions.twsrt.network.domains]
"github.com" = "allow"
"""

# Every key and value shape that 0.171.0 accepts in a profile (all verified).
VALID_FULL = """\
default_permissions = "twsrt"
approval_policy = "on-request"

[features]
network_proxy = true

[permissions.twsrt]
description = "managed by twsrt"
extends = ":workspace"

[permissions.twsrt.workspace_roots]
"/srv/extra-root" = true
"~/code/other" = false

[permissions.twsrt.filesystem]
glob_scan_max_depth = 4
":minimal" = "read"
":tmpdir" = "write"
"~/.aws" = "deny"
"~/.ssh" = "none"
"~/keys/*.pem" = "deny"
"/srv/cache" = "write"
"~/.config" = { "gh" = "deny", "git" = "read" }

[permissions.twsrt.filesystem.":workspace_roots"]
"." = "write"
".devcontainer" = "read"
"**/*.env" = "deny"

[permissions.twsrt.network]
enabled = true
mode = "full"
allow_local_binding = false

[permissions.twsrt.network.domains]
"github.com" = "allow"
"*.githubusercontent.com" = "allow"
"**.npmjs.org" = "allow"
"tracking.example.com" = "deny"

[permissions.twsrt.network.unix_sockets]
"/var/run/docker.sock" = "deny"
"/run/user/0/ssh-agent.sock" = "allow"
"""


@pytest.fixture(scope="session")
def codex() -> str:
    return codex_bin()


# --------------------------------------------------------------- (a) loading


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(VALID_BASIC, id="basic"),
        pytest.param(VALID_FULL, id="full"),
        pytest.param('default_permissions = ":workspace"\n', id="builtin"),
        pytest.param(PROFILE_HEAD.replace(":workspace", ":read-only"), id="extends-read-only"),
    ],
)
def test_valid_profile_loads(codex, config):
    ok, out = config_loads(codex, config)
    assert ok, out


@pytest.mark.parametrize(
    ("config", "message"),
    [
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.filesystem]\n"~/.aws" = 3\n',
            "untagged enum FilesystemPermissionToml",
            id="fs-value-type",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.filesystem]\n"~/.aws" = "hidden"\n',
            "untagged enum FilesystemPermissionToml",
            id="fs-value-enum",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.filesystem]\n".aws" = "deny"\n',
            "must be absolute, use `~/...`, or start with `:`",
            id="fs-relative-path",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.filesystem]\n"~/.aws" = { "../x" = "deny" }\n',
            "must be a descendant path",
            id="fs-scoped-dotdot",
        ),
        pytest.param(
            PROFILE_HEAD + "[permissions.twsrt.filesystem]\nglob_scan_max_depth = 0\n",
            "glob_scan_max_depth must be at least 1",
            id="glob-depth-0",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.filesystem]\nglob_scan_max_depth = "3"\n',
            "expected usize",
            id="glob-depth-string",
        ),
        pytest.param(
            PROFILE_HEAD
            + '[permissions.twsrt.filesystem]\n":workspace_roots" = { "**/*.env" = "read" }\n',
            "only supports `deny` access",
            id="glob-read",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.workspace_roots]\n"/srv/x" = "write"\n',
            "expected a boolean",
            id="workspace-root-string",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.network]\nenabled = "yes"\n',
            "expected a boolean",
            id="network-enabled-string",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.network]\nmode = "offline"\n',
            "expected `limited` or `full`",
            id="network-mode",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.network.domains]\n"github.com" = "none"\n',
            "expected `allow` or `deny`",
            id="domain-none",
        ),
        pytest.param(
            PROFILE_HEAD + '[permissions.twsrt.network.unix_sockets]\n"/x.sock" = "none"\n',
            "expected `allow` or `deny`",
            id="unix-socket-none",
        ),
        pytest.param(
            "bogus_top_level = 1\n" + PROFILE_HEAD,
            "unknown configuration field `bogus_top_level`",
            id="unknown-top-level",
        ),
        pytest.param(
            PROFILE_HEAD + "[features]\nno_such_feature = true\n",
            "unknown configuration field `features.no_such_feature`",
            id="unknown-feature",
        ),
        pytest.param(
            PROFILE_HEAD.replace('extends = ":workspace"', 'extends = "nope"'),
            "extends undefined profile `nope`",
            id="extends-undefined",
        ),
        pytest.param(
            PROFILE_HEAD.replace(":workspace", ":danger-full-access"),
            "cannot extend unsupported built-in profile",
            id="extends-danger",
        ),
        pytest.param(
            PROFILE_HEAD.replace('"twsrt"', '"other"', 1),
            "refers to undefined profile `other`",
            id="default-undefined",
        ),
        pytest.param(
            'default_permissions = "twsrt"\n',
            "requires a `[permissions]` table",
            id="no-permissions-table",
        ),
    ],
)
def test_broken_config_is_rejected(codex, config, message):
    ok, out = config_loads(codex, config)
    assert not ok, out
    assert message in out


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param("no_such_key = 1\n", id="profile-key"),
        pytest.param('sandbox_mode = "read-only"\n', id="profile-sandbox_mode"),
        pytest.param("[permissions.twsrt.network]\nno_such_key = 1\n", id="network-key"),
        pytest.param(
            '[permissions.twsrt.network]\nallow_unix_sockets = ["/x.sock"]\n', id="legacy-array"
        ),
        pytest.param('[permissions.twsrt.filesystem]\n":no_such_special" = "read"\n', id="special"),
    ],
)
def test_strict_config_ignores_unknowns_inside_profiles(codex, extra):
    """Fact pin: --strict-config does NOT police [permissions.<name>] - unknown
    keys there (and unknown `:special` paths) load silently, so twsrt must
    validate profile contents itself. (PROFILE_HEAD ends inside the profile
    table, so a bare key lands in [permissions.twsrt].)"""
    ok, out = config_loads(codex, PROFILE_HEAD + extra)
    assert ok, out


def test_legacy_sandbox_mode_beside_default_permissions_loads(codex):
    """Fact pin: mixing legacy sandbox_mode with default_permissions is not a
    load error (the docs say sandbox_mode then takes over in sessions)."""
    ok, out = config_loads(codex, 'sandbox_mode = "workspace-write"\n' + PROFILE_HEAD)
    assert ok, out


def test_rules_file_loads_or_is_rejected(codex):
    good = 'prefix_rule(pattern=["rm"], decision="forbidden", justification="no rm")\n'
    ok, out = config_loads(codex, VALID_BASIC, rules_text=good)
    assert ok, out
    for bad, message in [
        ('prefix_rule(pattern=["rm"], decision="deny")\n', "invalid decision: deny"),
        ('prefix_rule(pattern=["rm"], decision="forbidden", match=["ls"])\n', "unmatched"),
        ("prefix_rule(pattern=[\n", "Parse error"),
    ]:
        ok, out = config_loads(codex, VALID_BASIC, rules_text=bad)
        assert not ok, out
        assert "Error loading rules" in out and message in out


# ------------------------------------------------------------ (b) execpolicy

RULES = """\
prefix_rule(pattern=["rm"], decision="forbidden")
prefix_rule(
    pattern=["git", "push", "--force"],
    decision="forbidden",
    justification="force-push rewrites shared history",
)
prefix_rule(pattern=["git", ["status", "log"]], decision="allow")
prefix_rule(pattern=["curl"], decision="prompt")
"""


@pytest.mark.parametrize(
    ("argv", "decision"),
    [
        (["rm", "-rf", "x"], "forbidden"),
        (["rm"], "forbidden"),
        (["git", "push", "--force", "origin"], "forbidden"),
        (["git", "push", "origin"], NO_MATCH),
        (["git", "push", "origin", "--force"], NO_MATCH),  # prefix rules are positional
        (["git", "log", "-1"], "allow"),
        (["curl", "https://example.org"], "prompt"),
        (["ls"], NO_MATCH),
        (["/bin/rm", "x"], NO_MATCH),  # absolute paths need --resolve-host-executables
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else (v or "no-match"),
)
def test_execpolicy_decision(codex, argv, decision):
    assert execpolicy_decision(codex, RULES, argv) == decision


def test_execpolicy_json_shape(codex):
    result = execpolicy_check(codex, RULES, ["git", "push", "--force", "origin"])
    assert result == {
        "matchedRules": [
            {
                "prefixRuleMatch": {
                    "matchedPrefix": ["git", "push", "--force"],
                    "decision": "forbidden",
                    "justification": "force-push rewrites shared history",
                }
            }
        ],
        "decision": "forbidden",
    }
    assert execpolicy_check(codex, RULES, ["ls"]) == {"matchedRules": []}


def test_execpolicy_bad_rules_raise(codex):
    with pytest.raises(RuntimeError, match="invalid decision"):
        execpolicy_decision(codex, 'prefix_rule(pattern=["rm"], decision="no")\n', ["rm"])


# --------------------------------------------------------- (c) filesystem


@pytest.fixture
def home_and_work(tmp_path: Path) -> tuple[Path, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(SECRET + "\n")
    work.mkdir()
    return home, work


FS_CONFIG = PROFILE_HEAD + '\n[permissions.twsrt.filesystem]\n"~/.aws" = "deny"\n'


def test_denied_home_path_unreadable_in_sandbox(codex, home_and_work):
    home, work = home_and_work
    cmd = "cat ~/.aws/credentials"
    control = subprocess.run(
        ["sh", "-c", cmd],
        cwd=work,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert control.returncode == 0 and SECRET in control.stdout  # control: no sandbox

    rc, out = sandbox_run(codex, FS_CONFIG, cmd, work, home)
    assert rc != 0, out
    assert SECRET not in out
    assert "Permission denied" in out


def test_workspace_write_allowed_in_sandbox(codex, home_and_work):
    home, work = home_and_work
    rc, out = sandbox_run(codex, FS_CONFIG, "echo made > made.txt && cat made.txt", work, home)
    assert rc == 0, out
    assert (work / "made.txt").read_text() == "made\n"


def test_write_outside_workspace_refused(codex, home_and_work):
    """:workspace makes cwd, $TMPDIR and /tmp writable; a dir elsewhere is not."""
    home, work = home_and_work
    if not os.path.isdir("/var/tmp"):
        pytest.skip("needs /var/tmp for a directory outside /tmp")
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="twsrt-codex-") as outside:
        target = Path(outside) / "escaped.txt"
        rc, out = sandbox_run(codex, FS_CONFIG, f"echo x > {shlex.quote(str(target))}", work, home)
        assert rc != 0, out
        assert "Read-only file system" in out
        assert not target.exists()


def test_denied_missing_path_cannot_be_created(codex, home_and_work):
    home, work = home_and_work
    config = PROFILE_HEAD + (
        '\n[permissions.twsrt.filesystem.":workspace_roots"]\n"later.env" = "deny"\n"ro" = "read"\n'
    )
    (work / "ro").mkdir()
    rc, out = sandbox_run(
        codex, config, "echo a > later.env; echo rc1=$?; echo b > ro/x; echo rc2=$?", work, home
    )
    assert rc == 0, out
    assert "rc1=0" not in out and "rc2=0" not in out, out
    assert not (work / "later.env").exists()
    assert not (work / "ro" / "x").exists()


GLOB_FILES = ["top.env", "a/one.env", "a/b/two.env", "a/b/c/three.env", "a/ok.txt"]
READ_EACH = "; ".join(
    f'cat {f} >/dev/null 2>&1 && echo "{f} R" || echo "{f} -"' for f in GLOB_FILES
)


def _readable(out: str) -> set[str]:
    return {line[:-2] for line in out.splitlines() if line.endswith(" R")}


@pytest.mark.parametrize(
    ("depth_line", "readable"),
    [
        pytest.param("", {"a/ok.txt"}, id="no-depth-unbounded"),
        pytest.param(
            "glob_scan_max_depth = 1\n",
            {"a/one.env", "a/b/two.env", "a/b/c/three.env", "a/ok.txt"},
            id="depth-1",
        ),
        pytest.param(
            "glob_scan_max_depth = 2\n",
            {"a/b/two.env", "a/b/c/three.env", "a/ok.txt"},
            id="depth-2",
        ),
    ],
)
def test_glob_deny_depth(codex, home_and_work, depth_line, readable):
    """`**/*.env` under :workspace_roots is expanded once, when the sandbox
    starts, to the files then present, down to glob_scan_max_depth levels
    (a key of [permissions.<name>.filesystem]; unbounded when absent)."""
    home, work = home_and_work
    for rel in GLOB_FILES:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text("x\n")
    config = (
        PROFILE_HEAD
        + "\n[permissions.twsrt.filesystem]\n"
        + depth_line
        + '":workspace_roots" = { "**/*.env" = "deny" }\n'
    )
    rc, out = sandbox_run(codex, config, READ_EACH, work, home)
    assert rc == 0, out
    assert _readable(out) == readable, out


def test_glob_deny_is_a_snapshot(codex, home_and_work):
    home, work = home_and_work
    (work / "old.env").write_text("x\n")
    config = PROFILE_HEAD + (
        '\n[permissions.twsrt.filesystem]\n":workspace_roots" = { "**/*.env" = "deny" }\n'
    )
    cmd = "cat old.env; echo rc_old=$?; echo y > new.env && cat new.env >/dev/null; echo rc_new=$?"
    rc, out = sandbox_run(codex, config, cmd, work, home)
    assert "rc_old=1" in out and "rc_new=0" in out, out


def test_unbounded_glob_from_root_fails_sandbox_start(codex, home_and_work):
    """Loads fine, but the sandbox refuses to build."""
    home, work = home_and_work
    config = PROFILE_HEAD + '\n[permissions.twsrt.filesystem]\n"/**/*.pem" = "deny"\n'
    assert config_loads(codex, config)[0]
    rc, out = sandbox_run(codex, config, "echo RAN", work, home)
    assert rc != 0 and "RAN" not in out
    assert "cannot be safely expanded" in out


# ------------------------------------------------------------ (d) network


def _fetch_cmd(url: str, mode: str = "proxy") -> str:
    return " ".join(shlex.quote(a) for a in [sys.executable, "-c", FETCH_SCRIPT, url, mode])


def _fetch(codex: str, config: str, url: str, work: Path, home: Path, mode: str = "proxy") -> dict:
    rc, out = sandbox_run(codex, config, _fetch_cmd(url, mode), work, home)
    lines = [ln for ln in out.splitlines() if ln.startswith("FETCH ")]
    assert rc == 0 and lines, out
    return json.loads(lines[-1][len("FETCH ") :])


def _net_config(domains: str, proxy: bool = True) -> str:
    features = "\n[features]\nnetwork_proxy = true\n" if proxy else ""
    return (
        PROFILE_HEAD
        + "\n[permissions.twsrt.network]\nenabled = true\n\n[permissions.twsrt.network.domains]\n"
        + domains
        + features
    )


NET_CONFIG = _net_config('"github.com" = "allow"\n"127.0.0.1" = "allow"\n"localhost" = "deny"\n')


def test_proxy_environment_in_sandbox(codex, home_and_work):
    home, work = home_and_work
    rc, out = sandbox_run(codex, NET_CONFIG, "env", work, home)
    assert rc == 0, out
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    assert env.get("CODEX_NETWORK_PROXY_ACTIVE") == "1"
    assert env["HTTP_PROXY"].startswith("http://127.0.0.1:")
    assert env["HTTPS_PROXY"] == env["HTTP_PROXY"] == env["http_proxy"]
    assert env["ALL_PROXY"].startswith("socks5h://127.0.0.1:")
    assert env.get("NO_PROXY", "") == ""


def test_proxy_refuses_host_outside_allowlist(codex, home_and_work):
    home, work = home_and_work
    res = _fetch(codex, NET_CONFIG, "http://example.org/", work, home)
    assert res["status"] == 403 and res["xpe"] == "blocked-by-allowlist", res
    body = json.loads(res["body"])
    assert body["host"] == "example.org" and body["reason"] == "not_allowed", body
    # A subdomain of an allowed host is not allowed by the bare name.
    res = _fetch(codex, NET_CONFIG, "http://api.github.com/", work, home)
    assert json.loads(res["body"])["reason"] == "not_allowed", res


def test_proxy_refuses_https_connect_outside_allowlist(codex, home_and_work):
    home, work = home_and_work
    res = _fetch(codex, NET_CONFIG, "https://example.org/", work, home)
    assert "403" in res.get("error", ""), res


def test_allowed_host_reaches_upstream(codex, home_and_work, upstream):
    home, work = home_and_work
    res = _fetch(codex, NET_CONFIG, f"http://127.0.0.1:{upstream}/", work, home)
    assert res == {"status": 200, "body": UPSTREAM_BODY}


def test_explicit_deny_and_local_default(codex, home_and_work, upstream):
    home, work = home_and_work
    res = _fetch(codex, NET_CONFIG, f"http://localhost:{upstream}/", work, home)
    assert res["status"] == 403 and json.loads(res["body"])["reason"] == "denied", res
    # `*` allows every public name, but loopback/private targets still need
    # an explicit allow entry.
    star = _net_config('"*" = "allow"\n')
    res = _fetch(codex, star, f"http://127.0.0.1:{upstream}/", work, home)
    assert res["status"] == 403 and json.loads(res["body"])["reason"] == "not_allowed_local", res


def test_proxy_cannot_be_bypassed(codex, home_and_work, upstream):
    """The sandbox has its own network namespace (loopback only): a direct
    connection, ignoring the proxy variables, reaches nothing."""
    home, work = home_and_work
    res = _fetch(codex, NET_CONFIG, f"http://127.0.0.1:{upstream}/", work, home, mode="direct")
    assert "error" in res and "status" not in res, res


def test_domains_not_enforced_without_network_proxy_feature(codex, home_and_work, upstream):
    """Fact pin: without [features] network_proxy = true, `network.enabled =
    true` means the host network, and the domain table is ignored."""
    home, work = home_and_work
    config = _net_config('"github.com" = "allow"\n', proxy=False)
    assert config_loads(codex, config)[0]
    rc, out = sandbox_run(codex, config, "env", work, home)
    assert "HTTP_PROXY=" not in out and "CODEX_NETWORK_PROXY_ACTIVE" not in out, out
    res = _fetch(codex, config, f"http://127.0.0.1:{upstream}/", work, home)
    assert res == {"status": 200, "body": UPSTREAM_BODY}


def test_network_disabled_by_default(codex, home_and_work, upstream):
    home, work = home_and_work
    rc, out = sandbox_run(codex, PROFILE_HEAD, "env", work, home)
    assert "CODEX_SANDBOX_NETWORK_DISABLED=1" in out, out
    res = _fetch(codex, PROFILE_HEAD, f"http://127.0.0.1:{upstream}/", work, home)
    assert "error" in res, res
