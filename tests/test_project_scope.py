"""Project scope: the scope machinery (``[project]``, ``--project DIR``, scoped targets,
placement, agent selection) and Claude Code's project file ``.claude/settings.json``.

Golden cases live in ``tests/golden/claude-project/<case>/`` (``support/golden.py``): the
sources, an optional ``existing.json`` (the project's own file before the run), the expected
file (``expected.json``) and the findings ``generate -w -v`` prints (``stderr.txt``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from support.golden import GoldenCase, case_names
from support.sandbox import ACCEPT_PLANTED_LAYERS, Sandbox
from support.strategies import bash_rules, srt_settings

from twsrt.agents.claude.translate import PROJECT_ANCHOR, translate
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

PROJECT_CONFIG = """\
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[project]
agents = ["claude"]
"""
TARGET = ".claude/settings.json"
# (golden directory, the agent, its project file); DeepCode's expands ~, so its home is pinned
PROJECT_FILES = {
    "claude-project": ("claude", TARGET, ""),
    "deepcode-project": ("deepcode", ".deepcode/settings.json", 'home = "/home/user"\n'),
    "gemini-project": ("gemini", ".gemini/settings.json", ""),
    "qwen-project": ("qwen", ".qwen/settings.json", ""),
    "opencode-project": ("opencode", "opencode.json", ""),
    "kilo-project": ("kilo", "kilo.jsonc", 'home = "/home/user"\n'),
    "pi-project": ("pi", ".pi/sandbox.json", ""),
}
CASES = [(kind, name) for kind in PROJECT_FILES for name in case_names(kind)]


@pytest.mark.parametrize(("kind", "name"), CASES, ids=[f"{k}/{n}" for k, n in CASES])
def test_project_golden(sandbox: Sandbox, kind: str, name: str) -> None:
    """The project file, fresh or merged into the project's own file, byte for byte; then
    no drift, and a second run changes nothing."""
    agent, relative, head = PROJECT_FILES[kind]
    case = GoldenCase(kind, name)
    config = head + PROJECT_CONFIG.replace('["claude"]', f'["{agent}"]')
    target = case.install(sandbox, config, relative)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    case.expect(sandbox, None, "expected.json", target.read_text(encoding="utf-8"))
    case.expect(sandbox, None, "stderr.txt", run.stderr)
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0, again.stderr
    assert f"twsrt: unchanged {relative}" in again.stderr
    assert oct(target.stat().st_mode & 0o777) == ("0o644" if case.existing() else "0o600")


def test_project_option_writes_the_same_bytes(sandbox: Sandbox, tmp_path: Path) -> None:
    """``--project DIR`` from a dotfiles config writes what the project's own config does,
    into DIR (outside the dotfiles repository), and leaves the user's files alone."""
    case = GoldenCase("claude-project", "relative-paths")
    case.install(sandbox, PROJECT_CONFIG, TARGET)
    assert sandbox.run("generate", "-w").returncode == 0
    expected = (sandbox.repo / TARGET).read_text(encoding="utf-8")
    dotfiles = sandbox.home / "dots"
    (dotfiles / ".git").mkdir(parents=True)
    for name in (".srt-settings.json", "bash-rules.json"):
        (dotfiles / name).write_bytes((sandbox.repo / name).read_bytes())
    user_config = PROJECT_CONFIG.replace('[project]\nagents = ["claude"]\n', "")
    user_config += '[targets]\nclaude_settings = "home/.claude/settings.full.json"\n'
    user_config += ACCEPT_PLANTED_LAYERS
    (dotfiles / "twsrt.toml").write_text(user_config, encoding="utf-8")
    project = tmp_path / "app"
    project.mkdir()
    run = sandbox.run("generate", "-w", "--project", str(project), cwd=dotfiles)
    assert run.returncode == 0, run.stderr
    # the project's own config and sources are write-denied where the project holds them; the
    # dotfiles config keeps them outside the project (its checkout protects them)
    own = ("twsrt.toml", ".srt-settings.json", "bash-rules.json")
    assert _without(json.loads(expected), own) == json.loads(
        (project / TARGET).read_text(encoding="utf-8")
    )
    assert not (dotfiles / "home").exists()
    assert sandbox.run("diff", "--project", str(project), cwd=dotfiles).returncode == 0
    check = sandbox.run("check", "--project", str(project), cwd=dotfiles)
    assert check.returncode == 0, check.stdout
    # the user scope of the same config is untouched: its own target is still missing
    assert sandbox.run("diff", cwd=dotfiles).returncode == 2


