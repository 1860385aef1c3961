"""Real Claude Code 2.1.332 with the managed-settings.json twsrt generates.

Claude reads ``/etc/claude-code/managed-settings.json`` on Linux. Each run here puts the test's
file there in a private mount namespace (tests/real/private_etc.py), never in the real /etc.

- ``claude doctor`` accepts the generated file, names the user entries the binding switches make
  it ignore, and rejects a broken managed file (so the acceptance is the file's doing).
- The floor binds (the fake Messages API of tests/real/claude_client.py drives the Bash tool):
  a user ``allowRead`` that re-opens a denied file, a user ``allowedDomains`` entry, and a user
  allow rule for a command each work without the managed file's switch and fail with it.
- What it cannot bind (TWS450): a user ``sandbox.filesystem.allowWrite`` root stays writable.
- Paths as Claude reads them in managed settings: ``~`` is the home of the user who runs
  Claude, and a relative path anchors at the working directory (as in srt), not at ~/.claude.
- A managed ``sandbox.enabled: false`` switches off a user's own sandbox, which is why the
  managed file of a policy without a sandbox leaves the key out (TWS451).
- ``disableBypassPermissionsMode`` stops a user's bypass mode from approving a sandbox escape,
  and ``failIfUnavailable`` makes Claude refuse to start when the sandbox cannot (each with
  its control run).

Eighteen Claude starts, a second or two each.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import twsrt_command

from .claude_client import find_claude, run_bash
from .claude_doctor import claude_accepts_settings
from .private_etc import private_etc

pytestmark = pytest.mark.real

POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/secret.txt", "rel-secret.txt"],
        "allowWrite": ["."],
    },
    "network": {"allowedDomains": ["github.com"]},
}
BASH_RULES = {"allow": [], "deny": ["shred"], "ask": []}
# a worktree's checkout on the path (as the tests run) reaches the process too
PYTHONPATH = {k: v for k, v in os.environ.items() if k == "PYTHONPATH"}
SWITCHES = (
    "/allowManagedPermissionRulesOnly",
    "/sandbox/network/allowManagedDomainsOnly",
    "/sandbox/filesystem/allowManagedReadPathsOnly",
)


def generate_managed(tmp_path: Path, srt: dict[str, Any], bash: dict[str, Any]) -> Path:
    """The Linux managed file ``twsrt generate --managed DIR -w`` writes for the policy."""
    (tmp_path / ".srt-settings.json").write_text(json.dumps(srt, indent=2))
    (tmp_path / "bash-rules.json").write_text(json.dumps(bash))
    (tmp_path / "twsrt.toml").write_text(
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n'
    )
    proc = subprocess.run(
        [*twsrt_command(), "generate", "claude", "--managed", "managed", "-w", "-v"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NO_COLOR": "1", **PYTHONPATH},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "TWS450" in proc.stderr, proc.stderr
    return tmp_path / "managed" / "linux" / "etc" / "claude-code" / "managed-settings.json"


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = generate_managed(tmp_path_factory.mktemp("generate"), POLICY, BASH_RULES)
    return json.loads(path.read_text())


def without(document: dict[str, Any], pointer: str) -> dict[str, Any]:
    """A copy of ``document`` without the member at ``pointer``."""
    copy = json.loads(json.dumps(document))
    *parents, last = pointer.strip("/").split("/")
    node = copy
    for part in parents:
        node = node[part]
    del node[last]
    return copy


@contextmanager
def claude_with(tmp_path: Path, managed: dict[str, Any] | str) -> Iterator[str]:
    """A Claude launcher that reads ``managed`` as /etc/claude-code/managed-settings.json."""
    etc = tmp_path / "etc-claude-code"
    etc.mkdir()
    text = managed if isinstance(managed, str) else json.dumps(managed, indent=2)
    (etc / "managed-settings.json").write_text(text)
    with private_etc(find_claude(), {"claude-code": etc}) as claude:
        yield claude


def bash(
    tmp_path: Path,
    managed: dict[str, Any],
    user: dict[str, Any],
    *commands: str,
    **options: Any,
) -> tuple[list[str], Path]:
    """The Bash tool's output for each command (``{home}`` filled in) under ``managed`` and
    the user settings ``user``, from a HOME holding ``secret.txt``, ``work/rel-secret.txt``
    and ``.claude/rel-secret.txt``; Claude starts in ``work``. ``options``: run_bash's ``env``
    and ``tool_input``."""
    home = tmp_path / "home"
    work = home / "work"
    work.mkdir(parents=True)
    (home / "secret.txt").write_text("TOPSECRET\n")
    (work / "rel-secret.txt").write_text("RELSECRET\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "rel-secret.txt").write_text("CLAUDESECRET\n")
    filled = [command.format(home=shlex.quote(str(home))) for command in commands]
    with claude_with(tmp_path, managed) as claude:
        run = run_bash(claude, user, filled, home, work, **options)
    assert None not in run.outputs, run.stdout
    return [output or "" for output in run.outputs], home


def sandboxed_auto(managed: dict[str, Any]) -> dict[str, Any]:
    """``managed`` with sandboxed commands running unasked (headless, nobody answers a
    prompt), so a command meets the sandbox rather than the approval step."""
    copy = json.loads(json.dumps(managed))
    copy["sandbox"]["autoAllowBashIfSandboxed"] = True
    return copy


# ---------------------------------------------------------------- claude doctor


def test_doctor_accepts_the_generated_file_and_names_what_it_overrides(
    tmp_path: Path, generated: dict[str, Any]
) -> None:
    assert all(generated["permissions"]["deny"]) and generated["sandbox"]["enabled"] is True
    empty = tmp_path / "empty.json"
    empty.write_text("{}\n")
    user = tmp_path / "user.json"
    user.write_text(
        json.dumps(
            {
                "sandbox": {
                    "network": {"allowedDomains": ["example.org"]},
                    "filesystem": {"allowRead": ["~/.ssh/config"]},
                }
            }
        )
    )
    with claude_with(tmp_path, generated) as claude:
        ok, output = claude_accepts_settings(claude, empty)
        assert ok, output
        _ok, output = claude_accepts_settings(claude, user)
    # doctor read the managed file: it names the user entries its switches make Claude ignore
    assert "sandbox.filesystem.allowRead is ignored" in output, output
    assert "sandbox.network.allowedDomains is ignored" in output, output


def test_doctor_rejects_a_broken_managed_file(tmp_path: Path, generated: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(generated))
    broken["permissions"]["disableBypassPermissionsMode"] = "sometimes"
    broken["sandbox"]["failIfUnavailable"] = "yes"
    empty = tmp_path / "empty.json"
    empty.write_text("{}\n")
    with claude_with(tmp_path, broken) as claude:
        ok, output = claude_accepts_settings(claude, empty)
    assert not ok
    assert "/etc/claude-code/managed-settings.json" in output, output
    assert "disableBypassPermissionsMode" in output and "failIfUnavailable" in output, output


# ---------------------------------------------------------------- the floor binds


READ_SECRET = "cat {home}/secret.txt"
FETCH = "curl -s -m 10 -D - -o /dev/null http://example.org/; echo curl=$?"
TOUCH = "touch {home}/work/made.txt && echo touched-ok"


@pytest.mark.parametrize(
    ("switch", "user", "command", "opened", "closed", "auto"),
    [
        (
            "/sandbox/filesystem/allowManagedReadPathsOnly",
            {"sandbox": {"filesystem": {"allowRead": ["~/secret.txt"]}}},
            READ_SECRET,
            "TOPSECRET",
            "Permission denied",
            True,
        ),
        (
            "/sandbox/network/allowManagedDomainsOnly",
            {"sandbox": {"network": {"allowedDomains": ["example.org"]}}},
            FETCH,
            "502 Bad Gateway",  # the proxy let it through; offline, the upstream fails
            "blocked-by-allowlist",
            True,
        ),
        (
            "/allowManagedPermissionRulesOnly",
            {"permissions": {"allow": ["Bash(touch *)"]}},
            TOUCH,
            "touched-ok",
            "needs approval",  # headless, nobody approves: the user's allow rule is ignored
            False,  # the approval step is what the rule answers
        ),
    ],
    ids=["allowRead", "allowedDomains", "allow-rule"],
)
def test_a_user_grant_is_ignored_under_the_switch(
    tmp_path: Path,
    generated: dict[str, Any],
    switch: str,
    user: dict[str, Any],
    command: str,
    opened: str,
    closed: str,
    auto: bool,
) -> None:
    """Without the switch (the control) the user's grant works; with it, the forbidden action
    fails. The rest of the file stays as generated."""
    assert switch in SWITCHES
    managed = sandboxed_auto(generated) if auto else generated
    [control], _home = bash(tmp_path / "control", without(managed, switch), user, command)
    assert opened in control, control
    [bound], home = bash(tmp_path / "bound", managed, user, command)
    assert closed in bound and opened not in bound, bound
    assert not (home / "work" / "made.txt").exists()


def test_a_user_write_root_is_not_bound(tmp_path: Path, generated: dict[str, Any]) -> None:
    """TWS450: no managed switch covers write roots; a user's allowWrite still opens one."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    managed = sandboxed_auto(generated)
    write = f"touch {shlex.quote(str(elsewhere))}/x && echo wrote"
    [refused], _home = bash(tmp_path / "plain", managed, {}, write)
    assert "Read-only file system" in refused, refused
    user = {"sandbox": {"filesystem": {"allowWrite": [str(elsewhere)]}}}
    [opened], _home = bash(tmp_path / "user", managed, user, write)
    assert "wrote" in opened and (elsewhere / "x").exists(), opened


