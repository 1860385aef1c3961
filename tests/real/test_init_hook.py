"""``init --repo`` and its pre-commit hook, played with real git and real pre-commit, offline.

``init --repo`` over a dotfiles repository that already holds the user's Claude Code and Codex
files, then the scaffolded ``.pre-commit-config.yaml`` exactly as written: ``pre-commit install``,
a commit that passes, a policy edit without regenerating that the hook blocks, ``twsrt generate
-w``, and the commit passes. The scaffold's hook is ``repo: local`` / ``language: system``, so
pre-commit clones and builds nothing: it runs the ``twsrt`` first on PATH.

``test_scaffolded_hook_blocks_drift`` runs the twsrt under test (this interpreter's console
script). ``test_offline_newcomer_path`` starts from nothing: a fresh virtual environment with this
checkout pip-installed into it without an index (``--no-index --no-build-isolation``; the
dependencies and the build backend installed here are made visible to the new environment
through a ``.pth`` file naming only their files), then the same path with that environment's
``twsrt`` and ``pre-commit``. test_newcomer.py plays the README's own commands (with pip's index
and stow).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from support.precommit import isolated_env, run_merged
from support.sandbox import REPO_ROOT
from support.tools import locate_tool, require_tool

pytestmark = pytest.mark.real

USER_CLAUDE = {
    "model": "opus",
    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
    "permissions": {"allow": ["Bash(ls)"], "defaultMode": "plan"},
}
USER_CODEX = 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'


@dataclass
class Shell:
    """Commands run as the newcomer: isolated HOME and git config, ``bin`` first on PATH."""

    env: dict[str, str]
    python: str  # the interpreter whose pre-commit runs

    def __call__(self, cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = run_merged(args, cwd, self.env)
        if check:
            assert proc.returncode == 0, f"{' '.join(args)} -> {proc.returncode}\n{proc.stdout}"
        return proc

    def commit(self, repo: Path, message: str) -> subprocess.CompletedProcess:
        self(repo, "git", "add", "-A")
        return self(repo, "git", "commit", "-q", "-m", message, check=False)


def _shell(tmp_path: Path, bin_dir: Path, python: str) -> Shell:
    env = isolated_env(tmp_path)
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    return Shell(env, python)


def _user_dotfiles(home: Path) -> Path:
    """A dotfiles repository that already holds the user's Claude Code and Codex files."""
    repo = home / "dotfiles"
    claude = repo / "home" / ".claude" / "settings.json"
    claude.parent.mkdir(parents=True)
    claude.write_text(json.dumps(USER_CLAUDE, indent=2) + "\n", encoding="utf-8")
    codex = repo / "home" / ".codex" / "config.toml"
    codex.parent.mkdir(parents=True)
    codex.write_text(USER_CODEX, encoding="utf-8")
    return repo


def _play(sh: Shell, repo: Path) -> None:
    """init --repo, hook installed, commit passes; drift blocked; generate -w; commit passes."""
    init = sh(repo.parent, "twsrt", "init", "--repo", repo.name)
    assert "Next steps:" in init.stdout
    active = json.loads((repo / "home/.claude/settings.json").read_text(encoding="utf-8"))
    assert active["model"] == "opus" and active["hooks"] == USER_CLAUDE["hooks"]
    codex = (repo / "home/.codex/config.toml").read_text(encoding="utf-8")
    assert codex.startswith('model = "o3"\n') and USER_CODEX.split("\n\n")[1] in codex

    sh(repo, "git", "init", "-q")
    sh(repo, sh.python, "-m", "pre_commit", "install")
    first = sh.commit(repo, "dotfiles managed by twsrt")
    assert first.returncode == 0, first.stdout
    assert re.search(r"twsrt check.*Passed", first.stdout), first.stdout

    policy = repo / "policy" / "srt-settings.json"
    srt = json.loads(policy.read_text(encoding="utf-8"))
    srt["filesystem"]["denyRead"].append("~/.kube")
    policy.write_text(json.dumps(srt, indent=2) + "\n", encoding="utf-8")
    blocked = sh.commit(repo, "deny ~/.kube")
    assert blocked.returncode != 0, blocked.stdout
    assert re.search(r"twsrt check.*Failed", blocked.stdout), blocked.stdout
    assert "home/.claude/settings.full.json" in blocked.stdout  # the drifted file is named
    assert "Read(~/.kube)" in blocked.stdout  # and what it misses

    sh(repo, "twsrt", "generate", "-w")
    fixed = sh.commit(repo, "deny ~/.kube")
    assert fixed.returncode == 0, fixed.stdout
    assert sh(repo, "git", "status", "--porcelain").stdout == ""
    full = json.loads((repo / "home/.claude/settings.full.json").read_text(encoding="utf-8"))
    assert "Read(~/.kube)" in full["permissions"]["deny"]
    assert full["model"] == "opus"


def _pre_commit() -> str:
    return require_tool(
        "pre-commit",
        locate_tool(
            "pre-commit", "TWSRT_PRE_COMMIT", str(Path(sys.executable).parent / "pre-commit")
        ),
    )


def test_scaffolded_hook_blocks_drift(tmp_path: Path) -> None:
    _pre_commit()
    twsrt = locate_tool("twsrt", "TWSRT_UNDER_TEST", str(Path(sys.executable).with_name("twsrt")))
    assert twsrt, "the twsrt console script of this environment"
    sh = _shell(tmp_path, Path(twsrt).parent, sys.executable)
    _play(sh, _user_dotfiles(Path(sh.env["HOME"])))


def _closure(requirements: list[str]) -> set[str]:
    """Installed distributions that ``requirements`` need, transitively (extras left out)."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [Requirement(text) for text in requirements]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = metadata.distribution(req.name).metadata["Name"]
        if name.lower() in seen:
            continue
        seen.add(name.lower())
        todo += [Requirement(text) for text in metadata.requires(name) or []]
    return seen


def _expose(names: set[str], where: Path) -> None:
    """Symlink the files of the installed distributions ``names`` into ``where``."""
    for name in names:
        dist = metadata.distribution(name)
        base = Path(str(dist.locate_file("")))
        tops = {Path(str(file)).parts[0] for file in dist.files or []}
        for top in tops:
            source = base / top
            if top.endswith(".pth") or top in ("..", "bin") or not source.exists():
                continue
            link = where / top
            if not link.exists():
                link.symlink_to(source)


def test_offline_newcomer_path(tmp_path: Path) -> None:
    _pre_commit()
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = [
        *project["project"]["dependencies"],
        *project["build-system"]["requires"],
        "pre-commit",
    ]
    deps = tmp_path / "deps"
    deps.mkdir()
    _expose(_closure(needed), deps)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # after the environment's own packages, so twsrt comes from the wheel pip installs
    Path(site, "zz-installed-deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    sh = _shell(tmp_path, venv / "bin", python)
    sh.env.pop("PYTHONPATH", None)  # the newcomer has only what pip installed
    sh.env.pop("VIRTUAL_ENV", None)
    sh(
        tmp_path,
        python,
        "-m",
        "pip",
        "install",
        "-q",
        "--no-index",
        "--no-build-isolation",
        "--disable-pip-version-check",
        str(REPO_ROOT),
    )
    located = sh(tmp_path, python, "-c", "import twsrt; print(twsrt.__file__)").stdout
    assert located.startswith(site), located  # the installed copy, not the checkout
    assert (venv / "bin" / "twsrt").is_file()
    _play(sh, _user_dotfiles(Path(sh.env["HOME"])))