def _without(settings: dict, names: tuple[str, ...]) -> dict:
    """Claude project settings with every deny of the files ``names`` left out."""

    def kept(entry: str) -> bool:
        bare = entry.removeprefix("Edit(/").removesuffix(")").removesuffix("/**")
        return bare not in names

    permissions = settings["permissions"]
    permissions["deny"] = [entry for entry in permissions["deny"] if kept(entry)]
    filesystem = settings["sandbox"]["filesystem"]
    filesystem["denyWrite"] = [entry for entry in filesystem["denyWrite"] if kept(entry)]
    return settings


def test_relative_denies_anchor_at_the_project_root(sandbox: Sandbox) -> None:
    """The point of a project file: a relative deny is a rule anchored at the project root
    (``/P``) and stays relative in the sandbox section, with no relative-path finding; the
    user file of the same policy anchors nothing there."""
    sandbox.write(".srt-settings.json", {"filesystem": {"denyRead": ["**/*.pem", "keys"]}})
    sandbox.write("twsrt.toml", PROJECT_CONFIG)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    written = json.loads((sandbox.repo / TARGET).read_text(encoding="utf-8"))
    deny = written["permissions"]["deny"]
    assert deny[:6] == [
        "Read(/**/*.pem)",
        "Edit(/**/*.pem)",
        "Read(/keys)",
        "Read(/keys/**)",
        "Edit(/keys)",
        "Edit(/keys/**)",
    ]
    assert written["sandbox"]["filesystem"]["denyRead"] == ["**/*.pem", "keys"]
    assert "TWS416" not in run.stderr and "TWS402" not in run.stderr
    check = sandbox.run("check", "-v", "--format", "json")
    notes = [f["message"] for f in json.loads(check.stdout)["findings"] if f["rule_id"] == "TWS207"]
    assert notes == [
        "'**/*.pem' in denyRead is relative: it covers files below the project root in Claude "
        "Code's project file, but below the directory srt or Codex is started in"
    ]


def test_user_only_keys_are_reported_at_the_policy_key(sandbox: Sandbox) -> None:
    """strictAllowlist is left out of the project file: a warning at its key, file:line:col,
    so `check --fail-on warning` fails; a left-out grant is a note."""
    sandbox.write(
        ".srt-settings.json",
        '{\n  "network": {\n    "allowedDomains": ["a.example"],\n    "strictAllowlist": true\n'
        '  },\n  "allowAppleEvents": true\n}\n',
    )
    sandbox.write("twsrt.toml", PROJECT_CONFIG)
    assert sandbox.run("generate", "-w").returncode == 0
    written = json.loads((sandbox.repo / TARGET).read_text(encoding="utf-8"))
    assert "strictAllowlist" not in written["sandbox"]["network"]
    assert "allowAppleEvents" not in written["sandbox"]
    check = sandbox.run("check", "-v", "--fail-on", "warning")
    assert check.returncode == 1
    assert (
        ".srt-settings.json:4:5: warning[TWS445] 'network.strictAllowlist' is read by Claude "
        "Code from user, managed or --settings files only" in check.stdout
    )
    assert ".srt-settings.json:6:3: note[TWS446] 'allowAppleEvents'" in check.stdout


