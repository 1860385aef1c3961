"""The Factory Droid target on its own terms: the sandbox block with every key written out
(``enabled: true``, observed necessary), deny/ask/allow into commandBlocklist/commandDenylist/
commandAllowlist, the paths as the policy spells them (Droid resolves ``~`` and relative paths
as srt does, observed), the protected names and Droid's always-writable directories in
denyWrite, the bytes equal in both approval modes, the user's bytes kept by the merge, and the
effective check. Each behaviour has its control: the same run without what the rule is about."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.rule_cases import config
from support.sandbox import Sandbox

from twsrt.agents.droid.declaration import FACTORY_TEMP, FACTORY_WRITABLE

TARGET = "home/.factory/settings.json"
SRT = {
    "filesystem": {
        "denyRead": ["/etc/shadow", "~/.ssh", "secrets", "~/logs/*.txt"],
        "denyWrite": ["./build/out", "**/.env"],
        "allowWrite": [".", "/tmp", "~/out/*"],
    },
    "network": {"allowedDomains": ["github.com", "*.npmjs.org", "localhost:3000"]},
}
BASH = {"deny": ["rm -rf", "sudo"], "ask": ["git push"], "allow": ["gh pr view"]}


def _setup(sandbox: Sandbox, srt: dict[str, Any] | None = None, bash: Any = None) -> None:
    sandbox.write("twsrt.toml", config(f'droid_settings = "{TARGET}"\n'))
    sandbox.write(".srt-settings.json", srt if srt is not None else SRT)
    sandbox.write("bash-rules.json", bash if bash is not None else BASH)


def _generate(sandbox: Sandbox, *args: str) -> dict[str, Any]:
    result = sandbox.run("generate", "droid", "-w", *args)
    assert result.returncode == 0, result.stderr
    loaded: dict[str, Any] = json.loads((sandbox.repo / TARGET).read_text())
    return loaded


def test_the_command_lists_take_deny_ask_and_allow(sandbox: Sandbox) -> None:
    _setup(sandbox)
    document = _generate(sandbox)
    assert document["commandBlocklist"] == ["rm -rf", "sudo"]
    assert document["commandDenylist"] == ["git push"]
    assert document["commandAllowlist"] == ["gh pr view"]


def test_every_sandbox_key_is_written(sandbox: Sandbox) -> None:
    """A block without enabled confines nothing (observed): every key is there."""
    _setup(sandbox, {"filesystem": {"allowWrite": ["."]}})
    block = _generate(sandbox)["sandbox"]
    assert block["enabled"] is True and block["mode"] == "per-command"
    assert list(block["filesystem"]) == ["allowWrite", "allowRead", "denyWrite", "denyRead"]
    assert block["network"] == {
        "allowedDomains": [],
        "allowUnixSockets": [],
        "allowAllUnixSockets": False,
        "allowLocalBinding": False,
    }


def test_paths_stay_as_the_policy_spells_them(sandbox: Sandbox) -> None:
    """``~`` and relative paths are Droid's to resolve (observed): no home in the bytes."""
    _setup(sandbox)
    filesystem = _generate(sandbox)["sandbox"]["filesystem"]
    assert filesystem["denyRead"][:3] == ["/etc/shadow", "~/.ssh", "secrets"]
    # a deny glob becomes its concrete directory (stricter): Droid's file tools match no
    # wildcard; a glob under the launch directory stays as written (srt expands it)
    assert "~/logs" in filesystem["denyRead"]
    assert {"./build/out", "**/.env"} <= set(filesystem["denyWrite"])
    # a grant glob is left out: a parent would grant more
    assert filesystem["allowWrite"] == [".", "/tmp"]
    assert "/home/user" not in json.dumps(filesystem)


def test_protected_names_are_denied_at_every_write_root(sandbox: Sandbox) -> None:
    _setup(sandbox)
    deny = _generate(sandbox)["sandbox"]["filesystem"]["denyWrite"]
    for name in (".factory/settings.json", ".factory/hooks.json", ".claude/settings.json"):
        assert name in deny and f"/tmp/{name}" in deny
    # the user layers of every agent, Droid's own among them
    assert {"~/.factory/settings.json", "~/.factory/droids", "~/.claude"} <= set(deny)
    # Droid's always-writable ~/.factory directories, but its commands' TMPDIR
    assert set(FACTORY_WRITABLE) - {FACTORY_TEMP} <= set(deny)
    assert FACTORY_TEMP not in deny
    assert "." not in deny


@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
def test_an_ungranted_launch_directory_is_reported(sandbox: Sandbox, mode: str) -> None:
    """Droid always lets commands write where it starts, and a denyWrite "." would make every
    command fail (the property test saw it): the names there are denied, the grant reported."""
    _setup(sandbox, {"filesystem": {"allowWrite": ["/srv/data"]}})
    result = sandbox.run("generate", "droid", "-w", "-v", "--sandbox", mode)
    filesystem = json.loads((sandbox.repo / TARGET).read_text())["sandbox"]["filesystem"]
    assert "." not in filesystem["denyWrite"]
    assert ".factory/settings.json" in filesystem["denyWrite"]
    assert filesystem["allowWrite"] == ([] if mode == "read-only" else ["/srv/data"])
    assert "the directory it starts in, which the policy does not grant" in result.stderr


