"""Copilot CLI target: never-widen properties, bad input, drift, and the CLI around it."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.policies import named
from support.sandbox import Sandbox, tree_snapshot

from twsrt.agents.copilot import agent as copilot
from twsrt.agents.copilot.agent import parse_snippet, render_snippet
from twsrt.agents.rootnames import under
from twsrt.domains import split_port
from twsrt.jsonpos import parse_json
from twsrt.policy import is_glob
from twsrt.protection import with_root_names
from twsrt.rules import CATALOG
from twsrt.sources import build_policy

HOME = "/home/user"
FLAGS = "home/.config/twsrt/copilot-flags.txt"
SETTINGS = "home/.copilot/settings.json"
CONFIG = f"""\
home = "{HOME}"

[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[targets]
copilot_output = "{FLAGS}"
copilot_settings = "{SETTINGS}"
"""


@pytest.fixture
def box(sandbox: Sandbox) -> Sandbox:
    sandbox.write("twsrt.toml", CONFIG)
    return sandbox


def refuse(box: Sandbox, *args: str) -> str:
    """Run, expect exit 2 with no traceback and no file touched; the first stderr line."""
    before = tree_snapshot(box.home)
    result = box.run(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert tree_snapshot(box.home) == before
    return result.stderr.splitlines()[0]


# ---------------------------------------------------------------- properties

SEGMENT = st.text(alphabet="abcdefgh.-_ ", min_size=1, max_size=6).filter(
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
    st.sampled_from(["*.pem", "**", "**/x", "*/token", "[ab]c"]),
)
RELATIVE = st.sampled_from(["**/.env", "secrets", "build/out", "./x", "."])
PATH = st.one_of(CONCRETE, GLOBBED, RELATIVE, st.sampled_from(["~", "/"]))
ENTRY = st.one_of(PATH, st.builds(lambda p: {"path": p, "literal": True}, CONCRETE))
HOST = st.one_of(
    st.builds(
        lambda parts, star: ("*." if star else "") + ".".join(parts) + ".com",
        st.lists(st.text(alphabet="abcxyz-", min_size=1, max_size=4), min_size=1, max_size=2),
        st.booleans(),
    ).filter(lambda h: not h.startswith("-")),
    st.sampled_from(["localhost", "10.0.0.1", "[::1]", "bücher.de"]),
)
DOMAIN = st.one_of(HOST, st.builds(lambda h, p: f"{h}:{p}", HOST, st.sampled_from([22, 443])))
DENIED = st.one_of(DOMAIN, st.sampled_from(["*", "*:22"]))
# every character a shell treats specially, except ')' (refused, tested below)
COMMAND = st.text(alphabet="ab $'\"\\,(;&|*`é\t-", min_size=1, max_size=12).filter(
    lambda c: c.strip() == c
)


@st.composite
def policies(draw: st.DrawFn) -> tuple[dict, dict]:
    srt = {
        "filesystem": {
            "denyRead": draw(st.lists(ENTRY, max_size=5)),
            "denyWrite": draw(st.lists(ENTRY, max_size=4)),
            "allowRead": draw(st.lists(PATH, max_size=2)),
            "allowWrite": draw(st.lists(PATH, max_size=5)),
        },
        "network": {
            "allowedDomains": draw(st.lists(DOMAIN, max_size=4)),
            "deniedDomains": draw(st.lists(DENIED, max_size=3)),
        },
    }
    bash = {
        "allow": draw(st.lists(COMMAND, max_size=2)),
        "deny": draw(st.lists(COMMAND, max_size=4)),
        "ask": draw(st.lists(COMMAND, max_size=3)),
    }
    return srt, bash


def compile_policy(srt: dict, bash: dict, yolo: bool = False):  # noqa: ANN201
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    compiled, findings = copilot.translate(policy, yolo, HOME, True)
    return policy, compiled, findings


def expand(path: str) -> str:
    if path == "~":
        return HOME
    return HOME + path[1:] if path.startswith("~/") else path


def inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def paths_of(entries: list) -> list[str]:
    return [e["path"] if isinstance(e, dict) else e for e in entries]


def findings_at(findings: list, origin: object) -> set[str]:
    return {f.rule_id for f in findings if f.location == origin}


@settings(max_examples=200, deadline=None)
@given(policies(), st.booleans())
def test_snippet_parses_back_into_exactly_the_argv(case: tuple[dict, dict], yolo: bool) -> None:
    _, compiled, _ = compile_policy(*case, yolo=yolo)
    text = render_snippet(compiled.argv)
    assert parse_snippet(text) == compiled.argv
    lines = text.splitlines()
    assert all(line.endswith(" \\") for line in lines[:-1])
    assert not lines or not lines[-1].endswith("\\")
    # each line is one flag and its value, so a line can be deleted or reordered by hand
    for line in lines:
        words = shlex.split(line.removesuffix(" \\"))
        assert words[0].startswith("--") and len(words) <= 2


@settings(max_examples=200, deadline=None)
@given(policies())
def test_yolo_is_yolo_first_then_only_denies(case: tuple[dict, dict]) -> None:
    srt, bash = case
    _, compiled, _ = compile_policy(srt, bash, yolo=True)
    argv = parse_snippet(render_snippet(compiled.argv))
    assert argv[0] == "--yolo"
    flags = argv[1::2]
    assert set(flags) <= {"--deny-tool", "--deny-url"}
    assert len(argv) % 2 == 1
    denied = {f"shell({c})" for c in bash["deny"]}
    assert {v for f, v in zip(argv[1::2], argv[2::2], strict=True) if f == "--deny-tool"} == denied


@settings(max_examples=200, deadline=None)
@given(policies())
def test_full_flags_grant_only_what_the_policy_does(case: tuple[dict, dict]) -> None:
    srt, bash = case
    _, compiled, _ = compile_policy(srt, bash)
    pairs = list(zip(compiled.argv[::2], compiled.argv[1::2], strict=True))
    allow_tools = [v for f, v in pairs if f == "--allow-tool"]
    assert allow_tools == (list(copilot.ALLOW_TOOLS) if srt["filesystem"]["allowWrite"] else [])
    assert {v for f, v in pairs if f == "--allow-url"} <= set(srt["network"]["allowedDomains"])
    # every deny and every ask becomes a deny (ask is lossy-mapped, never dropped)
    deny_tools = {v for f, v in pairs if f == "--deny-tool"}
    assert deny_tools == {f"shell({c})" for c in bash["deny"] + bash["ask"]}
    deny_urls = {v for f, v in pairs if f == "--deny-url"}
    for domain in srt["network"]["deniedDomains"]:
        assert {domain, f"http://{domain}"} <= deny_urls


@settings(max_examples=200, deadline=None)
@given(policies())
def test_every_deny_read_is_denied_or_reported(case: tuple[dict, dict]) -> None:
    srt, bash = case
    policy, compiled, findings = compile_policy(srt, bash)
    denied = compiled.sandbox["userPolicy"]["filesystem"]["deniedPaths"]
    for rule in policy.deny_read:
        path = (rule.path.removesuffix("/**") or "/") if not rule.literal else rule.path
        reported = findings_at(findings, rule.origin)
        if not rule.literal and is_glob(path):
            # a glob is never silent: a stricter parent deny, or a lossy finding
            assert reported & {"TWS407", "TWS421", "TWS422"}, rule
            if "TWS407" in reported:
                assert any(inside(expand(path), d) for d in denied), rule
        elif path.startswith(("/", "~")):
            assert expand(path) in denied, rule
        else:
            assert "TWS421" in reported, rule


@settings(max_examples=200, deadline=None)
@given(policies())
def test_no_host_or_url_the_policy_does_not_allow(case: tuple[dict, dict]) -> None:
    srt, bash = case
    _, compiled, _ = compile_policy(srt, bash)
    network = compiled.sandbox["userPolicy"]["network"]
    portless = {d for d in srt["network"]["allowedDomains"] if split_port(d)[1] is None}
    assert set(network["allowedHosts"]) <= portless
    assert set(compiled.urls["allowedUrls"]) <= set(srt["network"]["allowedDomains"])
    # an empty allowedHosts means "every host" to Copilot: then outbound must be off
    assert network["allowOutbound"] == bool(network["allowedHosts"])
    assert network["allowLocalNetwork"] is False
    for domain in srt["network"]["deniedDomains"]:
        assert split_port(domain)[0] in network["blockedHosts"]


@settings(max_examples=200, deadline=None)
@given(policies())
def test_write_grants_never_widen(case: tuple[dict, dict]) -> None:
    srt, bash = case
    policy, compiled, _ = compile_policy(srt, bash)
    sandbox = compiled.sandbox
    fs = sandbox["userPolicy"]["filesystem"]
    allowed = {
        expand(p.removesuffix("/**") or "/")
        for p in paths_of(srt["filesystem"]["allowWrite"])
        if p.startswith(("/", "~"))
    }
    protected = fs["deniedPaths"] + [
        expand(p)
        for p in paths_of(srt["filesystem"]["denyWrite"])
        if p.startswith(("/", "~")) and not is_glob(p)
    ]
    for root in fs["readwritePaths"]:
        assert root in allowed and not is_glob(root)
        assert not any(inside(root, p) for p in protected), root
    assert sandbox["addCurrentWorkingDirectory"] == (
        "." in srt["filesystem"]["allowWrite"]
        and "." not in srt["filesystem"]["denyRead"] + srt["filesystem"]["denyWrite"]
    )
    if not srt["filesystem"]["allowWrite"]:  # read-only: nothing writable anywhere
        assert fs["readwritePaths"] == [] and sandbox["addCurrentWorkingDirectory"] is False
    for key in ("allowDevToolAccess", "allowBypass"):
        assert sandbox[key] is False
    # a read-only entry never re-opens a path that a deny closes
    for entry in fs["readonlyPaths"]:
        assert entry not in fs["deniedPaths"]
    for path in fs["readwritePaths"] + fs["readonlyPaths"] + fs["deniedPaths"]:
        assert path.startswith("/"), path


@settings(max_examples=200, deadline=None)
@given(policies())
def test_every_deny_write_is_protected_or_reported(case: tuple[dict, dict]) -> None:
    srt, bash = case
    policy, compiled, findings = compile_policy(srt, bash)
    fs = compiled.sandbox["userPolicy"]["filesystem"]
    for rule in policy.deny_write:
        path = (rule.path.removesuffix("/**") or "/") if not rule.literal else rule.path
        if (rule.literal or not is_glob(path)) and path.startswith(("/", "~")):
            target = expand(path)
            assert target in fs["readonlyPaths"] or any(
                inside(target, d) for d in fs["deniedPaths"]
            ), rule
        else:
            assert findings_at(findings, rule.origin) & {"TWS407", "TWS421", "TWS422"}, rule


@settings(max_examples=100, deadline=None)
@given(policies(), st.text(alphabet='abcÜ €"\\', max_size=10))
def test_merge_keeps_user_members_and_is_idempotent(case: tuple[dict, dict], user: str) -> None:
    _, compiled, _ = compile_policy(*case)
    existing = json.dumps(
        {
            "model": user,
            "sandbox": {"enabled": False, "auth": {"gh": True}, "userPolicy": {"seatbelt": {}}},
            "trustedFolders": [user],
        },
        indent=4,
        ensure_ascii=False,
    )
    merged = copilot.merged_settings(existing, "settings.json", compiled)
    data = json.loads(merged)
    assert data["model"] == user and data["trustedFolders"] == [user]
    assert data["sandbox"]["auth"] == {"gh": True}
    assert data["sandbox"]["userPolicy"]["seatbelt"] == {}
    assert copilot.settings_items(data) == copilot.settings_items(
        json.loads(copilot.merged_settings(None, "settings.json", compiled))
    )
    assert copilot.merged_settings(merged, "settings.json", compiled) == merged
    assert '\n    "model": ' in merged  # the file's indentation is kept


def test_allow_read_never_takes_writes_away() -> None:
    srt = {
        "filesystem": {
            "denyRead": ["~/dev/secret"],
            "allowRead": ["~/dev/docs", "~/dev/secret/pub", "/opt/tools", "~/dev/secret"],
            "allowWrite": ["~/dev"],
        }
    }
    fs = compile_policy(srt, {})[1].sandbox["userPolicy"]["filesystem"]
    assert fs == {
        "readwritePaths": [f"{HOME}/dev"],
        # ~/dev/docs stays writable; an allowRead equal to a deny stays denied; then the
        # protected names under the write root (agents/rootnames.py)
        "readonlyPaths": [f"{HOME}/dev/secret/pub", "/opt/tools", *under(f"{HOME}/dev", named())],
        "deniedPaths": [f"{HOME}/dev/secret"],
    }


def test_same_inputs_same_bytes() -> None:
    srt = {"filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."]}}
    bash = {"deny": ["rm"], "ask": ["git push"]}
    first = compile_policy(srt, bash)[1]
    second = compile_policy(srt, bash)[1]
    assert render_snippet(first.argv) == render_snippet(second.argv)
    assert copilot.merged_settings(None, "s", first) == copilot.merged_settings(None, "s", second)


def test_catalog_block_is_copilots() -> None:
    for rule_id in ("TWS420", "TWS421", "TWS422", "TWS423"):
        assert CATALOG[rule_id].help


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("bash", "srt", "expected"),
    [
        (
            '{"deny": ["echo (a) b"]}',
            None,
            "bash-rules.json:1:11: error[TWS406] command 'echo (a) b' contains ')'",
        ),
        (
            '{"ask": ["x)"]}',
            None,
            "bash-rules.json:1:10: error[TWS406] command 'x)' contains ')'",
        ),
        (
            None,
            '{"network": {"allowedDomains": ["a.com:99999"]}}',
            # srt refuses it too, so it stops at the source for every agent (TWS215)
            ".srt-settings.json:1:33: error[TWS215] srt refuses 'a.com:99999'",
        ),
        (
            None,
            '{"network": {"deniedDomains": ["-evil.com"]}}',
            ".srt-settings.json:1:32: error[TWS423] '-evil.com' is not a host pattern",
        ),
        (
            None,
            '{"network": {"deniedDomains": ["a.com,b.com"]}}',
            ".srt-settings.json:1:32: error[TWS423] 'a.com,b.com' is not a host pattern",
        ),
        (
            None,
            '{"network": {"allowedDomains": ["https://github.com"]}}',
            ".srt-settings.json:1:33: error[TWS215] srt refuses 'https://github.com'",
        ),
        (
            None,
            '{"filesystem": {"denyRead": ["/~/.aws"]}}',
            ".srt-settings.json:1:30: error[TWS411] malformed path '/~/.aws'",
        ),
        (
            None,
            '{\n  "enabled": false,\n  "filesystem": {}\n}',
            ".srt-settings.json:2:14: error[TWS201] the canonical sandbox is disabled",
        ),
    ],
    ids=[
        "paren-deny",
        "paren-ask",
        "port-range",
        "leading-dash",
        "comma",
        "url-not-domain",
        "malformed-home",
        "disabled",
    ],
)
@pytest.mark.parametrize(
    "args",
    [
        ("generate", "copilot", "-w"),
        ("generate", "copilot"),
        ("generate", "copilot", "-n", "-w"),
        ("diff", "copilot"),
    ],
    ids=["write", "preview", "dry-run", "diff"],
)
def test_bad_policy_is_refused(
    box: Sandbox, bash: str | None, srt: str | None, expected: str, args: tuple[str, ...]
) -> None:
    if bash is not None:
        box.write("bash-rules.json", bash)
    if srt is not None:
        box.write(".srt-settings.json", srt)
    line = refuse(box, *args)
    assert line.startswith(expected), line
    assert "(at /" in line and ("agent copilot" in line or "[TWS215]" in line)


def test_disabled_sandbox_still_gives_flags_without_a_settings_target(box: Sandbox) -> None:
    box.write("twsrt.toml", CONFIG.replace(f'copilot_settings = "{SETTINGS}"\n', ""))
    box.write(".srt-settings.json", '{"enabled": false}')
    result = box.run("generate", "copilot", "-w")
    assert result.returncode == 0, result.stderr
    assert (box.repo / FLAGS).read_text() == (
        "--deny-tool 'shell(rm)' \\\n--deny-tool 'shell(sudo)' \\\n--deny-tool 'shell(git push)'\n"
    )


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        ('{\n  "model": "x",\n  "sandbox": {\n', f"{SETTINGS}:4:1: error[TWS004] invalid JSON"),
        ("[1, 2]\n", f"{SETTINGS}:1:1: error[TWS004] settings file is not a JSON object"),
        (
            '{\n  "sandbox": "on"\n}\n',
            f"{SETTINGS}:2:14: error[TWS004] '/sandbox' must be an object",
        ),
        (
            '{"sandbox": {"userPolicy": {"network": []}}}',
            f"{SETTINGS}:1:40: error[TWS004] '/sandbox/userPolicy/network' must be an object",
        ),
        (
            '{\n  "allowedUrls": "github.com"\n}\n',
            f"{SETTINGS}:2:18: error[TWS004] '/allowedUrls' must be an array",
        ),
        (
            '{\n  "model": "a",\n  "model": "b"\n}\n',
            f"{SETTINGS}:3:3: error[TWS004] settings file repeats a key",
        ),
    ],
    ids=["syntax", "not-object", "sandbox-string", "network-array", "urls-string", "dup-key"],
)
def test_unusable_settings_file_is_refused_and_nothing_is_written(
    box: Sandbox, existing: str, expected: str
) -> None:
    box.write(SETTINGS, existing)
    for args in (("generate", "copilot", "-w"), ("diff", "copilot")):
        line = refuse(box, *args)
        assert line.startswith(expected), line
    assert not (box.repo / FLAGS).exists()  # all or nothing: the flags file waits too


def test_target_that_is_a_directory_is_refused(box: Sandbox) -> None:
    (box.repo / FLAGS).mkdir(parents=True)
    line = refuse(box, "generate", "copilot", "-w")
    assert line == f"{FLAGS}: error[TWS004] is a directory, expected a file"


def test_no_copilot_target_is_a_usage_error_for_diff(sandbox: Sandbox) -> None:
    # `generate copilot -w` prints the flags instead (test_cli_first_hour.py)
    for args in (("diff", "copilot"),):
        refuse(sandbox, *args)
        assert sandbox.run(*args).stderr.endswith(
            "twsrt.toml:7:2: error[TWS001] no [targets] copilot_output configured for copilot "
            "(at /targets)\n"
        )


# ---------------------------------------------------------------- files, drift, check


def test_preview_without_targets_is_a_pasteable_snippet(sandbox: Sandbox) -> None:
    result = sandbox.run("generate", "copilot")
    assert result.returncode == 0, result.stderr
    assert parse_snippet(result.stdout) == [
        *("--allow-tool", "shell(*)", "--allow-tool", "read"),
        *("--allow-tool", "edit", "--allow-tool", "write"),
        *("--deny-tool", "shell(rm)", "--deny-tool", "shell(sudo)"),
        *("--deny-tool", "shell(git push)"),
        *("--allow-url", "github.com", "--allow-url", "*.github.com"),
    ]
    # stderr counts the findings (the ask rule denied outright is a note); -v lists them
    assert "TWS420" not in result.stderr and "twsrt generate: 0 errors" in result.stderr
    verbose = sandbox.run("generate", "copilot", "-v")
    assert "note[TWS420]" in verbose.stderr
    # the command-line snippet is the same with or without -v, and never has findings in it
    assert verbose.stdout == result.stdout
    assert "warning" not in result.stdout


def test_explicit_yolo_target_and_symlinked_settings(box: Sandbox, tmp_path: Path) -> None:
    real = box.repo / "elsewhere" / "settings.json"  # inside the repo: repo mode allows it
    real.parent.mkdir()
    real.write_text('{"model": "m"}\n')
    link = box.repo / SETTINGS
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    box.write("twsrt.toml", CONFIG + 'copilot_output_yolo = "yolo-flags.sh"\n')
    assert box.run("generate", "copilot", "-w", "--yolo").returncode == 0
    assert (box.repo / "yolo-flags.sh").read_text().startswith("--yolo \\\n--deny-tool ")
    # an explicit yolo target makes every `generate -w` refresh both modes' files
    assert (box.repo / FLAGS).read_text().startswith("--allow-tool 'shell(*)' \\\n")
    assert link.is_symlink() and json.loads(real.read_text())["model"] == "m"
    assert "sandbox" in json.loads(real.read_text())
    assert box.run("diff", "copilot", "--yolo").returncode == 0


def test_drift_in_both_files(box: Sandbox) -> None:
    assert box.run("generate", "copilot", "-w").returncode == 0
    flags = box.repo / FLAGS
    text = flags.read_text()
    flags.write_text(text.replace("--deny-tool 'shell(sudo)' \\\n", ""))
    settings_file = box.repo / SETTINGS
    data = json.loads(settings_file.read_text())
    data["sandbox"]["userPolicy"]["filesystem"]["deniedPaths"].remove(f"{HOME}/.aws")
    data["sandbox"]["allowBypass"] = True
    settings_file.write_text(json.dumps(data, indent=2) + "\n")
    result = box.run("diff", "copilot")
    assert result.returncode == 1
    assert result.stdout == (
        f"copilot: {FLAGS}: drift detected\n"
        "  missing (in the policy, not on disk):\n"
        "    + --deny-tool: shell(sudo)\n"
        f"copilot: {SETTINGS}: drift detected\n"
        "  missing (in the policy, not on disk):\n"
        "    + sandbox.allowBypass: false\n"
        f'    + sandbox.userPolicy.filesystem.deniedPaths: "{HOME}/.aws"\n'
        "  extra (on disk, not in the policy):\n"
        "    - sandbox.allowBypass: true\n"
    )
    assert box.run("generate", "copilot", "-w").returncode == 0
    assert flags.read_text() == text
    assert box.run("diff", "copilot").returncode == 0


def test_a_lost_line_continuation_is_drift(box: Sandbox) -> None:
    assert box.run("generate", "copilot", "-w").returncode == 0
    flags = box.repo / FLAGS
    flags.write_text(
        flags.read_text().replace(" \\\n--deny-tool 'shell(rm)'", "\n--deny-tool 'shell(rm)'")
    )
    result = box.run("diff", "copilot")
    assert result.returncode == 1
    assert "managed entries are in a different order" in result.stdout


def test_missing_files_exit_2(box: Sandbox) -> None:
    assert box.run("generate", "copilot", "-w").returncode == 0
    (box.repo / SETTINGS).unlink()
    result = box.run("diff", "copilot")
    assert result.returncode == 2
    assert f"{SETTINGS}: missing" in result.stdout
    assert f"{FLAGS}: no drift" in result.stdout


def test_check_relates_drift_to_the_policy_rule(box: Sandbox) -> None:
    assert box.run("generate", "copilot", "-w").returncode == 0
    path = box.repo / SETTINGS
    path.write_text(path.read_text().replace(f'"{HOME}/.ssh"', f'"{HOME}/.ssh-typo"'))
    result = box.run("check", "--format", "json", "--agent", "copilot")
    assert result.returncode == 1, result.stdout
    drift = [f for f in json.loads(result.stdout)["findings"] if f["rule_id"] == "TWS302"]
    assert len(drift) == 1 and drift[0]["location"]["path"] == SETTINGS
    related = drift[0]["related"][0]
    assert (related["path"], related["pointer"]) == (".srt-settings.json", "/filesystem/denyRead/1")


def test_unpinned_home_is_one_note(box: Sandbox) -> None:
    box.write("twsrt.toml", CONFIG.replace(f'home = "{HOME}"\n\n', ""))
    result = box.run("generate", "copilot", "-v")
    notes = [line for line in result.stderr.splitlines() if "TWS211" in line]
    assert notes == [
        f"twsrt.toml:7:20: note[TWS211] the copilot_settings output expands ~ with this "
        f'machine\'s home ({box.home}); set home = "..." in the config so every machine '
        "generates the same bytes (at /targets/copilot_settings)"
    ]
    assert f'"{box.home}/.aws"' in result.stdout
    check = json.loads(box.run("check", "--format", "json", "-v").stdout)
    assert [f["rule_id"] for f in check["findings"]].count("TWS211") == 1
    # pinned: no note (the protected set always holds ~ paths, so unpinned always depends on it)
    box.write("twsrt.toml", CONFIG)
    assert "TWS211" not in box.run("generate", "copilot", "-v").stderr


def test_new_settings_file_is_private_and_existing_mode_is_kept(box: Sandbox) -> None:
    assert box.run("generate", "copilot", "-w").returncode == 0
    path = box.repo / SETTINGS
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    path.chmod(0o640)
    box.write(".srt-settings.json", {"filesystem": {"denyRead": ["/etc/x"]}})
    assert box.run("generate", "copilot", "-w").returncode == 0
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert os.access(box.repo / FLAGS, os.R_OK)
