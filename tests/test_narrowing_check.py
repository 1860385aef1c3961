"""``twsrt check`` in a project repository compares the project policy with the user policy its
``[project] user_config`` names (userpolicy.py, narrowing.py): TWS225 at the project rule,
TWS226 when no user policy is named, TWS227 when the named one cannot be read."""

from __future__ import annotations

import json
from pathlib import Path

from support.sandbox import ACCEPT_PLANTED_LAYERS, DEFAULT_BASH, DEFAULT_SRT, Sandbox

PROJECT_TABLE = '[project]\nagents = ["claude"]\n'
USER_KEY = 'user_config = "~/dotfiles/twsrt.toml"\n'
# the user policy lies outside the project repository: in repo mode only the command line may
# name it there ([project] user_config is confined to the repository, as every other path)
NAMED = ("--user-config", "~/dotfiles/twsrt.toml")


def project_repo(sandbox: Sandbox, srt: dict, bash: dict, table: str) -> Path:
    """A project repository beside the user's dotfiles repository (the sandbox's), with its
    own twsrt.toml and sources, and its Claude Code project file generated."""
    root = sandbox.home / "app"
    (root / ".git").mkdir(parents=True)
    config = '[sources]\nsrt = "policy/srt.json"\nbash_rules = "policy/bash.json"\n\n' + table
    (root / "twsrt.toml").write_text(config, encoding="utf-8")
    (root / "policy").mkdir()
    (root / "policy/srt.json").write_text(json.dumps(srt, indent=2) + "\n", encoding="utf-8")
    (root / "policy/bash.json").write_text(json.dumps(bash, indent=2) + "\n", encoding="utf-8")
    generated = sandbox.run("generate", "-w", cwd=root)
    assert generated.returncode == 0, generated.stderr
    return root


def test_a_project_that_narrows_the_user_policy_checks_clean(sandbox: Sandbox) -> None:
    srt = {
        "filesystem": {"denyRead": ["~/.aws", "~/.ssh", "**/*.pem"], "allowWrite": ["build"]},
        "network": {"allowedDomains": ["api.github.com"], "deniedDomains": []},
    }
    bash = {"allow": [], "deny": ["rm", "sudo", "curl"], "ask": ["git push"]}
    root = project_repo(sandbox, srt, bash, PROJECT_TABLE + USER_KEY + ACCEPT_PLANTED_LAYERS)
    run = sandbox.run("check", *NAMED, cwd=root)
    assert run.returncode == 0, run.stdout
    assert "TWS22" not in run.stdout


def test_project_grants_beyond_the_user_policy_are_errors_at_their_lines(
    sandbox: Sandbox,
) -> None:
    srt = {
        "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["build", "/srv/cache"]},
        "network": {"allowedDomains": ["github.com", "evil.example"], "deniedDomains": []},
    }
    bash = {"allow": ["curl"], "deny": ["rm", "sudo"], "ask": ["git push"]}
    root = project_repo(sandbox, srt, bash, PROJECT_TABLE + USER_KEY)
    run = sandbox.run("check", *NAMED, "--format", "json", cwd=root)
    assert run.returncode == 1, run.stdout
    found = [f for f in json.loads(run.stdout)["findings"] if f["rule_id"].startswith("TWS22")]
    located = [(f["rule_id"], f["level"], *f["location"].values()) for f in found]
    assert located == [
        ("TWS225", "error", "policy/bash.json", 3, 5, "/allow/0"),
        ("TWS225", "error", "policy/srt.json", 8, 7, "/filesystem/allowWrite/1"),
        ("TWS225", "error", "policy/srt.json", 14, 7, "/network/allowedDomains/1"),
    ]
    messages = [f["message"] for f in found]
    assert messages[0].startswith("project bash allow 'curl' is not granted by the user policy")
    assert "'/srv/cache'" in messages[1] and "~/dotfiles/.srt-settings.json" in messages[1]
    assert "'evil.example'" in messages[2]
    # Claude Code keeps the user's lists beside the project's: the left-out ~/.ssh deny is no
    # finding for a Claude-only project; Codex loads the project's profile in its place, so
    # there it is one
    assert "~/.ssh" not in run.stdout
    (root / "twsrt.toml").write_text(
        (root / "twsrt.toml").read_text().replace('["claude"]', '["claude", "codex"]')
    )
    sandbox.run("generate", "-w", cwd=root)
    again = sandbox.run("check", *NAMED, cwd=root)
    assert "the user policy denies reads of '~/.ssh'" in again.stdout
    assert "Codex loads the project's list in place of the user's" in again.stdout


