"""The one golden-file harness of the agent tests (``tests/golden/<agent>/<case>/``).

A case directory holds the canonical sources ``srt.json`` and ``bash.json``; optionally the
agent's file from before the run (``existing.json`` or ``existing.toml``), a ``twsrt.toml`` that
replaces the test's default config, or ``config-extra.toml`` appended to it. Every expected
output is a file named after what it holds; the default sandbox mode (workspace-write) has the
plain name and the other modes prefix it (``read-only.expected.full.json``). A home directory
that is not pinned shows as ``$HOME``. ``UPDATE_GOLDEN=1`` rewrites the expected files (review
the diff); without it a missing file fails.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from support.sandbox import Sandbox

GOLDEN_ROOT = Path(__file__).resolve().parents[1] / "golden"
DEFAULT_MODE = "workspace-write"
EXISTING = ("existing.json", "existing.toml")


def update_golden() -> bool:
    return os.environ.get("UPDATE_GOLDEN") == "1"


def golden_name(sandbox_mode: str, name: str) -> str:
    """Golden file names: the default sandbox mode keeps the plain name, the others a prefix."""
    return name if sandbox_mode == DEFAULT_MODE else f"{sandbox_mode}.{name}"


def assert_golden(expected: Path, actual: str) -> None:
    """``actual`` must equal the golden file; ``UPDATE_GOLDEN=1`` rewrites it first."""
    if update_golden():
        expected.write_text(actual, encoding="utf-8")
    assert expected.exists(), f"missing golden file {expected}; run with UPDATE_GOLDEN=1"
    assert actual == expected.read_text(encoding="utf-8")


def pinned_config(**targets: str) -> str:
    """A config with the home pinned to /home/user (findings that expand ~ read the same on
    every machine), the sandbox's sources and ``targets``."""
    lines = "".join(f'{key} = "{value}"\n' for key, value in targets.items())
    return (
        'home = "/home/user"\ncheckout = "~/dotfiles"\n\n'
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f"[targets]\n{lines}"
    )


def case_names(agent: str) -> list[str]:
    """Every case of ``agent``, sorted (the parametrize ids)."""
    return sorted(p.name for p in (GOLDEN_ROOT / agent).iterdir() if p.is_dir())


@dataclass(frozen=True)
class GoldenCase:
    """One case directory and how it is installed into a sandbox and compared."""

    agent: str
    name: str

    @property
    def path(self) -> Path:
        return GOLDEN_ROOT / self.agent / self.name

    def has(self, name: str) -> bool:
        return (self.path / name).exists()

    def read(self, name: str) -> str:
        return (self.path / name).read_text(encoding="utf-8")

    def config(self, default: str) -> str:
        """The case's twsrt.toml, else ``default`` with the case's config-extra.toml appended."""
        if self.has("twsrt.toml"):
            return self.read("twsrt.toml")
        return default + (self.read("config-extra.toml") if self.has("config-extra.toml") else "")

    def existing(self) -> Path | None:
        """The agent's file from before the run, if the case has one."""
        found = [self.path / name for name in EXISTING if self.has(name)]
        return found[0] if found else None

    def install(self, sandbox: Sandbox, default_config: str, target: str) -> Path:
        """Sources and config into the sandbox's repo, the existing file (mode 644) at
        ``target``; returns the target's path."""
        shutil.copy(self.path / "srt.json", sandbox.repo / ".srt-settings.json")
        shutil.copy(self.path / "bash.json", sandbox.repo / "bash-rules.json")
        sandbox.write("twsrt.toml", self.config(default_config))
        path = sandbox.repo / target
        existing = self.existing()
        if existing is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(existing, path)
            path.chmod(0o644)
        return path

    def expect(self, sandbox: Sandbox, sandbox_mode: str | None, name: str, actual: str) -> None:
        """``actual`` (the sandbox's home shown as $HOME) equals the case's golden file for
        ``sandbox_mode``; ``None`` for an output that is the same in every mode."""
        actual = actual.replace(str(sandbox.home), "$HOME")
        plain = sandbox_mode is None
        assert_golden(self.path / (name if plain else golden_name(sandbox_mode, name)), actual)
