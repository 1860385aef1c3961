"""The path spellings of the ``Read(...)``/``Edit(...)`` permission-rule grammar, which Claude
Code's settings and Qwen Code's settings share: ``//abs`` for an absolute path, ``~/p`` for one
under the home, ``/p`` for one under the settings source's anchor (Claude's project root; Qwen's
project root in every scope, observed with 0.24.4), each concrete path with its ``/**`` tree."""

from __future__ import annotations

from twsrt.policy import PathRule

# Where a settings file anchors a relative sandbox path: the user settings at ~/.claude, managed
# settings at the working directory (Claude Code 2.1.332, observed), which is srt's own anchor.
USER_ANCHOR, CWD_ANCHOR = "claude-home", "cwd"
# A project's settings anchor both its sandbox paths and its Read(/P)/Edit(/P) rules at the
# project root (agents/claude/project.py).
PROJECT_ANCHOR = "project-root"


def rule_path(path: str) -> str:
    """A path as the rules spell it: a bare ``/abs`` would be read relative to the anchor."""
    if path.startswith("/") and not path.startswith("//"):
        return "/" + path
    return path


def is_relative(path: str) -> bool:
    return not (path.startswith("/") or path == "~" or path.startswith("~/"))


def path_patterns(rule: PathRule, anchor: str = USER_ANCHOR) -> list[str]:
    """``P`` and ``P/**`` for a concrete path (file or directory alike); a glob stays bare.
    Anchored at the project root, a relative path is ``/P`` (relative to the settings source),
    as a Claude project's sandbox.filesystem paths are."""
    if anchor == PROJECT_ANCHOR and is_relative(rule.path):
        anchored = "/" + rule.path.removeprefix("./").lstrip("/")
        if rule.glob:
            return [anchored]
        return ["/", "/**"] if anchored in ("/", "/.") else [anchored, f"{anchored}/**"]
    if rule.glob:
        return [rule.path]
    spelled = rule_path(rule.path)
    if spelled == "//":
        return ["//", "//**"]
    return [spelled, f"{spelled}/**"]
