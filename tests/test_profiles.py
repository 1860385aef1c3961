"""Fragments and profiles: the config tables, selection, composition and where findings stand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.sandbox import Sandbox, tree_snapshot

CONFIG = """\
home = "/home/user"
{default}
[fragments.base]
srt = "policy/base.srt.json"
bash_rules = "policy/base.bash.json"

[fragments.python]
bash_rules = "policy/python.bash.json"

[fragments.corp]
srt = "policy/corp.srt.json"

[targets]
claude_settings = "out/.claude/settings.full.json"

[profiles.work]
extends = ["base", "python", "corp"]
hosts = ["work-*", "*.corp.example.com"]

[profiles.work.targets]
claude_settings = "work/.claude/settings.full.json"

[profiles.home]
extends = ["base"]
hosts = ["home-pc"]
"""

BASE_SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.aws", "~/.ssh"],
    "allowWrite": ["/tmp"]
  },
  "network": {
    "allowedDomains": ["github.com"],
    "httpProxyPort": 3128
  }
}
"""

CORP_SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.kube"]
  },
  "network": {
    "allowedDomains": ["pypi.org", "corp.example.com"]
  }
}
"""

BASE_BASH = '{\n  "allow": ["git status"],\n  "deny": ["sudo"],\n  "ask": ["git push"]\n}\n'
PYTHON_BASH = '{\n  "allow": ["pytest"],\n  "ask": ["pip install"]\n}\n'


@pytest.fixture
def repo(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """A dotfiles repo whose config has three fragments and two profiles; this host matches
    neither profile's hosts."""
    monkeypatch.setattr("twsrt.profiles.host_names", lambda: ["laptop.example.net", "laptop"])
    for name in ("twsrt.toml", ".srt-settings.json", "bash-rules.json"):
        (sandbox.repo / name).unlink()
    sandbox.write("twsrt.toml", CONFIG.format(default=""))
    sandbox.write("policy/base.srt.json", BASE_SRT)
    sandbox.write("policy/corp.srt.json", CORP_SRT)
    sandbox.write("policy/base.bash.json", BASE_BASH)
    sandbox.write("policy/python.bash.json", PYTHON_BASH)
    return sandbox


def report(box: Sandbox, *args: str, **env: str) -> tuple[int, dict]:
    result = box.run("check", "--format", "json", "-v", *args, **env)
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


def located(data: dict, rule: str) -> list[tuple[str, int, int, str]]:
    return [
        (f["location"]["path"], f["location"]["line"], f["location"]["column"], f["message"])
        for f in data["findings"]
        if f["rule_id"] == rule
    ]


# ------------------------------------------------------------------------------ selection


def test_no_selection_is_an_error_listing_the_profiles(repo: Sandbox) -> None:
    code, data = report(repo)
    assert code == 2
    [(path, line, col, message)] = located(data, "TWS015")
    assert (path, line, col) == ("twsrt.toml", 16, 2)  # the first [profiles.*] table
    assert "no profile selected" in message and "(profiles: work, home)" in message
    assert "laptop.example.net" in message


@pytest.mark.parametrize(
    ("args", "written"),
    [(("--profile", "home"), "out"), ((), "work")],
)
def test_flag_wins_over_environment(repo: Sandbox, args: tuple[str, ...], written: str) -> None:
    """$TWSRT_PROFILE=work; --profile home wins (home keeps [targets]: out/)."""
    result = repo.run("generate", "-w", *args, TWSRT_PROFILE="work")
    assert result.returncode == 0, result.stderr
    assert [p.name for p in repo.repo.iterdir() if p.name in ("out", "work")] == [written]


