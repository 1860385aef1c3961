"""A project policy may only narrow the user policy (twsrt/narrowing.py, TWS225): examples at
their exact locations, and properties judged by the canonical matchers of ``twsrt test``."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from support.policies import make_policy
from support.strategies import tree_domain, tree_path, tree_policy

from twsrt.bashrules import command_holders, command_within
from twsrt.narrowing import narrowing_findings
from twsrt.policy import Policy
from twsrt.regions import Anchors, Holders, region
from twsrt.rules import PROJECT_WIDENS_USER
from twsrt.testing.domains import (
    domain_holders,
    domain_within,
    entry_key,
    host_allowed,
    instance_host,
    split_domain,
)
from twsrt.testing.globs import Semantics, instantiate, layout_glob, layout_path

USER_SRT = {
    "filesystem": {
        "denyRead": ["~/.ssh", "~/.aws"],
        "allowRead": ["~/.ssh/known_hosts"],
        "allowWrite": [".", "/tmp"],
        "denyWrite": ["~/.bashrc", ".git/hooks"],
    },
    "network": {
        "allowedDomains": ["github.com", "*.github.com", "pypi.org:443"],
        "deniedDomains": ["gist.github.com"],
    },
}
USER_BASH = {"allow": ["git", "ls"], "deny": ["rm", "git push --force"], "ask": ["git push"]}


def user() -> Policy:
    return make_policy(USER_SRT, USER_BASH)


def project(srt: dict[str, Any] | None = None, bash: dict[str, Any] | None = None) -> Policy:
    """A project policy that restates every user restriction, changed by ``srt``/``bash``."""
    base = {
        "filesystem": {
            "denyRead": ["~/.ssh", "~/.aws"],
            "allowWrite": ["."],
            "denyWrite": ["~/.bashrc", ".git/hooks"],
        },
        "network": {"allowedDomains": ["github.com"], "deniedDomains": ["gist.github.com"]},
    }
    for key, value in (srt or {}).items():
        base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) else value
    rules = {"allow": ["git status"], "deny": ["rm", "git push --force"], "ask": ["git push"]}
    return make_policy(base, {**rules, **(bash or {})})


def rendered(found: list) -> list[str]:
    return [f"{f.location}: {f.rule_id} {f.level.value} {f.message}" for f in found]


def test_a_project_that_only_narrows_is_clean() -> None:
    assert narrowing_findings(project(), user()) == []
    assert narrowing_findings(user(), user()) == []


def test_bash_allow_the_user_lacks_is_an_error_at_the_project_rule() -> None:
    found = narrowing_findings(project(bash={"allow": ["git status", "curl"]}), user())
    assert rendered(found) == [
        "bash.json:1:26: TWS225 error project bash allow 'curl' is not granted by the user "
        "policy: no allow rule of bash.json holds all of it"
    ]
    assert found[0].location.pointer == "/allow/1"
    assert found[0].rule_id == PROJECT_WIDENS_USER.id


def test_bash_allow_of_what_the_user_asks_for_names_the_user_rule() -> None:
    asking = project(bash={"allow": ["git push origin"], "ask": []})
    found = narrowing_findings(asking, user(), replacing=())
    assert [f.message for f in found] == [
        "project bash allow 'git push origin' runs without asking what the user policy asks "
        "for: 'git push' (bash.json:1:70)"
    ]
    assert found[0].related == (user().bash_ask[0].origin,)


def test_filesystem_grants_beyond_the_user() -> None:
    srt = {
        "filesystem": {
            "denyRead": ["~/.ssh", "~/.aws"],
            "allowRead": ["~/.aws/config"],
            "allowWrite": ["build", "~/.cache", ".git/hooks/pre-commit"],
            "denyWrite": ["~/.bashrc", ".git/hooks"],
        }
    }
    found = narrowing_findings(project(srt), user())
    assert [(f.location.pointer, f.message) for f in found] == [
        (
            "/filesystem/allowWrite/1",
            "project allowWrite '~/.cache' is not granted by the user policy: no allowWrite "
            "root of srt.json holds all of it",
        ),
        (
            "/filesystem/allowRead/0",
            "project allowRead '~/.aws/config' re-opens reads the user policy denies: "
            "'~/.aws' (srt.json:5:7), which the user policy does not re-open",
        ),
    ]
    # the write under .git/hooks is taken back by the project's own denyWrite: no finding


def test_write_root_inside_a_user_deny_write() -> None:
    srt = {"filesystem": {"allowWrite": [".git/hooks/x"], "denyWrite": ["~/.bashrc"]}}
    messages = [f.message for f in narrowing_findings(project(srt), user(), replacing=())]
    assert messages == [
        "project allowWrite '.git/hooks/x' lies inside the user policy's denyWrite "
        "'.git/hooks' (srt.json:16:7)"
    ]


def test_domains_beyond_the_user_and_inside_its_deny() -> None:
    srt = {
        "network": {
            "allowedDomains": ["api.github.com", "*.github.com", "pypi.org", "gist.github.com"],
            "deniedDomains": ["gist.github.com"],
        }
    }
    found = narrowing_findings(project(srt), user())
    assert [f.message for f in found] == [
        "project allowedDomains entry 'pypi.org' is not granted by the user policy: no "
        "allowedDomains entry of srt.json holds all of it"
    ]  # pypi.org admits every port, the user only 443; gist is denied by the project itself
    srt["network"]["deniedDomains"] = []
    found = narrowing_findings(project(srt), user(), replacing=())
    assert "admits what the user policy denies: 'gist.github.com'" in found[-1].message


def test_srt_switches_that_grant() -> None:
    srt = {"network": {"allowAllUnixSockets": True, "allowedDomains": [], "deniedDomains": []}}
    found = narrowing_findings(project(srt), user(), replacing=())
    assert [(f.location.pointer, f.message) for f in found] == [
        (
            "/network/allowAllUnixSockets",
            "project 'network.allowAllUnixSockets' grants more than the user policy's "
            "(srt.json does not set it)",
        )
    ]
    off = narrowing_findings(project({"enabled": False}), user(), replacing=())
    assert [f.message for f in off] == [
        "project 'enabled: false' turns the sandbox off, which the user policy keeps on (srt.json)"
    ]


def test_left_out_restrictions_matter_only_where_lists_are_replaced() -> None:
    bare = make_policy({"filesystem": {"allowWrite": ["."]}}, {"allow": ["ls"]})
    assert narrowing_findings(bare, user(), replacing=()) == []  # Claude Code keeps the user's
    found = narrowing_findings(bare, user(), replacing=("DeepCode",))
    assert [(str(f.location), f.location.pointer) for f in found] == [
        ("bash.json:1:1", "/deny"),
        ("bash.json:1:1", "/deny"),
        ("bash.json:1:1", "/ask"),
        ("srt.json:2:17", "/filesystem/denyWrite"),  # '~/.bashrc' against '.': undecided
        ("srt.json:2:17", "/filesystem/denyWrite"),
        ("srt.json:2:17", "/filesystem/denyRead"),
        ("srt.json:2:17", "/filesystem/denyRead"),
    ]
    assert found[0].message == (
        "the user policy denies the command 'rm' (bash.json:1:35) and this project policy does "
        "not: DeepCode loads the project's list in place of the user's, so it no longer holds "
        "there; restate it here"
    )
    assert all(f.level.value == "error" for f in found)
    # Codex collects the project's rules with the user's: only the sandbox lists are replaced
    codex = narrowing_findings(bare, user(), replacing=("Codex",), replacing_rules=())
    assert [f.location.pointer for f in codex] == [f.location.pointer for f in found[3:]]


def test_relative_project_paths_hang_from_the_project_root() -> None:
    home_user = make_policy({"filesystem": {"allowWrite": ["~/src"]}})
    inside = make_policy({"filesystem": {"allowWrite": ["build"]}})
    anchored = Anchors(home="/home/u", root="/home/u/src/app")
    assert narrowing_findings(inside, home_user, anchors=anchored, replacing=()) == []
    elsewhere = Anchors(home="/home/u", root="/srv/app")
    assert len(narrowing_findings(inside, home_user, anchors=elsewhere, replacing=())) == 1
    # without a root, a relative path is not compared with ~: a finding, never a silent pass
    assert len(narrowing_findings(inside, home_user, replacing=())) == 1


# ------------------------------------------------------------------- the oracle properties


def _bash_regex(rule: str) -> str:
    """Claude Code's reading of Bash(rule) and Bash(rule *): ``*`` spans any text."""
    return ".*".join(re.escape(part) for part in rule.split("*")) + "(?: .*)?"


