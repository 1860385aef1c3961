"""The level policy (issue 15 item 5): error = the agent gets more than the policy or a check
could not be made, warning = an agent enforces less, note = it enforces more or nothing is lost.
The catalog, the conditional rules, a fresh scaffold, and what generate prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.policies import CODEX_NESTED_ACCEPTED
from support.sandbox import Sandbox

from twsrt.agents.copilot import agent as copilot
from twsrt.agents.deepcode import agent as deepcode
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.rules import BASIS_LEVEL, CATALOG, Basis, Level
from twsrt.sources import build_policy

HOME = "/home/user"


def invoke(box: Sandbox, *args: str, cwd: Path | None = None, **env: str) -> tuple[int, str, str]:
    """The CLI from ``cwd`` (default: the repository), with the sandbox's HOME."""
    result = box.run(*args, cwd=cwd, **env)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def policy_of(srt: dict, bash: dict | None = None):
    return with_root_names(
        build_policy(
            parse_json(json.dumps(srt, indent=2)),
            "srt.json",
            parse_json(json.dumps(bash or {})),
            "bash.json",
        )
    )


# ---------------------------------------------------------------- the catalog


def test_every_rule_has_a_basis_whose_level_it_carries() -> None:
    """The walk over the catalog: each rule says why it has its level, and the level is the one
    the policy gives that reason."""
    assert {b: BASIS_LEVEL[b] for b in Basis} == {
        Basis.WIDENS: Level.ERROR,
        Basis.CANNOT_CHECK: Level.ERROR,
        Basis.DROPS: Level.WARNING,
        Basis.STRICTER: Level.NOTE,
        Basis.INFO: Level.NOTE,
    }
    for rule in CATALOG.values():
        assert isinstance(rule.basis, Basis), rule.id
        assert rule.level is rule.basis.level, (rule.id, rule.level, rule.basis)
        if not rule.suppressible:  # what can never be hidden is never below an error
            assert rule.level is Level.ERROR, rule.id


@pytest.mark.parametrize(
    ("rule_id", "basis"),
    [
        # the warnings the bundled example printed before, each decided on its own
        ("TWS407", Basis.STRICTER),  # Codex denies reads of a write-only glob
        ("TWS409", Basis.STRICTER),  # Codex asks before a command leaves its sandbox
        ("TWS420", Basis.STRICTER),  # Copilot denies an ask rule outright
        ("TWS412", Basis.DROPS),  # Codex's glob snapshot: later files stay writable
        ("TWS421", Basis.DROPS),  # a relative deny left out of an absolute-path sandbox
        ("TWS432", Basis.DROPS),  # a deny inside what DeepCode's Linux sandbox mounts
        ("TWS433", Basis.DROPS),  # a denied host that an allowed pattern admits
        ("TWS434", Basis.DROPS),  # DeepCode on macOS lets every host through
        ("TWS501", Basis.DROPS),  # srt on Linux skips a write glob
        # and the rest of the catalog where the level moved
        ("TWS203", Basis.STRICTER),
        ("TWS205", Basis.STRICTER),
        ("TWS408", Basis.STRICTER),
        ("TWS410", Basis.STRICTER),
        ("TWS430", Basis.INFO),
        ("TWS503", Basis.WIDENS),  # /tmp writable whatever the policy says: more, not less
        # the note forms split off rules whose loss depends on the policy
        ("TWS440", Basis.INFO),
        ("TWS441", Basis.STRICTER),
        ("TWS442", Basis.STRICTER),
        ("TWS443", Basis.STRICTER),
        ("TWS444", Basis.INFO),
    ],
)
def test_recalibrated_rules(rule_id: str, basis: Basis) -> None:
    assert CATALOG[rule_id].basis is basis
    assert CATALOG[rule_id].level is basis.level


def test_rules_doc_states_the_level_policy() -> None:
    from twsrt.docs import render_rules_markdown

    text = render_rules_markdown()
    assert "## Levels" in text
    for basis in Basis:
        assert f"`{basis.value}`" in text
    assert (
        "| [TWS444](#tws444-deepcode-linux-deny-unmounted) | deepcode-linux-deny-unmounted | "
        in (text)
    )


# ---------------------------------------------------------------- conditional rules


def _by_rule(findings: list) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in findings:
        out.setdefault(item.rule_id, []).append(item.location.pointer)
    return out


