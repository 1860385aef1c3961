"""DeepCode target: never-widen properties, the sandbox axis, bad input, drift, and the CLI."""

from __future__ import annotations

import json
import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.sandbox import Sandbox, tree_snapshot

from twsrt.agents import AGENTS, abspaths
from twsrt.agents.abspaths import HomePaths, PathTarget
from twsrt.agents.deepcode import agent as deepcode
from twsrt.configload import load_config
from twsrt.domains import split_port
from twsrt.findings import TwsrtError
from twsrt.jsonpos import parse_json
from twsrt.locations import Location
from twsrt.policy import PathRule, is_glob
from twsrt.protection import protected_policy, protected_set, with_root_names
from twsrt.sources import build_policy

HOME = "/home/user"
SETTINGS = "home/.deepcode/settings.json"
YOLO = "home/.deepcode/settings.yolo.json"
CONFIG = f"""\
home = "{HOME}"
checkout = "~/dotfiles"
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[targets]
deepcode_settings = "{SETTINGS}"
"""
SRT = {
    "filesystem": {
        "denyRead": ["~/.aws", "~/.ssh"],
        "denyWrite": ["/etc"],
        "allowWrite": [".", "/tmp/build", "~/cache"],
        "allowRead": ["~/.aws/config"],
    },
    "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
}
BASH = {"deny": ["rm", "sudo"], "ask": ["git push"]}


@pytest.fixture
def box(sandbox: Sandbox) -> Sandbox:
    sandbox.write("twsrt.toml", CONFIG)
    sandbox.write(".srt-settings.json", SRT)
    sandbox.write("bash-rules.json", BASH)
    return sandbox


def refuse(box: Sandbox, *args: str) -> str:
    """Run, expect exit 2 with no traceback and no file touched; the first stderr line."""
    before = tree_snapshot(box.home)
    result = box.run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert tree_snapshot(box.home) == before
    return result.stderr.splitlines()[0]


def read(box: Sandbox, relative: str = SETTINGS) -> dict:
    return json.loads((box.repo / relative).read_text(encoding="utf-8"))


def policy_of(srt: dict, bash: dict | None = None):
    return with_root_names(
        build_policy(
            parse_json(json.dumps(srt, indent=2)),
            "srt.json",
            parse_json(json.dumps(bash or {})),
            "bash.json",
        )
    )


def translate(
    srt: dict, bash: dict | None = None, yolo: bool = False, mode: str = "workspace-write"
):
    return deepcode.translate(policy_of(srt, bash), yolo, mode, HOME)


def names(findings: list) -> list[str]:
    return [f.rule.name for f in findings]


# ---------------------------------------------------------------- shared path helpers


COPILOT = PathTarget(
    "copilot", "Copilot", {"denyRead": "deniedPaths", "denyWrite": "readonlyPaths"}
)
ORIGIN = Location("srt.json", 3, 7, "/filesystem/denyRead/0")

SEGMENT = st.text(alphabet="abc.-_ ", min_size=1, max_size=5).filter(
    lambda s: s.strip(".") and s.strip()
)
CONCRETE = st.builds(
    lambda prefix, parts: prefix + "/".join(parts),
    st.sampled_from(["~/", "/"]),
    st.lists(SEGMENT, min_size=1, max_size=3),
)
GLOBBED = st.builds(
    lambda base, tail: f"{base}/{tail}",
    st.one_of(CONCRETE, st.just("~"), st.just("")),
    st.sampled_from(["*.pem", "**", "**/x", "*/token", "[ab]c", "{a,b}"]),
)
RELATIVE = st.sampled_from(["**/.env", "secrets", "build/out", "./x", ".", "../up"])
MALFORMED = st.sampled_from(["/~", "/~/x", "/~/.ssh/**"])
PATH = st.one_of(CONCRETE, GLOBBED, RELATIVE, MALFORMED, st.sampled_from(["~", "/", "/**"]))