def command_allowed(policy: Policy, command: str) -> bool:
    def hit(entries: list) -> bool:
        return any(re.fullmatch(_bash_regex(e.value), command, re.S) for e in entries)

    return hit(policy.bash_allow) and not hit([*policy.bash_deny, *policy.bash_ask])


def merged(user_policy: Policy, project_policy: Policy) -> Policy:
    """What Claude Code loads: every list of both scopes."""
    fields = [
        "deny_read",
        "allow_read",
        "allow_write",
        "deny_write",
        "allowed_domains",
        "denied_domains",
        "bash_allow",
        "bash_deny",
        "bash_ask",
    ]
    lists = {f: [*getattr(user_policy, f), *getattr(project_policy, f)] for f in fields}
    return replace(user_policy, **lists)


def path_probes(*policies: Policy) -> set[str]:
    out = {"home/zz", "work/zz", "fs/zz"}
    for policy in policies:
        for rule in [
            *policy.deny_read,
            *policy.allow_read,
            *policy.allow_write,
            *policy.deny_write,
        ]:
            mapped = (
                instantiate(layout_glob(rule.path) or "") if rule.glob else layout_path(rule.path)
            )
            for path in filter(None, [mapped, layout_glob(rule.path.removesuffix("/**"))]):
                parts = path.split("/")
                out.update("/".join(parts[:n]) for n in range(1, len(parts) + 1))
                out.add(path + "/zz")
    return {p for p in out if "*" not in p and "{" not in p and "[" not in p}


