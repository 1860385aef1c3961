"""``twsrt init``: plan the starter files, never overwriting without --force."""

from __future__ import annotations

from pathlib import Path

from twsrt import templates
from twsrt.config import display_path, home_dir
from twsrt.writes import FileWrite, on_disk


def plan_repo(directory: Path, force: bool) -> tuple[list[FileWrite], list[str]]:
    """A dotfiles repository: config, sources under policy/, and a pre-commit config."""
    from twsrt import __version__

    base = directory.resolve()
    files = {
        base / "twsrt.toml": templates.REPO_CONFIG,
        base / "policy" / "srt-settings.json": templates.SRT_SETTINGS,
        base / "policy" / "bash-rules.json": templates.BASH_RULES,
        base / ".pre-commit-config.yaml": templates.PRE_COMMIT_CONFIG.format(version=__version__),
    }
    return _plan(files, force)


def _plan(files: dict[Path, str], force: bool) -> tuple[list[FileWrite], list[str]]:
    writes, kept = [], []
    for path, text in files.items():
        exists = path.exists() or path.is_symlink()
        if exists and not force:
            kept.append(display_path(path))
            continue
        display = display_path(path)
        if path.is_symlink():
            path = path.resolve()  # a symlinked file (a dotfiles tree) is written through
        current = on_disk(path)
        old = current.value if current.kind == "file" else None
        writes.append(FileWrite(path, display, text, old))
    return writes, kept


def plan_init(directory: Path | None, force: bool) -> tuple[list[FileWrite], list[str]]:
    home = home_dir()
    if directory is None:
        base = home / ".config" / "twsrt"
        files = {
            base / "config.toml": templates.USER_CONFIG.format(
                srt="~/.srt-settings.json",
                bash_rules="~/.config/twsrt/bash-rules.json",
                claude="~/.claude/settings.full.json",
                claude_yolo="~/.claude/settings.yolo.json",
            ),
            base / "bash-rules.json": templates.BASH_RULES,
            home / ".srt-settings.json": templates.SRT_SETTINGS,
        }
    else:
        base = directory.resolve()
        files = {
            base / "twsrt.toml": templates.USER_CONFIG.format(
                srt=".srt-settings.json",
                bash_rules="bash-rules.json",
                claude=".claude/settings.full.json",
                claude_yolo=".claude/settings.yolo.json",
            ),
            base / "bash-rules.json": templates.BASH_RULES,
            base / ".srt-settings.json": templates.SRT_SETTINGS,
        }
    return _plan(files, force)