def test_paths_mean_the_users_home_and_the_working_directory(
    tmp_path: Path, generated: dict[str, Any]
) -> None:
    """``~/secret.txt`` and the relative ``rel-secret.txt`` as generated (unexpanded): Claude
    expands ``~`` with the running user's home and anchors the relative path at the working
    directory, so both project files are denied while ~/.claude/rel-secret.txt is not."""
    assert generated["sandbox"]["filesystem"]["denyRead"] == ["~/secret.txt", "rel-secret.txt"]
    files = ("{home}/secret.txt", "{home}/work/rel-secret.txt", "{home}/.claude/rel-secret.txt")
    outputs, _home = bash(tmp_path, sandboxed_auto(generated), {}, *(f"cat {f}" for f in files))
    home_secret, project_secret, claude_secret = outputs
    assert "Permission denied" in home_secret and "TOPSECRET" not in home_secret, home_secret
    assert "Permission denied" in project_secret and "RELSECRET" not in project_secret
    assert claude_secret == "CLAUDESECRET", claude_secret


def test_a_managed_false_switches_a_users_sandbox_off(tmp_path: Path) -> None:
    """Why the managed file leaves ``sandbox.enabled`` out when the policy's sandbox is off
    (TWS451): a managed ``false`` wins over a user's ``true``, and the user's own denyRead is
    gone with the sandbox (the control: the same user file under an empty managed file)."""
    user = {
        "sandbox": {
            "enabled": True,
            "autoAllowBashIfSandboxed": True,
            "filesystem": {"denyRead": ["~/secret.txt"]},
        }
    }
    [control], _home = bash(tmp_path / "control", {"sandbox": {}}, user, READ_SECRET)
    assert "Permission denied" in control and "TOPSECRET" not in control, control
    [off], _home = bash(tmp_path / "off", {"sandbox": {"enabled": False}}, user, READ_SECRET)
    assert "TOPSECRET" in off, off


