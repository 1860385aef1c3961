"""Claude Code's managed settings: the managed file's translation (binding keys, paths as
Claude reads them there) and the effective check reading this machine's managed layer
(TWS610 overridden user keys, TWS611 managed grants, TWS612 dropped policy rules).

The machine's managed directory is ``$TWSRT_MANAGED_ROOT/etc/claude-code`` here (the Sandbox
points the root at an empty directory; a test plants the files), never the real /etc.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import Sandbox

from twsrt.agents.base import Context
from twsrt.agents.claude import managed as claude_managed
from twsrt.config import Config
from twsrt.policy import Policy
from twsrt.protection import protected_context

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "effective"
CLAUDE = "home/.claude/settings.full.json"
LOCAL = "home/.claude/settings.local.json"
MANAGED_RULES = {"TWS601", "TWS602", "TWS603", "TWS604", "TWS605", "TWS606", "TWS214"}
MANAGED_RULES |= {"TWS609", "TWS610", "TWS611", "TWS612", "TWS608"}


# ---------------------------------------------------------------- the managed file


def _policy(tmp_path: Path, srt: dict[str, Any], bash: dict[str, Any] | None = None) -> Context:
    from twsrt.sources import load_policy

    (tmp_path / "srt.json").write_text(json.dumps(srt, indent=2))
    (tmp_path / "bash.json").write_text(json.dumps(bash or {"allow": [], "deny": [], "ask": []}))
    config = Config(
        path=tmp_path / "twsrt.toml",
        display="twsrt.toml",
        home=Path("/home/user"),
        srt=tmp_path / "srt.json",
        bash_rules=tmp_path / "bash.json",
        scope="managed",
        scope_root=tmp_path / "out",
    )
    policy: Policy = load_policy(config)
    return protected_context(config, policy)


def test_the_managed_file_binds_the_floor(tmp_path: Path) -> None:
    srt = {
        "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."], "allowRead": ["~/.ssh/x"]},
        "network": {"allowedDomains": ["github.com"]},
    }
    ctx = _policy(tmp_path, srt, {"allow": [], "deny": ["sudo"], "ask": ["git push"]})
    managed, findings = claude_managed.managed_translation(ctx)
    document = claude_managed.managed_merge({}, managed)
    assert document["allowManagedPermissionRulesOnly"] is True
    assert list(document)[0] == "allowManagedPermissionRulesOnly"  # leads a new file
    permissions = document["permissions"]
    assert permissions["disableBypassPermissionsMode"] == "disable"
    # ask rules always: a managed file binds every approval mode
    assert permissions["ask"] == ["Bash(git push)", "Bash(git push *)"]
    assert "Bash(sudo *)" in permissions["deny"]
    sandbox = document["sandbox"]
    assert sandbox["enabled"] is True
    assert sandbox["failIfUnavailable"] is True
    assert sandbox["allowUnsandboxedCommands"] is False
    assert sandbox["network"]["allowManagedDomainsOnly"] is True
    assert sandbox["filesystem"]["allowManagedReadPathsOnly"] is True
    # a relative path means the working directory in managed settings, as in srt: kept
    assert sandbox["filesystem"]["allowWrite"] == ["."]
    assert [f.rule_id for f in findings] == []


def test_relative_paths_keep_their_srt_meaning(tmp_path: Path) -> None:
    srt = {
        "filesystem": {"denyRead": ["secrets/**", "**/*.pem"], "allowWrite": ["build"]},
        "credentials": {"files": [{"path": "rel-cred.txt", "mode": "deny"}]},
    }
    ctx = _policy(tmp_path, srt)
    managed, findings = claude_managed.managed_translation(ctx)
    filesystem = managed.sandbox["filesystem"]
    assert filesystem["allowWrite"] == ["build"]
    assert filesystem["denyRead"] == ["secrets/**", "**/*.pem"]
    assert managed.sandbox["credentials"]["files"][0]["path"] == "rel-cred.txt"
    # none of the user file's ~/.claude caveats (TWS402, TWS416, TWS417) applies here
    assert {f.rule_id for f in findings} <= {"TWS450"}


def test_overrides_and_managed_only_keys(tmp_path: Path) -> None:
    srt = {"filesystem": {"denyRead": ["~/.ssh"]}, "bwrapPath": "/usr/bin/bwrap"}
    ctx = _policy(tmp_path, srt)
    ctx.config.overrides["full"] = {"allowUnsandboxedCommands": True, "excludedCommands": ["x"]}
    managed, findings = claude_managed.managed_translation(ctx)
    assert managed.sandbox["allowUnsandboxedCommands"] is True  # the config's choice wins
    assert managed.sandbox["failIfUnavailable"] is True
    assert managed.sandbox["bwrapPath"] == "/usr/bin/bwrap"  # managed-only: compiled here
    merged = claude_managed.managed_merge({"sandbox": {"bwrapPath": "/old/bwrap"}}, managed)
    assert merged["sandbox"]["bwrapPath"] == "/usr/bin/bwrap"  # an old value is replaced
    assert set(managed.override_keys) >= {"allowUnsandboxedCommands", "failIfUnavailable"}


def test_the_admins_keys_survive_and_stale_keys_go(tmp_path: Path) -> None:
    ctx = _policy(tmp_path, {"filesystem": {"denyRead": ["~/.ssh"]}})
    managed, _ = claude_managed.managed_translation(ctx)
    existing = {
        "model": "claude-opus",
        "allowManagedPermissionRulesOnly": False,
        "permissions": {"allow": ["Bash(make *)"], "deny": ["Read(/old)"]},
        "sandbox": {"bwrapPath": "/old/bwrap", "network": {"allowManagedDomainsOnly": False}},
    }
    updates = claude_managed.managed_merge(existing, managed)
    assert updates["allowManagedPermissionRulesOnly"] is True
    assert "model" not in updates  # not a member twsrt owns: the splice keeps it as it is
    assert updates["permissions"]["allow"] == ["Bash(make *)"]  # the admin's allow rules
    assert "Read(/old)" not in updates["permissions"]["deny"]
    assert "bwrapPath" not in updates["sandbox"]  # left the policy
    assert updates["sandbox"]["network"]["allowManagedDomainsOnly"] is True


def test_a_disabled_sandbox_is_left_to_the_users(tmp_path: Path) -> None:
    """A managed ``enabled: false`` would switch every user's own sandbox off: left out."""
    ctx = _policy(tmp_path, {"enabled": False, "filesystem": {"denyRead": ["~/.ssh"]}})
    managed, findings = claude_managed.managed_translation(ctx)
    assert "enabled" not in managed.sandbox
    assert "failIfUnavailable" not in managed.sandbox
    assert "allowUnsandboxedCommands" not in managed.sandbox
    [note] = [f for f in findings if f.rule_id == "TWS451"]
    assert note.location.path.endswith("/srt.json")
    assert (note.location.line, note.location.pointer) == (2, "/enabled")
    updates = claude_managed.managed_merge({"sandbox": {"enabled": False}}, managed)
    assert "enabled" not in updates["sandbox"]  # an old managed false goes too


