"""A temporary HOME with a dotfiles repository, and the commands run in it."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.cli import Run, run_cli
from twsrt.agents.gemini.declaration import SYSTEM_SETTINGS_VARIABLE as SYSTEM_SETTINGS

REPO_ROOT = Path(__file__).resolve().parents[2]

DEFAULT_CONFIG = """\
checkout = "~/dotfiles"

[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
"""

DEFAULT_SRT = {
    "filesystem": {
        "denyRead": ["~/.aws", "~/.ssh"],
        "denyWrite": ["**/.env"],
        "allowWrite": [".", "/tmp"],
    },
    "network": {"allowedDomains": ["github.com", "*.github.com"], "deniedDomains": []},
}

# The between-launch gaps no setting closes are errors: Claude's planted layers (TWS628)
# wherever no managed settings bind Claude, its nested repositories below /tmp (TWS629),
# Copilot's and DeepCode's unprotected mandatory-deny set (TWS471, TWS472). A test about
# something else accepts them as the examples do (tests/test_claude_layers.py,
# tests/real/test_copilot_layers.py and test_deepcode_layers.py test the findings themselves).
ACCEPT_PLANTED_LAYERS = """
[[check.ignore]]
rule = "claude-planted-layers"
reason = "Claude runs under the managed settings here"

[[check.ignore]]
rule = "claude-nested-unprotected"
reason = "no repository lies inside /tmp here"

[[check.ignore]]
rule = "copilot-mandatory-names-open"
reason = "Copilot runs under srt here"

[[check.ignore]]
rule = "deepcode-mandatory-names-open"
reason = "DeepCode runs under srt here"
"""

DEFAULT_BASH = {"allow": ["gh pr view"], "deny": ["rm", "sudo"], "ask": ["git push"]}


def twsrt_command() -> list[str]:
    """The installed console script (end-to-end tests exercise what users run)."""
    exe = shutil.which("twsrt")
    return [exe] if exe else [sys.executable, "-m", "twsrt"]


@dataclass
class Sandbox:
    """A temporary HOME with a git repo ``repo/`` inside it."""

    home: Path
    repo: Path

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            # CODEX_HOME: the user's Codex config that project-scope checks read (TWS616);
            # GEMINI_CLI_SYSTEM_SETTINGS_PATH: where Gemini's system settings are (TWS634/635)
            if k not in ("TWSRT_CONFIG", "VISUAL", "EDITOR", "CODEX_HOME", SYSTEM_SETTINGS)
            and not k.startswith("TWSRT_")
        }
        env.update({"HOME": str(self.home), "NO_COLOR": "1", "LC_ALL": "C.UTF-8"})
        # A stray .git above the temporary tree (Codex's sandbox can leave one in /tmp) must not
        # make the tests' directories part of a repository.
        env["GIT_CEILING_DIRECTORIES"] = str(self.home.parent)
        # the agents' managed files of this machine (/etc/claude-code, ...) stay out of the tests:
        # twsrt looks for them under a root that holds none unless a test plants them there
        env["TWSRT_MANAGED_ROOT"] = str(self.home.parent / "host-root")
        env.update(extra)
        return env

    def run(self, *args: str, cwd: Path | None = None, stdin: str = "", **env: str) -> Run:
        """``twsrt *args`` in this process (``support.cli``), from the repo unless ``cwd``."""
        return run_cli(args, cwd=cwd or self.repo, env=self.env(**env), stdin=stdin)

    def run_script(self, *args: str, cwd: Path | None = None, **env: str) -> Run:
        """``twsrt *args`` as its own process through the installed console script."""
        proc = subprocess.run(
            [*twsrt_command(), *args],
            cwd=cwd or self.repo,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=60,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def use_example(self, name: str = "dotfiles") -> Sandbox:
        """This sandbox with a bundled example (examples/NAME) as its git repository."""
        shutil.rmtree(self.repo)
        shutil.copytree(REPO_ROOT / "examples" / name, self.repo, symlinks=True)
        (self.repo / ".git").mkdir()
        return self

    def accept_planted_layers(self, config: str = "twsrt.toml", *, first: bool = False) -> Sandbox:
        """``config`` (in the repository) with the launch gaps accepted: appended, or ``first``
        (where a test appends keys to the config's last table afterwards)."""
        path = self.repo / config
        text = path.read_text(encoding="utf-8")
        # first: after the top-level keys (checkout = ...), before the first table
        lines = text.splitlines(keepends=True)
        at = next((i for i, line in enumerate(lines) if line.startswith("[")), len(lines))
        block = ACCEPT_PLANTED_LAYERS.lstrip("\n") + "\n"
        accepted = "".join([*lines[:at], block, *lines[at:]])
        path.write_text(accepted if first else text + ACCEPT_PLANTED_LAYERS, "utf-8")
        return self

    def write(self, relative: str, content: str | dict) -> Path:
        path = self.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
        return path


def make_sandbox(root: Path) -> Sandbox:
    """A sandbox under ``root`` with the default config, srt settings and bash rules."""
    home = root / "home"
    repo = home / "dotfiles"
    repo.mkdir(parents=True)
    (repo / ".git").mkdir()
    box = Sandbox(home, repo)
    box.write("twsrt.toml", DEFAULT_CONFIG)
    box.write(".srt-settings.json", DEFAULT_SRT)
    box.write("bash-rules.json", DEFAULT_BASH)
    return box


def tree_snapshot(root: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every file, directory and symlink under ``root`` with its content or link target and its
    permission bits (a changed mode is a write too: a generated file made executable)."""
    out: dict[str, tuple[str, bytes | str, int]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path), 0)
        elif path.is_file():
            out[rel] = ("file", path.read_bytes(), mode)
        elif path.is_dir():
            out[rel] = ("dir", b"", mode)
        else:  # a FIFO or socket: its existence and mode, never its content
            out[rel] = ("other", b"", mode)
    return out


def unmanaged_members(text: str, managed: set[str]) -> dict[str, str]:
    """The exact source text of every top-level JSON member not in ``managed``."""
    from twsrt.jsonpos import parse_json

    parsed = parse_json(text)
    out = {}
    for key in parsed.value:
        if key not in managed:
            span = parsed.span("/" + key)
            assert span is not None, key
            out[key] = text[span[0] : span[1]]
    return out