def test_selection_order_and_origin(repo: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    from twsrt.configload import load_config

    path = repo.repo / "twsrt.toml"
    monkeypatch.chdir(repo.repo)
    chosen = load_config(path, repo.home, profile="work").selection
    assert (chosen.name, chosen.chosen_by, chosen.origin.line) == ("work", "--profile", 16)
    monkeypatch.setenv("TWSRT_PROFILE", "home")
    chosen = load_config(path, repo.home).selection
    assert (chosen.name, chosen.chosen_by, chosen.origin.line) == ("home", "$TWSRT_PROFILE", 23)
    assert load_config(path, repo.home, profile="work").selection.chosen_by == "--profile"
    monkeypatch.delenv("TWSRT_PROFILE")
    monkeypatch.setattr("twsrt.profiles.host_names", lambda: ["build7.corp.example.com", "build7"])
    chosen = load_config(path, repo.home).selection
    assert (chosen.name, chosen.chosen_by) == ("work", "hosts")
    assert (chosen.origin.line, chosen.origin.column) == (18, 20)  # the second hosts entry
    from twsrt.report import selection_text

    assert (chosen.host, chosen.pattern) == ("build7.corp.example.com", "*.corp.example.com")
    assert selection_text(chosen) == (
        'work (selected by hosts: host "build7.corp.example.com" matches '
        '"*.corp.example.com", twsrt.toml:18:20)'
    )
    monkeypatch.setattr("twsrt.profiles.host_names", lambda: ["HOME-PC"])
    assert load_config(path, repo.home).selection.name == "home"  # case-insensitive


def test_default_profile(repo: Sandbox) -> None:
    from twsrt.configload import load_config

    repo.write("twsrt.toml", CONFIG.format(default='profile = "home"'))
    chosen = load_config(repo.repo / "twsrt.toml", repo.home).selection
    assert (chosen.name, chosen.chosen_by, chosen.origin.line, chosen.origin.column) == (
        "home",
        "default",
        2,
        11,
    )


def test_two_profiles_matching_the_host_is_an_error(
    repo: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.write(
        "twsrt.toml",
        CONFIG.format(default="").replace('hosts = ["home-pc"]', 'hosts = ["*-laptop"]'),
    )
    monkeypatch.setattr("twsrt.profiles.host_names", lambda: ["work-laptop"])
    code, data = report(repo)
    assert code == 2
    [(path, line, col, message)] = located(data, "TWS015")
    assert (path, line, col) == ("twsrt.toml", 18, 10)
    assert "'work-*' of work and '*-laptop' of home (at twsrt.toml:25:10)" in message


@pytest.mark.parametrize(
    ("args", "env", "where"),
    [
        (("--profile", "nope"), {}, "--profile"),
        ((), {"TWSRT_PROFILE": "nope"}, "$TWSRT_PROFILE"),
    ],
)
def test_unknown_profile(
    repo: Sandbox, args: tuple[str, ...], env: dict[str, str], where: str
) -> None:
    before = tree_snapshot(repo.repo)
    result = repo.run("generate", "-w", *args, **env)
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"twsrt.toml:16:2: error[TWS015] profile 'nope' named by {where} is not defined "
        "(profiles: work, home)"
    )
    assert tree_snapshot(repo.repo) == before


def test_a_config_without_profiles_ignores_the_profile_option(sandbox: Sandbox) -> None:
    """--profile and $TWSRT_PROFILE mean nothing to a one-policy config: it behaves as before."""
    plain = sandbox.run("check", "--format", "json")
    flagged = sandbox.run("check", "--format", "json", "--profile", "x", TWSRT_PROFILE="y")
    assert (flagged.returncode, flagged.stdout) == (plain.returncode, plain.stdout)


# ------------------------------------------------------------------------------ structure


@pytest.mark.parametrize(
    ("edit", "line", "col", "text"),
    [
        (
            ('extends = ["base"]', 'extends = ["base", "pyhton"]'),
            24,
            20,
            "profile 'home' extends fragment 'pyhton', which [fragments] does not define "
            "(fragments: base, corp, python)",
        ),
        (
            ('extends = ["base"]', 'extends = ["base", "base"]'),
            24,
            20,
            "profile 'home' extends fragment 'base' twice",
        ),
        (('extends = ["base"]', "extends = []"), 24, 11, "profile 'home' extends no fragment"),
        (
            ('extends = ["base"]', 'extends = ["python"]'),
            24,
            11,
            "profile 'home' composes no srt file: none of its fragments names an srt file",
        ),
        (
            ("[targets]", '[sources]\nsrt = "x.json"\n\n[targets]'),
            13,
            2,
            "[sources] names the one policy of a config without profiles",
        ),
    ],
)
def test_structure_errors_stand_at_the_config_entry(
    repo: Sandbox, edit: tuple[str, str], line: int, col: int, text: str
) -> None:
    repo.write("twsrt.toml", CONFIG.format(default="").replace(*edit))
    before = tree_snapshot(repo.repo)
    code, data = report(repo, "--profile", "work")
    assert code == 2
    [(path, got_line, got_col, message)] = located(data, "TWS014")
    assert (path, got_line, got_col) == ("twsrt.toml", line, col)
    assert message.startswith(text)
    result = repo.run("generate", "-w", "--profile", "work")
    assert result.returncode == 2 and "TWS014" in result.stderr
    assert tree_snapshot(repo.repo) == before


def test_fragments_without_profiles(sandbox: Sandbox) -> None:
    sandbox.write("twsrt.toml", '[fragments.a]\nsrt = "a.json"\n')
    code, data = report(sandbox)
    assert code == 2
    assert located(data, "TWS014")[0][:3] == ("twsrt.toml", 1, 1)


def test_missing_fragment_file_stands_at_its_entry(repo: Sandbox) -> None:
    (repo.repo / "policy" / "python.bash.json").unlink()
    code, data = report(repo, "--profile", "work")
    assert code == 1  # as for a missing [sources] file: check reports it, generate stops
    [(path, line, col, message)] = located(data, "TWS002")
    assert (path, line, col) == ("twsrt.toml", 8, 14)
    assert message == ("fragment 'python': source file does not exist (policy/python.bash.json)")
    before = tree_snapshot(repo.repo)
    assert repo.run("generate", "-w", "--profile", "work").returncode == 2
    assert tree_snapshot(repo.repo) == before
    # home does not compose python: its missing file is not read
    assert report(repo, "--profile", "home")[0] == 1  # only the missing target (TWS301)


def test_fragment_outside_the_repository(repo: Sandbox) -> None:
    repo.write(
        "twsrt.toml",
        CONFIG.format(default="").replace(
            'bash_rules = "policy/python.bash.json"', 'bash_rules = "../python.bash.json"'
        ),
    )
    code, data = report(repo, "--profile", "home")
    assert code == 1  # every fragment is placed, the profile's or not
    [(path, line, col, message)] = located(data, "TWS005")
    assert (path, line, col) == ("twsrt.toml", 8, 14)
    assert message.startswith(
        "the bash_rules file of fragment python (~/python.bash.json) resolves to "
        "~/python.bash.json, outside the repository"
    )


# ------------------------------------------------------------------------------ composition


def test_composed_policy_keeps_each_entry_origin(repo: Sandbox) -> None:
    from twsrt.configload import load_config
    from twsrt.sources import load_policy

    config = load_config(
        repo.repo / "twsrt.toml", repo.home, repo.repo, display_root=repo.repo, profile="work"
    )
    policy = load_policy(config)
    assert [(r.path, str(r.origin), r.origin.pointer) for r in policy.deny_read] == [
        ("~/.aws", "policy/base.srt.json:3:18", "/filesystem/denyRead/0"),
        ("~/.ssh", "policy/base.srt.json:3:28", "/filesystem/denyRead/1"),
        ("~/.kube", "policy/corp.srt.json:3:18", "/filesystem/denyRead/0"),
    ]
    assert [(e.value, str(e.origin)) for e in policy.allowed_domains] == [
        ("github.com", "policy/base.srt.json:7:24"),
        ("pypi.org", "policy/corp.srt.json:6:24"),
        ("corp.example.com", "policy/corp.srt.json:6:36"),
    ]
    assert [(e.value, str(e.origin)) for e in policy.bash_ask] == [
        ("git push", "policy/base.bash.json:4:11"),
        ("pip install", "policy/python.bash.json:3:11"),
    ]
    assert policy.srt["network"] == {
        "allowedDomains": ["github.com", "pypi.org", "corp.example.com"],
        "httpProxyPort": 3128,
    }
    # scalar keys and composed list indexes map to the fragment that wrote them
    assert str(policy.srt_location("/network/httpProxyPort")) == "policy/base.srt.json:8:22"
    assert str(policy.srt_location("/network/allowedDomains/2")) == "policy/corp.srt.json:6:36"
    where = policy.srt_location("/network/allowedDomains/2")
    assert where.pointer == "/network/allowedDomains/1"  # the pointer inside its fragment
    assert str(policy.srt_location("/filesystem/allowWrite", key=True)) == (
        "policy/base.srt.json:4:5"
    )
    assert policy.fragment_of(policy.deny_read[2].origin) == "corp"
    # a whole list (a probe about no single entry) is named at its key in the first fragment
    assert str(policy.list_origin("/network/allowedDomains")) == "policy/base.srt.json:7:5"
    # a list no fragment has: the object that would hold it
    assert str(policy.list_origin("/filesystem/denyWrite")) == "policy/base.srt.json:2:17"


def test_a_one_file_policy_names_whole_lists_by_file(sandbox: Sandbox) -> None:
    from twsrt.configload import load_config
    from twsrt.locations import Location
    from twsrt.sources import load_policy

    config = load_config(sandbox.repo / "twsrt.toml", sandbox.home, display_root=sandbox.repo)
    policy = load_policy(config)
    assert policy.list_origin("/network/allowedDomains") == Location(
        ".srt-settings.json", 0, 0, "/network/allowedDomains"
    )


@pytest.mark.parametrize("value", ["3128", "3129"])
def test_a_scalar_set_by_two_fragments(repo: Sandbox, value: str) -> None:
    repo.write(
        "policy/corp.srt.json",
        CORP_SRT.replace('"allowedDomains"', f'"httpProxyPort": {value},\n    "allowedDomains"'),
    )
    code, data = report(repo, "--profile", "work")
    conflicts = located(data, "TWS016")
    if value == "3128":  # the same value twice is fine
        assert conflicts == [] and code == 1  # (the work target is missing)
        return
    assert code == 1  # a finding in a fragment, as a schema error; generate stops (exit 2)
    assert conflicts == [
        (
            "policy/corp.srt.json",
            6,
            22,
            "'/network/httpProxyPort' is 3129 in fragment 'corp' but 3128 in fragment 'base' "
            "(at policy/base.srt.json:8:22); a profile's fragments must agree on every single "
            "value",
        )
    ]
    before = tree_snapshot(repo.repo)
    assert repo.run("generate", "-w", "--profile", "work").returncode == 2
    assert tree_snapshot(repo.repo) == before


def test_allow_in_one_fragment_deny_in_another(repo: Sandbox) -> None:
    """An error at the allow entry naming the other; the same pair inside one file stays the
    note it was (TWS203)."""
    repo.write("policy/python.bash.json", PYTHON_BASH.replace('"pytest"', '"pytest", "git  push"'))
    repo.write("policy/base.bash.json", BASE_BASH.replace('"ask": [', '"ask": ["git status", '))
    code, data = report(repo, "--profile", "work")
    assert code == 1
    assert located(data, "TWS222")[1:] == [  # [0]: base's httpProxyPort (its own test)
        (
            "policy/python.bash.json",
            2,
            23,
            "fragment-conflict: 'git  push' is allowed in fragment \"python\" but asked for "
            '(ask) at policy/base.bash.json:4:25 (fragment "base")',
        )
    ]
    assert [f[:3] for f in located(data, "TWS203")] == [("policy/base.bash.json", 2, 13)]


def test_allowed_read_and_denied_read_in_two_fragments(repo: Sandbox) -> None:
    repo.write(
        "policy/corp.srt.json",
        CORP_SRT.replace('"denyRead": ["~/.kube"]', '"allowRead": ["~/.ssh/"]'),
    )
    code, data = report(repo, "--profile", "work")
    assert code == 1
    [_proxy, (path, line, col, message)] = located(data, "TWS222")
    assert (path, line, col) == ("policy/corp.srt.json", 3, 19)
    assert message == (
        "fragment-conflict: '~/.ssh' is allowed in fragment \"corp\" but denied (denyRead) at "
        'policy/base.srt.json:3:28 (fragment "base")'
    )


def test_a_nested_allowed_read_reopens_another_fragments_deny(repo: Sandbox) -> None:
    """Inside, around or another spelling of the other fragment's denyRead: an error at the
    allowRead naming the deny; the deny's own fragment may carve the same hole."""
    reads = '"~/.ssh/known_hosts", "/proc/self/root/home/user//.aws", "~/.kube/config"'
    corp = CORP_SRT.replace(
        '"denyRead": ["~/.kube"]', f'"denyRead": ["~/.kube"],\n    "allowRead": [{reads}]'
    )
    repo.write("policy/corp.srt.json", corp)
    _, data = report(repo, "--profile", "work")
    found = [f for f in located(data, "TWS222") if "httpProxyPort" not in f[3]]
    assert found == [
        (
            "policy/corp.srt.json",
            4,
            19,
            "fragment-conflict: '~/.ssh/known_hosts' is allowed (allowRead) in fragment "
            "\"corp\" and re-opens reads of '~/.ssh', denied (denyRead) at "
            'policy/base.srt.json:3:28 (fragment "base"), which that fragment does not re-open',
        ),
        (
            "policy/corp.srt.json",
            4,
            41,
            "fragment-conflict: '/proc/self/root/home/user//.aws' is allowed in fragment "
            '"corp" but denied (denyRead) at policy/base.srt.json:3:18 (fragment "base")',
        ),
    ]  # ~/.kube/config lies in corp's own deny: srt's carve-out, no finding
    base = BASE_SRT.replace(
        '"allowWrite"', '"allowRead": ["~/.ssh/known_hosts"],\n    "allowWrite"'
    )
    repo.write("policy/base.srt.json", base)
    _, data = report(repo, "--profile", "work")
    found = [f[3] for f in located(data, "TWS222") if "httpProxyPort" not in f[3]]
    assert len(found) == 1 and "'/proc/self/root/home/user//.aws'" in found[0]


def test_a_read_through_a_link_into_another_fragments_deny(repo: Sandbox) -> None:
    """~/keys is a symlink to ~/.ssh on this host: corp's allowRead of it re-opens base's deny
    (a host fact: TWS222 names the link, beside TWS220's warning; nothing generated changes)."""
    (repo.home / ".ssh").mkdir()
    (repo.home / "keys").symlink_to(repo.home / ".ssh")
    corp = CORP_SRT.replace('"denyRead": ["~/.kube"]', '"allowRead": ["~/keys"]')
    repo.write("policy/corp.srt.json", corp)
    _, data = report(repo, "--profile", "work")
    found = [f for f in located(data, "TWS222") if "httpProxyPort" not in f[3]]
    assert found == [
        (
            "policy/corp.srt.json",
            3,
            19,
            "fragment-conflict: '~/keys' is allowed in fragment \"corp\" but denied (denyRead) "
            "at policy/base.srt.json:3:28 (fragment \"base\"); '~/keys' is '~/.ssh' through a "
            "symlink on this host",
        )
    ]
    assert [f[:3] for f in located(data, "TWS220")] == [("policy/corp.srt.json", 3, 19)]


def test_a_granting_switch_one_fragment_sets_is_a_conflict(repo: Sandbox) -> None:
    """base hands the traffic to an external proxy (httpProxyPort), past the allowlist corp's
    rules rely on: an error at the key, naming corp's file; alike in both, or base alone (the
    home profile), it is the profile's own choice."""
    _, data = report(repo, "--profile", "work")
    [(path, line, col, message)] = located(data, "TWS222")
    assert (path, line, col) == ("policy/base.srt.json", 8, 22)
    assert message.startswith(
        "fragment-conflict: 'network.httpProxyPort' is set in fragment \"base\" and not alike "
        'in fragment "corp" (policy/corp.srt.json): srt hands the commands\' HTTP traffic to '
        "the proxy on this port, past its allowlist"
    )
    _, home = report(repo, "--profile", "home")
    assert located(home, "TWS222") == []
    repo.write(
        "policy/corp.srt.json",
        CORP_SRT.replace('"allowedDomains"', '"httpProxyPort": 3128,\n    "allowedDomains"'),
    )
    _, alike = report(repo, "--profile", "work")
    assert located(alike, "TWS222") == []


def test_repeated_entry_across_fragments_is_a_note(repo: Sandbox) -> None:
    repo.write("policy/corp.srt.json", CORP_SRT.replace('"~/.kube"', '"~/.kube", "~/.ssh"'))
    code, data = report(repo, "--profile", "work", "--fail-on", "warning")
    assert data["summary"]["warning"] == 0
    [(path, line, col, message)] = located(data, "TWS208")
    assert (path, line, col) == ("policy/corp.srt.json", 3, 29)
    assert "(first at policy/base.srt.json:3:28)" in message


def test_profile_targets_override_key_by_key(repo: Sandbox) -> None:
    result = repo.run("generate", "-w", "--profile", "work")
    assert result.returncode == 0, result.stderr
    assert (repo.repo / "work" / ".claude" / "settings.full.json").is_file()
    assert not (repo.repo / "out").exists()
    code, data = report(repo, "--profile", "home")
    # home keeps [targets]: its file is missing, reported at the [targets] entry
    assert [loc[:3] for loc in located(data, "TWS301")] == [("twsrt.toml", 14, 19)]
    (repo.repo / "work" / ".claude" / "settings.full.json").unlink()
    code, data = report(repo, "--profile", "work")
    [(path, line, col, message)] = located(data, "TWS301")
    assert (path, line, col) == ("twsrt.toml", 21, 19)  # the profile's own entry
    assert "twsrt generate -w --profile work" in message


def test_checked_files_are_the_profiles_fragments(repo: Sandbox) -> None:
    _, data = report(repo, "--profile", "work")
    sources = [f["path"] for f in data["checked"] if f["kind"] == "source"]
    assert sources == [
        "policy/base.srt.json",
        "policy/base.bash.json",
        "policy/python.bash.json",
        "policy/corp.srt.json",
    ]


def test_schema_error_in_a_fragment(repo: Sandbox) -> None:
    repo.write("policy/corp.srt.json", CORP_SRT.replace('"~/.kube"', "42"))
    code, data = report(repo, "--profile", "work")
    assert code == 1
    assert [f[:3] for f in located(data, "TWS102")] == [("policy/corp.srt.json", 3, 18)]


# ---------------------------------------------------------------------- every finding located

EVERY_KIND_CORP = """\
{
  "filesystem": {
    "denyRead": ["~/.kube"],
    "denyWrite": ["**/*.key"]
  },
  "network": {
    "allowedDomains": ["pypi.org", "*.corp.example.com"],
    "socksProxyPort": 1080
  }
}
"""


def test_every_kind_of_finding_stands_at_its_fragment_line(repo: Sandbox) -> None:
    """On a composed profile, a lint, a lossy translation, an agent's finding about a single
    key, a drift finding's rule origin and a schema error each name the fragment file, line
    and column (and the pointer inside that fragment) that caused them."""
    config = CONFIG.format(default="").replace(
        'claude_settings = "work/.claude/settings.full.json"',
        'claude_settings = "work/.claude/settings.full.json"\n'
        'codex_config = "work/.codex/config.toml"\n'
        'deepcode_settings = "work/.deepcode/settings.json"',
    )
    repo.write("twsrt.toml", config)
    repo.write("policy/corp.srt.json", EVERY_KIND_CORP)
    assert repo.run("generate", "-w", "--profile", "work").returncode == 0
    settings = repo.repo / "work" / ".claude" / "settings.full.json"
    text = settings.read_text(encoding="utf-8")
    settings.write_text(text.replace('      "Read(~/.kube)",\n', "", 1), encoding="utf-8")
    _, data = report(repo, "--profile", "work")

    def at(rule: str, agent: str = "") -> set[tuple[str, int, int, str]]:
        return {
            (
                f["location"]["path"],
                f["location"]["line"],
                f["location"]["column"],
                f["location"]["pointer"],
            )
            for f in data["findings"]
            if f["rule_id"] == rule and (not agent or f.get("agent") == agent)
        }

    corp = "policy/corp.srt.json"
    assert at("TWS206") == {(corp, 7, 36, "/network/allowedDomains/1")}  # a lint
    assert at("TWS407", "codex") == {(corp, 4, 19, "/filesystem/denyWrite/0")}  # lossy
    assert at("TWS414", "codex") >= {(corp, 8, 5, "/network/socksProxyPort")}  # a single key
    drift = [f for f in data["findings"] if f["rule_id"] == "TWS302"]
    assert [d["location"]["path"] for d in drift] == ["work/.claude/settings.full.json"]
    assert [(r["path"], r["line"], r["column"], r["pointer"]) for r in drift[0]["related"]] == [
        (corp, 3, 18, "/filesystem/denyRead/0")
    ]
    repo.write("policy/corp.srt.json", EVERY_KIND_CORP.replace("1080", '"1080"'))
    _, data = report(repo, "--profile", "work")
    assert at("TWS102") == {(corp, 8, 23, "/network/socksProxyPort")}  # a schema error


# ---------------------------------------------------------------------- files and commands


def test_fragment_names_and_the_pre_commit_hook(repo: Sandbox) -> None:
    """The hook's files pattern matches *.srt.json and *.bash.json; a fragment named otherwise
    is a note at its config entry."""
    import re

    from twsrt.registry import hook_files_regex

    pattern = re.compile(hook_files_regex())
    assert pattern.search("policy/corp-network.srt.json")
    assert pattern.search("python.bash.json")
    assert not pattern.search("policy/corp.json")
    _, data = report(repo, "--profile", "work")
    assert located(data, "TWS223") == []
    (repo.repo / "policy" / "corp.srt.json").rename(repo.repo / "policy" / "corp.json")
    config = CONFIG.format(default="").replace("policy/corp.srt.json", "policy/corp.json")
    repo.write("twsrt.toml", config)
    _, data = report(repo, "--profile", "home")  # every fragment, the profile's or not
    assert located(data, "TWS223") == [
        (
            "twsrt.toml",
            11,
            7,
            "policy/corp.json (fragment corp) does not match the pre-commit hook's files "
            "pattern: a change to it does not run the hook; name it *.srt.json",
        )
    ]


def test_a_target_on_a_fragment_file_is_refused(repo: Sandbox) -> None:
    config = CONFIG.format(default="").replace(
        '"work/.claude/settings.full.json"', '"policy/python.bash.json"'
    )
    repo.write("twsrt.toml", config)
    before = tree_snapshot(repo.repo)
    result = repo.run("generate", "-w", "--profile", "work")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "twsrt.toml:21:19: error[TWS006] claude_settings (policy/python.bash.json) is the same "
        "file as the bash_rules file of fragment python (policy/python.bash.json)"
    )
    assert tree_snapshot(repo.repo) == before