def domain_probes(*policies: Policy) -> set[tuple[str, int]]:
    out = set()
    for policy in policies:
        for entry in [*policy.allowed_domains, *policy.denied_domains]:
            host, port = instance_host(entry.value)
            pattern, _ = split_domain(entry.value)
            for name in (host, "zz." + host, pattern.removeprefix("*.")):
                out.update((name, p) for p in {port, 80, 443})
    return out


def command_probes(*policies: Policy) -> set[str]:
    out = set()
    for policy in policies:
        for entry in [*policy.bash_allow, *policy.bash_deny, *policy.bash_ask]:
            plain = entry.value.replace("*", "zz")
            out.update({plain, plain + " x", plain.split(" ")[0], plain + "q"})
    return out


def widened(user_policy: Policy, loaded: Policy) -> list[str]:
    """Every probe ``loaded`` allows and the user policy does not, by the canonical matchers."""
    out = []
    theirs, mine = Semantics.of(user_policy), Semantics.of(loaded)
    probes = path_probes(user_policy, loaded)
    out += [f"read {p}" for p in probes if not mine.read_denied(p) and theirs.read_denied(p)]
    out += [f"write {p}" for p in probes if mine.write_allowed(p) and not theirs.write_allowed(p)]
    for host, port in domain_probes(user_policy, loaded):
        if host_allowed(loaded, host, port) and not host_allowed(user_policy, host, port):
            out.append(f"fetch {host}:{port}")
    for command in command_probes(user_policy, loaded):
        if command_allowed(loaded, command) and not command_allowed(user_policy, command):
            out.append(f"run {command}")
    return out


commands = st.lists(
    st.sampled_from(
        [
            "git",
            "git push",
            "git push --force",
            "ls",
            "rm",
            "rm -rf",
            "g*",
            "gitk",
            "rmdir",
            "npm run *",
        ]
    ),
    max_size=3,
    unique=True,
)


@st.composite
def bash(draw: st.DrawFn) -> dict[str, list[str]]:
    return {"allow": draw(commands), "deny": draw(commands), "ask": draw(commands)}


# built once, not in every draw: hypothesis validates each new strategy object per example
_tree_policy, _bash = tree_policy(), bash()
_short_paths, _short_domains = st.lists(tree_path(), max_size=2), st.lists(tree_domain, max_size=2)


@st.composite
def pair(draw: st.DrawFn) -> tuple[Policy, Policy]:
    """A user policy and a project policy, the project often built from the user's lists so
    that narrowing ones come up."""
    user_srt, user_bash = draw(_tree_policy), draw(_bash)
    if draw(st.booleans()):
        project_srt, project_bash = draw(_tree_policy), draw(_bash)
    else:
        project_srt = {
            "filesystem": {k: draw(st.permutations(v)) for k, v in user_srt["filesystem"].items()},
            "network": {k: draw(st.permutations(v)) for k, v in user_srt["network"].items()},
        }
        project_bash = {k: list(v) for k, v in user_bash.items()}
        for key in ("allowWrite", "denyRead", "denyWrite"):
            if draw(st.booleans()):
                project_srt["filesystem"][key] = draw(_short_paths)
        allows = project_bash["allow"]
        if allows and draw(st.booleans()):  # a command whose name extends an allowed one's
            allows.append(draw(st.sampled_from(allows)) + "k")
        roots = project_srt["filesystem"]["allowWrite"]
        if roots and draw(st.booleans()):  # a sibling whose name extends a root's: ~/a, ~/ab
            roots.append(draw(st.sampled_from(roots)).rstrip("/") + "z")
        if draw(st.booleans()):
            project_srt["network"]["allowedDomains"] = draw(_short_domains)
        if draw(st.booleans()):
            project_bash[draw(st.sampled_from(["allow", "deny", "ask"]))] = draw(commands)
    return make_policy(user_srt, user_bash), make_policy(project_srt, project_bash)


