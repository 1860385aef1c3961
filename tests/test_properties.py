"""Property tests: generated canonical policies compiled into Claude Code settings.

Fast properties build the Policy in-process (``parse_json`` + ``build_policy``) and call the
pure translation and merge; the end-to-end property runs the installed CLI in a temporary HOME.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.sandbox import DEFAULT_CONFIG, Sandbox
from support.strategies import GLOB_CHARS, PATH_KEYS, bash_rules, srt_settings

from twsrt.agents.claude.agent import (
    CLAUDE_ONLY_KEYS,
    WEBFETCH_PREFIX,
    Managed,
    merged_text,
    translate,
)
from twsrt.findings import TwsrtError
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

FAST = settings(max_examples=100, deadline=None)
E2E = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

MANAGED_TOP_KEYS = ("permissions", "sandbox")

# JSON a user might keep in their settings file, non-ASCII text included.
json_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
json_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    json_text,
    st.sampled_from(["größe", "日本語", "emoji 🎉", 'ü\\"q"', "\u2028"]),
)
json_value = st.recursive(
    json_scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(json_text, children, max_size=4)
    ),
    max_leaves=12,
)
hook = st.fixed_dictionaries(
    {
        "matcher": st.sampled_from(["Bash", "Edit|Write", "*"]),
        "hooks": st.lists(
            st.fixed_dictionaries({"type": st.just("command"), "command": json_text}),
            min_size=1,
            max_size=2,
        ),
    }
)
hooks = st.dictionaries(
    st.sampled_from(["PreToolUse", "PostToolUse", "Stop", "Notification"]),
    st.lists(hook, max_size=2),
    max_size=3,
)
user_allow_entry = st.one_of(
    st.sampled_from(["Read", "Glob", "WebSearch", "Bash(npm test:*)", "mcp__memory__store"]),
    json_text,
).filter(lambda s: not s.startswith(WEBFETCH_PREFIX))
claude_only_sandbox = st.fixed_dictionaries(
    {},
    optional={
        "autoAllowBashIfSandboxed": st.booleans(),
        "allowUnsandboxedCommands": st.booleans(),
        "excludedCommands": st.lists(json_text, max_size=3),
        "failIfUnavailable": st.booleans(),
    },
)
extra_keys = st.dictionaries(
    json_text.filter(lambda k: k not in (*MANAGED_TOP_KEYS, "hooks")), json_value, max_size=5
)


@st.composite
def user_settings(draw: st.DrawFn) -> dict[str, Any]:
    """An existing settings document: random user keys around optional managed sections."""
    document: dict[str, Any] = dict(draw(extra_keys))
    if draw(st.booleans()):
        document["hooks"] = draw(hooks)
    if draw(st.booleans()):
        permissions: dict[str, Any] = {"allow": draw(st.lists(user_allow_entry, max_size=5))}
        if draw(st.booleans()):
            permissions["deny"] = ["Bash(old-deny)"]
        if draw(st.booleans()):
            permissions["allow"].append("WebFetch(domain:old.example.com)")
        if draw(st.booleans()):
            permissions["defaultMode"] = "acceptEdits"
        document["permissions"] = permissions
    if draw(st.booleans()):
        document["sandbox"] = draw(claude_only_sandbox)
    # Shuffle the top-level order so managed keys may sit anywhere.
    keys = draw(st.permutations(list(document)))
    return {key: document[key] for key in keys}


formatting = st.fixed_dictionaries(
    {"indent": st.sampled_from([2, 4, "\t", None]), "ensure_ascii": st.booleans()}
)


def render(document: dict[str, Any], style: dict[str, Any]) -> str:
    return json.dumps(document, **style) + "\n"


# ---------------------------------------------------------------- helpers


def compile_managed(srt: dict[str, Any], bash: dict[str, Any], yolo: bool = False) -> Managed:
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    managed, _findings = translate(policy, yolo, {})
    return managed


def generate(
    srt: dict[str, Any], bash: dict[str, Any], yolo: bool = False, base: str | None = None
) -> dict[str, Any]:
    return json.loads(merged_text(base, "settings.json", compile_managed(srt, bash, yolo)))


def raw_paths(srt: dict[str, Any], key: str) -> list[tuple[str, bool]]:
    """``(path, literal)`` for every entry of ``filesystem.<key>``."""
    items = srt.get("filesystem", {}).get(key, [])
    return [(i["path"], True) if isinstance(i, dict) else (i, False) for i in items]


def expected_patterns(path: str, literal: bool) -> list[str]:
    """How a path should be spelled in Claude rules (written independently of twsrt)."""
    path = path.rstrip("/") or "/"
    if not literal and GLOB_CHARS & set(path):
        return [path]
    spelled = "/" + path if path.startswith("/") and not path.startswith("//") else path
    if spelled == "//":
        return ["//", "//**"]
    return [spelled, spelled + "/**"]


def is_anchored(path: str) -> bool:
    return path.startswith("/") or path == "~" or path.startswith("~/")


def all_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in all_strings(item)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *all_strings(v)]]
    return []


def bash_rule_pair(command_text: str) -> list[str]:
    return [f"Bash({command_text})", f"Bash({command_text} *)"]


# ---------------------------------------------------------------- properties


@FAST
@given(srt=srt_settings(), bash=bash_rules(), yolo=st.booleans())
def test_every_deny_read_path_is_denied_for_read_and_edit(srt, bash, yolo):
    deny = generate(srt, bash, yolo)["permissions"]["deny"]
    for path, literal in raw_paths(srt, "denyRead"):
        for pattern in expected_patterns(path, literal):
            assert f"Read({pattern})" in deny, (path, pattern)
            assert f"Edit({pattern})" in deny, (path, pattern)


@FAST
@given(srt=srt_settings(), bash=bash_rules(), yolo=st.booleans())
def test_every_deny_write_path_is_denied_for_edit(srt, bash, yolo):
    deny = generate(srt, bash, yolo)["permissions"]["deny"]
    for path, literal in raw_paths(srt, "denyWrite"):
        for pattern in expected_patterns(path, literal):
            assert f"Edit({pattern})" in deny, (path, pattern)


@FAST
@given(
    srt=srt_settings(),
    bash=bash_rules(),
    yolo=st.booleans(),
    base=st.sampled_from([None, "", "{}\n", "{\n}\n"]),
)
def test_generation_never_widens(srt, bash, yolo, base):
    out = generate(srt, bash, yolo, base)
    permissions, sandbox = out["permissions"], out["sandbox"]
    allowed_domains = srt.get("network", {}).get("allowedDomains", [])

    portless = {d for d in allowed_domains if not re.search(r":\d+$", d)}
    for rule in permissions.get("allow", []):
        assert rule.startswith(WEBFETCH_PREFIX) and rule.endswith(")"), rule
        assert rule[len(WEBFETCH_PREFIX) : -1] in portless, rule

    sandbox_domains = sandbox.get("network", {}).get("allowedDomains", [])
    assert set(sandbox_domains) <= set(allowed_domains)

    anchored_writes = {p for p, _ in raw_paths(srt, "allowWrite") if is_anchored(p)}
    assert set(sandbox.get("filesystem", {}).get("allowWrite", [])) <= anchored_writes

    # Bash allow commands contribute nothing: the output is the same without them.
    without_allow = {k: v for k, v in bash.items() if k != "allow"}
    assert out == generate(srt, without_allow, yolo, base)
    # ... and every Bash(...) string in the output comes from a deny or ask command.
    restricting = {
        rule for c in bash.get("deny", []) + bash.get("ask", []) for rule in bash_rule_pair(c)
    }
    bash_strings = {s for s in all_strings(out) if s.startswith("Bash(")}
    assert bash_strings <= restricting

    if yolo:
        assert "ask" not in permissions
        generated_asks = {r for c in bash.get("ask", []) for r in bash_rule_pair(c)}
        denied = {r for c in bash.get("deny", []) for r in bash_rule_pair(c)}
        assert not (set(all_strings(out)) & (generated_asks - denied))


@FAST
@given(srt=srt_settings(), bash=bash_rules(), yolo=st.booleans())
def test_bash_deny_and_ask_commands_yield_both_rules(srt, bash, yolo):
    permissions = generate(srt, bash, yolo)["permissions"]
    for command_text in bash.get("deny", []):
        for rule in bash_rule_pair(command_text):
            assert rule in permissions["deny"], rule
    if not yolo:
        for command_text in bash.get("ask", []):
            for rule in bash_rule_pair(command_text):
                assert rule in permissions["ask"], rule


def _populate(root: Path, srt: dict[str, Any]) -> None:
    """Create the policy's relative and ~/ paths under ``root`` (files at the leaves)."""
    for key in PATH_KEYS:
        for path, _literal in raw_paths(srt, key):
            relative = path[2:] if path.startswith("~/") else path
            if relative.startswith(("/", "~")) or GLOB_CHARS & set(relative):
                continue
            target = root / relative.strip("/")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists():
                    target.write_text("x", encoding="utf-8")
            except OSError:
                pass


