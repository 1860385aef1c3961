"""The real agents on the protected set (issue 25, observations 4 and 8; twsrt/protection.py).

A dotfiles repository checked out at ``~/dotfiles`` (twsrt.toml, the sources, a fragment,
``.pre-commit-config.yaml``, ``.git/hooks/pre-commit``, ``.git/config``, the generated files)
and installed with ``stow --no-folding`` (``~/.claude/settings.json`` and
``~/.codex/config.toml`` are links into it), with the home directory as a write root:

- Claude Code 2.1.332, started in ``~/proj`` with the stowed user settings, and ``codex
  sandbox`` 0.171.0 with the generated profile: a command the files allow cannot create, write,
  append, rename over, rename aside and recreate, unlink or symlink-swap any of them, spelled
  from ``~/``, absolute, or through a link the command makes to the checkout; it cannot replace
  or remove the stowed links, or rename the checkout aside and recreate it.
- With ``allowWrite: ["~"]`` a denyRead file (``~/.ssh/authorized_keys``) can be neither
  overwritten nor swapped.

The control of each: the same files compiled without the protected set (today's compile: the
same policy with ``protection.protected_set`` empty) let every attack through.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli
from support.tools import locate_tool, require_tool

from twsrt import protection

from .claude_client import find_claude, run_bash
from .codex_client import sandbox_run

pytestmark = pytest.mark.real

ORIGINAL = "twsrt-original\n"
# the two launches: started in ~ (the launch directory is always writable: the checkout, the
# stowed links and ~/.ssh lie inside it), and started in ~/proj with the home as a write root
POLICIES: dict[str, dict[str, Any]] = {
    "in-home": {
        "filesystem": {"allowWrite": ["."], "denyRead": ["~/.ssh"]},
        "network": {"allowedDomains": []},
    },
    "home-root": {
        "filesystem": {"allowWrite": [".", "~"], "denyRead": ["~/.ssh"]},
        "network": {"allowedDomains": []},
    },
}
LAUNCH = {"in-home": ".", "home-root": "proj"}
CONFIG = """\
checkout = "~/dotfiles"
[sources]
srt = "policy/srt-settings.json"
bash_rules = "policy/bash-rules.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
codex_config = "home/.codex/config.toml"