# Spelled so that Claude's Read(~/secret.txt) rule does not recognise the path: these tests are
# about the sandbox and the approval step, which a command the rules cannot parse meets.
READ_SECRET_OPAQUE = (
    'python3 -c \'import os; print(open(os.environ["HOME"] + "/secret.txt").read())\''
)


def test_disable_bypass_stops_an_unasked_escape(tmp_path: Path, generated: dict[str, Any]) -> None:
    """With the escape hatch open (no ``allowUnsandboxedCommands: false``), a user's
    ``bypassPermissions`` mode approves a command's escape from the sandbox unasked and it
    reads the denied file; ``disableBypassPermissionsMode`` refuses the mode, so the escape
    waits for an approval nobody gives. (Ask rules are asked even in bypass mode: not what the
    key is for.)"""
    hatch = without(generated, "/sandbox/allowUnsandboxedCommands")
    user = {"permissions": {"defaultMode": "bypassPermissions"}}
    # Claude refuses bypassPermissions as root unless told it runs in a sandbox already
    options = {"env": {"IS_SANDBOX": "1"}, "tool_input": {"dangerouslyDisableSandbox": True}}
    bypassed = without(hatch, "/permissions/disableBypassPermissionsMode")
    [control], _home = bash(tmp_path / "control", bypassed, user, READ_SECRET_OPAQUE, **options)
    assert "TOPSECRET" in control, control
    [bound], _home = bash(tmp_path / "bound", hatch, user, READ_SECRET_OPAQUE, **options)
    assert "TOPSECRET" not in bound and "outside of the sandbox" in bound, bound


def test_fail_if_unavailable_refuses_to_start_without_the_sandbox(
    tmp_path: Path, generated: dict[str, Any]
) -> None:
    """A sandbox that cannot start (here: the managed bwrapPath names no program): without
    ``failIfUnavailable`` Claude runs the command unsandboxed and it reads the denied file;
    with it, Claude refuses to start. (Rules-only mode is left out of both, so the command
    runs on --allowedTools as the harness asks.)"""
    managed = without(generated, "/allowManagedPermissionRulesOnly")
    managed["sandbox"]["bwrapPath"] = str(tmp_path / "no-bwrap")
    unguarded = without(managed, "/sandbox/failIfUnavailable")
    [control], _home = bash(tmp_path / "control", unguarded, {}, READ_SECRET_OPAQUE)
    assert "TOPSECRET" in control, control
    with pytest.raises(RuntimeError, match="sandbox required but unavailable"):
        bash(tmp_path / "bound", managed, {}, READ_SECRET_OPAQUE)
