"""`claude doctor` as a settings validator: does the pinned Claude Code CLI accept a settings
file? See test_claude_client.py for what the doctor prints and why it is read this way."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

DEFAULT_BIN = "/opt/twsrt-tools/claude/bin/claude"
TIMEOUT_S = 120

# Sections doctor prints in that region that are not about settings.
_UNRELATED = ("Multiple installations found", "Environment variables")
_END = re.compile(r"^(Remote Control|No installation issues found\.|\d+ warnings? found)$")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _doctor_env(home: str) -> dict[str, str]:
    # Built from scratch so no CLAUDE_*/ANTHROPIC_* variable leaks in.
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def settings_problems(output: str) -> list[str]:
    """Doctor's settings diagnostics, one paragraph per item; [] means clean.
    Raises ValueError if the output does not look like `claude doctor`'s."""
    lines = _ANSI.sub("", output).splitlines()
    if "Claude Code doctor" not in lines or "API connectivity" not in lines:
        raise ValueError("unexpected `claude doctor` output")
    i = lines.index("API connectivity")
    while i < len(lines) and lines[i].strip():  # skip the connectivity block
        i += 1
    paragraphs: list[list[str]] = [[]]
    for line in lines[i:]:
        if _END.match(line):
            break
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    return ["\n".join(p) for p in paragraphs if p and p[0] not in _UNRELATED]


def claude_accepts_settings(
    claude_bin: str, settings_path: str | Path, *, project: bool = False
) -> tuple[bool, str]:
    """Run `claude doctor` with settings_path as the user settings of a fresh
    HOME (``project``: as the project settings ``.claude/settings.json`` of the directory
    doctor runs in, the user settings empty). Returns (ok, output); ok means no settings
    diagnostics at all. Raises RuntimeError if the check itself could not run."""
    # not below /tmp: doctor reads a .claude of the directories above its own, and a sandbox
    # whose write root is /tmp (srt 0.0.26 in pi) leaves a stub file /tmp/.claude that doctor
    # then reports as an unreadable settings.local.json
    with tempfile.TemporaryDirectory(prefix="twsrt-claude-", dir="/var/tmp") as tmp:
        home, work = Path(tmp, "home"), Path(tmp, "work")
        (home / ".claude").mkdir(parents=True)
        work.mkdir()  # empty cwd: no project settings, unless ``project``
        if project:
            (work / ".claude").mkdir()
            shutil.copyfile(settings_path, work / ".claude" / "settings.json")
        else:
            shutil.copyfile(settings_path, home / ".claude" / "settings.json")
        try:
            proc = subprocess.run(
                [claude_bin, "doctor"],
                cwd=work,
                env=_doctor_env(str(home)),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f"claude doctor timed out after {TIMEOUT_S}s") from exc
    if proc.returncode != 0:
        raise RuntimeError(f"claude doctor exited {proc.returncode}:\n{proc.stdout}")
    try:
        problems = settings_problems(proc.stdout)
    except ValueError as exc:
        raise RuntimeError(f"{exc}:\n{proc.stdout}") from exc
    return not problems, proc.stdout
