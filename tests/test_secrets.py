"""No report prints a secret (issue 14, item 1).

Every target of every agent gets distinct token strings in the user's own keys (``env``,
``apiKeyHelper``, MCP servers, hooks, bearer tokens, headers, Copilot's sandbox ``auth``) and in
credential-named keys inside what twsrt manages, next to drifted managed entries so a whole-file
diff would carry them as context. Then every command runs in every output format, and every
byte it prints or writes is searched for the tokens.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import run_cli

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "dotfiles"
TOKEN = re.compile(r"SECRET-[a-z0-9-]+")


def _planted(tag: str) -> str:
    return f"SECRET-{tag}"


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _ordered(document: dict, before: dict, after: dict, anchor: str) -> dict:
    """``document`` with ``before`` just ahead of ``anchor`` and ``after`` just behind it, so a
    diff of the managed member next to them would show them as context."""
    out: dict = {}
    for key, value in document.items():
        if key == anchor:
            out.update(before)
            out[key] = value
            out.update(after)
        else:
            out[key] = value
    return out


def _claude(path: Path, mode: str) -> None:
    document = _json(path)
    document["permissions"]["deny"].append("Bash(planted)")  # drift: one extra managed entry
    document["permissions"]["allow"].insert(0, f"Bash(echo {_planted(mode + '-allow')})")
    document["sandbox"]["network"]["httpProxyPort"] = 3128  # a managed key out of band
    before = {
        "env": {"ANTHROPIC_API_KEY": _planted(mode + "-env")},
        "apiKeyHelper": f"echo {_planted(mode + '-helper')}",
    }
    after = {
        "awsAuthRefresh": f"aws sso login {_planted(mode + '-aws')}",
        "otelHeadersHelper": f"/bin/{_planted(mode + '-otel')}",
        "mcpServers": {
            "api": {
                "command": "npx",
                "env": {"API_TOKEN": _planted(mode + "-mcp-env")},
                "headers": {"Authorization": f"Bearer {_planted(mode + '-mcp-header')}"},
                "note": _planted(mode + "-mcp-note"),  # not a credential name: elided
            }
        },
        "statusLine": {"type": "command", "command": f"echo {_planted(mode + '-status')}"},
    }
    document = _ordered(document, before, after, "permissions")
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def _codex(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    text = text.replace("allow_login_shell = false\n", "allow_login_shell = true\n")  # drift
    text = text.replace(
        "allow_login_shell = true\n",
        "allow_login_shell = true\n"
        f'experimental_bearer_token = "{_planted("codex-top-bearer")}"\n'
        f'model_reasoning_summary = "{_planted("codex-top-plain")}"\n',
    )
    text = text.replace(
        'args = ["-y", "@modelcontextprotocol/server-memory"]\n',
        'args = ["-y", "@modelcontextprotocol/server-memory"]\n'
        f'bearer_token = "{_planted("codex-mcp-bearer")}"\n'
        f'http_headers = {{ "X-Api-Key" = "{_planted("codex-mcp-headers")}" }}\n'
        f'env_http_headers = {{ "X-Org" = "{_planted("codex-mcp-env-headers")}" }}\n'
        f'env = {{ GITHUB_TOKEN = "{_planted("codex-mcp-env")}" }}\n',
    )
    # a credential key written by hand inside the profile twsrt owns: drift, quoted redacted
    text = text.replace(
        'extends = ":read-only"\n',
        f'extends = ":read-only"\nbearer_token = "{_planted("codex-profile-bearer")}"\n',
    )
    text += (
        f'\n[model_providers.corp]\nbase_url = "https://{_planted("codex-provider-url")}.example"\n'
        f'experimental_bearer_token = "{_planted("codex-provider-bearer")}"\n'
    )
    path.write_text(text, encoding="utf-8")


def _copilot(path: Path) -> None:
    document = _json(path)
    document["sandbox"]["userPolicy"]["network"]["blockedHosts"].append("planted.example")
    sandbox = document["sandbox"]
    sandbox["auth"] = {"token": _planted("copilot-auth")}
    sandbox["credentials"] = {"proxyPassword": _planted("copilot-credentials")}
    sandbox["proxy"] = {"url": f"http://user:{_planted('copilot-proxy')}@proxy:3128"}
    document = _ordered(
        document,
        {"githubToken": _planted("copilot-top-token")},
        {"theme": _planted("copilot-top-plain")},
        "sandbox",
    )
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def _deepcode(path: Path) -> None:
    document = _json(path)
    document["permissions"]["deny"].append("Bash(planted)")
    document["permissions"]["allow"].append(f"Bash(echo {_planted('deepcode-allow')})")
    document = _ordered(
        document,
        {"env": {"DEEPSEEK_API_KEY": _planted("deepcode-env")}},
        {
            "apiKeyHelper": f"echo {_planted('deepcode-helper')}",
            "hooks": {"Stop": [{"command": f"notify {_planted('deepcode-hook')}"}]},
        },
        "permissions",
    )
    # one line: a line-based mask would have to print the whole file to show the drift
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")


def _flags(path: Path) -> None:
    # fully generated: a hand-added line is twsrt's to remove, and the diff shows it
    path.write_text(path.read_text(encoding="utf-8") + "--deny-tool 'shell(planted)'\n")


def _planted_repo(root: Path) -> Path:
    repo = root / "repo"
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    (repo / ".git").mkdir()
    home = repo / "home"
    _claude(home / ".claude/settings.full.json", "claude-full")
    _claude(home / ".claude/settings.yolo.json", "claude-yolo")
    _codex(home / ".codex/config.toml")
    _copilot(home / ".copilot/settings.json")
    _deepcode(home / ".deepcode/settings.json")
    _flags(home / ".config/twsrt/copilot-flags.txt")
    return repo


def _migrating_repo(root: Path) -> Path:
    """First run: a regular settings.json with the user's tokens, no full or yolo file yet;
    generate migrates it to settings.full.json and seeds settings.yolo.json from it."""
    repo = _planted_repo(root)
    claude = repo / "home/.claude"
    (claude / "settings.json").unlink()
    (claude / "settings.yolo.json").unlink()
    (claude / "settings.full.json").rename(claude / "settings.json")
    return repo


def _planted_tokens(repo: Path) -> set[str]:
    found: set[str] = set()
    for path in (repo / "home").rglob("*"):
        if path.is_file() and not path.is_symlink():
            found |= set(TOKEN.findall(path.read_text(encoding="utf-8")))
    return found


COMMANDS: tuple[tuple[str, ...], ...] = (
    ("check",),
    ("check", "-v"),
    ("check", "-v", "--format", "json"),
    ("check", "-v", "--format", "github"),
    ("check", "-v", "--yolo"),
    ("check", "-v", "--no-ignores", "--format", "json"),
    ("generate",),
    ("generate", "-n", "-w"),
    ("generate", "-n", "-w", "--yolo"),
    ("diff",),
    ("diff", "--yolo"),
    ("edit",),
    ("explain", "TWS302"),
)


def _outputs(repo: Path, home: Path) -> Iterator[tuple[str, str]]:
    """(label, text) of every stream and report file of every command."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TWSRT_")} | {
        "HOME": str(home),
        "NO_COLOR": "1",
        "GIT_CEILING_DIRECTORIES": str(repo.parent),
    }
    reports = repo.parent / "reports"
    reports.mkdir(exist_ok=True)
    files = {
        name: reports / name for name in ("out.sarif", "out.junit.xml", "out.json", "summary.md")
    }
    runs = [
        *COMMANDS,
        (
            "check",
            "--sarif",
            str(files["out.sarif"]),
            "--junit",
            str(files["out.junit.xml"]),
            "--json",
            str(files["out.json"]),
        ),
    ]
    for args in runs:
        result = run_cli(args, cwd=repo, env=env)
        assert "internal error" not in result.stderr, (args, result.stderr)
        yield " ".join(args) + " (stdout)", result.stdout
        yield " ".join(args) + " (stderr)", result.stderr
    for name, path in files.items():
        if path.exists():
            yield name, path.read_text(encoding="utf-8")


