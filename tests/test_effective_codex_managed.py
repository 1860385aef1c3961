"""The host's Codex managed layer in the user-scope check (TWS613-TWS615).

The sandbox's ``TWSRT_MANAGED_ROOT`` stands in for ``/``: the managed files are planted at
``<root>/host-root/etc/codex/``, never in the real /etc. Each test reads ``check``'s JSON report and
asserts the rule, the level and the file:line:col of every managed-layer finding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.codex_managed import managed_texts as texts_for
from support.policies import CODEX_NESTED_ACCEPTED
from support.sandbox import Sandbox

MANAGED_RULES = {"TWS613", "TWS614", "TWS615", "TWS608"}
USER_CONFIG = "home/.codex/config.toml"
ALLOWED = 'allowed_sandbox_modes = ["read-only"]\n'


@pytest.fixture
def box(sandbox: Sandbox) -> Sandbox:
    sandbox.write(
        "twsrt.toml",
        'checkout = "~/dotfiles"\n'
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[targets]\ncodex_config = "{USER_CONFIG}"\n' + CODEX_NESTED_ACCEPTED,
    )
    assert sandbox.run("generate", "-w").returncode == 0
    return sandbox


def system(box: Sandbox) -> Path:
    return box.home.parent / "host-root" / "etc" / "codex"


def plant(box: Sandbox, name: str, text: str) -> Path:
    path = system(box) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def managed_texts(box: Sandbox, mode: str = "workspace-write") -> dict[str, str]:
    """requirements.toml and managed_config.toml as twsrt generates them from the box's policy."""
    repo = box.repo
    return texts_for(repo / ".srt-settings.json", repo / "bash-rules.json", repo, mode)


def managed_findings(box: Sandbox) -> tuple[int, list[tuple]]:
    result = box.run("check", "--format", "json", "-v")
    assert "Traceback" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    found = [
        (
            f["rule_id"],
            f["level"],
            f["location"]["path"],
            f["location"]["line"],
            f["location"]["column"],
            tuple((r["path"], r["line"]) for r in f.get("related", [])),
        )
        for f in report["findings"]
        if f["rule_id"] in MANAGED_RULES
    ]
    return result.returncode, sorted(found)


def line_of(path: Path, token: str) -> int:
    text = path.read_text()
    return text.count("\n", 0, text.index(token)) + 1


def test_no_managed_layer_no_finding(box: Sandbox) -> None:
    code, found = managed_findings(box)
    assert (code, found) == (0, [])


def test_generated_managed_layer_only_notes_the_replaced_user_key(box: Sandbox) -> None:
    texts = managed_texts(box)
    plant(box, "requirements.toml", texts["requirements.toml"])
    managed = plant(box, "managed_config.toml", texts["managed_config.toml"])
    user = line_of(box.repo / USER_CONFIG, "default_permissions")
    code, found = managed_findings(box)
    assert code == 0
    assert found == [
        (
            "TWS613",
            "note",
            USER_CONFIG,
            user,
            1,
            ((managed.as_posix(), line_of(managed, "default_permissions")),),
        )
    ]


def test_requirements_alone_replace_the_user_profile_with_the_policys(box: Sandbox) -> None:
    requirements = plant(box, "requirements.toml", managed_texts(box)["requirements.toml"])
    user = line_of(box.repo / USER_CONFIG, "default_permissions")
    bound = line_of(requirements, "default_permissions")
    code, found = managed_findings(box)
    assert (code, found) == (
        0,
        [("TWS613", "note", USER_CONFIG, user, 1, ((requirements.as_posix(), bound),))],
    )


def test_requirements_allowing_the_user_profile_stay_quiet(box: Sandbox) -> None:
    text = managed_texts(box)["requirements.toml"]
    text = text.replace("twsrt-managed = true\n", "twsrt-managed = true\ntwsrt = true\n")
    plant(box, "requirements.toml", text)
    assert managed_findings(box) == (0, [])


def test_a_bound_profile_that_is_not_the_policys_cannot_be_checked(box: Sandbox) -> None:
    text = managed_texts(box)["requirements.toml"]
    assert '"~/.aws" = "deny"\n' in text
    requirements = plant(box, "requirements.toml", text.replace('"~/.aws" = "deny"\n', ""))
    code, found = managed_findings(box)
    assert code == 1
    assert [f[:5] for f in found] == [
        (
            "TWS615",
            "error",
            requirements.as_posix(),
            line_of(requirements, "default_permissions"),
            1,
        )
    ]