@settings(max_examples=300, deadline=None)
@given(pair())
def test_a_project_narrowing_reports_nothing_about_grants_nothing_the_user_lacks(
    policies: tuple[Policy, Policy],
) -> None:
    """Project alone (an agent that replaces the user's lists): every probe it allows, the
    user policy allows."""
    user_policy, project_policy = policies
    assume(narrowing_findings(project_policy, user_policy) == [])
    assert widened(user_policy, project_policy) == []


@settings(max_examples=300, deadline=None)
@given(pair())
def test_a_project_merged_into_the_user_policy_grants_nothing_the_user_lacks(
    policies: tuple[Policy, Policy],
) -> None:
    """Claude Code's merge of both scopes: every probe it allows, the user policy allows."""
    user_policy, project_policy = policies
    assume(narrowing_findings(project_policy, user_policy, replacing=()) == [])
    assert widened(user_policy, merged(user_policy, project_policy)) == []


@settings(max_examples=200, deadline=None)
@given(tree_policy(), bash(), st.sampled_from(["allowWrite", "allowedDomains", "allow"]))
def test_one_grant_the_user_lacks_is_reported_at_it(
    srt: dict[str, Any], rules: dict[str, list[str]], where: str
) -> None:
    user_policy = make_policy(srt, rules)
    assert narrowing_findings(user_policy, user_policy) == []  # a policy narrows itself
    extra = {"allowWrite": "~/zz-new", "allowedDomains": "zz-new.example", "allow": "zzcmd"}[where]
    project_srt = {k: {kk: list(vv) for kk, vv in v.items()} for k, v in srt.items()}
    project_bash = {k: list(v) for k, v in rules.items()}
    if where == "allow":
        project_bash["allow"].append(extra)
    else:
        project_srt["filesystem" if where == "allowWrite" else "network"][where].append(extra)
    project_policy = make_policy(project_srt, project_bash)
    assume(widened(user_policy, project_policy))  # the user does not already grant it
    found = narrowing_findings(project_policy, user_policy, replacing=())
    assert any(f"'{extra}'" in f.message for f in found)
    assert all(f.rule_id == "TWS225" and f.level.value == "error" for f in found)


# ---------------------------------------------------------- the indexes equal the pairwise test


@settings(max_examples=300, deadline=None)
@given(st.lists(tree_path(), min_size=1, max_size=6), st.data())
def test_holders_answer_as_every_region_asked_in_turn(
    paths: list[str], data: st.DataObject
) -> None:
    """Asked about one of the paths in another spelling (P, P/**, P/x), or about another path."""
    base = data.draw(st.sampled_from(paths)).removesuffix("/**").rstrip("/") or "/"
    spelled = st.sampled_from([base, base + "/**", base + "/x", base + "/x/**"])
    other = data.draw(spelled | tree_path())
    srt = {"filesystem": {"denyRead": paths, "allowRead": [other]}}
    policy = make_policy(srt)
    anchors = Anchors(home="/h", root="/h/app")
    regions = [region(rule, anchors) for rule in policy.deny_read]
    asked = region(policy.allow_read[0], anchors)
    assume(asked is not None and None not in regions)
    indexed = Holders([r for r in regions if r is not None]).hold(asked)
    assert indexed == any(r.holds(asked) for r in regions if r is not None)


def test_a_tree_below_holds_what_lies_below_it_never_itself() -> None:
    anchors = Anchors(home="/h")
    policy = make_policy({"filesystem": {"denyRead": ["~/a/**", "~/a", "~/a/b", "~/c/**"]}})
    below, tree, inner, other = [region(rule, anchors) for rule in policy.deny_read]
    assert below is not None and tree is not None and inner is not None and other is not None
    assert not Holders([below]).hold(tree) and Holders([below]).hold(inner)
    assert Holders([tree]).hold(below) and Holders([below]).hold(below)
    assert not Holders([below, inner]).hold(tree) and not Holders([other]).hold(inner)