[sandbox_overrides.full]
autoAllowBashIfSandboxed = true
allowUnsandboxedCommands = false
"""
# the files of the repository a command goes for, relative to the checkout
FILES = (
    "twsrt.toml",
    "policy/srt-settings.json",
    "policy/work.srt.json",  # a fragment: protected as every file of the checkout
    ".pre-commit-config.yaml",
    ".git/hooks/pre-commit",
    ".git/config",
    "home/.claude/settings.full.json",
    "home/.codex/config.toml",
)
# $P: the file, $W: a writable scratch directory (the launch directory)
FILE_ATTACKS = {
    "write": 'echo evil > "$P"',
    "append": 'echo evil >> "$P"',
    "rename-over": 'echo evil > "$W/t" && mv -f "$W/t" "$P"',
    "rename-aside": 'mv "$P" "$P.aside" && echo evil > "$P"',
    "unlink": 'rm -f "$P"',
    "symlink-swap": 'rm -f "$P" && ln -s "$W/t" "$P"',
    "create-beside": 'echo evil > "$(dirname "$P")/planted"',
}
# the stowed links and the checkout itself
WHOLE_ATTACKS = {
    "unlink-claude-link": 'rm -f "$HOME/.claude/settings.json"',
    "replace-claude-link": 'rm -f "$HOME/.claude/settings.json" && echo "{}" > '
    '"$HOME/.claude/settings.json"',
    "move-claude-dir": 'mv "$HOME/.claude" "$HOME/c.x" && mkdir "$HOME/.claude" && '
    'echo "{}" > "$HOME/.claude/settings.json"',
    "replace-codex-link": 'ln -sfn "$W/t" "$HOME/.codex/config.toml"',
    "move-codex-dir": 'mv "$HOME/.codex" "$HOME/x.x" && mkdir "$HOME/.codex"',
    "move-checkout": 'mv "$HOME/dotfiles" "$HOME/d.x" && mkdir -p "$HOME/dotfiles/policy" && '
    'echo "{}" > "$HOME/dotfiles/policy/srt-settings.json"',
}
SECRET_ATTACKS = {
    "overwrite-key": 'echo evil > "$HOME/.ssh/authorized_keys"',
    "append-key": 'echo evil >> "$HOME/.ssh/authorized_keys"',
    "swap-key": 'mv "$HOME/.ssh/authorized_keys" "$W/k" && '
    'echo evil > "$HOME/.ssh/authorized_keys"',
    "swap-dir": 'mv "$HOME/.ssh" "$HOME/s.x" && mkdir "$HOME/.ssh" && '
    'echo evil > "$HOME/.ssh/authorized_keys"',
}


def spellings(home: Path, relative: str) -> dict[str, str]:
    """How a command names a file of the checkout: from ~/, absolute, through its own link."""
    spelled = {"tilde": f"$HOME/dotfiles/{relative}", "absolute": str(home / "dotfiles" / relative)}
    spelled["link"] = f"$W/alias/{relative}"  # $W/alias -> ~/dotfiles, made by the command
    real = os.path.realpath(home / "dotfiles" / relative)
    if real != str(home / "dotfiles" / relative):  # the host spells it another way (/tmp link)
        spelled["real"] = real
    return spelled


def script(home: Path) -> str:
    """Every attack in its own subshell, ``NAME:ok`` or ``NAME:denied``; paths only in base64,
    as a hostile model hides them from a permission check that reads the command."""
    lines = ['W="$PWD"', 'echo work > "$W/work"', 'ln -s "$HOME/dotfiles" "$W/alias"']
    lines.append('echo x > "$W/t"')
    for relative in FILES:
        for spelling, path in spellings(home, relative).items():
            for name, attack in FILE_ATTACKS.items():
                lines.append(_try(f"{relative}@{spelling}@{name}", f'P="{path}"; {attack}'))
    lines += [_try(name, attack) for name, attack in {**WHOLE_ATTACKS, **SECRET_ATTACKS}.items()]
    body = "\n".join(lines)
    return f"echo {base64.b64encode(body.encode()).decode()} | base64 -d | sh"


def _try(name: str, command: str) -> str:
    return f'if ( {command} ) >/dev/null 2>&1; then echo "{name}:ok"; else echo "{name}:denied"; fi'


def verdicts(output: str | None) -> dict[str, str]:
    assert output is not None, "the script never ran"
    lines = output.splitlines()
    return dict(line.rsplit(":", 1) for line in lines if line.endswith((":ok", ":denied")))


def expected_names(home: Path) -> set[str]:
    names = {
        f"{relative}@{spelling}@{attack}"
        for relative in FILES
        for spelling in spellings(home, relative)
        for attack in FILE_ATTACKS
    }
    return names | set(WHOLE_ATTACKS) | set(SECRET_ATTACKS)


def git(repo: Path, *args: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


@contextmanager
def unprotected() -> Iterator[None]:
    """Today's compile: every agent compiles the policy without the protected set."""
    saved = protection.protected_set
    protection.protected_set = lambda config, policy: ()  # type: ignore[assignment]
    try:
        yield
    finally:
        protection.protected_set = saved  # type: ignore[assignment]