# Copilot's messages, spelled out: the shared helpers word them as Copilot always has.
COPILOT_MESSAGES = [
    (
        "**/.env",
        "denyRead",
        None,
        "denyRead '**/.env' is relative to the directory an agent starts in; Copilot's sandbox "
        "takes only absolute paths, so it is not in deniedPaths (run Copilot under srt to "
        "enforce it)",
    ),
    (
        "~/*.key",
        "denyWrite",
        None,
        "denyWrite glob '~/*.key' cannot be written for Copilot (no wildcards), and denying all "
        "of '~' instead would lock it out; not in readonlyPaths",
    ),
    (
        "~/.ssh/*.pem",
        "denyRead",
        f"{HOME}/.ssh",
        "Copilot takes no wildcards; denyRead glob '~/.ssh/*.pem' becomes deniedPaths entry "
        "'~/.ssh' (the whole directory)",
    ),
    (
        "/opt/*/x",
        "denyWrite",
        "/opt",
        "Copilot takes no wildcards; denyWrite glob '/opt/*/x' becomes readonlyPaths entry "
        "'/opt' (the whole directory)",
    ),
    (
        "out",
        "allowWrite",
        None,
        "allowWrite 'out' is relative to the directory an agent starts in; Copilot's sandbox "
        "takes only absolute paths, so it is not granted",
    ),
    (
        "~/p/*",
        "allowRead",
        None,
        "allowRead glob '~/p/*' cannot be written for Copilot (no wildcards) and a parent "
        "directory would grant more; it is not granted",
    ),
]


@pytest.mark.parametrize(("path", "key", "value", "message"), COPILOT_MESSAGES)
def test_named_copilot_messages_are_identical(
    path: str, key: str, value: str | None, message: str
) -> None:
    rule = PathRule(path, ORIGIN)
    helper = abspaths.deny_path if key.startswith("deny") else abspaths.grant_path
    findings: list = []
    assert helper(rule, key, HomePaths(HOME), findings, COPILOT) == value
    assert [(f.message, f.agent, f.location) for f in findings] == [(message, "copilot", ORIGIN)]


# ---------------------------------------------------------------- translation


def test_registered_with_its_target_keys() -> None:
    assert AGENTS["deepcode"] is deepcode.AGENT
    assert deepcode.AGENT.target_keys == (
        "deepcode_settings",
        "deepcode_settings_yolo",
        "deepcode_project",
    )


def test_read_only_emits_no_write_grant() -> None:
    managed, findings = translate(
        {"filesystem": {"allowWrite": ["/tmp", "~/cache", "out", "~/p/*"], "denyRead": []}},
        mode="read-only",
    )
    assert "allowWrite" not in managed.filesystem
    assert "allowWrite" not in json.dumps(managed.fragment())
    assert managed.fragment()["sandbox"]["mode"] == "read-only"
    # nothing about grants that are not written at all
    assert not [f for f in findings if "allowWrite" in f.message]
    same, _ = translate({"filesystem": {"allowWrite": ["/tmp"]}}, mode="workspace-write")
    assert same.filesystem["allowWrite"] == ["/tmp"]


def test_danger_full_access_keeps_the_workspace_write_content() -> None:
    workspace, _ = translate(SRT, BASH)
    full_access, _ = translate(SRT, BASH, mode="danger-full-access")
    assert full_access.fragment()["sandbox"].pop("mode") == "danger-full-access"
    a, b = workspace.fragment(), full_access.fragment()
    a["sandbox"].pop("mode")
    b["sandbox"].pop("mode")
    assert a == b


def test_yolo_ask_is_an_explicit_empty_list() -> None:
    full, _ = translate(SRT, BASH)
    yolo, _ = translate(SRT, BASH, yolo=True)
    assert full.ask == ["Bash(git push)", "Bash(git push *)"]
    assert yolo.ask == [] and yolo.fragment()["permissions"]["ask"] == []
    assert yolo.deny == full.deny == ["Bash(rm)", "Bash(rm *)", "Bash(sudo)", "Bash(sudo *)"]


def test_network_mapping() -> None:
    absent, found = translate({"filesystem": {}})
    assert absent.network == {"allowedDomains": []}  # srt: no network; DeepCode: [] = none
    assert "lossy-macos-network" not in names(found)
    ported, found = translate({"network": {"allowedDomains": ["a.com:8443"]}})
    assert ported.network == {"allowedDomains": []}
    assert names(found).count("lossy-port-domain") == 1
    sockets, found = translate(
        {"network": {"allowedDomains": ["a.com", "a.com"], "allowUnixSockets": ["/x.sock"]}}
    )
    assert sockets.network == {"allowedDomains": ["a.com"]}  # never the every-socket switch
    assert names(found).count("lossy-unix-socket") == 1
    assert names(found).count("lossy-macos-network") == 1
    everything, found = translate(
        {"network": {"allowUnixSockets": ["/x.sock"], "allowAllUnixSockets": True}}
    )
    assert everything.network["allowUnixSockets"] is True
    assert "lossy-unix-socket" not in names(found)