def test_a_granted_launch_directory_is_not_reported(sandbox: Sandbox) -> None:
    _setup(sandbox)
    result = sandbox.run("generate", "droid", "-v")
    assert "error[TWS495]" in result.stderr
    assert "which the policy does not grant" not in result.stderr


def test_ports_are_left_out_of_allowed_domains(sandbox: Sandbox) -> None:
    _setup(sandbox)
    result = sandbox.run("generate", "droid", "-w", "-v")
    document = json.loads((sandbox.repo / TARGET).read_text())
    assert document["sandbox"]["network"]["allowedDomains"] == ["github.com", "*.npmjs.org"]
    assert "TWS403" in result.stderr and "localhost:3000" in result.stderr


def test_factory_hosts_are_always_reported(sandbox: Sandbox) -> None:
    _setup(sandbox)
    result = sandbox.run("generate", "droid", "-v")
    assert "error[TWS495]" in result.stderr and "api.factory.ai" in result.stderr


def test_danger_full_access_writes_the_sandbox_off_and_keeps_the_lists(sandbox: Sandbox) -> None:
    _setup(sandbox)
    document = _generate(sandbox, "--sandbox", "danger-full-access")
    assert document["sandbox"] == {"enabled": False}
    assert document["commandBlocklist"] == ["rm -rf", "sudo"]


def test_both_approval_modes_write_the_same_bytes(sandbox: Sandbox) -> None:
    _setup(sandbox)
    full = sandbox.run("generate", "droid")
    yolo = sandbox.run("generate", "droid", "--yolo")
    assert full.returncode == yolo.returncode == 0
    assert full.stdout == yolo.stdout


def test_the_merge_keeps_every_user_byte(sandbox: Sandbox) -> None:
    _setup(sandbox)
    user = (
        '{\n  "model": "custom:x",\n  "hooks": {"a": [1, 2]},\n'
        '  "sandbox": {"enabled": false},\n  "enableCompletionBell":   true\n}\n'
    )
    sandbox.write(TARGET, user)
    _generate(sandbox)
    text = (sandbox.repo / TARGET).read_text()
    assert text.startswith('{\n  "model": "custom:x",\n  "hooks": {"a": [1, 2]},\n')
    assert '"enableCompletionBell":   true' in text
    assert json.loads(text)["sandbox"]["enabled"] is True
    assert sandbox.run("diff", "droid").returncode == 0


def test_a_hand_edited_sandbox_is_drift(sandbox: Sandbox) -> None:
    _setup(sandbox)
    document = _generate(sandbox)
    document["sandbox"]["enabled"] = False
    sandbox.write(TARGET, document)
    assert sandbox.run("diff", "droid").returncode == 1


def test_a_wildcard_deny_or_ask_becomes_its_leading_words(sandbox: Sandbox) -> None:
    """Droid reads ``*`` literally (observed): the words before it, every command they begin."""
    bash = {"deny": ["curl * | sh"], "ask": ["git push *"], "allow": ["ls *"]}
    _setup(sandbox, bash=bash)
    result = sandbox.run("generate", "droid", "-w", "-v")
    assert result.stderr.count("TWS496") == 2  # an allow that never matches is stricter
    document = json.loads((sandbox.repo / TARGET).read_text())
    assert document["commandBlocklist"] == ["curl"]
    assert document["commandDenylist"] == ["git push"]
    assert document["commandAllowlist"] == ["ls *"]


def test_a_rule_starting_with_a_wildcard_is_refused(sandbox: Sandbox) -> None:
    _setup(sandbox, bash={"deny": ["* --force"]})
    result = sandbox.run("generate", "droid", "-w")
    assert result.returncode == 2 and "TWS" in result.stderr
    assert not (sandbox.repo / TARGET).exists()


def test_check_reports_the_local_file_and_permission_rules(sandbox: Sandbox) -> None:
    """A key of settings.local.json replaces the target's (observed): each is an error."""
    _setup(sandbox)
    sandbox.write(TARGET, {"permissionRules": []})
    local = {"commandAllowlist": ["git", "npm test"], "sandbox": {"enabled": False}}
    sandbox.write("home/.factory/settings.local.json", local)
    result = sandbox.run("check", "--agent", "droid", "-v")
    assert "TWS660" in result.stdout
    assert result.stdout.count("error[TWS661]") == 2  # the sandbox and the allowlist
    assert result.stdout.count("TWS662") == 1  # git names git push; npm test nothing
    assert result.returncode == 1


def test_check_is_quiet_on_a_clean_local_file(sandbox: Sandbox) -> None:
    _setup(sandbox)
    _generate(sandbox)
    sandbox.write("home/.factory/settings.local.json", {"enableCompletionBell": True})
    result = sandbox.run("check", "--agent", "droid", "-v")
    assert not any(f"TWS66{digit}" in result.stdout for digit in range(4))


