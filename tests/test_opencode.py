"""The OpenCode target's translation table, its merge into the user's JSONC file, its effective
check's matcher, and the never-widen property under OpenCode's last-match-wins evaluation
(``support.opencode_eval``, which the real run holds to the real CLI)."""

from __future__ import annotations

import json
import posixpath
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support.opencode_eval import denied_under_auto, evaluate, file_call, inside, rules_of

from twsrt.agents.opencode.settings import drift_items, merged_text
from twsrt.agents.opencode.translate import (
    Compiled,
    outside_pattern,
    relative_patterns,
    translate,
    wildcard,
)
from twsrt.agents.opencodegrammar import grants, matches
from twsrt.jsonpos import parse_json, parse_jsonc
from twsrt.locations import Location
from twsrt.policy import PathRule, Policy
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

HOME = "/home/u"


def policy_of(srt: dict[str, Any], bash: dict[str, Any] | None = None) -> Policy:
    return with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash or {})), "b.json"
        )
    )


def rule(path: str, literal: bool = False) -> PathRule:
    return PathRule(path, Location("srt.json"), literal)


# ---------------------------------------------------------------- the translation table


def test_globs_become_patterns_that_match_at_least_as_much() -> None:
    assert wildcard("**/*.pem") == "*.pem"
    assert wildcard("a/**/b") == "a/*b"
    assert wildcard("x/[ab]c") == "x/?c"
    assert wildcard("x/{a,b}.txt") == "x/*.txt"
    assert wildcard("x/[ab]c", literal=True) == "x/[ab]c"


def test_a_relative_path_is_denied_at_every_depth() -> None:
    assert relative_patterns(rule("secrets")) == [
        "secrets",
        "secrets/**",
        "*/secrets",
        "*/secrets/**",
    ]
    assert relative_patterns(rule("**/*.key")) == ["*.key", "*.key/**"]
    assert relative_patterns(rule(".")) == ["*"]


def test_an_absolute_path_is_denied_by_each_tail_and_beside_the_project() -> None:
    got = relative_patterns(rule("/etc/shadow"))
    assert got[:6] == [
        "shadow",
        "shadow/**",
        "../shadow",
        "../shadow/**",
        "../*/shadow",
        "../*/shadow/**",
    ]
    assert "etc/shadow" in got and "../*/etc/shadow/**" in got
    assert outside_pattern(rule("/etc/shadow")) == "/etc/shadow/*"


def test_a_home_path_keeps_its_tilde_outside_and_any_prefix_inside() -> None:
    assert outside_pattern(rule("~/.ssh")) == "~/.ssh/*"
    assert outside_pattern(rule("secrets")) is None
    assert "*/.ssh" in relative_patterns(rule("~/.ssh"))


def test_catch_alls_come_first_and_denies_after_every_allow() -> None:
    policy = policy_of(
        {"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."]}},
        {"allow": ["git", "git push"], "ask": ["git push"], "deny": ["git push --force"]},
    )
    compiled, _ = translate(policy, "workspace-write", False)
    permission = compiled.permission
    assert list(permission) == [
        "bash",
        "read",
        "edit",
        "external_directory",
        "webfetch",
        "websearch",
    ]
    for tool in ("bash", "read", "edit", "external_directory"):
        assert next(iter(permission[tool])) == "*", tool
    bash = permission["bash"]
    assert bash == {
        "*": "ask",
        "git *": "allow",
        "git push *": "ask",
        "git push --force *": "deny",
    }
    rules = rules_of(permission, HOME)
    assert evaluate(rules, "bash", "git push --force origin") == "deny"
    assert evaluate(rules, "bash", "git push origin") == "ask"
    assert evaluate(rules, "bash", "git status") == "allow"
    assert evaluate(rules, "bash", "rm x") == "ask"
    assert permission["webfetch"] == permission["websearch"] == "deny"


def test_read_only_takes_the_edit_tools_out() -> None:
    policy = policy_of({"filesystem": {"allowWrite": ["."]}})
    compiled, _ = translate(policy, "read-only", False)
    assert compiled.permission["edit"] == {"*": "deny"}


def test_an_allow_with_a_wildcard_is_left_out() -> None:
    compiled, findings = translate(policy_of({}, {"allow": ["ls *.txt"]}), "workspace-write", False)
    assert "ls *.txt *" not in compiled.permission["bash"]
    assert "TWS459" in {f.rule_id for f in findings}


