"""Real-client check: the pinned Claude Code CLI accepts our settings files.

`claude doctor` (non-interactive, offline with the env below, no login) loads
$HOME/.claude/settings.json and lists what it dislikes between its
"API connectivity" and "Remote Control" sections:
  - "Invalid settings": schema errors (wrong types, bad JSON, malformed rules);
  - "Permission rules that may not work as written": rules naming no known
    tool, or Write(...)/Glob(...) path rules that file checks never match;
  - bare "- ..." lines: status notices (values read in a lenient way).
It exits 0 either way, so the verdict comes from that part of the output.
Install the CLI with .ci/install-claude.sh.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ._tools import locate_tool, require_tool

pytestmark = pytest.mark.real

DEFAULT_BIN = "/opt/twsrt-tools/claude/bin/claude"
GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "claude"
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


def claude_accepts_settings(claude_bin: str, settings_path: str | Path) -> tuple[bool, str]:
    """Run `claude doctor` with settings_path as the user settings of a fresh
    HOME. Returns (ok, output); ok means no settings diagnostics at all.
    Raises RuntimeError if the check itself could not run."""
    with tempfile.TemporaryDirectory(prefix="twsrt-claude-") as tmp:
        home, work = Path(tmp, "home"), Path(tmp, "work")
        (home / ".claude").mkdir(parents=True)
        work.mkdir()  # empty cwd: no project settings
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


@pytest.fixture(scope="module")
def claude_bin() -> str:
    path = locate_tool("claude", "TWSRT_CLAUDE_BIN", DEFAULT_BIN)
    return require_tool("claude", path)


def _write(tmp_path: Path, settings: Any) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(settings if isinstance(settings, str) else json.dumps(settings, indent=2))
    return path


VALID_SETTINGS: dict[str, Any] = {
    "permissions": {
        "deny": [
            "Read(~/.aws)",
            "Read(~/.aws/**)",
            "Edit(//etc/secrets/**)",
            "Bash(rm)",
            "Bash(rm *)",
        ],
        "ask": ["WebFetch(domain:github.com)", "Bash(git push *)"],
        "allow": ["WebFetch(domain:*.github.com)", "Read(//etc/secrets/public/**)"],
    },
    "sandbox": {
        "enabled": True,
        "ignoreViolations": {"*": ["/usr/bin"]},
        "network": {
            "allowedDomains": ["github.com", "*.github.com"],
            "deniedDomains": ["evil.example.com"],
            "strictAllowlist": True,
        },
        "filesystem": {
            "denyRead": ["~/.aws"],
            "denyWrite": ["/etc"],
            "allowWrite": ["/tmp/build"],
            "allowRead": ["~/.aws/config"],
        },
    },
}

# (settings, text doctor must print) — each must be rejected.
INVALID_CASES: dict[str, tuple[Any, str]] = {
    "deny-not-a-list": ({"permissions": {"deny": "notalist"}}, "Invalid settings"),
    "sandbox-enabled-string": ({"sandbox": {"enabled": "yes"}}, "Invalid settings"),
    "allowed-domains-string": (
        {"sandbox": {"network": {"allowedDomains": "github.com"}}},
        "Invalid settings",
    ),
    "malformed-json": ('{"permissions": {', "Invalid or malformed JSON"),
    "webfetch-without-domain": (
        {"permissions": {"deny": ["WebFetch(github.com)"]}},
        'must use "domain:" prefix',
    ),
    "unknown-tool": ({"permissions": {"deny": ["Foo(bar)"]}}, "matches no known tool"),
    "write-path-rule": (
        {"permissions": {"deny": ["Write(//etc/**)"]}},
        "is not matched by file permission checks",
    ),
}

# Accepted without a word by 2.1.332 (recorded, not endorsed).
LENIENT_CASES: dict[str, Any] = {
    "empty": {},
    "empty-lists": {"permissions": {"deny": [], "ask": [], "allow": []}},
    "single-slash-path": {"permissions": {"deny": ["Read(/etc/x)"]}},
    "legacy-colon-star": {"permissions": {"deny": ["Bash(rm:*)"]}},
    "unknown-keys": {"sandbox": {"bogus": 1, "network": {"bogus": 1}}, "bogus": 1},
}


@pytest.mark.parametrize("case", sorted(INVALID_CASES))
def test_invalid_settings_rejected(claude_bin: str, tmp_path: Path, case: str) -> None:
    settings, expected = INVALID_CASES[case]
    ok, out = claude_accepts_settings(claude_bin, _write(tmp_path, settings))
    assert not ok, out
    assert expected in out, out
    if "Invalid settings" in out:  # schema errors name the file: our HOME's
        assert "/twsrt-claude-" in out and "/home/.claude/settings.json" in out, out


def test_valid_settings_accepted(claude_bin: str, tmp_path: Path) -> None:
    ok, out = claude_accepts_settings(claude_bin, _write(tmp_path, VALID_SETTINGS))
    assert ok, settings_problems(out)


@pytest.mark.parametrize("case", sorted(LENIENT_CASES))
def test_lenient_cases_accepted(claude_bin: str, tmp_path: Path, case: str) -> None:
    ok, out = claude_accepts_settings(claude_bin, _write(tmp_path, LENIENT_CASES[case]))
    assert ok, settings_problems(out)


EXAMPLE_DIR = Path(__file__).resolve().parents[2] / "examples" / "dotfiles" / "home" / ".claude"


def _goldens() -> list[Any]:
    files = sorted(GOLDEN_DIR.glob("**/*expected*.json"))  # every sandbox mode's goldens
    if not files:
        reason = f"no golden files match {GOLDEN_DIR}/**/*expected*.json"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-goldens")]
    params = [pytest.param(f, id=str(f.relative_to(GOLDEN_DIR))) for f in files]
    examples = sorted(EXAMPLE_DIR.glob("settings.*.json"))
    return params + [pytest.param(f, id=f"example/{f.name}") for f in examples]


@pytest.mark.parametrize("golden", _goldens())
def test_golden_settings_accepted(claude_bin: str, golden: Path) -> None:
    ok, out = claude_accepts_settings(claude_bin, golden)
    assert ok, settings_problems(out)
