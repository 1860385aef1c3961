"""The claude engine's model of how Claude Code reads its settings file: the srt settings it
derives, as exact JSON. Real Claude pins the same model in tests/real/test_twsrt_test_engines.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.policies import named

from twsrt.agents.claude import engine as engine_claude
from twsrt.agents.claude.engine import claude_srt_settings, rule_path, sandbox_path
from twsrt.agents.claude.layers import permission_rules, root_denies

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "dotfiles" / "home" / ".claude"
HOME, CWD = "/h", "/h/p"


def derive(settings: dict[str, Any]) -> dict[str, Any] | None:
    return claude_srt_settings(settings, HOME, CWD)


def test_example_yolo_file_exact() -> None:
    """The example's yolo file: permission Read/Edit denies merged after the sandbox lists, the
    launch directory writable first, Claude-only keys (excludedCommands,
    autoAllowBashIfSandboxed...) left out."""
    settings = json.loads((EXAMPLE / "settings.yolo.json").read_text())
    tree = ("/h/.aws", "/h/.ssh", "/h/.gnupg", "/h/.netrc", "/h/.config/gh")
    rc = ("/h/.bashrc", "/h/.zshrc", "/h/.profile", "/h/.gitconfig")  # denyWrite, no globs
    # the protected names (agents/claude/layers.py): at each write root but the launch
    # directory, then the Edit rules at the launch directory and at any depth
    roots = [x.replace("~", "/h", 1) for x in root_denies(["/tmp", "~/.cache/uv"], named())]
    edits = [r.removeprefix("Edit(").removesuffix(")") for r in permission_rules(named())]
    at_work = [f"/h/p/{e}" if not e.startswith("//") else e[1:] for e in edits]
    # the protected set (twsrt/protection.py): the checkout, the agents' config, the targets
    protected = ("/h/dotfiles", "/h/.claude", "/h/.claude.json", "/h/.codex", "/h/.copilot")
    protected += ("/h/.deepcode", "/h/.gemini", "/h/.env", "/h/.qwen", "/h/.config/opencode")
    protected += ("/h/.config/kilo", "/h/.pi", "/h/.factory", "/h/.agents")
    protected += ("/h/.config/twsrt/copilot-flags.txt",)
    protected += ("/h/.config/twsrt/copilot-flags.yolo.txt",)
    assert derive(settings) == {
        "filesystem": {
            "allowWrite": ["/h/p", "/tmp", "/h/.cache/uv"],
            "denyWrite": [
                *rc,
                *protected,
                *tree,  # the sandbox list, with every denyRead path write-denied too
                *roots,
                *(f"{p}/**" for p in tree),
                *(f"{p}/**" for p in (*rc, *protected)),
                *at_work,
            ],
            "denyRead": [*tree, *(f"{p}/**" for p in tree)],
        },
        "network": {
            "allowedDomains": [
                "github.com",
                "*.github.com",
                "api.github.com",
                "pypi.org",
                "files.pythonhosted.org",
                "registry.npmjs.org",
            ],
            "deniedDomains": ["pastebin.com"],
        },
    }


@pytest.mark.parametrize("enabled", [None, False, "true", 1])
def test_sandbox_not_enabled_is_off(enabled: Any) -> None:
    """Only ``"enabled": true`` turns Claude's sandbox on (a real run without it lets every
    forbidden action through): anything else derives no sandbox at all."""
    sandbox: dict[str, Any] = {"filesystem": {"denyRead": ["~/.ssh"]}}
    if enabled is not None:
        sandbox["enabled"] = enabled
    assert derive({"sandbox": sandbox}) is None
    assert derive({}) is None


def test_anchoring_and_merging_exact() -> None:
    settings = {
        "permissions": {
            "allow": ["Edit(//opt/build/**)", "Edit", "WebFetch(domain:example.org)", "Bash(ls)"],
            "deny": [
                "Read(/claude-rel)",
                "Read(./proj-rel)",
                "Read(bare-rel)",
                "Read(//etc/abs)",
                "Edit(~/home-rel)",
                "WebFetch(domain:evil.example)",
                "Read()",
            ],
            "ask": ["Read(~/asked)"],
        },
        "sandbox": {
            "enabled": True,
            "autoAllowBashIfSandboxed": True,
            "allowUnsandboxedCommands": False,
            "excludedCommands": ["docker"],
            "enableWeakerNestedSandbox": True,
            "filesystem": {
                "allowWrite": ["rel-root", "//var/x", "/srv"],
                "denyRead": ["./dot-rel"],
                "allowRead": ["~/ok"],
                "allowManagedReadPathsOnly": True,
            },
            "network": {"allowUnixSockets": ["sock"], "allowLocalBinding": True},
            "credentials": {"files": [{"path": "cred.txt", "mode": "deny"}]},
        },
    }
    assert derive(settings) == {
        "enableWeakerNestedSandbox": True,
        "credentials": {"files": [{"path": "/h/.claude/cred.txt", "mode": "deny"}]},
        "filesystem": {
            "allowWrite": ["/h/p", "/h/.claude/rel-root", "/var/x", "/srv", "/opt/build/**"],
            "denyRead": [
                "/h/.claude/dot-rel",
                "/h/.claude/claude-rel",
                "/h/p/proj-rel",
                "/h/p/bare-rel",
                "/etc/abs",
            ],
            "allowRead": ["/h/ok"],
            "denyWrite": ["/h/home-rel"],
        },
        "network": {
            "allowUnixSockets": ["/h/.claude/sock"],
            "allowLocalBinding": True,
            "allowedDomains": ["example.org"],
            "deniedDomains": ["evil.example"],
        },
    }


def test_absolute_paths_go_through_the_mapper() -> None:
    """The engine re-roots absolute paths into the fixture tree; home and cwd come in mapped."""
    settings = {
        "permissions": {"deny": ["Read(//etc/x)"]},
        "sandbox": {"enabled": True, "filesystem": {"allowWrite": ["/tmp"]}},
    }
    got = claude_srt_settings(settings, "/R/home", "/R/work", lambda p: "/R/fs" + p)
    assert got is not None
    assert got["filesystem"]["allowWrite"] == ["/R/work", "/R/fs/tmp"]
    assert got["filesystem"]["denyRead"] == ["/R/fs/etc/x"]


@pytest.mark.parametrize(
    ("path", "sandbox", "rule"),
    [
        ("~", "/h", "/h"),
        ("~/a/b", "/h/a/b", "/h/a/b"),
        ("/a", "/a", "/h/.claude/a"),
        ("//a", "/a", "/a"),
        ("a/../b", "/h/.claude/b", "/h/p/b"),
        ("./a", "/h/.claude/a", "/h/p/a"),
        ("**/*.pem", "/h/.claude/**/*.pem", "/h/p/**/*.pem"),
    ],
)
def test_path_forms(path: str, sandbox: str, rule: str) -> None:
    """A single ``/`` is absolute in a sandbox path but ~/.claude-relative in a rule; a bare
    relative path is ~/.claude in the sandbox and the launch directory in a rule."""
    assert sandbox_path(path, HOME) == sandbox
    assert rule_path(path, HOME, CWD) == rule


def test_report_says_the_claude_engine_is_a_model() -> None:
    """The first line names what each engine read, and that the claude engine models Claude."""
    from twsrt.reports.probes import modes_line, render_json
    from twsrt.testing.model import ProbeReport

    report = ProbeReport(
        engines=["srt", "claude"],
        inputs={"srt": ["policy/srt.json"], "claude": ["home/.claude/settings.full.json"]},
        models={"claude": engine_claude.MODELS},
    )
    assert modes_line(report) == (
        "twsrt test: sandbox mode workspace-write, approval mode full; srt reads "
        "policy/srt.json; claude reads home/.claude/settings.full.json (this engine models "
        "Claude Code's reading of its settings file: srt runs the settings Claude derives)"
    )
    assert json.loads(render_json(report))["models"] == {"claude": engine_claude.MODELS}
