"""srt's mandatory-deny set: the names srt keeps read-only in its working directory whatever the
policy says, because git, an editor, a shell or the next agent loads them outside any sandbox.
A value of the lowest floor: the protected set (``protection.py``), the names under each write
root (``agents/rootnames.py``) and ``twsrt test``'s attacks on them (``testing/launches.py``)
read it."""

from __future__ import annotations

# srt 0.0.83's mandatory write denies (sandbox-utils.js DANGEROUS_FILES and
# getDangerousDirectories; linux-sandbox-utils.js adds .git/hooks and .git/config of the
# working directory and of every repository its scan finds below it)
MANDATORY_FILES = (
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".zshrc",
    ".zprofile",
    ".profile",
    ".ripgreprc",
    ".mcp.json",
)
MANDATORY_DIRS = (".vscode", ".idea", ".claude/commands", ".claude/agents")
GIT_PROTECTED = (".git/hooks", ".git/config")