def test_edit_names_fragments(repo: Sandbox, tmp_path: Path) -> None:
    listing = repo.run("edit", "--profile", "work")
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout == (
        "base.srt     policy/base.srt.json\n"
        "base.bash    policy/base.bash.json\n"
        "python.bash  policy/python.bash.json\n"
        "corp.srt     policy/corp.srt.json\n"
    )
    log = tmp_path / "edited"
    editor = f"sh -c 'echo \"$0\" >> {log}'"
    assert repo.run("edit", "python.bash", "--profile", "work", EDITOR=editor).returncode == 0
    assert repo.run("edit", "bash", "--profile", "home", EDITOR=editor).returncode == 0
    assert log.read_text().split() == [
        str(repo.repo / "policy" / "python.bash.json"),
        str(repo.repo / "policy" / "base.bash.json"),  # home composes one bash fragment
    ]
    refused = repo.run("edit", "srt", "--profile", "work", EDITOR=editor)
    assert refused.returncode == 2
    assert "profile work composes 2 srt fragments; name one: base.srt, corp.srt" in (refused.stderr)
    repo.write("policy/corp.srt.json", '{"network": {"allowedDomains": [1]}}\n')
    invalid = repo.run("edit", "corp.srt", "--profile", "work", EDITOR=editor)
    assert invalid.returncode == 1
    assert invalid.stderr.startswith("policy/corp.srt.json:1:33: error[TWS102]")


