"""The README played by a newcomer, end to end, with the commands taken from the README itself.

A copy of this checkout, a fresh HOME that already holds a Claude Code settings file, and then:
the set-up command (a fresh virtual environment, `pip install .`, twsrt's main job on the bundled
example), and the ten-minute walkthrough: `init --repo` over the user's settings, a policy edit,
`check` failing on drift, `generate -w`, stow linking the home tree, real `pre-commit install`
with the scaffolded config, a commit that passes, a policy edit the hook stops, the fix that
commits. Between linking and committing the agents write their own files at the stowed
location (a real `codex login`, a real Claude run): the commit holds none of them, `check`
stays clean, and a plain `srt` enforces the policy through the stowed `~/.srt-settings.json`.
Each ```sh block runs as written; only the prose steps (moving the user's file in, editing the
policy) are done here. Needs GNU stow, Codex, Claude Code, srt and pip's index (the install)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from support.precommit import isolated_env, run_merged, snapshot_this_repository
from support.tools import locate_tool, require_tool

pytestmark = pytest.mark.real

USER_SETTINGS = {"model": "opus", "hooks": {"Stop": []}, "env": {"EDITOR_THEME": "dark"}}
# what the agents write for themselves, as the repository would hold it
STATE_PREFIXES = (
    "home/.codex/auth",
    "home/.codex/log",
    "home/.claude/.credentials.json",
    "home/.claude/projects",
    "home/.claude/sessions",
    "home/.claude.json",
)


def agents_write_their_files(home: Path, env: dict[str, str]) -> None:
    from .claude_client import find_claude, run_bash
    from .codex_client import codex_bin

    login = subprocess.run(
        [codex_bin(), "login", "--with-api-key"],
        input="sk-twsrt-test-not-a-key\n",
        env={**env, "TMPDIR": str(home.parent)},
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert login.returncode == 0, login.stderr
    trust = {"projects": {str(home): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trust), encoding="utf-8")
    run_bash(find_claude(), None, ["echo working"], home=home, cwd=home)
    (home / ".claude" / ".credentials.json").write_text('{"claudeAiOauth": {}}\n')


def section(text: str, heading: str) -> str:
    body = text.partition(f"\n## {heading}\n")[2]
    assert body, f"README has no '## {heading}' section"
    return body.partition("\n## ")[0]


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", text, re.M | re.S)


class Shell:
    """Runs README blocks with bash, as a user at a terminal: HOME replaced, the virtual
    environment of the set-up step activated once it exists."""

    def __init__(self, env: dict[str, str], venv: Path) -> None:
        self.env = env
        self.venv = venv

    def run(self, script: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
        activate = f". {self.venv}/bin/activate\n" if (self.venv / "bin").is_dir() else ""
        return run_merged(["bash", "-e", "-c", activate + script], cwd, self.env, timeout)


@pytest.mark.long
def test_readme_newcomer_path(tmp_path: Path) -> None:
    stow = require_tool("stow", locate_tool("stow", "TWSRT_STOW_BIN", "/usr/bin/stow"))
    env = isolated_env(tmp_path)
    env["PATH"] = os.pathsep.join([str(Path(stow).parent), "/usr/local/bin", "/usr/bin", "/bin"])
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)  # twsrt comes from the fresh environment, nothing else
    home = Path(env["HOME"])
    checkout = tmp_path / "twsrt"
    snapshot_this_repository(checkout, env)
    readme = (checkout / "README.md").read_text(encoding="utf-8")
    shell = Shell(env, checkout / ".venv")

    # Set up: the first block, in the checkout.
    setup = sh_blocks(section(readme, "Set up"))[0]
    done = shell.run(setup, checkout, timeout=900)
    assert done.returncode == 0, done.stdout
    assert "no drift" in done.stdout
    version = shell.run("twsrt --version && pip show twsrt-policy", checkout)
    assert version.returncode == 0 and "Name: twsrt-policy" in version.stdout, version.stdout

    # The walkthrough, block by block. The user already has Claude settings.
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS), encoding="utf-8")
    walk = sh_blocks(section(readme, "Ten minutes: a dotfiles repository"))
    scaffold, check, generate, link, commit = walk
    dotfiles = home / "dotfiles"

    # the optional move of the user's settings is a comment line: this user takes it
    optional = r"^# optional, to keep your settings: (.*)$"
    assert re.search(optional, scaffold, re.M), scaffold
    scaffolded = shell.run(re.sub(optional, r"\1", scaffold, flags=re.M), home)
    assert scaffolded.returncode == 0, scaffolded.stdout
    assert "Next steps" in scaffolded.stdout

    # Step 2 (prose): add "~/.kube" to filesystem.denyRead.
    policy = dotfiles / "policy" / "srt-settings.json"
    text = policy.read_text(encoding="utf-8")
    assert text.count('"denyRead": [') == 1
    policy.write_text(text.replace('"denyRead": [', '"denyRead": ["~/.kube", ', 1), "utf-8")

    stale = shell.run(check, dotfiles)
    assert stale.returncode == 1, stale.stdout
    assert "error[TWS302]" in stale.stdout and '+      "Read(~/.kube)",' in stale.stdout

    fixed = shell.run(generate, dotfiles)
    assert fixed.returncode == 0, fixed.stdout

    linked = shell.run(link, dotfiles)
    assert linked.returncode == 0, linked.stdout
    active = home / ".claude" / "settings.json"
    loaded = json.loads(active.read_text(encoding="utf-8"))
    assert active.resolve() == (dotfiles / "home" / ".claude" / "settings.full.json").resolve()
    assert {k: loaded[k] for k in USER_SETTINGS} == USER_SETTINGS  # the user's keys survived
    assert "Read(~/.kube)" in loaded["permissions"]["deny"]
    # --no-folding: ~/.codex did not exist, yet it is a directory of links, not one link
    assert (home / ".codex").is_dir() and not (home / ".codex").is_symlink()
    assert (home / ".codex" / "config.toml").is_symlink()

    # The agents log in and work at the stowed location (a real `codex login`, a real Claude
    # run in ~; Claude's OAuth file needs a browser, so it is put where Claude keeps it).
    agents_write_their_files(home, env)
    assert (home / ".codex" / "auth.json").is_file()
    assert not (dotfiles / "home" / ".codex" / "auth.json").exists()

    # srt itself finds the policy: ~/.srt-settings.json is the stowed link to it
    srt = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", "/opt/twsrt-tools/srt/bin/srt"))
    (home / ".kube").mkdir()
    (home / ".kube" / "config").write_text("KUBE-SECRET\n")
    read = run_merged([srt, "-c", 'k=$(printf kub%s e); cat "$HOME/.$k/config"'], home, env, 120)
    assert "KUBE-SECRET" not in read.stdout, read.stdout  # the policy's new denyRead holds

    committed = shell.run(commit, dotfiles)
    assert committed.returncode == 0, committed.stdout
    assert re.search(r"^twsrt check.*\.Passed$", committed.stdout, re.M), committed.stdout
    tracked = shell.run("git ls-files", dotfiles).stdout.splitlines()
    assert "home/.srt-settings.json" in tracked
    assert not [name for name in tracked if name.startswith(STATE_PREFIXES)], tracked
    clean = shell.run("twsrt check", dotfiles)
    assert clean.returncode == 0 and "0 errors" in clean.stdout, clean.stdout
    assert not re.search(r"TWS24[012]", clean.stdout), clean.stdout

    # Then, as the README says: a policy edit without generating is stopped, the fix commits.
    rules = dotfiles / "policy" / "bash-rules.json"
    data = json.loads(rules.read_text(encoding="utf-8"))
    data["deny"].append("dd")
    rules.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    stopped = shell.run('git add -A && git commit -m "deny dd"', dotfiles)
    assert stopped.returncode == 1, stopped.stdout
    assert re.search(r"^twsrt check.*\.Failed$", stopped.stdout, re.M), stopped.stdout
    again = shell.run('twsrt generate -w && git add -A && git commit -m "deny dd"', dotfiles)
    assert again.returncode == 0, again.stdout
    clean = shell.run("git status --porcelain", dotfiles)
    assert clean.stdout == ""
