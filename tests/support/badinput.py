"""The bad-input harness: a table of cases, each run in-process in a fresh sandbox.

Each case prepares the sandbox (config, sources or the Claude target tree), snapshots the whole
HOME (bytes, link targets and modes), runs one command and checks: the exit code (2; ``check``
reports a source it cannot use as a finding, exit 1), no traceback and no internal error, the
first error line names the exact file, line, column and rule id (or the file and rule id where
no position exists), and HOME is unchanged afterwards. ``check`` reports a config it cannot use
in its report: text and github on stdout (stderr stays empty), json, sarif and junit on stdout
as a document and the located line on stderr; the error lines are read from the document too.

tests/test_bad_input.py holds the file-level table, tests/test_bad_input_commands.py crosses
breakages with every command and output format, tests/test_bad_input_scoped.py covers
``--project``, ``[managed]``, ``[profiles]``/``[fragments]`` and ``--profile``.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from support.sandbox import DEFAULT_CONFIG, Sandbox, tree_snapshot

GEN_W = ("generate", "claude", "-w")
GEN = ("generate", "claude")
DIFF = ("diff", "claude")
YOLO_W = ("generate", "-w", "--yolo")

SRT = ".srt-settings.json"
BASH = "bash-rules.json"
CONFIG = "twsrt.toml"
CLAUDE_DIR = "home/.claude"
FULL = f"{CLAUDE_DIR}/settings.full.json"
LINK = f"{CLAUDE_DIR}/settings.json"
YOLO = f"{CLAUDE_DIR}/settings.yolo.json"

# a trailing comma is reported at the comma itself, on every Python (jsonpos.parse_jsonc)
TRAILING_COMMA = (36, "trailing comma (JSON allows none)")

Setup = Callable[[Sandbox], None]


def text(raw: str) -> str:
    return textwrap.dedent(raw).lstrip("\n")


# ------------------------------------------------------------------ setup helpers


def write(relative: str, content: str | bytes) -> Setup:
    def setup(sb: Sandbox) -> None:
        path = sb.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(text(content), encoding="utf-8")

    return setup


def append_config(extra: str) -> Setup:
    """DEFAULT_CONFIG (8 lines, ending in ``[targets]`` / ``claude_settings``) plus ``extra``."""
    return write(CONFIG, DEFAULT_CONFIG + extra)


def remove(relative: str) -> Setup:
    def setup(sb: Sandbox) -> None:
        (sb.repo / relative).unlink()

    return setup


def make_dir(relative: str) -> Setup:
    def setup(sb: Sandbox) -> None:
        path = sb.repo / relative
        if path.is_file():
            path.unlink()
        path.mkdir(parents=True)

    return setup


def symlink(relative: str, target: str) -> Setup:
    def setup(sb: Sandbox) -> None:
        path = sb.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)

    return setup


def chmod(relative: str, mode: int) -> Setup:
    def setup(sb: Sandbox) -> None:
        (sb.repo / relative).chmod(mode)

    return setup


def steps(*parts: Setup) -> Setup:
    def setup(sb: Sandbox) -> None:
        for part in parts:
            part(sb)

    return setup


def nothing(sb: Sandbox) -> None:
    pass


def fifo(relative: str) -> Setup:
    """A named pipe in place of a file: reading it would block forever."""

    def setup(sb: Sandbox) -> None:
        path = sb.repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        os.mkfifo(path)

    return setup


def sparse(relative: str, size: int) -> Setup:
    """A file of ``size`` bytes that takes no disk space (and no time) to make."""

    def setup(sb: Sandbox) -> None:
        with open(sb.repo / relative, "wb") as handle:
            handle.truncate(size)

    return setup


def home_file(relative: str, content: str) -> Setup:
    """A file in HOME outside the repository (what a hostile config points at)."""

    def setup(sb: Sandbox) -> None:
        (sb.home / relative).write_text(content, encoding="utf-8")

    return setup


CODEX = 'codex_config = "home/.codex/config.toml"\n'  # line 7 of the config
CODEX_CONFIG = "home/.codex/config.toml"
CODEX_W = ("generate", "codex", "-w")
COPILOT_W = ("generate", "copilot", "-w")


# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class Case:
    id: str
    setup: Setup
    args: tuple[str, ...]
    file: str  # as printed; "{repo}" stands for the sandbox repo directory
    rule: str
    fragment: str
    line: int | None = None  # None: the finding has no position (e.g. a missing file)
    col: int | None = None
    any_position: bool = False  # no natural position: accept none or any line:col
    env: tuple[tuple[str, str], ...] = ()
    marks: tuple[str, ...] = field(default=())
    exit_code: int = 2  # check reports a source it cannot use as a finding: exit 1
    xfail: str = ""  # a known gap: why, and whose item of issue 26 closes it (strict)


@dataclass(frozen=True)
class Usage:
    """A command-line usage error: click's usage message, exit 2."""

    id: str
    args: tuple[str, ...]
    fragments: tuple[str, ...]
    xfail: str = ""