def test_user_scope_ignores_project_keys(sandbox: Sandbox) -> None:
    """A user-scope run of a config that names a project key compiles only its user keys
    (and leaves the project path alone)."""
    config = (sandbox.repo / "twsrt.toml").read_text(encoding="utf-8")
    sandbox.write("twsrt.toml", config + 'claude_project = "proj/.claude/settings.json"\n')
    run = sandbox.run("generate", "-w")
    assert run.returncode == 0, run.stderr
    assert (sandbox.repo / "home/.claude/settings.full.json").exists()
    assert not (sandbox.repo / "proj").exists()


def test_agent_without_a_project_file_is_left_out_with_a_note(sandbox: Sandbox) -> None:
    # no user policy to narrow here (TWS226, an error): suppressed, as a project used alone does
    alone = '\n[[check.ignore]]\nrule = "narrowing-unchecked"\nreason = "no user policy"\n'
    config = PROJECT_CONFIG.replace('["claude"]', '["claude", "copilot"]') + alone
    sandbox.write("twsrt.toml", config)
    sandbox.accept_planted_layers()
    assert sandbox.run("generate", "-w").returncode == 0
    check = sandbox.run("check", "-v")
    assert check.returncode == 0, check.stdout
    assert (
        "twsrt.toml:6:10: note[TWS448] Copilot has no project file; it is left out of this "
        "project-scope run" in check.stdout
    )
    generate = sandbox.run("generate", "-w")
    assert generate.returncode == 0, generate.stderr
    assert "copilot" not in generate.stderr.lower()
    named = sandbox.run("check", "--agent", "copilot")
    assert named.returncode == 2
    assert (
        "error[TWS017] --agent copilot: Copilot has no project file (agents with one: claude"
        in named.stdout
    )


@pytest.mark.parametrize(
    ("config", "args", "message"),
    [
        (
            PROJECT_CONFIG + '\n[managed]\nroot = "out"\n',
            (),
            "twsrt.toml:8:2: error[TWS001] [project] and [managed] exclude each other",
        ),
        (
            PROJECT_CONFIG.replace('"claude"]', '"claude", "cursor"]'),
            (),
            "twsrt.toml:6:10: error[TWS001] unknown agent 'cursor'",
        ),
        (
            PROJECT_CONFIG + '\n[targets]\nclaude_project = "../other/settings.json"\n',
            (),
            "twsrt.toml:9:18: error[TWS018] claude_project (~/other/settings.json) resolves to",
        ),
        (
            PROJECT_CONFIG.replace("[project]\n", '[project]\nroot = "../.."\n'),
            (),
            "twsrt.toml:6:8: error[TWS005] [project] root (",
        ),
        (PROJECT_CONFIG, ("--yolo",), "twsrt.toml: error[TWS001] --yolo has no project file"),
        (
            PROJECT_CONFIG,
            ("--managed", "out"),
            "twsrt.toml:5:2: error[TWS001] --managed asks for managed scope; this config is a "
            "project config",
        ),
        (
            PROJECT_CONFIG.replace("[project]\n", '[project]\nroot = "missing"\n'),
            (),
            "twsrt.toml:6:8: error[TWS018] [project] root missing does not exist",
        ),
    ],
    ids=[
        "both-tables",
        "unknown-agent",
        "target-outside",
        "root-outside-repo",
        "yolo",
        "other-scope",
        "missing-root",
    ],
)
def test_scope_errors_are_located_exit_2_and_write_nothing(
    sandbox: Sandbox, config: str, args: tuple[str, ...], message: str
) -> None:
    sandbox.write("twsrt.toml", config)
    check = sandbox.run("check", *args)
    # a placement error is a finding of a run that checked the rest (1), else nothing ran (2)
    assert check.returncode == (1 if "TWS005" in message or "] claude_project" in message else 2)
    assert message in check.stdout
    assert "TWS301" not in check.stdout  # no target was read
    generate = sandbox.run("generate", "-w", *args)
    assert generate.returncode == 2
    assert message.split(": ", 1)[1] in generate.stderr
    assert "Traceback" not in generate.stderr
    assert not (sandbox.repo / ".claude").exists()


