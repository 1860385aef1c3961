"""The names a sandboxed command must not create or change under a write root, because a later
launch loads them as configuration or something runs them outside the sandbox: srt 0.0.83's
mandatory-deny set (``mandatory.py``) and every registered agent's project layers. srt protects
them in its working directory only; an agent whose sandbox takes absolute paths gets them under
each write root (Claude Code's ``sandbox.filesystem.denyWrite``, Copilot CLI's
``readonlyPaths``, Codex's read-only entries).

The registry stands above the agents, so this module does not ask it: ``protection`` passes the
registered agents' project layers to ``names`` and puts the result on the policy every agent
compiles (``Policy.root_names``); ``of`` refuses a policy without them, so no translation can
leave another agent's layer writable by forgetting it.
"""

from __future__ import annotations

from collections.abc import Iterable

from twsrt.agents.base import Layer
from twsrt.mandatory import GIT_PROTECTED, MANDATORY_DIRS, MANDATORY_FILES
from twsrt.policy import Policy, is_glob


def names(project_layers: Iterable[Layer]) -> tuple[tuple[str, bool], ...]:
    """(name, tree) of every protected name, relative to a write root, each once: srt's
    mandatory-deny set, then each of ``project_layers`` (every registered agent's)."""
    found: dict[str, bool] = dict.fromkeys(MANDATORY_FILES, False)
    found.update(dict.fromkeys(MANDATORY_DIRS, True))
    found.update({name: name.endswith("/hooks") for name in GIT_PROTECTED})
    for layer in project_layers:
        if not is_glob(layer.path):
            found.setdefault(layer.path, layer.tree)
    return tuple(found.items())


def of(policy: Policy) -> tuple[tuple[str, bool], ...]:
    """The protected names ``policy`` carries; a policy the protected set was not applied to
    (``protection.protected_policy``) is refused."""
    if policy.root_names is None:
        raise ValueError("the policy carries no protected names: protection.protected_policy")
    return policy.root_names


def under(root: str, policy: Policy) -> list[str]:
    """Each protected name under ``root`` (a write root that is no glob; ``/`` and a trailing
    slash spelled once)."""
    base = root.rstrip("/")
    return [f"{base}/{name}" for name, _tree in of(policy)]