# Root ignores directory permissions, so that case is only generated for other users (CI runs
# as root and turns skips into failures); target-parent-is-file covers the refusal for root.
RUNNING_AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def params(cases: list[Case | Usage]) -> list:
    """The cases as pytest parameters: root-only exclusions dropped, known gaps strict xfails."""
    out = []
    for case in cases:
        if RUNNING_AS_ROOT and "needs-non-root" in getattr(case, "marks", ()):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
        out.append(pytest.param(case, id=case.id, marks=marks))
    return out


def _restore_permissions(root: Path) -> None:
    """Let pytest clean up directories a case made read-only."""
    for path in [root, *root.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def _check_format(args: tuple[str, ...]) -> str | None:
    """``check``'s stdout format, or None for another command."""
    if "check" not in args:
        return None
    for i, arg in enumerate(args):
        if arg == "--format" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--format="):
            return arg.split("=", 1)[1]
    return "text"


def _document_lines(fmt: str, stdout: str) -> list[str]:
    """The error lines a json, sarif or junit report on stdout carries, as text prints them."""
    if fmt == "json":
        return [
            _located(
                f["location"]["path"],
                f["location"].get("line"),
                f["location"].get("column"),
                f["rule_id"],
                f["message"],
            )
            for f in json.loads(stdout)["findings"]
            if f["level"] == "error"
        ]
    if fmt == "sarif":
        out = []
        for result in json.loads(stdout)["runs"][0]["results"]:
            if result["level"] != "error":
                continue
            physical = result["locations"][0]["physicalLocation"]
            region = physical.get("region", {})
            out.append(
                _located(
                    physical["artifactLocation"]["uri"],
                    region.get("startLine"),
                    region.get("startColumn"),
                    result["ruleId"],
                    result["message"]["text"],
                )
            )
        return out
    from support.reports import parse_junit

    return [
        failure.get("message")
        for failure in parse_junit(stdout).iter("failure")
        if failure.get("type") == "error"
    ]


def _located(path: str, line: int | None, col: int | None, rule: str, message: str) -> str:
    where = f"{path}:{line}:{col}" if line and col else path  # SARIF: line 1 without a column
    return f"{where}: error[{rule}] {message}"


def error_lines(case: Case | Usage, stdout: str, stderr: str) -> list[str]:
    """Where the case's located error is: stderr, or ``check``'s report."""
    fmt = _check_format(case.args) if isinstance(case, Case) else None
    if fmt in ("text", "github"):
        assert stderr == "", f"check --format {fmt} printed on stderr:\n{stderr}"
        return [line for line in stdout.splitlines() if ": error[" in line]
    if fmt is not None:
        document = _document_lines(fmt, stdout)
        return [line for line in stderr.splitlines() if ": error[" in line] or document
    return stderr.splitlines()


def run_case(sandbox: Sandbox, case: Case | Usage) -> None:
    """Set the case up, run it, and assert exit code, location, no traceback, HOME unchanged."""
    try:
        if isinstance(case, Case):
            case.setup(sandbox)
        before = tree_snapshot(sandbox.home)
        env = dict(case.env) if isinstance(case, Case) else {}
        result = sandbox.run(*case.args, **env)
        after = tree_snapshot(sandbox.home)
    finally:
        _restore_permissions(sandbox.home)

    detail = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    expected = case.exit_code if isinstance(case, Case) else 2
    assert result.returncode == expected, detail
    assert "Traceback" not in result.stderr + result.stdout, detail
    assert "internal error" not in result.stderr, detail
    lines = error_lines(case, result.stdout, result.stderr)
    assert lines, detail
    first = lines[0]
    if isinstance(case, Case) and case.exit_code == 1:
        # check reports the source or target it cannot use among its other findings
        first = next((line for line in lines if f"error[{case.rule}]" in line), first)

    if isinstance(case, Usage):
        assert first.startswith("Usage: twsrt "), detail
        for fragment in case.fragments:
            assert fragment in result.stderr, detail
    else:
        where = re.escape(case.file.format(repo=sandbox.repo, home=sandbox.home))
        if case.any_position:
            where += r"(:\d+:\d+)?"
        elif case.line is not None:
            where += f":{case.line}:{case.col}"
        pattern = rf"{where}: error\[{case.rule}\] .*{re.escape(case.fragment)}"
        assert re.match(pattern, first), f"first line {first!r} !~ {pattern!r}\n{detail}"

    if expected != 2:  # a source that did validate is remembered in the cache: not user data
        after = {k: v for k, v in after.items() if k != ".cache" and not k.startswith(".cache/")}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert after == before, f"HOME changed: {changed}"
