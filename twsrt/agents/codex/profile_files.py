"""The profile files Codex layers beside a config.toml: ``codex --profile NAME`` loads
``NAME.config.toml`` from the same directory (read by the user and the project checks alike)."""

from __future__ import annotations

from pathlib import Path

PROFILE_SUFFIX = ".config.toml"


def profile_files(config_path: Path) -> list[Path]:
    """Every ``*.config.toml`` beside ``config_path``, by name."""
    directory = config_path.parent
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.name.endswith(PROFILE_SUFFIX) and p.is_file())