def test_a_scoped_run_without_an_agent_stops(sandbox: Sandbox) -> None:
    """A config whose only agent has no project file: nothing to compile, exit 2 (TWS017)."""
    sandbox.write(
        "twsrt.toml",
        PROJECT_CONFIG.replace('[project]\nagents = ["claude"]\n', "")
        + '[targets]\ncopilot_settings = "home/.copilot/settings.json"\n',
    )
    run = sandbox.run("generate", "-w", "--project", ".")
    assert run.returncode == 2
    assert "error[TWS017] no agent this config selects has a project file" in run.stderr
    check = sandbox.run("check", "--project", ".")
    assert check.returncode == 2 and "TWS017" in check.stdout


def test_project_and_managed_options_exclude_each_other(sandbox: Sandbox) -> None:
    run = sandbox.run("check", "--project", ".", "--managed", "out")
    assert run.returncode == 2
    assert "--project and --managed exclude each other" in run.stderr


def test_project_reads_are_confined_to_the_project(sandbox: Sandbox, tmp_path: Path) -> None:
    """A project file that is a symlink out of the project is refused (TWS018), never read."""
    project = tmp_path / "app"
    (project / ".claude").mkdir(parents=True)
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "x"}\n', encoding="utf-8")
    os.symlink(secret, project / TARGET)
    run = sandbox.run("check", "--project", str(project))
    assert run.returncode == 1, run.stdout
    assert "error[TWS018] claude_project" in run.stdout
    assert "outside the project root" in run.stdout
    generate = sandbox.run("generate", "-w", "--project", str(project))
    assert generate.returncode == 2
    assert secret.read_text(encoding="utf-8") == '{"token": "x"}\n'


# ---------------------------------------------------------------- properties


def _anchored(path: str) -> bool:
    return path.startswith("/") or path == "~" or path.startswith("~/")


def _project_patterns(path: str, glob: bool) -> list[str]:
    """How a policy path must read in a project file's Read/Edit rules (written apart from
    twsrt): a relative one from the project root (``/P``), an absolute one as ``//P``."""
    if not _anchored(path):
        rooted = "/" + path.removeprefix("./").lstrip("/")
        if rooted in ("/", "/."):
            return ["/", "/**"]
        return [rooted] if glob else [rooted, rooted + "/**"]
    if glob:
        return [path]
    spelled = "/" + path if path.startswith("/") and not path.startswith("//") else path
    return ["//", "//**"] if spelled == "//" else [spelled, spelled + "/**"]


@settings(max_examples=100, deadline=None)
@given(srt=srt_settings(), bash=bash_rules())
def test_project_file_denies_every_path_and_grants_nothing_new(srt, bash) -> None:
    """Over generated policies: every denyRead/denyWrite path is a Read/Edit deny of the project
    file, relative ones anchored at the project root; the file grants no write root, host or
    command the policy does not grant (its relative write roots stay relative to the root)."""
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    managed, _findings = translate(policy, False, {}, "workspace-write", PROJECT_ANCHOR)
    deny = set(managed.deny)
    for rule in policy.deny_read:
        for pattern in _project_patterns(rule.path, rule.glob):
            assert {f"Read({pattern})", f"Edit({pattern})"} <= deny, (rule.path, pattern)
    for rule in policy.deny_write:
        for pattern in _project_patterns(rule.path, rule.glob):
            assert f"Edit({pattern})" in deny, (rule.path, pattern)
    written = managed.sandbox.get("filesystem", {}).get("allowWrite", [])
    granted = [
        p["path"] if isinstance(p, dict) else p
        for p in srt.get("filesystem", {}).get("allowWrite", [])
    ]
    assert set(written) <= set(granted) - {".", "./"}
    domains = set(srt.get("network", {}).get("allowedDomains", []))
    assert set(managed.sandbox.get("network", {}).get("allowedDomains", [])) <= domains
    for rule in managed.webfetch_allow:
        assert rule[len("WebFetch(domain:") : -1] in domains, rule
    commands = {*bash.get("deny", []), *bash.get("ask", [])}
    for rule in [*managed.deny, *(managed.ask or [])]:
        if rule.startswith("Bash("):
            assert rule[5:-1].removesuffix(" *") in commands, rule