def test_disabled_policy_refuses_unless_full_access() -> None:
    srt = {"enabled": False, "filesystem": {"denyRead": ["~/.aws"]}}
    for mode in ("read-only", "workspace-write"):
        with pytest.raises(TwsrtError) as raised:
            translate(srt, mode=mode)
        (item,) = raised.value.findings
        assert item.rule.name == "disabled-sandbox"
        assert (item.location.path, item.location.pointer) == ("srt.json", "/enabled")
    managed, _ = translate(srt, mode="danger-full-access")
    assert managed.mode == "danger-full-access"


def test_close_paren_and_malformed_paths_are_refused() -> None:
    with pytest.raises(TwsrtError) as raised:
        translate({}, {"ask": ["echo $(id)"]})
    assert raised.value.findings[0].rule.name == "unexpressible-command"
    assert "DeepCode's Bash(...) rule syntax" in raised.value.findings[0].message
    with pytest.raises(TwsrtError) as raised:
        translate({"filesystem": {"denyRead": ["/~/.ssh"]}})
    assert raised.value.findings[0].rule.name == "unexpressible-path"
    assert raised.value.findings[0].agent == "deepcode"


def _expanded(path: str) -> str:
    return HOME if path == "~" else HOME + path[1:] if path.startswith("~/") else path


ENTRY = st.one_of(
    PATH.filter(lambda p: not p.startswith("/~")),
    st.builds(lambda p: {"path": p, "literal": True}, CONCRETE),
)
DOMAIN = st.one_of(
    st.sampled_from(["github.com", "*.npmjs.org", "10.0.0.1", "[::1]"]),
    st.sampled_from(["a.com:22", "[::1]:8080"]),
)


@st.composite
def policies(draw: st.DrawFn) -> dict:
    network: dict = {"allowedDomains": draw(st.lists(DOMAIN, max_size=4))}
    if draw(st.booleans()):
        network["allowUnixSockets"] = draw(st.lists(st.just("/run/a.sock"), max_size=1))
    if draw(st.booleans()):
        network["allowAllUnixSockets"] = draw(st.booleans())
    return {
        "filesystem": {
            key: draw(st.lists(ENTRY, max_size=5))
            for key in ("denyRead", "denyWrite", "allowRead", "allowWrite")
            if draw(st.booleans())
        },
        "network": network,
    }


@settings(max_examples=200, deadline=None)
@given(srt=policies(), mode=st.sampled_from(["read-only", "workspace-write", "danger-full-access"]))
def test_never_wider_than_the_policy(srt: dict, mode: str) -> None:
    policy = policy_of(srt)
    managed, _ = deepcode.translate(policy, False, mode, HOME)
    fs = managed.filesystem
    # grants: only concrete absolute rules of the same key, expanded; none under read-only
    for key, rules in (("allowRead", policy.allow_read), ("allowWrite", policy.allow_write)):
        allowed = {
            _expanded(abspaths.whole_tree(r))
            for r in rules
            if not abspaths.is_relative(abspaths.whole_tree(r))
            and (r.literal or not is_glob(abspaths.whole_tree(r)))
        }
        assert set(fs.get(key, [])) <= allowed
        assert len(fs.get(key, [])) == len(set(fs.get(key, [])))
    if mode == "read-only":
        assert "allowWrite" not in fs
    # denies: every concrete absolute deny is there
    for key, rules in (("denyRead", policy.deny_read), ("denyWrite", policy.deny_write)):
        for rule in rules:
            path = abspaths.whole_tree(rule)
            if not abspaths.is_relative(path) and (rule.literal or not is_glob(path)):
                assert _expanded(path) in fs[key]
    # each key the srt file has is written, no other
    assert set(fs) == set(srt["filesystem"]) - ({"allowWrite"} if mode == "read-only" else set())
    # the network never opens wider: an allow-list always, no ports, sockets only when all are
    allowed_domains = managed.network["allowedDomains"]
    portless = {d.value for d in policy.allowed_domains if split_port(d.value)[1] is None}
    assert set(allowed_domains) <= portless
    if managed.network.get("allowUnixSockets") is True:
        assert srt["network"].get("allowAllUnixSockets") is True