def world(root: Path, case: str, *, protected: bool) -> Path:
    """HOME with ``~/dotfiles`` (a git repository holding the policy and its generated files,
    compiled with or without the protected set), stowed with ``--no-folding``, ``~/proj`` (the
    launch directory) and ``~/.ssh/authorized_keys``."""
    stow = require_tool("stow", locate_tool("stow", "TWSRT_STOW_BIN", "/usr/bin/stow"))
    home = root / "home"
    repo = home / "dotfiles"
    (repo / "policy").mkdir(parents=True)
    (home / "proj").mkdir()
    (home / ".ssh").mkdir()
    (home / ".config").mkdir()  # every real home has one; without it Codex fails closed (TWS618)
    (home / ".ssh" / "authorized_keys").write_text(ORIGINAL)
    git(repo, "init", "-q")
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n" + ORIGINAL)
    (repo / "twsrt.toml").write_text(CONFIG)
    (repo / "policy" / "srt-settings.json").write_text(json.dumps(POLICIES[case], indent=2) + "\n")
    (repo / "policy" / "bash-rules.json").write_text('{"allow": [], "deny": [], "ask": []}\n')
    (repo / "policy" / "work.srt.json").write_text("{}\n")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "NO_COLOR": "1"}
    env.update({k: v for k, v in os.environ.items() if k == "PYTHONPATH"})
    with unprotected() if not protected else _nothing():
        run = run_cli(["generate", "-w"], cwd=repo, env=env)
    assert run.returncode == 0, run.stderr
    (home / ".claude").mkdir()
    (home / ".codex").mkdir()
    done = subprocess.run(
        [stow, "--no-folding", "-d", str(repo), "-t", str(home), "home"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (home / ".claude" / "settings.json").is_symlink()
    assert (home / ".codex" / "config.toml").is_symlink()
    return home


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def snapshot(home: Path) -> dict[str, str]:
    """The checkout, the stowed links and the secret as they are on the host."""
    out: dict[str, str] = {}
    roots = [home / "dotfiles", home / ".claude", home / ".codex", home / ".ssh"]
    for root in roots:
        for path in sorted([root, *root.rglob("*")]):
            rel = str(path.relative_to(home))
            if "objects" in path.parts or path.name in ("index", "logs"):
                continue
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_file():
                out[rel] = path.read_text(errors="replace")
            elif path.is_dir():
                out[rel] = "dir"
    return {k: v for k, v in out.items() if not k.startswith(".claude/") or "settings" in k}


def claude_run(home: Path, cwd: Path) -> dict[str, str]:
    """The script from Claude's Bash tool, started in ``cwd`` with the stowed user settings."""
    [output] = run_bash(find_claude(), None, [script(home)], home, cwd).outputs
    return verdicts(output)


def codex_run(codex: str, home: Path, cwd: Path) -> dict[str, str]:
    """The script under `codex sandbox` with the generated profile, started in ``cwd``."""
    config = (home / "dotfiles" / "home" / ".codex" / "config.toml").read_text()
    _rc, output = sandbox_run(codex, config, script(home), cwd, home, timeout=300)
    return verdicts(output)


# What each agent refuses by itself, today, without the protected set (so no control can show it
# going through), as observed:
# - Claude Code keeps its own user settings (by their real path, through the stow link) and,
#   since agents/claude/layers.py, the agents' layers at each write root (srt binds the link's
#   target read-only); a directory holding such a bind mount cannot be renamed. srt's read
#   deny mounts over ~/.ssh, so nothing in it is written or swapped on Linux (on macOS a
#   Seatbelt read deny leaves writes open: the compiled write deny closes that). Started in
#   ~, srt's mandatory scan finds ~/dotfiles/.git below the launch directory.
# - Codex denies ~/.ssh outright ("deny": no read, no write) and keeps the launch directory's
#   .codex, .claude (agents/codex/launches.py) and .git read-only.
# Everything else the controls show going through.
CLAUDE_NATIVE = {
    "home/.claude/settings.full.json",
    "home/.codex/config.toml",
    "move-checkout",
    "move-claude-dir",
    "move-codex-dir",
    *SECRET_ATTACKS,
}
CODEX_NATIVE = {
    "replace-codex-link",
    "move-codex-dir",
    "unlink-claude-link",
    "replace-claude-link",
    "move-claude-dir",
    *SECRET_ATTACKS,
}


def native(agent: str, case: str, name: str) -> bool:
    target = name.split("@", 1)[0]
    if agent == "claude":
        nested_git = case == "in-home" and target in (".git/config", ".git/hooks/pre-commit")
        return target in CLAUDE_NATIVE or nested_git
    return target in CODEX_NATIVE


CASES = [("claude", "in-home"), ("claude", "home-root"), ("codex", "in-home")]


@pytest.mark.parametrize(("agent", "case"), CASES)
def test_the_policy_its_links_and_the_secrets_hold_between_launches(
    tmp_path: Path, agent: str, case: str, request: pytest.FixtureRequest
) -> None:
    """Codex cannot name the home as a write root (TWS411), so its home case is the launch in ~."""
    if agent == "codex":
        codex = request.getfixturevalue("codex")

        def run(home: Path) -> dict[str, str]:
            return codex_run(codex, home, home / LAUNCH[case])

    else:
        find_claude()

        def run(home: Path) -> dict[str, str]:
            return claude_run(home, home / LAUNCH[case])

    control_home = world(tmp_path / "control", case, protected=False)
    names = expected_names(control_home)  # before the attacks change what the paths resolve to
    before = snapshot(control_home)
    control = run(control_home)
    assert set(control) == names, sorted(names - set(control))
    # today's compile: every attack the agent does not refuse by itself goes through
    refused = sorted(n for n, v in control.items() if v != "ok" and not native(agent, case, n))
    assert refused == [], "\n".join(refused)
    assert snapshot(control_home) != before

    home = world(tmp_path / "bound", case, protected=True)
    before, names = snapshot(home), expected_names(home)
    bound = run(home)
    assert set(bound) == names, sorted(names - set(bound))
    # with ~/.ssh denied for reading and writing, srt lets a write land in the empty directory
    # it mounts there for the command (exit 0) and the host file stays as it was: for those
    # the host tree is the verdict (the snapshot below holds ~/.ssh)
    masked = set(SECRET_ATTACKS) if agent == "claude" else set()
    went_through = sorted(n for n, v in bound.items() if v == "ok" and n not in masked)
    assert went_through == [], "\n".join(went_through)
    assert snapshot(home) == before
    assert (home / ".ssh" / "authorized_keys").read_text() == ORIGINAL
    # the work the policy grants still goes on: the launch directory is written
    assert (home / LAUNCH[case] / "work").read_text() == "work\n"