# ---------------------------------------------------------------- this machine's managed layer


@pytest.fixture
def planted(sandbox: Sandbox) -> Sandbox:
    shutil.rmtree(sandbox.repo)
    shutil.copytree(FIXTURE, sandbox.repo)
    (sandbox.repo / ".git").mkdir()
    assert sandbox.run("generate", "-w").returncode == 0
    return sandbox


def managed_dir(box: Sandbox) -> Path:
    return box.home.parent / "host-root" / "etc" / "claude-code"


def plant(box: Sandbox, document: dict[str, Any] | str, name: str = "") -> Path:
    path = managed_dir(box) / (name or "managed-settings.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2))
    return path


def claude_findings(box: Sandbox) -> tuple[int, list[dict]]:
    result = box.run("check", "--format", "json", "-v")
    assert "Traceback" not in result.stderr
    found = json.loads(result.stdout)["findings"]
    return result.returncode, [
        f for f in found if f["rule_id"] in MANAGED_RULES and f["agent"] == "claude"
    ]


def where(box: Sandbox, path: str, token: str, nth: int = 1) -> tuple[str, int, int]:
    """The file (as the report names it), 1-based line and column of ``token``'s ``nth``
    occurrence."""
    real = Path(path) if path.startswith("/") else box.repo / path
    text = real.read_text()
    offset = -1
    for _ in range(nth):
        offset = text.index(token, offset + 1)
    return path, text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def located(items: list[dict]) -> set[tuple]:
    return {
        (
            f["rule_id"],
            f["location"]["path"],
            f["location"]["line"],
            f["location"]["column"],
            tuple((r["path"], r["line"], r["column"]) for r in f.get("related", [])),
        )
        for f in items
    }


def target_rules(box: Sandbox) -> list[str]:
    permissions = json.loads((box.repo / CLAUDE).read_text())["permissions"]
    return [*permissions["deny"], *permissions["ask"]]


def test_without_a_managed_file_nothing_changes(planted: Sandbox) -> None:
    code, found = claude_findings(planted)
    assert code == 1
    assert not {f["rule_id"] for f in found} & {"TWS610", "TWS611", "TWS612"}


def test_managed_keys_override_the_users(planted: Sandbox) -> None:
    """A managed file that carries the policy's rules and binds the floor: the user findings
    it makes moot become notes at the same keys; what it cannot bind stays an error."""
    box = planted
    managed = plant(
        box,
        {
            "allowManagedPermissionRulesOnly": True,
            "permissions": {
                "deny": target_rules(box),
                "disableBypassPermissionsMode": "disable",
            },
            "sandbox": {
                "enabled": True,
                "allowUnsandboxedCommands": False,
                "network": {"allowManagedDomainsOnly": True, "allowedDomains": ["github.com"]},
                "filesystem": {"allowManagedReadPathsOnly": True},
            },
        },
    )
    shown = str(managed)
    code, found = claude_findings(box)
    assert code == 1  # the write roots stay errors: Claude has no switch that binds them
    srt, bash = "policy/srt-settings.json", "policy/bash-rules.json"
    allow_write = where(box, srt, '"allowWrite"')
    switch = where(box, shown, '"allowManagedPermissionRulesOnly"')
    expected = {
        # shadowed allows stay notes; the Edit write root and additionalDirectories stay errors
        ("TWS609", *where(box, CLAUDE, '"Bash(curl *)"'), (where(box, bash, '"curl"'),)),
        ("TWS609", *where(box, CLAUDE, '"Read(~/.ssh/**)"'), (where(box, srt, '"~/.ssh"'),)),
        (
            "TWS609",
            *where(box, LOCAL, '"WebFetch(domain:evil.example)"'),
            (where(box, srt, '"evil.example"'),),
        ),
        ("TWS604", *where(box, CLAUDE, '"Edit(~/elsewhere/**)"'), (allow_write,)),
        ("TWS604", *where(box, CLAUDE, '"/opt/data"'), (allow_write,)),
        ("TWS604", *where(box, LOCAL, '"/etc"'), (allow_write,)),
        # lists merge: the managed layer does not undo excludedCommands or enabledPlatforms
        ("TWS601", *where(box, CLAUDE, '"docker"'), (where(box, srt, '"enabled"'),)),
        ("TWS214", *where(box, CLAUDE, '"enabledPlatforms"'), (where(box, srt, '"enabled"'),)),
        ("TWS606", *where(box, LOCAL, '"allowLocalBinding"'), ()),
        # overridden: a note at the user key, the managed key related
        ("TWS610", *where(box, CLAUDE, '"allow"'), (switch,)),
        (
            "TWS610",
            *where(box, CLAUDE, '"defaultMode"'),
            (where(box, shown, '"disableBypassPermissionsMode"'),),
        ),
        (
            "TWS610",
            *where(box, CLAUDE, '"allowUnsandboxedCommands"'),
            (where(box, shown, '"allowUnsandboxedCommands"'),),
        ),
        ("TWS610", *where(box, LOCAL, '"allow"'), (switch,)),
        ("TWS610", *where(box, LOCAL, '"deny"'), (switch,)),
        ("TWS610", *where(box, LOCAL, '"enabled"'), (where(box, shown, '"enabled"'),)),
        (
            "TWS610",
            *where(box, LOCAL, '"allowedDomains"'),
            (where(box, shown, '"allowManagedDomainsOnly"'),),
        ),
        (
            "TWS610",
            *where(box, LOCAL, '"allowRead"'),
            (where(box, shown, '"allowManagedReadPathsOnly"'),),
        ),
    }
    assert located(found) == expected
    local_domains = next(f for f in found if f["location"]["pointer"].endswith("allowedDomains"))
    # what the note replaced is named in it
    assert "registry.npmjs.org" in local_domains["message"], local_domains


def test_a_managed_layer_that_grants_more_is_an_error(planted: Sandbox) -> None:
    box = planted
    managed = plant(
        box,
        {
            "sandbox": {
                "enabled": False,
                "network": {"allowedDomains": ["evil.example.org"]},
                "filesystem": {"allowWrite": ["/srv"]},
            },
        },
    )
    drop_in = plant(
        box,
        {"permissions": {"allow": ["WebFetch(domain:pastebin.com)"]}},
        "managed-settings.d/x.json",
    )
    shown, extra = str(managed), str(drop_in)
    _code, found = claude_findings(box)
    grants = {f for f in located(found) if f[0] == "TWS611"}
    srt = "policy/srt-settings.json"
    assert grants == {
        ("TWS611", *where(box, shown, '"enabled"'), (where(box, srt, '"enabled"'),)),
        ("TWS611", *where(box, shown, '"/srv"'), (where(box, srt, '"allowWrite"'),)),
        (
            "TWS611",
            *where(box, shown, '"evil.example.org"'),
            (where(box, srt, '"allowedDomains"'),),
        ),
        (
            "TWS611",
            *where(box, extra, '"WebFetch(domain:pastebin.com)"'),
            (where(box, srt, '"allowedDomains"'),),
        ),
    }
    # the user's sandbox.enabled: false in settings.local.json is moot (managed false wins too)
    assert ("TWS610", *where(box, LOCAL, '"enabled"')) not in {f[:4] for f in located(found)}


def test_rules_only_without_the_policys_rules_drops_them(planted: Sandbox) -> None:
    box = planted
    rules = target_rules(box)
    managed = plant(
        box, {"allowManagedPermissionRulesOnly": True, "permissions": {"deny": rules[1:]}}
    )
    _code, found = claude_findings(box)
    dropped = [f for f in found if f["rule_id"] == "TWS612"]
    assert located(dropped) == {
        (
            "TWS612",
            *where(box, str(managed), '"allowManagedPermissionRulesOnly"'),
            (where(box, CLAUDE, json.dumps(rules[0])),),
        )
    }
    assert dropped[0]["level"] == "error"
    plant(box, {"allowManagedPermissionRulesOnly": True, "permissions": {"ask": rules}})
    _code, found = claude_findings(box)
    assert not [f for f in found if f["rule_id"] == "TWS612"]  # all carried (ask is enough)


def test_an_unreadable_managed_file_is_reported(planted: Sandbox) -> None:
    box = planted
    managed = plant(box, '{"sandbox": {"enabled": true,}}')
    _code, found = claude_findings(box)
    unreadable = [f for f in found if f["rule_id"] == "TWS608"]
    assert [(f["location"]["path"], f["location"]["line"]) for f in unreadable] == [
        (str(managed), 1)
    ]