def test_the_project_files_local_layer_is_checked(sandbox: Sandbox) -> None:
    """Claude loads .claude/settings.local.json beside the project file after it: its keys that
    undo the policy are errors at their line, as beside a user file."""
    sandbox.write("twsrt.toml", PROJECT_CONFIG)
    assert sandbox.run("generate", "-w").returncode == 0
    sandbox.write(
        ".claude/settings.local.json",
        '{\n  "permissions": {"defaultMode": "bypassPermissions"},\n'
        '  "sandbox": {"filesystem": {"allowWrite": ["/opt"]}}\n}\n',
    )
    check = sandbox.run("check")
    assert check.returncode == 1, check.stdout
    assert ".claude/settings.local.json:2:19: error[TWS603] permissions.defaultMode" in check.stdout
    assert ".claude/settings.local.json:3:45: error[TWS604]" in check.stdout
    assert "makes '/opt' writable" in check.stdout


def test_the_fix_command_names_the_project_option(sandbox: Sandbox, tmp_path: Path) -> None:
    """A missing project file chosen by --project: diff and check name the run that writes it."""
    project = tmp_path / "app"
    project.mkdir()
    diff = sandbox.run("diff", "--project", str(project))
    assert diff.returncode == 2
    assert f"(run `twsrt generate -w --project {project}` to create it)" in diff.stdout
    check = sandbox.run("check", "--project", str(project))
    assert f"run `twsrt generate -w --project {project}` to create it" in check.stdout


def test_target_keys_no_run_can_use_are_errors_at_their_keys(sandbox: Sandbox) -> None:
    """Once silently left out: a key no run of the config can use is an error (TWS020: its
    file is never written or checked); without a [project]/[managed] table each key is used by
    the run in its scope."""
    dead = PROJECT_CONFIG + (
        '\n[targets]\nclaude_settings = "home/.claude/settings.full.json"\n'
        'claude_managed_linux = "managed/etc/claude-code/managed-settings.json"\n'
    )
    sandbox.write("twsrt.toml", dead)
    run = sandbox.run("check", "--format", "json")
    assert run.returncode == 2, run.stdout  # refused: nothing else was checked
    left = [f for f in json.loads(run.stdout)["findings"] if f["rule_id"] == "TWS020"]
    where = [(f["level"], *f["location"].values()) for f in left]
    assert where == [
        ("error", "twsrt.toml", 9, 19, "/targets/claude_settings"),
        ("error", "twsrt.toml", 10, 24, "/targets/claude_managed_linux"),
    ]
    assert left[0]["message"] == (
        "claude_settings is a user-scope key; this config has a [project] table, so every run "
        "of it works in project scope and none writes or checks this file"
    )
    generated = sandbox.run("generate", "-w")
    assert generated.returncode == 2
    assert generated.stderr.startswith("twsrt.toml:9:19: error[TWS020] claude_settings is a ")
    other = (
        'checkout = "~/dotfiles"\n[sources]\nsrt = ".srt-settings.json"\n'
        'bash_rules = "bash-rules.json"\n\n[targets]\n'
        'claude_settings = "home/.claude/settings.full.json"\n'
        'claude_project = "app/.claude/settings.json"\n'
    )
    sandbox.write("twsrt.toml", other)
    (sandbox.repo / "app").mkdir()
    for args in (("check", "-v"), ("check", "-v", "--project", "app")):
        assert "TWS020" not in sandbox.run(*args).stdout