def test_deepcode_denied_host_inside_an_allowed_pattern_stays_a_warning() -> None:
    """The attack: `evil.example.com` is denied, `*.example.com` allowed. DeepCode ignores
    deniedDomains, so its allow-list lets the host through: a warning at that entry. A denied
    host no allowed entry admits is blocked by the allow-list anyway: a note."""
    srt = {
        "network": {
            "allowedDomains": ["*.example.com", "github.com"],
            "deniedDomains": ["evil.example.com", "pastebin.com", "*:22"],
        }
    }
    _managed, findings = deepcode.translate(policy_of(srt), False, "workspace-write", HOME)
    found = _by_rule(findings)
    assert found["TWS433"] == ["/network/deniedDomains/0", "/network/deniedDomains/2"]
    assert found["TWS440"] == ["/network/deniedDomains/1"]
    levels = {f.rule_id: f.level for f in findings}
    assert (levels["TWS433"], levels["TWS440"]) == (Level.WARNING, Level.NOTE)


def test_deepcode_no_allowed_host_means_nothing_is_lost() -> None:
    srt = {"network": {"allowedDomains": [], "deniedDomains": ["*"]}}
    _managed, findings = deepcode.translate(policy_of(srt), False, "workspace-write", HOME)
    assert _by_rule(findings).get("TWS433") is None
    assert _by_rule(findings)["TWS440"] == ["/network/deniedDomains/0"]


def test_deepcode_linux_deny_is_a_warning_where_the_sandbox_mounts_the_path() -> None:
    """bubblewrap mounts the system directories, the grants and the working directory and
    applies no deny: `~/proj/secrets` under the write root `~/proj`, `/etc/shadow` under the
    read-only `/etc` and `.git` of the write root are readable or writable there (warnings).
    `~/.aws` is in no mount, and `/etc/hosts` is only mounted read-only (notes)."""
    srt = {
        "filesystem": {
            "denyRead": ["~/.aws", "~/proj/secrets", "/etc/shadow"],
            "denyWrite": ["/etc/hosts", "~/proj/.git"],
            "allowWrite": ["~/proj"],
        }
    }
    _managed, findings = deepcode.translate(policy_of(srt), False, "workspace-write", HOME)
    found = _by_rule(findings)
    assert found["TWS432"] == [
        "/filesystem/denyWrite/1",
        "/filesystem/denyRead/1",
        "/filesystem/denyRead/2",
    ]
    assert found["TWS444"] == ["/filesystem/denyWrite/0", "/filesystem/denyRead/0"]
    # read-only carries no write root: the same denyWrite loses nothing there
    _managed, findings = deepcode.translate(policy_of(srt), False, "read-only", HOME)
    assert "/filesystem/denyWrite/1" in _by_rule(findings)["TWS444"]


def test_grants_left_out_are_notes_and_denies_left_out_are_warnings() -> None:
    srt = {
        "filesystem": {
            "denyRead": ["secrets", "~/*.key"],
            "allowWrite": ["out", "~/projects/*"],
        }
    }
    for module in (copilot, deepcode):
        _managed, findings = module.translate(policy_of(srt), False, "workspace-write", HOME)
        got = {(f.rule_id, f.location.pointer, f.level) for f in findings}
        assert {
            ("TWS421", "/filesystem/denyRead/0", Level.WARNING),
            ("TWS422", "/filesystem/denyRead/1", Level.WARNING),
            ("TWS441", "/filesystem/allowWrite/0", Level.NOTE),
            ("TWS442", "/filesystem/allowWrite/1", Level.NOTE),
        } <= got, module.NAME


# ---------------------------------------------------------------- a fresh scaffold


def test_fresh_scaffold_checks_without_warnings(sandbox: Sandbox) -> None:
    """`init --repo`, then `check`: no errors and no warnings. The home is an ordinary one (not
    below the starter's /tmp write root, as the test's temporary HOME is: Codex could not pin a
    deny below /tmp spelled with ~/, TWS418, a real finding on such a machine)."""
    repo = sandbox.home / "dots"
    (repo / ".git").mkdir(parents=True)
    home = {"HOME": "/home/twsrt-newcomer"}
    code, _out, err = invoke(sandbox, "init", "--repo", str(repo), **home)
    assert code == 0, err
    config = repo / "twsrt.toml"
    # the scaffold names where the repository lies (here below /tmp, a write root of the
    # starter: TWS229); on the agents' machines it is checked out in the home
    assert f'checkout = "{repo}"' in config.read_text()
    config.write_text(config.read_text().replace(f'checkout = "{repo}"', 'checkout = "~/dots"'))
    assert invoke(sandbox, "generate", "-w", cwd=repo, **home)[0] == 0
    code, out, _err = invoke(
        sandbox, "check", "--format", "json", "--fail-on", "warning", cwd=repo, **home
    )
    summary = json.loads(out)["summary"]
    assert (code, summary["error"], summary["warning"]) == (0, 0, 0), out


