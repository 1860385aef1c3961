"""Issue 26 items 3, 6 and 10: a file twsrt generates whole (Codex's requirements.toml and
managed_config.toml, the Codex rules file, Copilot's flags) is diffed through the redacting view
(``redact.redact_text``), so a token planted in its old content reaches no output; and
redaction goes by what a value is, so a command word under a secret-sounding name
(``{ token = "gh" }`` in a prefix rule, ``gh auth token``) stays readable."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import run_cli

from twsrt.redact import MARK, redact, redact_item, redact_text, secret_shapes

REPO = Path(__file__).resolve().parent.parent
TOKEN = re.compile(r"SECRET-[a-z0-9-]+")
MANAGED_FILES = [
    f"managed/{system}/etc/codex/{name}"
    for system in ("linux", "macos")
    for name in ("requirements.toml", "managed_config.toml")
]
WHOLE_FILES = ["home/.codex/rules/twsrt.rules", "home/.config/twsrt/copilot-flags.txt"]


def planted_lines(tag: str) -> str:
    """Credentials in the shapes a hand-edited or hostile file carries them."""
    return (
        f'\n# curl -H "Authorization: Bearer SECRET-{tag}-header"\n'
        f"# git clone https://x-access-token:SECRET-{tag}-url@github.com/o/r\n"
        f"[mcp_servers.{tag}]\n"
        f'command = "npx"\n'
        f'env = {{ GITHUB_TOKEN = "SECRET-{tag}-env" }}\n'
        f'http_headers = {{ Authorization = "Basic SECRET-{tag}-basic" }}\n'
        f'bearer_token = "SECRET-{tag}-bearer"\n'
        f"[shell_environment_policy.set]\n"
        f'API_KEY = "SECRET-{tag}-set"\n'
        f'[http "https://github.com/"]\n'
        f"\textraheader = AUTHORIZATION: basic SECRET-{tag}-extraheader\n"
    )


def plant(repo: Path, relative: str) -> None:
    path = repo / relative
    tag = re.sub(r"[^a-z0-9]+", "-", relative.lower()).strip("-")
    path.write_text(path.read_text(encoding="utf-8") + planted_lines(tag), encoding="utf-8")


def outputs(repo: Path, home: Path, commands: list[tuple[str, ...]]) -> Iterator[tuple[str, str]]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("TWSRT_")} | {
        "HOME": str(home),
        "NO_COLOR": "1",
        "GIT_CEILING_DIRECTORIES": str(repo.parent),
    }
    reports = repo.parent / "reports"
    reports.mkdir(exist_ok=True)
    files = [reports / name for name in ("out.sarif", "out.junit.xml", "out.json")]
    report_run = (
        "check",
        "--sarif",
        str(files[0]),
        "--junit",
        str(files[1]),
        "--json",
        str(files[2]),
    )
    for args in [*commands, report_run]:
        result = run_cli(args, cwd=repo, env=env)
        assert "internal error" not in result.stderr, (args, result.stderr)
        yield " ".join(args), result.stdout + result.stderr
    for path in files:
        yield path.name, path.read_text(encoding="utf-8")


COMMANDS = [
    ("check",),
    *[("check", "-v", "--format", fmt) for fmt in ("text", "json", "github", "sarif", "junit")],
    ("diff",),
    ("generate", "-n", "-w"),
    ("show",),
    ("show", "--format", "json"),
]


def copied(tmp_path: Path, example: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "examples" / example, repo, symlinks=True)
    (repo / ".git").mkdir()
    return repo, home


def assert_no_token(repo: Path, home: Path, commands: list[tuple[str, ...]]) -> str:
    leaks: dict[str, list[str]] = {}
    seen = ""
    for label, text in outputs(repo, home, commands):
        seen += text
        if TOKEN.findall(text):
            leaks[label] = sorted(set(TOKEN.findall(text)))
    assert not leaks, json.dumps(leaks, indent=1)
    return seen


def test_the_managed_codex_files_are_diffed_redacted(tmp_path: Path) -> None:
    repo, home = copied(tmp_path, "managed")
    for relative in MANAGED_FILES:
        plant(repo, relative)
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    seen = assert_no_token(repo, home, COMMANDS)
    # the drift is still shown: the planted lines, their keys and the command words
    assert 'bearer_token = "<redacted>"' in seen and "env = <redacted>" in seen
    assert "Authorization: Bearer <redacted>" in seen and "https://<redacted>@github.com" in seen
    assert 'command = "npx"' in seen
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_the_whole_files_old_content_is_redacted(tmp_path: Path) -> None:
    repo, home = copied(tmp_path, "dotfiles")
    for relative in WHOLE_FILES:
        plant(repo, relative)
    seen = assert_no_token(repo, home, [*COMMANDS, ("generate", "-n", "-w", "--yolo")])
    assert "extraheader = <redacted>" in seen and 'API_KEY = "<redacted>"' in seen


def test_command_words_stay_readable(tmp_path: Path) -> None:
    """Both ways: a command that names a token is shown, the token in a header is not."""
    repo, home = copied(tmp_path, "managed")
    rules = repo / "policy/bash-rules.json"
    document = json.loads(rules.read_text())
    document["deny"] += ["gh auth token", "printenv SECRET_KEY", "vault read secret/password"]
    document["ask"] += ['curl -H "Authorization: Bearer SECRET-in-policy"']
    rules.write_text(json.dumps(document, indent=2) + "\n")
    seen = ""
    for _, text in outputs(repo, home, [("diff",), ("generate", "-n", "-w"), ("check", "-v")]):
        seen += text
    assert '{"token": "gh"}' in seen and '{"token": "auth"}' in seen  # drift items, diff
    assert '{ token = "token" }' in seen and "printenv SECRET_KEY" in seen
    assert "vault read secret/password" in seen
    assert "SECRET-in-policy" not in seen and "Bearer <redacted>" in seen


def test_redaction_by_value_both_ways() -> None:
    assert redact_item("rules.prefix_rules.pattern", '{"token": "gh"}') == '{"token": "gh"}'
    assert redact({"pattern": [{"token": "push"}]}, ("rules", "prefix_rules")) == {
        "pattern": [{"token": "push"}]
    }
    assert redact_item("mcp_servers.x.env.TOKEN", '"v"') == MARK
    assert redact_item("sandbox.tls", '{"token": "x", "port": 1}') == (
        '{"token": "<redacted>", "port": 1}'
    )
    assert redact_item("--deny-tool", "shell(gh auth token)") == "shell(gh auth token)"
    assert secret_shapes("curl -H 'Authorization: Bearer abcdefgh123' x") == (
        "curl -H 'Authorization: <redacted>' x".replace("<redacted>", "Bearer <redacted>")
    )
    assert (
        secret_shapes("git push https://me:hunter22@host/r") == "git push https://<redacted>@host/r"
    )
    assert secret_shapes("echo ghp_" + "a" * 36) == "echo <redacted>"
    assert secret_shapes("gh auth token --hostname github.com") == (
        "gh auth token --hostname github.com"
    )


def test_redact_text_keeps_the_layout_of_what_it_does_not_hide() -> None:
    text = '[profiles.x]\nmodel = "o3"\n[profiles.x.env]\nA = "1"\n\n'
    text += '[a.filesystem]\nsecrets = "deny"\n'
    assert redact_text(text) == (
        '[profiles.x]\nmodel = "o3"\n[profiles.x.env]\nA = "<redacted>"\n\n'
        '[a.filesystem]\nsecrets = "deny"\n'
    )
    block = '{\n  "env": {\n    "A": "x"\n  },\n  "b": 1\n}'
    assert redact_text(block) == '{\n  "env": <redacted>\n  "b": 1\n}'


@pytest.mark.parametrize("stars", [10, 10_000])
def test_redact_text_is_linear(stars: int) -> None:
    line = "Authorization: " + "a" * stars + " ://" * stars + "Bearer " * stars
    assert redact_text(line).startswith("Authorization: <redacted>")