def test_a_project_without_a_user_policy_is_an_error_unless_suppressed(sandbox: Sandbox) -> None:
    """A hostile checkout that names no user policy must not check green: the comparison that
    could not be made is an error, shown without -v; a project used on its own suppresses it
    with a reason."""
    root = project_repo(sandbox, DEFAULT_SRT, DEFAULT_BASH, PROJECT_TABLE + ACCEPT_PLANTED_LAYERS)
    run = sandbox.run("check", cwd=root)
    assert run.returncode == 1, run.stdout
    assert (
        "twsrt.toml:5:2: error[TWS226] this project policy is not checked against a user "
        "policy: set `user_config` in [project]" in run.stdout
    )
    ignore = '\n[[check.ignore]]\nrule = "narrowing-unchecked"\nreason = "used on its own"\n'
    (root / "twsrt.toml").write_text((root / "twsrt.toml").read_text() + ignore)
    quiet = sandbox.run("check", cwd=root)
    assert quiet.returncode == 0, quiet.stdout
    assert "TWS226" not in quiet.stdout and "3 suppressed" in quiet.stdout  # TWS628, TWS629


def test_a_user_policy_that_cannot_be_read_is_an_error_at_the_key(sandbox: Sandbox) -> None:
    missing = USER_KEY.replace("dotfiles/", "nowhere/")
    root = project_repo(sandbox, DEFAULT_SRT, DEFAULT_BASH, PROJECT_TABLE + missing)
    run = sandbox.run("check", "--user-config", "~/nowhere/twsrt.toml", cwd=root)
    assert run.returncode == 1, run.stdout
    assert (
        "twsrt.toml:7:15: error[TWS227] the user policy '~/nowhere/twsrt.toml' names cannot "
        "be read, so this project policy was not checked against it: ~/nowhere/twsrt.toml: "
        "error[TWS001] cannot read config: " in run.stdout
    )
    (sandbox.repo / ".srt-settings.json").write_text("{ not json", encoding="utf-8")
    (root / "twsrt.toml").write_text(
        (root / "twsrt.toml").read_text().replace("nowhere", "dotfiles")
    )
    broken = sandbox.run("check", *NAMED, cwd=root)
    assert broken.returncode == 1
    assert "error[TWS227]" in broken.stdout
    assert "~/dotfiles/.srt-settings.json:1:3: error[TWS003] invalid JSON" in broken.stdout


def test_the_user_profile_names_the_profile_the_project_narrows(sandbox: Sandbox) -> None:
    """A dotfiles repository with profiles (examples/profiles): the project is compared with the
    profile ``user_profile`` names, else with the one that config chooses itself (home)."""
    import shutil

    from support.sandbox import REPO_ROOT

    dots = sandbox.home / "dots"
    shutil.copytree(REPO_ROOT / "examples" / "profiles", dots, symlinks=True)
    (dots / ".git").mkdir()
    srt = {"filesystem": {"allowWrite": ["."]}, "network": {"allowedDomains": ["pypi.org"]}}
    bash = {"allow": ["pytest"], "deny": [], "ask": []}
    key = 'user_config = "~/dots/twsrt.toml"\n'
    dots = ("--user-config", "~/dots/twsrt.toml")
    root = project_repo(sandbox, srt, bash, PROJECT_TABLE + key + 'user_profile = "work"\n')
    assert "TWS22" not in sandbox.run("check", *dots, "-v", cwd=root).stdout
    (root / "twsrt.toml").write_text((root / "twsrt.toml").read_text().replace("work", "home"))
    home = sandbox.run("check", *dots, cwd=root)
    assert home.returncode == 1
    assert "policy/bash.json:3:5: error[TWS225] project bash allow 'pytest' is not granted" in (
        home.stdout
    )
    assert "no allow rule of ~/dots/policy/base.bash.json holds all of it" in home.stdout
    assert "error[TWS225] project allowedDomains entry 'pypi.org'" in home.stdout
    (root / "twsrt.toml").write_text((root / "twsrt.toml").read_text().replace("home", "nope"))
    unknown = sandbox.run("check", *dots, cwd=root)
    assert "error[TWS227] the user policy '~/dots/twsrt.toml' names cannot be read" in (
        unknown.stdout
    )