@pytest.mark.parametrize("layout", ["drifted", "migrating"])
def test_no_report_prints_a_planted_token(tmp_path: Path, layout: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    repo = (_planted_repo if layout == "drifted" else _migrating_repo)(tmp_path)
    planted = _planted_tokens(repo)
    assert len(planted) >= 25  # every target carries its own
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    leaks: dict[str, list[str]] = {}
    seen = ""
    for label, text in _outputs(repo, home):
        seen += text
        hits = sorted(set(TOKEN.findall(text)) & planted)
        if hits:
            leaks[label] = hits
    assert not leaks, json.dumps(leaks, indent=1)
    # the reports did show the drift: managed entries, elision markers, redaction
    assert '"Bash(planted)"' in seen and "unmanaged key" in seen
    assert "--deny-tool 'shell(planted)'" in seen  # a generated file is shown whole
    if layout == "drifted":
        assert "planted.example" in seen and "allow_login_shell = true" in seen
        assert 'bearer_token = "<redacted>"' in seen
    else:
        assert "would create home/.claude/settings.full.json" in seen
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


# ---------------------------------------------------------------- the pieces


def test_secret_key_names() -> None:
    from twsrt.redact import secret_key

    for name in (
        "apiKeyHelper",
        "awsAuthRefresh",
        "awsCredentialExport",
        "otelHeadersHelper",
        "env",
        "env_http_headers",
        "http_headers",
        "bearer_token",
        "experimental_bearer_token",
        "GITHUB_TOKEN",
        "password",
        "X-Api-Key",
        "Authorization",
        "client_secret",
    ):
        assert secret_key(name), name
    for name in ("deny", "allowedDomains", "**/.env", "~/.aws/credentials", "enabled", "mode"):
        assert not secret_key(name), name


def test_redact_keeps_policy_sections_and_hides_values() -> None:
    from twsrt.redact import MARK, redact, redact_item

    value = {"files": [{"path": "~/.aws/credentials", "mode": "deny"}]}
    assert redact(value, ("sandbox", "credentials")) == value  # Claude's srt section: policy
    assert redact({"env": {"A": "x"}, "deny": ["y"]}) == {"env": MARK, "deny": ["y"]}
    assert redact_item("permissions.twsrt.bearer_token", '"x"') == MARK
    assert (
        redact_item("sandbox.tls", '{"token": "x", "port": 1}')
        == '{"token": "<redacted>", "port": 1}'
    )
    assert redact_item("permissions.deny", "Bash(x)") == "Bash(x)"
    # a Codex profile's path and host keys are data, even when split at their dots
    assert redact_item("permissions.twsrt.filesystem.~/.token", '"deny"') == '"deny"'
    assert redact_item("permissions.twsrt.network.domains.auth.example.com", '"allow"') == '"allow"'
    assert redact_item("permissions.twsrt.filesystem.:workspace_roots.secrets", '"deny"') == (
        '"deny"'
    )


def test_json_projection_elides_user_members_in_place() -> None:
    from twsrt.diffs import json_view

    spec = {"permissions": {"deny": True, "allow": lambda rule: rule.startswith("W")}}
    text = json.dumps(
        {"env": {"T": "s"}, "model": "m", "permissions": {"allow": ["B", "W1"], "deny": ["d"]}}
    )
    assert json_view(spec)(text) == (
        "{\n"
        "  … 2 unmanaged keys …\n"
        '  "permissions": {\n'
        '    "allow": [\n'
        "      … 1 unmanaged entry …\n"
        '      "W1"\n'
        "    ],\n"
        '    "deny": [\n'
        '      "d"\n'
        "    ]\n"
        "  }\n"
        "}\n"
    )
    assert json_view(spec)('{"env": ') == "… 1 unmanaged line … (not valid JSON)\n"
    # a managed container of the wrong type holds the user's value, not twsrt's: elided
    wrong = json_view(spec)('{"permissions": {"allow": {"k": "SECRET-x"}, "deny": "d"}}')
    assert '"allow": … 1 unmanaged value …,' in wrong and "SECRET" not in wrong


def test_toml_projection_and_diff() -> None:
    from twsrt.diffs import render_diff, toml_view

    spec = {"approval_policy": True, "permissions": {"twsrt": True}}
    old = 'model = "x"\napproval_policy = "never"\n[permissions.twsrt]\ntoken = "t"\nmode = 1\n'
    new = old.replace('"never"', '"on-request"')
    assert toml_view(spec)(old) == (
        '# … 1 unmanaged key …\napproval_policy = "never"\n\n[permissions.twsrt]\n'
        'token = "<redacted>"\nmode = 1\n'
    )
    diff = render_diff("c.toml", old, new, toml_view(spec))
    assert '-approval_policy = "never"\n+approval_policy = "on-request"\n' in diff
    assert diff.startswith("--- a/c.toml\n+++ b/c.toml\n")
    assert render_diff("c.toml", None, new, toml_view(spec)).startswith("--- /dev/null\n")


GOLDEN = REPO / "tests" / "golden"


@pytest.mark.parametrize(
    ("agent", "pattern"),
    [
        ("claude", "*expected.*.json"),
        ("codex", "*expected.config.toml"),
        ("copilot", "*expected.settings.json"),
        ("deepcode", "*expected*.json"),
    ],
)
def test_generated_files_show_whole_in_their_view(agent: str, pattern: str) -> None:
    """Redaction never hides policy content: every generated golden file, seen through its
    agent's view, keeps every managed value (paths such as ~/.aws/credentials or **/.env,
    Claude's srt credentials section)."""
    from twsrt.agents.claude import agent as claude
    from twsrt.agents.codex import agent as codex
    from twsrt.agents.copilot import agent as copilot
    from twsrt.agents.deepcode import agent as deepcode
    from twsrt.diffs import json_view, toml_view

    view = {
        "claude": json_view(claude.managed_spec(tuple(claude.CLAUDE_ONLY_KEYS))),
        "codex": toml_view(codex.CONFIG_SPEC),
        "copilot": json_view(copilot.SETTINGS_SPEC),
        "deepcode": json_view(deepcode.SETTINGS_SPEC),
    }[agent]
    files = sorted((GOLDEN / agent).glob(f"*/{pattern}"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        shown = view(text)
        assert "<redacted>" not in shown, path
        if agent != "codex" and not any(path.parent.glob("existing*")):
            assert shown == text, path  # a file twsrt created is all managed: shown exactly
