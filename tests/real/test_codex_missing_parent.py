"""The real Codex CLI (0.171.0) on two protected entries below a directory missing on the host
(twsrt/agents/codex/effective_host.py, TWS618).

- Control, by hand-written profiles: two entries below a missing directory inside a write root
  fail every start (two ``"read"``, two ``"deny"``, a ``"read"`` directory and a ``"deny"``
  below it), one entry alone masks the missing directory (it cannot be created), and outside
  every write root nothing fails.
- The profile twsrt generates holds ``~/.config/opencode`` and ``~/.config/kilo``: started in a
  home without ``~/.config``, no command runs and ``twsrt check`` says why at the entry, naming
  the directory; with ``~/.config`` made, Codex starts, the finding is gone, and both layers
  still cannot be created, renamed over or linked. ``~/.pi`` is held whole (not only
  ``~/.pi/agent``), so the profile's ``.pi`` for a Codex started in ``~`` is the same entry and a
  home without pi starts too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .codex_client import sandbox_run

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent.parent
FAILED_START = "Unable to mount source on destination"
SRT = {"filesystem": {"allowWrite": ["."]}}


def _profile(entries: dict[str, str]) -> str:
    lines = "".join(f'"{path}" = "{mode}"\n' for path, mode in entries.items())
    return (
        'default_permissions = "p"\n[permissions.p]\nextends = ":read-only"\n'
        f"[permissions.p.filesystem]\n{lines}"
    )


@pytest.mark.parametrize(
    "modes", [("read", "read"), ("deny", "deny"), ("deny", "read")], ids="-".join
)
def test_two_entries_below_a_missing_directory_fail_every_start(
    codex: str, tmp_path: Path, modes: tuple[str, str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    entries = {str(home): "write", f"{home}/.config/a": modes[0], f"{home}/.config/b": modes[1]}
    rc, out = sandbox_run(codex, _profile(entries), "echo ran", home, home)
    assert rc != 0 and FAILED_START in out and "ran" not in out.splitlines(), out
    (home / ".config").mkdir()  # the same profile once the directory exists
    rc, out = sandbox_run(codex, _profile(entries), "echo ran", home, home)
    assert (rc, out.strip().splitlines()[-1]) == (0, "ran"), out


def test_a_read_directory_with_a_deny_below_it_fails_too(codex: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    entries = {str(home): "write", f"{home}/.config": "read", f"{home}/.config/gh": "deny"}
    rc, out = sandbox_run(codex, _profile(entries), "echo ran", home, home)
    assert rc != 0 and FAILED_START in out, out


def test_one_entry_masks_the_missing_directory_and_none_outside_a_root_fails(
    codex: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    one = {str(home): "write", f"{home}/.config/a": "read"}
    rc, out = sandbox_run(codex, _profile(one), "mkdir -p .config/c || echo REFUSED", home, home)
    assert rc == 0 and "REFUSED" in out and not (home / ".config").exists(), out
    outside = {f"{home}/.config/a": "read", f"{home}/.config/b": "read"}
    rc, out = sandbox_run(codex, _profile(outside), "echo ran", home, home)
    assert (rc, out.strip().splitlines()[-1]) == (0, "ran"), out


def _twsrt(home: Path, dotfiles: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twsrt", "-c", str(dotfiles / "twsrt.toml"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        # the run's directory is the ceiling: a stray .git above it (Claude Code's sandbox leaves
        # stubs such as /tmp/.git/info in the top of a write root) is no repository of this test
        env={
            "HOME": str(home),
            "PATH": "/usr/bin:/bin",
            "GIT_CEILING_DIRECTORIES": str(dotfiles.parent),
        },
        check=False,
    )


def _check(home: Path, dotfiles: Path) -> dict:
    run = _twsrt(home, dotfiles, "check", "--agent", "codex", "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _tws618(report: dict) -> list[dict]:
    return [item for item in report["findings"] if item["rule_id"] == "TWS618"]


def test_the_generated_profile_in_a_home_without_config_fails_closed_and_check_says_so(
    codex: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "srt.json").write_text(json.dumps(SRT))
    (dotfiles / "bash.json").write_text("{}")
    (dotfiles / "twsrt.toml").write_text(
        f'home = "{home}"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        '[targets]\ncodex_config = "codex/config.toml"\n'
    )
    generated = _twsrt(home, dotfiles, "generate", "codex", "-w")
    assert generated.returncode == 0, generated.stderr
    text = (dotfiles / "codex" / "config.toml").read_text()
    assert '"~/.config/kilo" = "read"' in text and '"~/.config/opencode" = "read"' in text
    rc, out = sandbox_run(codex, text, "echo ran", home, home)  # started in ~
    assert rc != 0 and FAILED_START in out, out
    found = _tws618(_check(home, dotfiles))
    assert [f["level"] for f in found] == ["note"]
    assert found[0]["location"]["path"] == "codex/config.toml"
    assert found[0]["message"].startswith(
        "'~/.config' does not exist on this host and holds the protected entries "
        "'~/.config/kilo' and '~/.config/opencode': a Codex started in '~' or above it fails"
    )
    line = text.splitlines().index('"~/.config/opencode" = "read"') + 1
    assert found[0]["location"]["line"] == line
    (home / ".config").mkdir()
    assert _tws618(_check(home, dotfiles)) == []
    attacks = (
        "mkdir .config/opencode",
        "echo x > .config/kilo",
        "ln -s /tmp .config/opencode",
        "mkdir x && mv x .config/kilo",
    )
    script = "; ".join(f"( {a} ) 2>/dev/null && echo DONE" for a in attacks) + "; echo ran"
    rc, out = sandbox_run(codex, text, script, home, home)
    assert rc == 0 and out.strip().splitlines()[-1] == "ran" and "DONE" not in out, out
    assert sorted(p.name for p in (home / ".config").iterdir()) == []
    assert not (home / ".pi").exists()  # started in ~ without pi: ~/.pi and .pi are one entry