def test_other_spellings_of_a_user_deny_are_caught_in_check(sandbox: Sandbox) -> None:
    """``~//.ssh`` once passed where ``~/.ssh`` was caught; a link committed to the checkout that
    points into ``~/.ssh`` re-opens it too (the host's spelling), and TWS220 names the link."""
    srt = {
        "filesystem": {"denyRead": [], "allowRead": ["~//.ssh", "keys"], "allowWrite": ["."]},
        "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
    }
    (sandbox.home / ".ssh").mkdir()
    root = project_repo(sandbox, srt, DEFAULT_BASH, PROJECT_TABLE + USER_KEY)
    (root / "keys").symlink_to(sandbox.home / ".ssh")
    run = sandbox.run("check", *NAMED, "--format", "json", cwd=root)
    assert run.returncode == 1, run.stdout
    found = [f for f in json.loads(run.stdout)["findings"] if f["rule_id"] == "TWS225"]
    assert [(f["location"]["pointer"], f["level"]) for f in found] == [
        ("/filesystem/allowRead/0", "error"),
        ("/filesystem/allowRead/1", "error"),
    ]
    assert found[0]["message"].startswith(
        "project allowRead '~//.ssh' re-opens reads the user policy denies: '~/.ssh'"
    )
    assert found[1]["message"].endswith("('keys' is '~/.ssh' through a symlink on this host)")


def test_a_user_config_outside_the_repository_is_not_read_in_repo_mode(sandbox: Sandbox) -> None:
    """A pull request that points ``[project] user_config`` at a file of the runner learns
    nothing of it: not whether it exists, its type, its keys or what its path resolves to. The
    same command line names it (``--user-config``) and it is read."""
    import os

    target = sandbox.home / ".codex" / "auth.json"
    key = 'user_config = "~/.codex/auth.json"\n'
    root = project_repo(sandbox, DEFAULT_SRT, DEFAULT_BASH, PROJECT_TABLE + key)
    outputs = []
    for make in ("missing", "file", "directory", "fifo", "link"):
        if target.is_dir() and not target.is_symlink():
            target.rmdir()
        elif os.path.lexists(target):
            target.unlink()
        target.parent.mkdir(exist_ok=True)
        if make == "file":
            target.write_text('OPENAI_API_KEY = "sk-secret"\n[tokens]\nid = 1\n', "utf-8")
        elif make == "directory":
            target.mkdir()
        elif make == "fifo":
            os.mkfifo(target)
        elif make == "link":
            target.symlink_to(sandbox.home / "elsewhere" / "real.toml")
        run = sandbox.run("check", cwd=root)
        assert run.returncode == 1, run.stdout
        outputs.append(run.stdout)
        json_run = sandbox.run("check", "--format", "json", cwd=root)
        for text in (run.stdout, json_run.stdout):
            assert "OPENAI_API_KEY" not in text and "tokens" not in text and "elsewhere" not in text
            assert "TWS227" not in text
    assert len(set(outputs)) == 1, outputs  # the same report, whatever lies there
    assert (
        "twsrt.toml:7:15: error[TWS005] [project] user_config '~/.codex/auth.json' lies outside "
        "the repository; in repo mode twsrt reads only files inside it" in outputs[0]
    )
    assert "`twsrt check --user-config FILE`" in outputs[0]
    target.unlink()
    target.write_text('OPENAI_API_KEY = "sk-secret"\n', "utf-8")
    named = sandbox.run("check", "--user-config", "~/.codex/auth.json", cwd=root)
    assert "error[TWS227]" in named.stdout  # the person named it: read, and reported as invalid
    assert "TWS005" not in named.stdout


def test_a_user_config_inside_the_repository_reads_nothing_outside_it(sandbox: Sandbox) -> None:
    """The named config's own sources stay inside the repository too."""
    (sandbox.home / "secret.json").write_text('{"aws_secret_access_key": "x"}\n', "utf-8")
    key = 'user_config = "user/twsrt.toml"\n'
    root = project_repo(sandbox, DEFAULT_SRT, DEFAULT_BASH, PROJECT_TABLE + key)
    (root / "user").mkdir()
    (root / "user/twsrt.toml").write_text(
        'checkout = "~/x"\n[sources]\nsrt = "~/secret.json"\nbash_rules = "b.json"\n', "utf-8"
    )
    (root / "user/b.json").write_text("{}\n", "utf-8")
    run = sandbox.run("check", cwd=root)
    assert run.returncode == 1, run.stdout
    assert "error[TWS227] the user policy 'user/twsrt.toml' names cannot be read" in run.stdout
    assert "error[TWS005] resolves to ~/secret.json, outside the repository" in run.stdout
    assert "aws_secret_access_key" not in run.stdout


def test_user_config_option_needs_a_project_table(sandbox: Sandbox) -> None:
    run = sandbox.run("check", "--user-config", "~/dotfiles/twsrt.toml")
    assert run.returncode == 2, run.stdout
    assert "error[TWS001] --user-config: this config has no [project] table" in run.stdout