# ---------------------------------------------------------------- merge and drift (pure)


def test_merge_removes_stale_managed_keys_and_keeps_the_rest() -> None:
    managed, _ = translate({"filesystem": {"denyRead": ["~/.aws"]}}, BASH, mode="read-only")
    existing = {
        "permissions": {"allow": ["Read"], "deny": ["Bash(old)"], "defaultMode": "plan"},
        "sandbox": {
            "excludedCommands": ["git"],
            "enabled": True,
            "filesystem": {"allowWrite": ["/old"], "denyRead": ["/stale"]},
            "network": {"allowUnixSockets": True, "deniedDomains": ["x.com"]},
        },
    }
    merged = deepcode.merge(existing, managed)
    assert merged["permissions"] == {
        "allow": ["Read"],
        "deny": ["Bash(rm)", "Bash(rm *)", "Bash(sudo)", "Bash(sudo *)"],
        "defaultMode": "plan",
        "ask": ["Bash(git push)", "Bash(git push *)"],
    }
    assert merged["sandbox"] == {
        "mode": "read-only",
        "excludedCommands": ["git"],
        "filesystem": {"denyRead": [f"{HOME}/.aws"]},
        "network": {"allowedDomains": []},
    }
    assert existing["sandbox"]["enabled"] is True  # pure: the input is not changed


def test_an_untouched_file_is_returned_as_is() -> None:
    managed, _ = translate({"filesystem": {"denyRead": ["/x"]}}, {"deny": ["rm"]})
    text = (
        '{"permissions": {"deny": ["Bash(rm)", "Bash(rm *)"], "ask": []},\n'
        ' "sandbox": {"mode": "workspace-write", "filesystem": {"denyRead": ["/x"]},'
        ' "network": {"allowedDomains": []}}}'
    )
    assert deepcode.merged_text(text, "s.json", managed) == text


def test_empty_lists_and_missing_keys_are_different_drift() -> None:
    new = '{"sandbox": {"network": {"allowedDomains": []}}, "permissions": {"ask": []}}'
    old = '{"sandbox": {"network": {}}, "permissions": {}}'
    drift = deepcode.drift("s.json", old, new, "deepcode_settings")
    assert drift.drifted
    assert {(i.key, i.value) for i in drift.missing} == {
        ("sandbox.network.allowedDomains", "[]"),
        ("permissions.ask", "[]"),
    }


# ---------------------------------------------------------------- CLI


def test_generate_writes_a_private_file_and_diff_is_clean(box: Sandbox) -> None:
    result = box.run("generate", "deepcode", "-w")
    assert result.returncode == 0, result.stderr
    assert f"twsrt: wrote {SETTINGS}" in result.stderr
    assert stat.S_IMODE((box.repo / SETTINGS).stat().st_mode) == 0o600
    data = read(box)
    assert data["sandbox"]["filesystem"]["allowWrite"] == ["/tmp/build", f"{HOME}/cache"]
    assert box.run("diff", "deepcode").returncode == 0
    assert not (box.repo / "home/.deepcode/settings.yolo.json").exists()  # yolo is on request


def test_read_only_end_to_end_drops_a_stale_write_grant(box: Sandbox) -> None:
    assert box.run("generate", "deepcode", "-w").returncode == 0
    assert "allowWrite" in read(box)["sandbox"]["filesystem"]
    result = box.run("generate", "deepcode", "-w", "--sandbox", "read-only")
    assert result.returncode == 0, result.stderr
    data = read(box)
    assert data["sandbox"]["mode"] == "read-only"
    assert "allowWrite" not in data["sandbox"]["filesystem"]
    text = (box.repo / SETTINGS).read_text()
    assert "/tmp/build" not in text and f"{HOME}/cache" not in text
    assert box.run("diff", "deepcode", "--sandbox", "read-only").returncode == 0
    assert box.run("diff", "deepcode").returncode == 1  # workspace-write wants the grants back