def test_every_protected_name_is_denied_to_the_edit_tools() -> None:
    policy = policy_of({"filesystem": {"allowWrite": ["."]}})
    compiled, _ = translate(policy, "workspace-write", False)
    rules = rules_of(compiled.permission, HOME)
    for path in ("opencode.json", "sub/opencode.jsonc", ".opencode/plugins/p.js", ".git/hooks/x"):
        assert denied_under_auto(rules, "edit", f"/w/{path}", "/w"), path
    assert not denied_under_auto(rules, "edit", "/w/src/main.py", "/w")
    assert denied_under_auto(rules, "edit", "/elsewhere/f", "/w")


def test_yolo_changes_only_the_findings() -> None:
    policy = policy_of({"filesystem": {"allowWrite": ["."]}}, {"ask": ["npm"]})
    full, full_findings = translate(policy, "workspace-write", False)
    yolo, yolo_findings = translate(policy, "workspace-write", True)
    assert full.permission == yolo.permission
    assert "TWS456" not in {f.rule_id for f in full_findings}
    assert "TWS456" in {f.rule_id for f in yolo_findings}


# ---------------------------------------------------------------- the merge

USER = """\
{
  // a comment the merge keeps
  "model": "x/y",
  "permission": {
    "lsp": "allow",
    "bash": "allow" /* replaced */
  }
}
"""


def test_the_merge_keeps_comments_and_puts_twsrts_keys_after_the_users() -> None:
    compiled = Compiled({"bash": {"*": "ask"}, "webfetch": "deny"})
    text = merged_text(USER, "opencode.json", compiled)
    assert text.startswith('{\n  // a comment the merge keeps\n  "model": "x/y",\n')
    value = parse_jsonc(text).value
    assert list(value["permission"]) == ["lsp", "bash", "webfetch"]
    assert value["$schema"] == "https://opencode.ai/config.json"
    assert merged_text(text, "opencode.json", compiled) == text  # settled
    assert {item.key for item in drift_items(text)} >= {"$schema"}


def test_a_schema_of_the_users_is_kept() -> None:
    compiled = Compiled({"bash": {"*": "ask"}})
    text = merged_text('{"$schema": "https://x.invalid/s.json"}', "o.json", compiled)
    assert json.loads(text)["$schema"] == "https://x.invalid/s.json"


# ---------------------------------------------------------------- the effective check


def test_the_matcher_is_opencodes() -> None:
    assert matches("bash", "*") and matches("bash", "b*") and not matches("read", "b*")
    assert matches("cat", "cat *") and not matches("catalog", "cat *")
    assert grants("allow") and grants({"*": "deny", "x": "ask"}) and not grants("deny")


# ---------------------------------------------------------------- never widen, as a property

SEGMENTS = st.sampled_from(["a", "b", ".ssh", "x.y", "k-1", "opencode"])
RELATIVE = st.lists(SEGMENTS, min_size=1, max_size=3).map("/".join)
PATHS = st.one_of(
    RELATIVE.map(lambda rest: "/" + rest),
    RELATIVE.map(lambda rest: "~/" + rest),
    RELATIVE,
    RELATIVE.map(lambda rest: "./" + rest),
)
WORKTREES = st.sampled_from(["/", "/home", HOME, HOME + "/proj", "/srv/w", HOME + "/a", "/a"])


def resolved(path: str, cwd: str) -> str:
    if path.startswith("~/"):
        return HOME + path[1:]
    if path.startswith("/"):
        return path
    return posixpath.normpath(posixpath.join(cwd, path))


@settings(max_examples=150, deadline=None)
@given(
    deny_read=st.lists(PATHS, max_size=3),
    deny_write=st.lists(PATHS, max_size=3),
    worktree=WORKTREES,
    below=st.booleans(),
    mode=st.sampled_from(["workspace-write", "danger-full-access"]),
)
def test_every_srt_denied_path_is_denied_by_the_compiled_map(
    deny_read: list[str], deny_write: list[str], worktree: str, below: bool, mode: str
) -> None:
    """For every path srt denies (the path, a file in it, a new file two levels down), OpenCode's
    read tool (denyRead) and edit tools (denyRead and denyWrite) are refused even with every
    ask approved (``--auto``), wherever the project lies and the agent starts in it. The one
    exception, reported as TWS460: a project inside the denied directory."""
    srt = {
        "filesystem": {"denyRead": deny_read, "denyWrite": deny_write, "allowWrite": ["."]},
    }
    compiled, _ = translate(policy_of(srt), mode, False)
    rules = rules_of(compiled.permission, HOME)
    cwd = posixpath.join(worktree, "sub") if below else worktree
    for tools, paths in ((("read", "edit"), deny_read), (("edit",), deny_write)):
        for path in paths:
            denied = resolved(path, cwd)
            if inside(worktree, denied):
                continue
            for probe in (denied, denied + "/f", denied + "/n/g"):
                for tool in tools:
                    assert denied_under_auto(rules, tool, probe, worktree), (tool, probe, worktree)
                    assert file_call(rules, tool, probe, worktree) != "ran"