@FAST
@given(srt=srt_settings(), bash=bash_rules(), yolo=st.booleans())
def test_output_is_deterministic_and_independent_of_home_and_cwd(srt, bash, yolo):
    first = merged_text(None, "settings.json", compile_managed(srt, bash, yolo))
    second = merged_text(None, "settings.json", compile_managed(srt, bash, yolo))
    assert first.encode() == second.encode()

    outputs = []
    with tempfile.TemporaryDirectory() as full, tempfile.TemporaryDirectory() as empty:
        _populate(Path(full), srt)
        for place in (full, empty):
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("HOME", place)
                mp.chdir(place)
                managed = compile_managed(srt, bash, yolo)
                outputs.append(merged_text(None, "settings.json", managed))
    assert outputs[0] == outputs[1] == first


@E2E
@given(
    srt=srt_settings(),
    bash=bash_rules(),
    user=st.none() | user_settings(),
    style=formatting,
    migrate=st.booleans(),
    yolo=st.booleans(),
)
def test_generate_write_is_idempotent_and_keeps_user_content(srt, bash, user, style, migrate, yolo):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        repo = home / "dotfiles"
        (repo / ".git").mkdir(parents=True)
        box = Sandbox(home, repo)
        box.write("twsrt.toml", DEFAULT_CONFIG)
        box.write(".srt-settings.json", srt)
        box.write("bash-rules.json", bash)
        claude_dir = repo / "home" / ".claude"
        target = claude_dir / ("settings.yolo.json" if yolo else "settings.full.json")
        if user is not None:
            # Either a first run (a regular settings.json to migrate) or an existing target.
            start = claude_dir / "settings.json" if migrate else target
            start.parent.mkdir(parents=True)
            start.write_text(render(user, style), encoding="utf-8")
        mode = ["--yolo"] if yolo else []

        first = box.run("generate", "claude", "-w", *mode)
        assert first.returncode == 0, first.stderr
        written = target.read_bytes()
        assert (claude_dir / "settings.json").resolve() == target.resolve()

        second = box.run("generate", "claude", "-w", *mode)
        assert second.returncode == 0, second.stderr
        assert target.read_bytes() == written
        checked = box.run("diff", "claude", *mode)
        assert checked.returncode == 0, checked.stdout + checked.stderr

        result = json.loads(written)
        if user is None:
            return
        for key, value in user.items():
            if key not in MANAGED_TOP_KEYS:
                assert result[key] == value, key
        user_allow = [
            rule
            for rule in user.get("permissions", {}).get("allow", [])
            if not rule.startswith(WEBFETCH_PREFIX)
        ]
        assert result["permissions"].get("allow", [])[: len(user_allow)] == user_allow
        if "defaultMode" in user.get("permissions", {}):
            assert result["permissions"]["defaultMode"] == user["permissions"]["defaultMode"]
        for key in CLAUDE_ONLY_KEYS:
            if yolo and key == "allowUnsandboxedCommands" and result["sandbox"]["enabled"]:
                # yolo files close the escape hatch whatever the user wrote (nobody approves)
                assert result["sandbox"][key] is False
            elif key in user.get("sandbox", {}):
                assert result["sandbox"][key] == user["sandbox"][key], key


