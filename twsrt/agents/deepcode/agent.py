"""DeepCode target: ``permissions.deny``/``ask`` and the ``sandbox`` object of its settings file.

DeepCode (oratis/deepcode) reads ``~/.deepcode/settings.json`` (or, while that file does not
exist, ``~/.claude/settings.json``), then the project and local layers, then ``--settings
<file>``. Layers are deep-merged, but a list in a later layer replaces the earlier list whole.
twsrt writes the user file in full mode and a ``--settings`` file in yolo mode; both carry the
whole managed content, so the yolo layer restates every list (its ``permissions.ask`` is ``[]``,
which switches the user's ask rules off).

What the target can hold, from DeepCode's source (agents-formats §5):

- permission rules are string prefixes on the tool's primary input: ``Bash(cmd)`` and
  ``Bash(cmd *)`` work, path rules match nothing, so only the bash rules are compiled;
- ``sandbox.mode`` (read-only / workspace-write / danger-full-access) wins over the legacy
  ``sandbox.enabled``, which twsrt removes;
- ``sandbox.filesystem`` takes absolute paths without wildcards (Linux does not expand ``~``),
  so ``~`` is expanded with the config's home; denyRead/denyWrite bind only on macOS;
- ``sandbox.network.allowedDomains``: absent = every host, ``[]`` = none, a list = a DNS
  allow-list on Linux only; ``deniedDomains`` is not enforced; ``allowUnixSockets`` is a
  boolean for every socket.

Translation is pure; the merge splices only the top-level ``permissions`` and ``sandbox``
members into the user's file and keeps every other byte.

The package: ``declaration`` (keys and the managed content of a mode), ``translate`` (the
pure translation and its findings), ``settings`` (merge and drift members); ``layer`` one
settings file, and this module dispatches one run by scope (shared machinery: ``agents.targets``).
"""

from __future__ import annotations

from twsrt.agents.base import Context, DeclaredAgent, Result
from twsrt.agents.deepcode.declaration import (
    AGENT_SPEC,
    HANDLED_SRT_KEYS,
    LABEL,
    NAME,
    PROJECT_KEY,
    REASONS,
    SETTINGS_KEY,
    USER_DIR,
    USER_FILE,
    YOLO_KEY,
    Managed,
)
from twsrt.agents.deepcode.layer import _configured_key, compile_file, layer_findings, target
from twsrt.agents.deepcode.settings import SETTINGS, SETTINGS_SPEC, drift, merge, merged_text
from twsrt.agents.deepcode.translate import translate

__all__ = [
    "AGENT_SPEC",
    "HANDLED_SRT_KEYS",
    "LABEL",
    "Managed",
    "NAME",
    "PROJECT_KEY",
    "REASONS",
    "SETTINGS",
    "SETTINGS_KEY",
    "SETTINGS_SPEC",
    "USER_DIR",
    "USER_FILE",
    "YOLO_KEY",
    "drift",
    "merge",
    "merged_text",
    "compile_file",
    "target",
    "translate",
]


class DeepCodeAgent(DeclaredAgent):
    spec = AGENT_SPEC
    scoped = {
        "project": "twsrt.agents.deepcode.project:compile_project"
    }  # the project's .deepcode/settings.json

    def compile_user(self, ctx: Context) -> Result:
        located = target(ctx)
        extra = [] if located is None else layer_findings(ctx)
        return compile_file(ctx, located, _configured_key(ctx), extra)


AGENT = DeepCodeAgent()
