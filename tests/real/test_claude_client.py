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
from pathlib import Path
from typing import Any

import pytest
from support.tools import locate_tool, require_tool

from .claude_doctor import DEFAULT_BIN, claude_accepts_settings, settings_problems

pytestmark = pytest.mark.real

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "claude"


@pytest.fixture(scope="session")
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