@settings(max_examples=100, deadline=None)
@given(
    allow=st.lists(st.sampled_from(["git", "git push", "npm", "rm"]), max_size=3),
    deny=st.lists(st.sampled_from(["git", "git push", "git push -f", "rm -rf", "npm"]), min_size=1),
    args=st.sampled_from(["", " x", " -f y"]),
)
def test_a_bash_deny_beats_every_allow(allow: list[str], deny: list[str], args: str) -> None:
    compiled, _ = translate(policy_of({}, {"allow": allow, "deny": deny}), "workspace-write", False)
    rules = rules_of(compiled.permission, HOME)
    for command in deny:
        assert evaluate(rules, "bash", command + args) == "deny", command + args


# ---------------------------------------------------------------- Kilo Code CLI


def test_kilo_gets_the_same_rules_and_its_sandbox() -> None:
    from twsrt.agents.kilo.translate import translate as kilo_translate

    srt = {
        "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": [".", "/tmp", "~/dev", "rel"]},
        "network": {"allowedDomains": ["github.com"]},
    }
    policy = policy_of(srt, {"deny": ["curl"]})
    kilo, findings = kilo_translate(policy, "workspace-write", False, HOME)
    opencode, _ = translate(policy, "workspace-write", False)
    assert kilo.rules.permission == opencode.permission
    assert kilo.sandbox == {
        "enabled": True,
        "network": "deny",
        "allowed_hosts": [],
        "writable_paths": ["/tmp", HOME + "/dev"],
    }
    assert kilo.home_used
    rules = {f.rule_id for f in findings}
    assert {"TWS453", "TWS460", "TWS461", "TWS441"} <= rules
    assert all(f.agent == "kilo" for f in findings if f.rule_id.startswith("TWS4"))
    full, _ = kilo_translate(policy, "danger-full-access", False, HOME)
    assert full.sandbox == {"enabled": False}
    read_only, _ = kilo_translate(policy, "read-only", False, HOME)
    assert read_only.sandbox["writable_paths"] == []


def test_kilo_merge_keeps_the_users_keys_and_replaces_the_sandbox() -> None:
    from twsrt.agents.kilo.settings import merged_text as kilo_merged
    from twsrt.agents.kilo.translate import KiloCompiled

    compiled = KiloCompiled(Compiled({"bash": {"*": "ask"}}), {"enabled": True})
    user = (
        '{\n  // mine\n  "experimental": {"sandbox": true},\n  "sandbox": {"enabled": false}\n}\n'
    )
    text = kilo_merged(user, "kilo.jsonc", compiled)
    value = parse_jsonc(text).value
    assert "// mine" in text and value["experimental"] == {"sandbox": True}
    assert value["sandbox"] == {"enabled": True}
    assert value["permission"]["bash"] == {"*": "ask"}
    assert value["$schema"] == "https://app.kilo.ai/config.json"
    assert kilo_merged(text, "kilo.jsonc", compiled) == text


def test_a_reordered_rule_object_is_drift() -> None:
    """The last matching rule wins: a catch-all moved after the denies is not the same rules."""
    from twsrt.agents.kilo.settings import drift_items as kilo_items

    ours = '{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}'
    moved = '{"permission": {"bash": {"rm *": "deny", "*": "ask"}}}'
    for items in (drift_items, kilo_items):
        assert items(ours) != items(moved)
        assert sorted(items(ours), key=str) == sorted(items(moved), key=str)
        assert [item.value for item in items(ours)] == ['"*": "ask"', '"rm *": "deny"']


@settings(max_examples=300, deadline=None)
@given(
    value=st.text(alphabet="ab /.", max_size=8),
    pattern=st.text(alphabet="ab* ?/.", max_size=8),
)
def test_the_linear_matcher_is_opencodes_regex(value: str, pattern: str) -> None:
    """The effective check matches users' keys without building a regex from them; the
    evaluation model's regex (OpenCode's own construction) is its oracle."""
    from support.opencode_eval import match

    assert matches(value, pattern) == match(value, pattern)