def test_yolo_writes_a_settings_layer_with_asks_off(box: Sandbox) -> None:
    box.write(SETTINGS, {"hooks": {"Stop": []}, "permissions": {"allow": ["Read"]}})
    result = box.run("generate", "deepcode", "-w", "--yolo")
    assert result.returncode == 0, result.stderr
    data = read(box, YOLO)
    assert data["permissions"] == {
        "deny": ["Bash(rm)", "Bash(rm *)", "Bash(sudo)", "Bash(sudo *)"],
        "ask": [],
    }
    assert set(data) == {"permissions", "sandbox"}  # only the managed members: a higher layer
    assert read(box)["hooks"] == {"Stop": []}  # the user file was not touched
    assert "TWS430" not in result.stderr  # the user file is not created by a yolo run


def test_close_paren_refuses_and_writes_nothing(box: Sandbox) -> None:
    box.write("bash-rules.json", {"deny": ["rm"], "ask": ["echo $(whoami)"]})
    line = refuse(box, "generate", "deepcode", "-w")
    assert line == (
        "bash-rules.json:6:5: error[TWS406] command 'echo $(whoami)' contains ')', which "
        "DeepCode's Bash(...) rule syntax cannot hold; rewrite the rule without it "
        "(at /ask/0, agent deepcode)"
    )


def test_invalid_json_in_the_target_refuses_with_its_position(box: Sandbox) -> None:
    box.write(SETTINGS, '{\n  "model": "deepseek-chat",\n  "permissions": {,\n}\n')
    line = refuse(box, "generate", "deepcode", "-w")
    assert line.startswith(f"{SETTINGS}:3:19: error[TWS004] invalid JSON in settings file: ")
    assert "Expecting property name" in line


def test_a_wrongly_shaped_member_refuses_with_its_position(box: Sandbox) -> None:
    box.write(SETTINGS, '{\n  "permissions": {\n    "deny": "Bash(rm)"\n  }\n}\n')
    line = refuse(box, "generate", "deepcode", "-w")
    assert line == (
        f"{SETTINGS}:3:13: error[TWS004] '/permissions/deny' must be an array "
        "(at /permissions/deny)"
    )


def test_disabled_policy_refuses_and_full_access_accepts(box: Sandbox) -> None:
    box.write(".srt-settings.json", {**SRT, "enabled": False})
    line = refuse(box, "generate", "deepcode", "-w")
    assert line.startswith(".srt-settings.json:")
    assert "error[TWS201] the canonical sandbox is disabled" in line
    result = box.run("generate", "deepcode", "-w", "--sandbox", "danger-full-access")
    assert result.returncode == 0, result.stderr
    assert read(box)["sandbox"]["mode"] == "danger-full-access"


def test_claude_fallback_warning_only_before_the_file_exists(box: Sandbox) -> None:
    fallback = f"twsrt.toml:8:21: note[TWS430] {SETTINGS} does not exist yet"
    first = box.run("generate", "deepcode", "-w", "-v")
    assert first.returncode == 0
    assert fallback in first.stderr
    again = box.run("generate", "deepcode", "-w", "-v")
    assert "TWS430" not in again.stderr
    assert "TWS430" not in box.run("generate", "deepcode", "-v").stderr
    # another file name or directory is not DeepCode's user file: no fallback ends
    box.write("twsrt.toml", CONFIG.replace(SETTINGS, "home/dc/deepcode.json"))
    assert "TWS430" not in box.run("generate", "deepcode", "-w", "-v").stderr


def test_claude_fallback_warning_in_a_yolo_run_that_creates_the_file(box: Sandbox) -> None:
    box.write("twsrt.toml", CONFIG + 'deepcode_settings_yolo = "home/yolo/deepcode.json"\n')
    result = box.run("generate", "deepcode", "-w", "--yolo", "-v")
    assert result.returncode == 0, result.stderr
    assert "note[TWS430]" in result.stderr
    assert (box.repo / SETTINGS).exists()  # the companion full file was written
    assert read(box, "home/yolo/deepcode.json")["permissions"]["ask"] == []


def test_array_layer_note_with_verbose(box: Sandbox) -> None:
    assert "TWS431" not in box.run("generate", "deepcode").stderr
    verbose = box.run("generate", "deepcode", "-v").stderr
    assert "twsrt.toml:8:21: note[TWS431] DeepCode's project and local settings layers" in verbose