@FAST
@given(
    srt=srt_settings(),
    bash=bash_rules(),
    user=user_settings(),
    style=formatting,
    yolo=st.booleans(),
)
def test_merge_preserves_user_content(srt, bash, user, style, yolo):
    result = generate(srt, bash, yolo, render(user, style))
    others = [key for key in user if key not in MANAGED_TOP_KEYS]
    assert [key for key in result if key not in MANAGED_TOP_KEYS] == others
    for key in others:
        assert result[key] == user[key], key
    user_allow = [
        rule
        for rule in user.get("permissions", {}).get("allow", [])
        if not rule.startswith(WEBFETCH_PREFIX)
    ]
    kept = [
        rule
        for rule in result["permissions"].get("allow", [])
        if not rule.startswith(WEBFETCH_PREFIX)
    ]
    assert kept == user_allow


NULL_SECTIONS = [
    ("permissions",),
    ("permissions", "allow"),
    ("sandbox",),
    ("sandbox", "network"),
    ("sandbox", "filesystem"),
]


@pytest.mark.parametrize("pointer", NULL_SECTIONS, ids="/".join)
def test_null_managed_section_is_refused_or_replaced(pointer):
    """A ``null`` where a managed section sits is a located error or is overwritten, not a crash."""
    srt = {
        "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["/tmp"]},
        "network": {"allowedDomains": ["github.com"]},
    }
    bash = {"deny": ["rm"], "ask": ["git push"]}
    document: dict[str, Any] = {"model": "opus"}
    node = document
    for part in pointer[:-1]:
        node = node.setdefault(part, {})
    node[pointer[-1]] = None
    managed = compile_managed(srt, bash)
    try:
        text = merged_text(json.dumps(document), "settings.json", managed)
    except TwsrtError:
        return
    result = json.loads(text)
    assert result["model"] == "opus"
    assert isinstance(result["permissions"], dict) and isinstance(result["sandbox"], dict)
