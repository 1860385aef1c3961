"""A model of how OpenCode 1.18.33 decides a tool call from its ``permission`` object, written
from the observed semantics (docs/agents/opencode-observed.md) and its bundle's evaluator; the
real run (tests/real/test_opencode_generated.py) holds this model to what the real CLI did.

- The object is flattened in key order after OpenCode's defaults: a plain action ``"deny"`` is
  the rule ``(tool, "*", "deny")``, an object gives one rule per pattern; ``~/`` at the start of
  a pattern is the home directory (rows 5-6, 11).
- A call takes the **last** rule whose tool name and pattern match (row 6); with none, ``ask``.
- ``*`` matches any run of characters, ``/`` included; ``?`` one character; a trailing `` *``
  also matches nothing; every other character itself.
- The read tool and the edit tools (edit, write, patch) on a path outside the project first
  ask ``external_directory`` with ``<directory of the file>/*``, then their own tool with the
  path relative to the project (rows 9, 12). A rejected ask stops the call headless (row 2).
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

Rule = tuple[str, str, str]  # tool, pattern, action

# OpenCode's own defaults before the user's rules (its agent loader)
DEFAULTS: list[Rule] = [
    ("*", "*", "allow"),
    ("external_directory", "*", "ask"),
    ("read", "*", "allow"),
    ("read", "*.env", "ask"),
    ("read", "*.env.*", "ask"),
    ("read", "*.env.example", "allow"),
]


def match(value: str, pattern: str) -> bool:
    spelled = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    if pattern.endswith(" *"):
        spelled = spelled[: -len(re.escape(" ") + ".*")] + "( .*)?"
    return re.fullmatch(spelled, value, re.DOTALL) is not None


def rules_of(permission: dict[str, Any], home: str) -> list[Rule]:
    """The defaults, then ``permission`` flattened in key order."""
    rules = list(DEFAULTS)
    for tool, value in permission.items():
        if isinstance(value, str):
            rules.append((tool, "*", value))
            continue
        for pattern, action in value.items():
            if pattern == "~" or pattern.startswith("~/"):
                pattern = home + pattern[1:]
            rules.append((tool, pattern, action))
    return rules


def evaluate(rules: list[Rule], tool: str, value: str) -> str:
    found = "ask"
    for name, pattern, action in rules:
        if match(tool, name) and match(value, pattern):
            found = action
    return found


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def file_call(rules: list[Rule], tool: str, path: str, worktree: str) -> str:
    """What the read tool (``tool="read"``) or an edit tool (``"edit"``) gets for the absolute
    ``path`` in a project rooted at ``worktree``, headless: ``denied``, ``asked`` (rejected) or
    ``ran``."""
    if not inside(path, worktree):
        outside = evaluate(rules, "external_directory", posixpath.dirname(path) + "/*")
        if outside == "deny":
            return "denied"
        if outside == "ask":
            return "asked"
    action = evaluate(rules, tool, posixpath.relpath(path, worktree))
    return {"deny": "denied", "ask": "asked", "allow": "ran"}[action]


def denied_under_auto(rules: list[Rule], tool: str, path: str, worktree: str) -> bool:
    """Whether the call is refused even when every ask is approved (``--auto``): a deny of
    ``external_directory`` or of the tool itself."""
    outside = posixpath.dirname(path) + "/*"
    if not inside(path, worktree) and evaluate(rules, "external_directory", outside) == "deny":
        return True
    return evaluate(rules, tool, posixpath.relpath(path, worktree)) == "deny"