word = st.sampled_from(["git", "push", "-f", "*", "a b", ""])


@given(
    st.lists(word, min_size=1, max_size=4).map(" ".join), st.lists(word, max_size=4).map(" ".join)
)
def test_command_holders_are_the_rules_that_hold_a_command(command: str, rule: str) -> None:
    assert (rule in command_holders(command)) == command_within(command, rule)


near = st.sampled_from(
    ["a.com", "b.a.com", "*.a.com", "*.b.a.com", "a.com:443", "*.a.com:80", "1.2.3.4", "*"]
)


@settings(max_examples=400, deadline=None)
@given(near | tree_domain, near | tree_domain)
@example("b.a.com", "*.a.com")
@example("*.b.a.com", "*.a.com")
@example("a.com:443", "a.com")
def test_domain_holders_are_the_entries_that_hold_an_entry(entry: str, other: str) -> None:
    assert (entry_key(other) in domain_holders(entry)) == domain_within(entry, other)


def test_a_left_out_command_is_reported_at_the_project_list_that_lacks_it() -> None:
    """The bash list's own key, as the srt lists are, not the start of the file."""
    bash = {"allow": ["git status"], "deny": ["git push --force"], "ask": ["git push"]}
    found = narrowing_findings(project(bash=bash), user(), replacing=("DeepCode",))
    column = json.dumps(bash).index('"deny"') + 1
    assert [(str(f.location), f.location.pointer) for f in found] == [
        (f"bash.json:1:{column}", "/deny")
    ]
    assert "'rm'" in found[0].message


LOOSENING = [
    ({"network": {"httpProxyPort": 3128}}, "network.httpProxyPort"),
    ({"network": {"socksProxyPort": 1080}}, "network.socksProxyPort"),
    ({"network": {"parentProxy": {"http": "http://proxy:8080"}}}, "network.parentProxy.http"),
    ({"network": {"mitmProxy": {"socketPath": "/s", "domains": ["x.com"]}}}, "network.mitmProxy"),
    ({"network": {"allowUnixSockets": ["/var/run/docker.sock"]}}, "network.allowUnixSockets"),
    ({"network": {"allowLocalBinding": True}}, "network.allowLocalBinding"),
    ({"network": {"tlsTerminate": {"extraCaCertPaths": ["ca.pem"]}}}, "extraCaCertPaths"),
    ({"filesystem": {"allowGitConfig": True}}, "filesystem.allowGitConfig"),
    ({"enableWeakerNestedSandbox": True}, "enableWeakerNestedSandbox"),
    ({"ripgrep": {"command": "./rg"}}, "ripgrep.command"),
    ({"bwrapPath": "/tmp/bwrap"}, "bwrapPath"),
    ({"seccomp": {"applyPath": "/tmp/apply"}}, "seccomp.applyPath"),
    ({"git": {"safeDirectories": ["*"]}}, "git.safeDirectories"),
    ({"mandatoryDenySearchDepth": 1}, "mandatoryDenySearchDepth"),
]


def test_every_key_that_routes_traffic_or_loosens_enforcement_is_a_grant() -> None:
    """srt 0.0.83's sandbox-config.js: each of these hands traffic to another proxy, trusts
    more, runs a program the policy names on the host, or protects less; a project that sets
    one the user does not is TWS225 at the key."""
    for srt, name in LOOSENING:
        found = narrowing_findings(project(srt), user(), replacing=())
        assert found and {f.rule_id for f in found} == {"TWS225"}, name
        assert name in found[0].message and found[0].location.path == "srt.json", name
    # a search depth at or above the user's (srt's default 3 when unset) protects as much
    for depth in (3, 5):
        assert narrowing_findings(project({"mandatoryDenySearchDepth": depth}), user()) == []
    deeper = make_policy({**USER_SRT, "mandatoryDenySearchDepth": 6}, USER_BASH)
    [lower] = narrowing_findings(project({"mandatoryDenySearchDepth": 5}), deeper, replacing=())
    assert "is 5, lower than the user policy's 6" in lower.message
    [left] = narrowing_findings(project(), deeper, replacing=("Codex",))
    assert left.message.startswith("the user policy sets 'mandatoryDenySearchDepth = 6'")
