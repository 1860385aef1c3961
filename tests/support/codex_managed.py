"""Codex's managed files (requirements.toml, managed_config.toml) compiled from a policy, for the
tests that plant them where Codex (or twsrt's effective check) reads the host's managed layer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILES = ("requirements.toml", "managed_config.toml")


def managed_texts(
    srt: Path | dict[str, Any],
    bash: Path | dict[str, Any],
    work: Path,
    sandbox_mode: str = "workspace-write",
) -> dict[str, str]:
    """The two files as a managed-scope compile writes them (``work``: where sources given as
    values are written first)."""
    from twsrt.agents.codex.managed import managed_config_text, requirements_text
    from twsrt.agents.codex.translate import translate
    from twsrt.config import Config
    from twsrt.protection import protected_context
    from twsrt.sources import load_policy

    paths = []
    for name, source in (("srt.json", srt), ("bash.json", bash)):
        if isinstance(source, dict):
            work.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(json.dumps(source), encoding="utf-8")
            source = work / name
        paths.append(source)
    config = Config(
        path=work / "twsrt.toml",
        display="twsrt.toml",
        home=work,
        srt=paths[0],
        bash_rules=paths[1],
        checkout="~/dotfiles",  # as the sandbox's config says: the same protected set
        scope="managed",
    )
    ctx = protected_context(config, load_policy(config), sandbox_mode=sandbox_mode)
    compiled, _ = translate(ctx.policy, sandbox_mode, None)
    return {
        "requirements.toml": requirements_text(ctx, compiled),
        "managed_config.toml": managed_config_text(ctx, compiled),
    }


def plant(directory: Path, texts: dict[str, str]) -> Path:
    """Write the files into ``directory`` (an ``etc/codex`` stand-in); returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory
