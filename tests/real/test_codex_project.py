"""The real Codex CLI (0.171.0) on the project layer twsrt writes (agents/codex/project.py).

A project (a git checkout) gets ``.codex/config.toml`` from a policy that denies ``**/*.pem``
and ``./secrets`` and lets the project be written; the user's own config.toml holds the twsrt
user profile and, when the project is trusted, its ``[projects."<root>"]`` entry.

- Trusted, Codex loads the layer under ``--strict-config`` and uses ``twsrt-project`` (its
  glob deny, scan depth, network and approval policy) with no ignored key; a deliberately
  wrong key in the layer makes it refuse to start.
- Started in the project root, the relative denies hold in the whole project: a command
  cannot read, append to or rename ``a/b/key.pem`` or ``top.pem``, nor read or create in
  ``secrets``, nor change ``.codex``; it can write the project, and not the user profile's
  write root. Started in the
  subdirectory ``a``, they hold only below it: ``top.pem`` is readable (TWS458's note), and a
  relative workspace root ``..`` in the layer would name the project's parent (why twsrt
  writes none).
- Untrusted, Codex ignores the layer (and its rules): the same read succeeds, which is what
  TWS616 reports.
- A project table of the user profile's name is merged into the user's (so the project profile
  has its own name), and a user table of the project profile's name, in config.toml or in a
  profile file for ``codex --profile``, is merged into the project's: a write outside the
  project policy succeeds, which is what TWS617 reports. A profile file's
  ``default_permissions`` does not replace the project layer's.
- The layer's network proxy refuses a host outside the project's allowlist.
- In a real model turn (a fake Responses API), the project's rules file forbids ``git push``
  with its justification when the project is trusted (untrusted, the command runs), and the
  user's own rules still forbid what they forbid: Codex collects both.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.policies import make_policy
from twsrt.agents.codex.agent import merged_config, translate

from .codex_client import FETCH_SCRIPT, config_loads, doctor_report, sandbox_run
from .codex_model import tool_output

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent.parent

SECRET = "twsrt-project-secret"
PROJECT_SRT = {
    "filesystem": {"denyRead": ["**/*.pem", "./secrets"], "allowWrite": ["."]},
    "network": {"allowedDomains": ["127.0.0.1"], "deniedDomains": []},
}
USER_SRT = {"filesystem": {"allowWrite": [".", "~/cache"]}}
IGNORED_KEYS = "Ignored unsupported project-local config keys"


def _twsrt(dotfiles: Path, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``twsrt -c DOTFILES/twsrt.toml ARGS`` as its own process, with HOME (and ``env``)."""
    return subprocess.run(
        [sys.executable, "-m", "twsrt", "-c", str(dotfiles / "twsrt.toml"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", **env},
        check=False,
    )


def _user(root: Path | None, trust: str = "trusted", extra: str = "") -> str:
    text = merged_config(None, translate(make_policy(USER_SRT))[0]) + extra
    if root is not None:
        text += f'\n[projects."{root}"]\ntrust_level = "{trust}"\n'
    return text


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    """(home, project root): a git checkout holding key files, secrets and the twsrt layer."""
    home = tmp_path / "home"
    (home / "cache").mkdir(parents=True)
    (home / ".config").mkdir()  # every real home has one; without it Codex fails closed (TWS618)
    root = (tmp_path / "proj").resolve()
    (root / "a" / "b").mkdir(parents=True)
    (root / "secrets").mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for path in ("a/b/key.pem", "top.pem", "secrets/token"):
        (root / path).write_text(SECRET + "\n")
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "srt.json").write_text(json.dumps(PROJECT_SRT, indent=2))
    (dotfiles / "bash.json").write_text(json.dumps({"deny": ["git push"]}))
    (dotfiles / "twsrt.toml").write_text(
        f'home = "{home}"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
    )
    run = _twsrt(dotfiles, home, "generate", "codex", "-w", "-v", "--project", str(root))
    assert run.returncode == 0, run.stderr
    assert "warning[TWS412]" in run.stderr  # **/*.pem: a file created later is not denied
    assert (root / ".codex" / "config.toml").exists()
    assert (root / ".codex" / "rules" / "twsrt.rules").exists()
    return home, root


def test_the_trusted_layer_loads_strictly_and_a_wrong_key_is_refused(
    codex: str, project: tuple[Path, Path]
) -> None:
    home, root = project
    ok, out = config_loads(codex, _user(root), cwd=root / "a", home=home)
    assert ok, out
    report = doctor_report(codex, _user(root), root / "a", home)
    details = report["checks"]["config.load"]["details"]
    assert not any(IGNORED_KEYS in w for w in details.get("startup warning", [])), details
    # the project profile is the one in use: its glob deny and scan depth, its network
    helpers = report["checks"]["sandbox.helpers"]["details"]
    assert helpers["denied-read glob rules"] == "1", helpers
    assert helpers["glob scan max depth"] == "64", helpers
    assert helpers["network sandbox"] == "enabled", helpers
    untrusted = doctor_report(codex, _user(root, "untrusted"), root / "a", home)
    assert untrusted["checks"]["sandbox.helpers"]["details"]["denied-read glob rules"] == "0"
    # the layer's approval_policy wins over the user's
    never = 'approval_policy = "never"'
    for trust, policy in (("trusted", "OnRequest"), ("untrusted", "Never")):
        user = _user(root, trust).replace('approval_policy = "on-request"', never)
        report = doctor_report(codex, user, root / "a", home)
        assert report["checks"]["sandbox.helpers"]["details"]["approval policy"] == policy
    layer = root / ".codex" / "config.toml"
    layer.write_text("bogus_key = 1\n" + layer.read_text())
    ok, out = config_loads(codex, _user(root), cwd=root / "a", home=home)
    assert not ok and "unknown configuration field `bogus_key`" in out, out
    assert str(layer) in out
    # untrusted, the same broken layer is not even read
    ok, out = config_loads(codex, _user(root, "untrusted"), cwd=root / "a", home=home)
    assert ok and "Untrusted project-local configuration is disabled" in out, out


def test_relative_denies_cover_the_project_when_codex_starts_in_its_root(
    codex: str, project: tuple[Path, Path]
) -> None:
    home, root = project
    user = _user(root)
    refused = {
        "read": f"cat {root}/a/b/key.pem",
        "append": f"echo x >> {root}/a/b/key.pem",
        "overwrite": f"echo x > {root}/a/b/key.pem",
        "remove": f"rm -f {root}/a/b/key.pem",
        "rename": f"mv {root}/a/b/key.pem {root}/a/b/moved",
        "read top": f"cat {root}/top.pem",
        "read dir": f"cat {root}/secrets/token",
        "create in dir": f"echo x > {root}/secrets/new",
        "user write root": f"echo x > {home}/cache/made",  # the user profile's, not the project's
        "rewrite the layer": f"echo x >> {root}/.codex/config.toml",  # read-only metadata
        "add rules": f"echo x > {root}/.codex/rules/more.rules",
    }
    for what, command in refused.items():
        rc, out = sandbox_run(codex, user, command, root, home)
        assert rc != 0 and SECRET not in out, (what, out)
    assert (root / "a" / "b" / "key.pem").read_text() == SECRET + "\n"
    assert not (root / "a" / "b" / "moved").exists() and not (root / "secrets" / "new").exists()
    assert not (home / "cache" / "made").exists()
    assert not (root / ".codex" / "rules" / "more.rules").exists()
    rc, out = sandbox_run(codex, user, f"echo ok > {root}/made.txt", root, home)
    assert rc == 0, out
    assert (root / "made.txt").read_text() == "ok\n"
    # a glob deny is expanded when the sandbox starts: a new matching file is not covered,
    # which generate reports (TWS412, the fixture asserts it)
    rc, out = sandbox_run(codex, user, f"echo new > {root}/a/b/new.pem", root, home)
    assert rc == 0 and (root / "a" / "b" / "new.pem").read_text() == "new\n", out


def test_started_in_a_subdirectory_relative_paths_hang_from_it(
    codex: str, project: tuple[Path, Path]
) -> None:
    home, root = project
    user = _user(root)
    rc, out = sandbox_run(codex, user, f"cat {root}/a/b/key.pem", root / "a", home)
    assert rc != 0 and SECRET not in out, out
    rc, out = sandbox_run(codex, user, f"cat {root}/top.pem", root / "a", home)
    assert rc == 0 and SECRET in out, out  # outside the launch directory: TWS458
    rc, out = sandbox_run(codex, user, f"echo x > {root}/made.txt", root / "a", home)
    assert rc != 0 and not (root / "made.txt").exists(), out  # "." is the launch directory
    # a relative workspace root resolves against the launch directory, not the layer's folder
    layer = root / ".codex" / "config.toml"
    layer.write_text(
        layer.read_text() + '\n[permissions.twsrt-project.workspace_roots]\n".." = true\n'
    )
    rc, out = sandbox_run(codex, user, f"echo x > {root.parent}/above && echo WROTE", root, home)
    assert rc == 0 and "WROTE" in out, out


def _check(home: Path, root: Path, user: str) -> list[str]:
    """The effective findings ``twsrt check --project ROOT`` reports on this machine with
    ``user`` as its Codex config.toml ($CODEX_HOME)."""
    codex_home = home / "codex-home"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(user)
    dotfiles = home.parent / "dotfiles"
    args = ("check", "--agent", "codex", "--project", str(root), "--format", "json")
    run = _twsrt(dotfiles, home, *args, CODEX_HOME=str(codex_home))
    assert run.returncode in (0, 1), run.stderr
    found = json.loads(run.stdout)["findings"]
    return sorted(f["rule_id"] for f in found if f["rule_id"] in ("TWS616", "TWS617"))


def test_an_untrusted_project_is_ignored_and_reported(
    codex: str, project: tuple[Path, Path]
) -> None:
    home, root = project
    for user in (_user(None), _user(root, "untrusted"), _user(root.parent)):
        rc, out = sandbox_run(codex, user, f"cat {root}/a/b/key.pem", root / "a", home)
        assert rc == 0 and SECRET in out, out  # the layer is not loaded: the deny is gone
        assert _check(home, root, user) == ["TWS616"]
    rc, out = sandbox_run(codex, _user(root), f"cat {root}/a/b/key.pem", root / "a", home)
    assert rc != 0 and SECRET not in out, out
    assert _check(home, root, _user(root)) == []


def test_project_rules_load_only_for_a_trusted_project(
    codex: str, project: tuple[Path, Path]
) -> None:
    home, root = project
    rules = root / ".codex" / "rules" / "twsrt.rules"
    rules.write_text('prefix_rule(pattern = ["rm"], decision = "bogus")\n')
    ok, out = config_loads(codex, _user(root), cwd=root / "a", home=home)
    assert not ok and "Error loading rules" in out and str(rules) in out, out
    ok, out = config_loads(codex, _user(root, "untrusted"), cwd=root / "a", home=home)
    assert ok, out


def test_tables_of_one_name_merge_across_the_layers(codex: str, project: tuple[Path, Path]) -> None:
    home, root = project
    write = f"echo x > {home}/cache/made && echo WROTE"
    # a project table of the user profile's name: the user's write root stays
    layer = root / ".codex" / "config.toml"
    generated = layer.read_text()
    layer.write_text('[permissions.twsrt.filesystem.":workspace_roots"]\n"**/*.pem" = "deny"\n')
    rc, out = sandbox_run(codex, _user(root), write, root, home)
    assert rc == 0 and "WROTE" in out, out
    rc, out = sandbox_run(codex, _user(root), f"cat {root}/top.pem", root, home)
    assert rc != 0 and SECRET not in out, out  # and the project's deny is added
    (home / "cache" / "made").unlink()
    # a user table of the project profile's name widens the project policy: TWS617
    layer.write_text(generated)
    extra = f'\n[permissions.twsrt-project.filesystem]\n"{home}/cache" = "write"\n'
    rc, out = sandbox_run(codex, _user(root, extra=extra), write, root, home)
    assert rc == 0 and "WROTE" in out, out
    (home / "cache" / "made").unlink()
    assert _check(home, root, _user(root, extra=extra)) == ["TWS617"]
    # the same table in a profile file, for `codex --profile wide`
    files = {"wide.config.toml": extra}
    rc, out = sandbox_run(codex, _user(root), write, root, home, profile="wide", extra_files=files)
    assert rc == 0 and "WROTE" in out, out
    (home / "codex-home" / "wide.config.toml").write_text(extra)
    assert _check(home, root, _user(root)) == ["TWS617"]
    # a profile file that selects another profile does not replace the project's: the
    # project layer's default_permissions wins over it
    files = {"full.config.toml": 'default_permissions = ":danger-full-access"\n'}
    read = f"cat {root}/top.pem"
    rc, out = sandbox_run(codex, _user(root), read, root, home, profile="full", extra_files=files)
    assert rc != 0 and SECRET not in out, out


def test_the_layers_proxy_refuses_a_host_outside_the_allowlist(
    codex: str, project: tuple[Path, Path], upstream: int
) -> None:
    home, root = project

    def fetch(url: str) -> dict:
        command = shlex.join([sys.executable, "-c", FETCH_SCRIPT, url, "proxy"])
        rc, out = sandbox_run(codex, _user(root), command, root / "a", home)
        lines = [line for line in out.splitlines() if line.startswith("FETCH ")]
        assert rc == 0 and lines, out
        return json.loads(lines[-1][len("FETCH ") :])

    refused = fetch("http://example.org/")
    assert refused["status"] == 403 and refused["xpe"] == "blocked-by-allowlist", refused
    assert fetch(f"http://127.0.0.1:{upstream}/")["status"] == 200


def test_a_project_below_a_repository_root_takes_the_roots_trust(
    codex: str, project: tuple[Path, Path]
) -> None:
    """A project in a subdirectory of a repository (``--project REPO/sub``): Codex finds the
    repository root by its ``.git`` and loads the project's layer when the project's own
    ``[projects]`` entry trusts it, else when the root's does; the project's own entry wins
    (an untrusted one switches the layer off under a trusted root). check says the same."""
    home, repo = project
    shutil.rmtree(repo / ".codex")  # only the project's own layer: the root's would deny too
    sub = repo / "sub"
    sub.mkdir()
    (sub / "key.pem").write_text(SECRET + "\n")
    dotfiles = home.parent / "dotfiles"
    assert _twsrt(dotfiles, home, "generate", "codex", "-w", "--project", str(sub)).returncode == 0
    read = f"cat {sub}/key.pem"
    cases = [
        (_user(repo), False),
        (_user(sub), False),
        (_user(repo) + f'\n[projects."{sub}"]\ntrust_level = "untrusted"\n', True),
        (_user(repo.parent), True),  # above the repository: does not count
    ]
    for user, readable in cases:
        rc, out = sandbox_run(codex, user, read, sub, home)
        assert (rc == 0 and SECRET in out) == readable, (user, out)
        assert _check(home, sub, user) == (["TWS616"] if readable else []), user


USER_RULES = (
    'prefix_rule(pattern = ["git", "status"], decision = "forbidden", justification = "mine")\n'
)


@pytest.mark.parametrize(
    ("command", "trust", "refused_by"),
    [
        ("git push", "trusted", "denied by twsrt policy: git push"),  # the project's rule
        ("git push", "untrusted", None),
        ("git status", "trusted", "mine"),  # the user's rule holds in the project too
        ("git status", "untrusted", "mine"),
    ],
)
def test_project_and_user_rules_both_forbid_in_a_real_turn(
    codex: str,
    project: tuple[Path, Path],
    tmp_path: Path,
    command: str,
    trust: str,
    refused_by: str | None,
) -> None:
    """One model turn (a fake Responses API, ``codex_model``) asks to run ``command``. The
    project's ``.codex/rules/twsrt.rules`` forbids ``git push`` and the user's own rules
    ``git status``: Codex collects both in a trusted project (so a project may leave a user
    bash deny out, docs/project.md) and only the user's untrusted, where ``git push`` runs."""
    home, root = project
    user = _user(root, trust)
    output = tool_output(codex, user, command, root, home, tmp_path, user_rules=USER_RULES)
    assert ("rejected" in output) is (refused_by is not None), output
    if refused_by is not None:
        assert f"rejected: {refused_by}" in output, output


def test_the_example_projects_layer_loads_and_binds(codex: str, tmp_path: Path) -> None:
    """examples/project as a trusted checkout: its committed Codex layer and rules load under
    --strict-config, and a command started in it cannot read ``secrets`` or
    ``config/credentials.json``, write ``policy`` or ``.git/hooks``, nor read ``~/.aws``; it
    can write the project."""
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(SECRET + "\n")
    root = (tmp_path / "project").resolve()
    shutil.copytree(ROOT / "examples" / "project", root)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "secrets").mkdir()
    (root / "config").mkdir()
    for path in ("secrets/token", "config/credentials.json"):
        (root / path).write_text(SECRET + "\n")
    user = _user(root)
    ok, out = config_loads(codex, user, cwd=root, home=home)
    assert ok, out
    refused = [
        "cat secrets/token",
        "cat config/credentials.json",
        "cat ~/.aws/credentials",
        "echo x > policy/new.json",
        "echo x > .git/hooks/pre-commit",
        # its denyWrite .git/hooks once pinned ".git" = "write", which let this through
        "echo x >> .git/config",
    ]
    for command in refused:
        rc, out = sandbox_run(codex, user, command, root, home)
        assert rc != 0 and SECRET not in out, (command, out)
    assert not (root / "policy" / "new.json").exists()
    assert not (root / ".git" / "hooks" / "pre-commit").exists()
    assert "\nx\n" not in (root / ".git" / "config").read_text()
    rc, out = sandbox_run(codex, user, "echo ok > made.txt && cat made.txt", root, home)
    assert rc == 0 and "ok" in out, out