def test_check_reports_this_machine_s_org_managed_settings(sandbox: Sandbox) -> None:
    """/etc/factory/settings.json (under the sandbox's $TWSRT_MANAGED_ROOT) adds to the user's
    (observed): its allowlist entry naming the policy's ask is a note, its sandbox nothing."""
    _setup(sandbox)
    _generate(sandbox)
    quiet = sandbox.run("check", "--agent", "droid", "-v")
    assert "TWS661" not in quiet.stdout and "TWS662" not in quiet.stdout
    managed = sandbox.home.parent / "host-root" / "etc" / "factory" / "settings.json"
    managed.parent.mkdir(parents=True)
    managed.write_text('{"commandAllowlist": ["git push"], "sandbox": {"enabled": false}}\n')
    result = sandbox.run("check", "--agent", "droid", "-v")
    assert "host-root/etc/factory/settings.json:1:" in result.stdout
    assert "note[TWS662]" in result.stdout and "TWS661" not in result.stdout


PROJECT = (
    '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
    '[project]\nagents = ["droid"]\n'
)


def test_the_project_file_carries_the_user_file_s_members(sandbox: Sandbox) -> None:
    """A project's sandbox and lists add to the user's (observed): the same members, at
    .factory/settings.json under the root, with the note on where Droid loads it (TWS664)."""
    sandbox.write("twsrt.toml", PROJECT)
    sandbox.write(".srt-settings.json", SRT)
    sandbox.write("bash-rules.json", BASH)
    result = sandbox.run("generate", "droid", "-w", "-v")
    assert result.returncode == 0, result.stderr
    document = json.loads((sandbox.repo / ".factory" / "settings.json").read_text())
    assert document["sandbox"]["enabled"] is True
    assert document["commandBlocklist"] == ["rm -rf", "sudo"]
    assert "note[TWS664]" in result.stderr and "relative paths" in result.stderr
    assert sandbox.run("diff", "droid").returncode == 0
    sandbox.write(".factory/settings.local.json", {"commandAllowlist": ["git push"]})
    checked = sandbox.run("check")
    assert "error[TWS661]" in checked.stdout and ".factory/settings.local.json" in checked.stdout


def test_the_block_denies_every_protected_path_and_name(sandbox: Sandbox) -> None:
    """Self-protection: every path of the protected set (every agent's user layers, twsrt's
    files, the denyRead paths) and every protected name at the top of each write root is in
    Droid's denyWrite; ~/.factory, Droid's own directory, as its layers and working
    directories (all but temp, the commands' TMPDIR)."""
    from twsrt.agents.abspaths import glob_prefix
    from twsrt.agents.droid.declaration import FACTORY_LAYERS
    from twsrt.agents.rootnames import of
    from twsrt.configload import load_config
    from twsrt.policy import is_glob, normalize_path
    from twsrt.protection import protected_policy, protected_set
    from twsrt.sources import load_policy

    _setup(sandbox)
    deny = set(_generate(sandbox)["sandbox"]["filesystem"]["denyWrite"])
    config = load_config(
        sandbox.repo / "twsrt.toml", sandbox.home, cwd=sandbox.repo, display_root=sandbox.repo
    )
    policy = load_policy(config)
    protected = protected_set(config, policy)
    for item in protected:
        path = normalize_path(item.path)
        if path == "~/.factory":
            assert set(FACTORY_LAYERS) <= deny
            continue
        # a glob: its concrete directory (stricter), or as written where that is too wide
        held = {path, item.path, glob_prefix(path)} if is_glob(path) else {path, item.path}
        assert held & deny, item
    for name, _tree in of(protected_policy(policy, protected)):
        assert name in deny and f"/tmp/{name}" in deny, name


def test_the_managed_tree_holds_the_org_file_per_os(sandbox: Sandbox) -> None:
    """The org-managed settings add to the user's (observed): the user file's members, the same
    bytes at each OS's place in the tree, readable by every user (0644)."""
    managed = (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[managed]\nroot = "managed"\nagents = ["droid"]\n'
    )
    sandbox.write("twsrt.toml", managed)
    sandbox.write(".srt-settings.json", SRT)
    sandbox.write("bash-rules.json", BASH)
    result = sandbox.run("generate", "droid", "-w")
    assert result.returncode == 0, result.stderr
    places = (
        "linux/etc/factory/settings.json",
        "macos/Library/Application Support/Factory/settings.json",
        "windows/Program Files/Factory/settings.json",
    )
    texts = {(sandbox.repo / "managed" / place).read_text() for place in places}
    assert len(texts) == 1
    document = json.loads(texts.pop())
    assert document["sandbox"]["enabled"] is True
    assert document["commandBlocklist"] == ["rm -rf", "sudo"]
    assert (sandbox.repo / "managed" / places[0]).stat().st_mode & 0o777 == 0o644
    assert sandbox.run("diff", "droid").returncode == 0
