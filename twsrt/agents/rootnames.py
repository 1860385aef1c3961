"""The names a sandboxed command must not create or change under a write root, because a later
launch loads them as configuration or something runs them outside the sandbox: srt 0.0.83's
mandatory-deny set (protection.py) and every registered agent's project layers
(``agents.config_layers("project")``). srt protects them in its working directory only; an
agent whose sandbox takes absolute paths gets them under each write root (Claude Code's
``sandbox.filesystem.denyWrite``, Copilot CLI's ``readonlyPaths``)."""

from __future__ import annotations

from twsrt.mandatory import GIT_PROTECTED, MANDATORY_DIRS, MANDATORY_FILES
from twsrt.policy import is_glob


def names() -> tuple[tuple[str, bool], ...]:
    """(name, tree) of every protected name, relative to a write root, each once: srt's
    mandatory-deny set, then each registered agent's project layers."""
    from twsrt.agents import config_layers

    found: dict[str, bool] = dict.fromkeys(MANDATORY_FILES, False)
    found.update(dict.fromkeys(MANDATORY_DIRS, True))
    found.update({name: name.endswith("/hooks") for name in GIT_PROTECTED})
    for _agent, layer in config_layers("project"):
        if not is_glob(layer.path):
            found.setdefault(layer.path, layer.tree)
    return tuple(found.items())


def under(root: str) -> list[str]:
    """Each protected name under ``root`` (a write root that is no glob; ``/`` and a trailing
    slash spelled once)."""
    base = root.rstrip("/")
    return [f"{base}/{name}" for name, _tree in names()]