def test_wide_managed_keys_are_errors_at_their_lines(box: Sandbox) -> None:
    managed = plant(
        box,
        "managed_config.toml",
        'sandbox_mode = "danger-full-access"\napprovals_reviewer = "auto_review"\n'
        "allow_login_shell = true\n\n[features]\nnetwork_proxy = false\n",
    )
    requirements = plant(
        box,
        "requirements.toml",
        'default_permissions = ":workspace"\n\n[allowed_permission_profiles]\n'
        '":workspace" = true\n\n[features]\nnetwork_proxy = false\n',
    )
    code, found = managed_findings(box)
    assert code == 1
    wide = sorted(f[2:5] for f in found if f[0] == "TWS614" and f[1] == "error")
    assert wide == sorted(
        [
            (managed.as_posix(), 1, 1),
            (managed.as_posix(), 2, 1),
            (managed.as_posix(), 3, 1),
            (managed.as_posix(), 6, 1),
            (requirements.as_posix(), 1, 1),
            (requirements.as_posix(), 7, 1),
        ]
    )
    # the user's keys that managed_config.toml replaces: notes at the user's lines
    notes = sorted(f[3] for f in found if f[0] == "TWS613")
    user = box.repo / USER_CONFIG
    replaced = ("approvals_reviewer", "allow_login_shell", "network_proxy")
    assert notes == sorted(line_of(user, key) for key in replaced)


def test_danger_full_access_policy_accepts_the_full_access_profile(box: Sandbox) -> None:
    assert box.run("generate", "-w", "--sandbox", "danger-full-access").returncode == 0
    texts = managed_texts(box, "danger-full-access")
    plant(box, "requirements.toml", texts["requirements.toml"])
    plant(box, "managed_config.toml", texts["managed_config.toml"])
    result = box.run("check", "--format", "json", "--sandbox", "danger-full-access")
    report = json.loads(result.stdout)
    assert not [f for f in report["findings"] if f["rule_id"] in {"TWS614", "TWS615"}]


def test_unreadable_requirements_are_an_error(box: Sandbox) -> None:
    requirements = plant(box, "requirements.toml", ALLOWED + 'default_permissions = = "x"\n')
    code, found = managed_findings(box)
    assert code == 1
    assert [f[:5] for f in found] == [("TWS608", "error", requirements.as_posix(), 2, 23)]


def test_user_values_outside_the_allowed_sets_are_notes(box: Sandbox) -> None:
    text = managed_texts(box)["requirements.toml"]
    text = text.replace("twsrt-managed = true\n", "twsrt-managed = true\ntwsrt = true\n")
    text = text.replace('["on-request", "never"]', '["never"]')
    requirements = plant(box, "requirements.toml", text)
    user = box.repo / USER_CONFIG
    code, found = managed_findings(box)
    allowed = line_of(requirements, "allowed_approval_policies")
    assert (code, found) == (
        0,
        [
            (
                "TWS613",
                "note",
                USER_CONFIG,
                line_of(user, "approval_policy"),
                1,
                ((requirements.as_posix(), allowed),),
            )
        ],
    )


def test_a_managed_tree_is_checked_before_it_is_deployed(box: Sandbox) -> None:
    """``generate --managed out -w``, then the user-scope check with the tree's ``linux/`` as the
    host root: the tree binds the policy's own profile, so only the replaced key is noted."""
    assert box.run("generate", "codex", "--managed", "out", "-w").returncode == 0
    root = box.repo / "out" / "linux"
    result = box.run("check", "--format", "json", "-v", TWSRT_MANAGED_ROOT=str(root))
    found = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] in MANAGED_RULES]
    assert result.returncode == 0
    assert [(f["rule_id"], f["location"]["path"]) for f in found] == [("TWS613", USER_CONFIG)]


def test_a_managed_config_choosing_another_profile_is_checked(box: Sandbox) -> None:
    """managed_config.toml wins over the user's choice: its own profile is compared with the
    policy's (TWS615), a wide built-in is an error (TWS614); the user's key is noted."""
    managed = plant(
        box,
        "managed_config.toml",
        'default_permissions = "corp"\n\n[permissions.corp]\nextends = ":read-only"\n',
    )
    user = line_of(box.repo / USER_CONFIG, "default_permissions")
    code, found = managed_findings(box)
    assert code == 1
    assert [f[:5] for f in found] == [
        ("TWS613", "note", USER_CONFIG, user, 1),
        ("TWS615", "error", managed.as_posix(), 1, 1),
    ]
    plant(box, "managed_config.toml", 'default_permissions = ":danger-full-access"\n')
    code, found = managed_findings(box)
    assert code == 1
    assert [f[:5] for f in found] == [
        ("TWS613", "note", USER_CONFIG, user, 1),
        ("TWS614", "error", managed.as_posix(), 1, 1),
    ]
    plant(box, "managed_config.toml", 'default_permissions = ":read-only"\n')  # stricter
    assert managed_findings(box) == (0, [found[0]])