@pytest.mark.parametrize(
    ("hostname", "names"),
    [
        ("Work-Laptop.corp.example.com", ["work-laptop.corp.example.com", "work-laptop"]),
        ("buildbox", ["buildbox"]),
    ],
)
def test_host_names_full_and_short(
    monkeypatch: pytest.MonkeyPatch, hostname: str, names: list[str]
) -> None:
    from twsrt import profiles

    monkeypatch.setattr("socket.gethostname", lambda: hostname)
    assert profiles.host_names() == names


def test_profile_before_the_command(repo: Sandbox) -> None:
    """`twsrt --profile P COMMAND` is `twsrt COMMAND --profile P`; the option holds for that run
    only (the library call after it selects by itself again)."""
    from twsrt.configload import load_config

    result = repo.run("--profile", "work", "generate", "-w")
    assert result.returncode == 0, result.stderr
    assert (repo.repo / "work" / ".claude" / "settings.full.json").is_file()
    from click.testing import CliRunner

    from twsrt.cli import cli

    runner = CliRunner()
    ran = runner.invoke(cli, ["--profile", "work", "-c", str(repo.repo / "twsrt.toml"), "diff"])
    assert ran.exit_code == 0, ran.output
    with pytest.raises(Exception, match="no profile selected"):
        load_config(repo.repo / "twsrt.toml", repo.home)
