"""An environment that isolates git and pre-commit from the developer's settings, a committed
snapshot of this working tree, and the vendored pre-commit schemas."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from referencing import Registry, Resource

from support.sandbox import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "dotfiles"
MANIFEST = REPO_ROOT / ".pre-commit-hooks.yaml"
SCHEMAS = REPO_ROOT / "tests" / "fixtures" / "precommit"

GITCONFIG = """\
[user]
\tname = twsrt tests
\temail = tests@twsrt.invalid
[init]
\tdefaultBranch = main
[commit]
\tgpgsign = false
[safe]
\t# the checkout may belong to another user (containers, CI caches)
\tdirectory = *
"""

# Copied when this checkout is not a git work tree (an unpacked sdist): everything but caches.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", ".venv", "venv", "build", "dist", ".*_cache", ".hypothesis"
)


def pip_settings() -> dict[str, str]:
    """The user's pip config file and cache, found before HOME is replaced.

    pre-commit pip-installs the hook environment: an index or mirror named in the user's pip.conf
    must keep working, and a warm cache saves seconds. Only pip's settings carry over.
    """
    out: dict[str, str] = {}
    if "PIP_CONFIG_FILE" not in os.environ:
        config_home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
        # pip reads the legacy file first and the XDG one over it: prefer the latter
        for candidate in (config_home / "pip" / "pip.conf", Path.home() / ".pip" / "pip.conf"):
            if candidate.is_file():
                out["PIP_CONFIG_FILE"] = str(candidate)
                break
    if "PIP_CACHE_DIR" not in os.environ:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True
        )
        if proc.returncode == 0 and proc.stdout.strip():  # fails when caching is off
            out["PIP_CACHE_DIR"] = proc.stdout.strip()
    return out


def isolated_env(base: Path) -> dict[str, str]:
    home = base / "home"
    home.mkdir()
    gitconfig = base / "gitconfig"
    gitconfig.write_text(GITCONFIG, encoding="utf-8")
    leaky = ("GIT_", "PRE_COMMIT", "TWSRT_", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith(leaky)}
    env.update(pip_settings())
    env.pop("VISUAL", None)
    env.pop("EDITOR", None)
    env.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
        PRE_COMMIT_HOME=str(base / "pre-commit-home"),
        PRE_COMMIT_COLOR="never",
        NO_COLOR="1",
    )
    return env


def snapshot_this_repository(dest: Path, env: dict[str, str]) -> None:
    """Copy the working tree as it is now: tracked and untracked files, not ignored ones."""
    if not (REPO_ROOT / ".git").exists():
        shutil.copytree(REPO_ROOT, dest, symlinks=True, ignore=NOT_SOURCES)
        return
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listing.split("\0")):
        source = REPO_ROOT / name
        if not os.path.lexists(source):  # deleted in the work tree, still in the index
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


def schema_registry() -> tuple[dict, dict, Registry]:
    hooks_schema = json.loads((SCHEMAS / "pre-commit-hooks.schema.json").read_text("utf-8"))
    config_schema = json.loads((SCHEMAS / "pre-commit-config.schema.json").read_text("utf-8"))
    # The config schema points at the hooks schema by its $id: serve the vendored copy there.
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in (hooks_schema, config_schema)
    )
    return hooks_schema, config_schema, registry


def run_merged(
    args: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``args`` as a user at a terminal sees them: stdout and stderr interleaved in ``stdout``."""
    return subprocess.run(
        list(args),
        cwd=cwd,
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
