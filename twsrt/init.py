"""``twsrt init``: plan the starter files, never overwriting without --force."""

from __future__ import annotations

from pathlib import Path

from twsrt import templates
from twsrt.config import display_path, home_dir
from twsrt.writes import FileWrite


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
    writes, kept = [], []
    for path, text in files.items():
        exists = path.exists() or path.is_symlink()
        if exists and not force:
            kept.append(display_path(path))
            continue
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        writes.append(FileWrite(path, display_path(path), text, old))
    return writes, kept