def test_danger_full_access_warns_on_generate_and_diff(box: Sandbox) -> None:
    expected = (
        "twsrt.toml: warning[TWS212] sandbox mode danger-full-access (--sandbox): deepcode runs "
        "commands without an OS sandbox, so the policy's filesystem and network rules are not "
        "enforced; sandbox.mode is danger-full-access and the permission deny rules stay in "
        "force (agent deepcode)"
    )
    result = box.run("generate", "deepcode", "-w", "--sandbox", "danger-full-access")
    assert expected in result.stderr.splitlines()
    diff = box.run("diff", "deepcode", "--sandbox", "danger-full-access")
    assert diff.returncode == 0
    assert expected in diff.stderr.splitlines()
    assert "TWS212" not in box.run("generate", "deepcode").stderr
    # from the config, the warning points at [sandbox] mode
    box.write("twsrt.toml", CONFIG + '\n[sandbox]\nmode = "danger-full-access"\n')
    from_config = box.run("generate", "deepcode").stderr
    assert "twsrt.toml:11:8: warning[TWS212] sandbox mode danger-full-access ([sandbox] mode)" in (
        from_config
    )


def test_check_reports_a_hand_edit_and_is_clean_after_generate(box: Sandbox) -> None:
    box.accept_planted_layers()  # TWS472 (tests/real/test_deepcode_layers.py)
    assert box.run("generate", "deepcode", "-w").returncode == 0
    clean = box.run("check", "--agent", "deepcode", "--format", "json")
    assert clean.returncode == 0, clean.stdout
    report = json.loads(clean.stdout)
    assert not [f for f in report["findings"] if f["level"] == "error"]

    path = box.repo / SETTINGS
    path.write_text(path.read_text().replace('"Bash(sudo *)"', '"Bash(sudo *)",\n      "Bash(x)"'))
    edited = box.run("check", "--agent", "deepcode", "--format", "json")
    assert edited.returncode == 1, edited.stdout
    drift = [f for f in json.loads(edited.stdout)["findings"] if f["rule_id"] == "TWS303"]
    assert len(drift) == 1 and drift[0]["location"]["path"] == SETTINGS
    assert "permissions.deny Bash(x)" in drift[0]["message"]

    # a removed deny path is drift too, related to the rule that produced it
    assert box.run("generate", "deepcode", "-w").returncode == 0
    path.write_text(path.read_text().replace(f'"{HOME}/.ssh"', f'"{HOME}/.ssh-typo"'))
    typo = box.run("check", "--agent", "deepcode", "--format", "json")
    assert typo.returncode == 1
    unapplied = [f for f in json.loads(typo.stdout)["findings"] if f["rule_id"] == "TWS302"]
    related = unapplied[0]["related"][0]
    assert (related["path"], related["pointer"]) == (".srt-settings.json", "/filesystem/denyRead/1")

    # removing `allowedDomains: []` would open every host to DeepCode: drift
    box.write(".srt-settings.json", {"filesystem": {"denyRead": ["/etc/x"]}})
    assert box.run("generate", "deepcode", "-w").returncode == 0
    data = read(box)
    del data["sandbox"]["network"]["allowedDomains"]
    path.write_text(json.dumps(data, indent=2) + "\n")
    opened = box.run("diff", "deepcode")
    assert opened.returncode == 1
    assert "+ sandbox.network.allowedDomains: []" in opened.stdout


def test_check_of_a_missing_target(box: Sandbox) -> None:
    result = box.run("check", "--agent", "deepcode", "--format", "json")
    assert result.returncode == 1
    rules = [f["rule_id"] for f in json.loads(result.stdout)["findings"]]
    assert "TWS301" in rules and "TWS430" in rules


def test_unpinned_home_is_one_note(box: Sandbox) -> None:
    box.write("twsrt.toml", CONFIG.replace(f'home = "{HOME}"\n', ""))
    result = box.run("generate", "deepcode", "-v")
    notes = [line for line in result.stderr.splitlines() if "TWS211" in line]
    assert notes == [
        f"twsrt.toml:7:21: note[TWS211] the deepcode_settings output expands ~ with this "
        f'machine\'s home ({box.home}); set home = "..." in the config so every machine '
        "generates the same bytes (at /targets/deepcode_settings)"
    ]
    assert f'"{box.home}/.aws"' in result.stdout
    check = json.loads(box.run("check", "--format", "json", "-v").stdout)
    assert [f["rule_id"] for f in check["findings"]].count("TWS211") == 1
    # pinned: no note (the protected set always holds ~ paths, so unpinned always depends on it)
    box.write("twsrt.toml", CONFIG)
    assert "TWS211" not in box.run("generate", "deepcode", "-v").stderr