# ---------------------------------------------------------------- generate's report


LOSSY_SRT = {
    "filesystem": {"denyRead": ["~/.aws"], "denyWrite": ["**/.env"], "allowWrite": ["."]},
    "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
}
CONFIG = """\
checkout = "~/dotfiles"

[sources]
srt = "srt.json"
bash_rules = "bash.json"

[targets]
codex_config = "home/.codex/config.toml"
"""


@pytest.fixture
def lossy(sandbox: Sandbox) -> Sandbox:
    """A repository whose config lives in a subdirectory, with one real loss (a glob that
    Codex expands once) and a stricter translation (the same glob denied for reads too)."""
    (sandbox.repo / ".git").mkdir(exist_ok=True)
    sandbox.write("policy/twsrt.toml", CONFIG + CODEX_NESTED_ACCEPTED)
    sandbox.write("policy/srt.json", LOSSY_SRT)
    sandbox.write("policy/bash.json", {"deny": ["sudo"], "ask": ["git push"]})
    return sandbox


def test_generate_prints_one_count_line(lossy: Sandbox) -> None:
    code, _out, err = invoke(lossy, "generate", "-w", cwd=lossy.repo / "policy")
    assert code == 0, err
    assert "[TWS" not in err  # the list is check's (or -v's)
    assert (
        "twsrt generate: 0 errors, 1 warning, 6 notes; 1 suppressed (twsrt check or -v for the "
        "list)" in err.splitlines()
    )
    code, _out, err = invoke(lossy, "generate", "-w", "-v", cwd=lossy.repo / "policy")
    assert "twsrt generate: 0 errors, 1 warning, 6 notes; 1 suppressed" in err.splitlines()
    # TWS412, TWS407, TWS468, TWS409, TWS467 for ~/.config/opencode and ~/.config/kilo (the
    # protected layers of OpenCode and Kilo), and the policy's own TWS207 (as check counts it)
    assert sum("[TWS" in line for line in err.splitlines()) == 7


def test_generate_diff_and_check_name_a_finding_by_the_same_path(lossy: Sandbox) -> None:
    """From the config's directory, check names files relative to the repository root; generate
    used to name them relative to the working directory, so one finding had two paths."""
    where = lossy.repo / "policy"
    _code, out, _err = invoke(lossy, "check", "-v", cwd=where)
    checked = [line for line in out.splitlines() if "[TWS412]" in line]
    assert checked and checked[0].startswith("policy/srt.json:7:7: warning[TWS412]")
    _code, _out, err = invoke(lossy, "generate", "-v", cwd=where)
    assert [line for line in err.splitlines() if "[TWS412]" in line] == checked
    code, out, _err = invoke(lossy, "diff", cwd=where)
    assert code == 2  # the target is missing
    assert out.startswith("codex: policy/home/.codex/config.toml: missing")


def test_generate_counts_the_policy_findings_check_reports(sandbox: Sandbox) -> None:
    """A cross-fragment conflict (TWS222) is an error of the policy: generate lists and counts
    it as check does (it once said "0 errors")."""
    sandbox.write(
        "twsrt.toml",
        'checkout = "~/dotfiles"\nprofile = "p"\n\n[fragments.a]\nsrt = ".srt-settings.json"\n'
        'bash_rules = "a.bash.json"\n\n[fragments.b]\nbash_rules = "b.bash.json"\n\n'
        '[profiles.p]\nextends = ["a", "b"]\n\n[targets]\n'
        'claude_settings = "home/.claude/settings.full.json"\n',
    )
    sandbox.write("a.bash.json", {"allow": ["curl"]})
    sandbox.write("b.bash.json", {"deny": ["curl"]})
    report = json.loads(sandbox.run("check", "--format", "json").stdout)
    conflicts = [f for f in report["findings"] if f["rule_id"] == "TWS222"]
    assert [(f["level"], f["location"]["path"], f["location"]["line"]) for f in conflicts] == [
        ("error", "a.bash.json", 3)
    ]
    for args in (("generate", "-w"), ("generate",), ("generate", "-n", "-w")):
        err = sandbox.run(*args).stderr
        assert "a.bash.json:3:5: error[TWS222] fragment-conflict: 'curl'" in err, err
        count = err.splitlines()[-1]
        assert count.startswith("twsrt generate: ") and "0 errors" not in count, err