def test_writes_through_a_symlinked_target(box: Sandbox) -> None:
    real = box.repo / "dotfiles-store" / "deepcode.json"  # inside the repo: repo mode allows it
    real.parent.mkdir()
    real.write_text('{"model": "deepseek-chat"}\n')
    link = box.repo / SETTINGS
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert box.run("generate", "deepcode", "-w").returncode == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    data = json.loads(real.read_text())
    assert data["model"] == "deepseek-chat" and data["sandbox"]["mode"] == "workspace-write"


def test_an_existing_file_is_not_rewritten_when_already_right(box: Sandbox) -> None:
    assert box.run("generate", "deepcode", "-w").returncode == 0
    compact = json.dumps(read(box), separators=(",", ":"))  # same content, other layout
    (box.repo / SETTINGS).write_text(compact)
    result = box.run("generate", "deepcode", "-w")
    assert f"twsrt: unchanged {SETTINGS}" in result.stderr
    assert (box.repo / SETTINGS).read_text() == compact


def test_without_a_target_generate_w_names_the_key(sandbox: Sandbox) -> None:
    result = sandbox.run("generate", "deepcode", "-w")
    assert result.returncode == 2
    assert "no [targets] deepcode_settings configured for deepcode" in result.stderr
    preview = sandbox.run("generate", "deepcode")
    assert preview.returncode == 0
    assert json.loads(preview.stdout)["sandbox"]["mode"] == "workspace-write"


def test_preview_is_json_with_the_resolved_mode_line(box: Sandbox) -> None:
    result = box.run("generate", "deepcode", "--yolo", "--sandbox", "read-only")
    assert result.returncode == 0
    assert result.stderr.splitlines()[0] == ("twsrt: approval mode yolo, sandbox mode read-only")
    policy = with_root_names(
        build_policy(
            parse_json((box.repo / ".srt-settings.json").read_text()),
            ".srt-settings.json",
            parse_json((box.repo / "bash-rules.json").read_text()),
            "bash-rules.json",
        )
    )
    config = load_config(box.repo / "twsrt.toml", box.home)
    protected = protected_policy(policy, protected_set(config, policy))  # as every compile
    assert (
        json.loads(result.stdout)
        == deepcode.translate(
            protected,
            True,
            "read-only",
            HOME,
        )[0].fragment()
    )


def test_findings_point_at_the_source_rule(box: Sandbox) -> None:
    box.write(
        ".srt-settings.json",
        {
            "filesystem": {"denyRead": ["~/.ssh/*.pem", "**/.env"]},
            "network": {"allowedDomains": ["github.com"], "deniedDomains": ["evil.com"]},
        },
    )
    lines = box.run("generate", "deepcode", "-v").stderr.splitlines()
    assert (
        ".srt-settings.json:4:7: note[TWS407] DeepCode takes no wildcards; denyRead glob "
        "'~/.ssh/*.pem' becomes sandbox.filesystem.denyRead entry '~/.ssh' (the whole "
        "directory) (at /filesystem/denyRead/0, agent deepcode)"
    ) in lines
    assert (
        ".srt-settings.json:4:7: note[TWS444] DeepCode's Linux sandbox ignores "
        f"sandbox.filesystem.denyRead '{HOME}/.ssh' but mounts nothing that holds it, so "
        "commands cannot read it unless DeepCode is started in a directory that contains it "
        "(at /filesystem/denyRead/0, agent deepcode)"
    ) in lines
    assert any(
        line.startswith(".srt-settings.json:5:7: warning[TWS421] denyRead '**/.env'")
        for line in lines
    )
    assert any(line.startswith(".srt-settings.json:9:5: warning[TWS434]") for line in lines), lines
    # the denied host is outside the allow-list, which blocks it anyway: a note at the entry
    assert any(line.startswith(".srt-settings.json:13:7: note[TWS440]") for line in lines), lines
