"""The sandbox-mode axis across every registered agent (property tests and CLI behaviour).

Properties compile random policies in-process for each agent and approval mode (policies every
agent compiles: a refused one would be a failure here, not a skipped example):

- read-only never emits a write grant anywhere (no write root, no read-write path, no writable
  filesystem entry, no write-tool grant) and switches every sandbox on;
- danger-full-access always yields the TWS212 warning, per agent;
- every mode keeps every deny the agent can express in workspace-write.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.policies import named
from support.sandbox import Sandbox
from support.strategies import compilable_bash_rules, compilable_srt_settings

from twsrt.agents import AGENTS
from twsrt.agents.base import Result
from twsrt.agents.codex.launches import protected_names
from twsrt.agents.copilot.agent import parse_snippet
from twsrt.config import SANDBOX_MODES, Config
from twsrt.jsonpos import parse_json
from twsrt.locations import Location
from twsrt.protection import protected_context, with_root_names
from twsrt.sources import build_policy
from twsrt.writes import FileWrite

PROPS = settings(max_examples=60, deadline=None)
# Targets that do not exist: every agent compiles a new file, nothing is read or written.
ROOT = Path("/nonexistent-twsrt-targets")
TARGETS = {
    "claude_settings": ROOT / ".claude" / "settings.full.json",
    "codex_config": ROOT / ".codex" / "config.toml",
    "codex_rules": ROOT / ".codex" / "rules" / "twsrt.rules",
    "copilot_output": ROOT / "copilot-flags.txt",
    "copilot_settings": ROOT / ".copilot" / "settings.json",
    "deepcode_settings": ROOT / ".deepcode" / "settings.json",
    "gemini_settings": ROOT / ".gemini" / "settings.json",
    "gemini_policy": ROOT / ".gemini" / "policies" / "twsrt.toml",
    "qwen_settings": ROOT / ".qwen" / "settings.json",
    "pi_sandbox": ROOT / ".pi" / "agent" / "extensions" / "sandbox.json",
    "opencode_config": ROOT / ".config" / "opencode" / "opencode.json",
    "kilo_config": ROOT / ".config" / "kilo" / "kilo.jsonc",
    "droid_settings": ROOT / ".factory" / "settings.json",
}


def _config() -> Config:
    return Config(
        path=ROOT / "twsrt.toml",
        display="twsrt.toml",
        home=Path("/home/user"),
        srt=ROOT / "srt.json",
        bash_rules=ROOT / "bash.json",
        targets=dict(TARGETS),
        overrides={"full": {}, "yolo": {}},
        pinned_home="/home/user",
    )


def compile_all(
    srt: dict[str, Any], bash: dict[str, Any], yolo: bool, sandbox_mode: str
) -> dict[str, Result]:
    policy = with_root_names(
        build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json(json.dumps(bash)), "bash.json"
        )
    )
    origin = Location("twsrt.toml", 3, 8, "/sandbox/mode")
    ctx = protected_context(_config(), policy, yolo, sandbox_mode, origin)
    return {name: agent.compile(ctx) for name, agent in AGENTS.items()}


def outputs(result: Result) -> dict[str, str]:
    """The text of every generated file, by file name."""
    return {c.path.name: c.text for c in result.changes if isinstance(c, FileWrite)}


def _json(result: Result) -> dict[str, Any]:
    (text,) = [t for name, t in outputs(result).items() if name.endswith(".json")]
    return json.loads(text)


def _flags(result: Result) -> list[tuple[str, str]]:
    text = next(t for name, t in outputs(result).items() if name.startswith("copilot-flags"))
    argv = [a for a in parse_snippet(text) if a != "--yolo"]
    return list(zip(argv[::2], argv[1::2], strict=True))


def _copilot_settings(result: Result) -> dict[str, Any]:
    return json.loads(outputs(result)["settings.json"])


def _codex(result: Result) -> tuple[dict[str, Any], str]:
    files = outputs(result)
    return tomllib.loads(files["config.toml"]), files["twsrt.rules"]


def _gemini(result: Result) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    files = outputs(result)
    return tomllib.loads(files["twsrt.toml"])["rule"], json.loads(files["settings.json"])


def _tools(rule: dict[str, Any]) -> list[str]:
    names = rule["toolName"]
    return [names] if isinstance(names, str) else names


def _qwen_write_grants(result: Result) -> list[str]:
    """Qwen's settings: a write-tool allow, no execution sandbox, or a writable workspace."""
    document = _json(result)
    grants = [
        rule
        for rule in document["permissions"]["allow"]
        if rule.split("(")[0] in ("Edit", "Write", "WriteFile", "write_file", "edit")
    ]
    sandbox = document["tools"].get("executionSandbox")
    if sandbox is None:
        grants.append("execution sandbox off")
    elif sandbox["filesystem"] != "read-only":
        grants.append(f"filesystem {sandbox['filesystem']}")
    return grants


def _permission_file(result: Result) -> dict[str, Any]:
    """OpenCode's or Kilo's config (both start from no file here, so it is plain JSON)."""
    (text,) = [t for name, t in outputs(result).items() if name.endswith((".json", ".jsonc"))]
    return json.loads(text)


def _permission_grants(result: Result) -> list[str]:
    """OpenCode's and Kilo's: an edit rule that allows. Their shell writes past any rule, which
    is no output of twsrt's but the agent's own (TWS452; Kilo's sandbox: its writable paths)."""
    document = _permission_file(result)
    edit = document["permission"]["edit"]
    grants = [f"edit {k}" for k, v in edit.items() if v == "allow"]
    sandbox = document.get("sandbox")
    if sandbox is not None:
        grants += [f"writable_paths {p}" for p in sandbox.get("writable_paths", [])]
        if sandbox.get("enabled") is not True:
            grants.append("sandbox not enabled")
    return grants


WHOLE = " (all)"  # a tool every pattern of which is denied: it keeps every deny of that tool


def _permission_denies(result: Result) -> dict[str, set[str]]:
    """Every deny of OpenCode's or Kilo's permission object, as ``tool pattern``, and
    ``tool (all)`` for a tool denied whole (``"deny"``, or rules that all deny)."""
    found: set[str] = set()
    for tool, rules in _permission_file(result)["permission"].items():
        if rules == "deny" or (isinstance(rules, dict) and set(rules.values()) == {"deny"}):
            found.add(tool + WHOLE)
        if isinstance(rules, dict):
            found |= {f"{tool} {k}" for k, v in rules.items() if v == "deny"}
    return {"permission": found}


def _kept(before: set[str], after: set[str]) -> bool:
    """Every deny of ``before`` is in ``after``, or its tool is denied whole there."""
    whole = {entry.removesuffix(WHOLE) for entry in after if entry.endswith(WHOLE)}
    return all(entry in after or entry.split(" ", 1)[0] in whole for entry in before)


def _droid_write_grants(result: Result) -> list[str]:
    """Droid's sandbox block: its write roots, or the sandbox off. The launch directory and
    ~/.factory/temp it keeps writable itself are no output of twsrt's (TWS495)."""
    sandbox = _json(result)["sandbox"]
    grants = [f"allowWrite {p}" for p in sandbox.get("filesystem", {}).get("allowWrite", [])]
    return grants if sandbox.get("enabled") is True else [*grants, "sandbox not enabled"]


def _droid_sandbox_denies(result: Result) -> dict[str, set[str]]:
    """Droid's srt lists; the names at a write root's top guard what a write root could change,
    so with no write root (read-only) they have nothing to guard."""
    from twsrt.agents import config_layers
    from twsrt.agents.rootnames import names as root_names

    names = [name for name, _tree in root_names(layer for _a, layer in config_layers("project"))]
    guards = (*names, *{name.split("/")[0] for name in names})
    filesystem = _json(result)["sandbox"]["filesystem"]
    return {
        "denyRead": set(filesystem["denyRead"]),
        "denyWrite": {p for p in filesystem["denyWrite"] if not _protection(p, guards)},
    }


def _walk(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _walk(v, f"{path}.{k}")]
    return [(path, value)]


def _protection(key: str, names: tuple[str, ...]) -> bool:
    """Whether a walked key (``.filesystem.~/p/.bashrc``, ``.filesystem.:workspace_roots..idea``)
    names a protection at a write root's top."""
    return any(key.endswith(("/" + name, "." + name)) for name in names)


def _copilot_write_grants(result: Result) -> list[str]:
    grants: list[str] = []
    grants += [v for f, v in _flags(result) if f == "--allow-tool" and v in ("write", "edit")]
    if ("--deny-tool", "write") not in _flags(result):
        grants.append("write tool not denied")
    sandbox = _copilot_settings(result)["sandbox"]
    grants += sandbox["userPolicy"]["filesystem"]["readwritePaths"]
    if sandbox["addCurrentWorkingDirectory"] or not sandbox["enabled"]:
        grants.append("working directory writable or sandbox off")
    return grants


def _gemini_write_grants(result: Result) -> list[str]:
    """The directory Gemini starts in stays writable to shell commands in every mode: that is
    no output of twsrt's but the agent's own, and TWS479 reports it."""
    rules, settings = _gemini(result)
    write_tools = {"write_file", "replace"}
    grants = [
        f"allow {r.get('toolName')}"
        for r in rules
        if r["decision"] == "allow" and write_tools & set(_tools(r))
    ]
    if not any(
        r["decision"] == "deny" and "argsPattern" not in r and write_tools <= set(_tools(r))
        for r in rules
    ):
        grants.append("write tools not denied")
    if settings["security"]["toolSandboxing"] is not True:
        grants.append("tool sandbox off")
    return grants + settings["tools"]["sandboxAllowedPaths"]


def _claude_write_grants(result: Result) -> list[str]:
    document = _json(result)
    grants = [
        f"allowWrite {p}" for p in document["sandbox"].get("filesystem", {}).get("allowWrite", [])
    ]
    grants += [
        rule
        for rule in document["permissions"].get("allow", [])
        if rule.split("(")[0] in ("Edit", "Write", "MultiEdit", "NotebookEdit")
    ]
    if "excludedCommands" in document["sandbox"]:
        grants.append("excludedCommands (run unsandboxed)")
    if document["sandbox"].get("allowUnsandboxedCommands", True) is not False:
        grants.append("allowUnsandboxedCommands")
    if document["sandbox"].get("enabled") is not True:
        grants.append("sandbox not enabled")
    return grants


def _codex_write_grants(result: Result) -> list[str]:
    config, _rules = _codex(result)
    grants: list[str] = []
    profile = config.get("permissions", {}).get(config["default_permissions"], {})
    if config["default_permissions"].startswith(":") or profile.get("extends") != ":read-only":
        grants.append(f"profile {config['default_permissions']} / {profile.get('extends')}")
    grants += [f"workspace_root {r}" for r in profile.get("workspace_roots", {})]
    return grants + [k for k, v in _walk(profile.get("filesystem", {})) if v == "write"]


def _deepcode_write_grants(result: Result) -> list[str]:
    sandbox = _json(result)["sandbox"]
    grants = [f"allowWrite {p}" for p in sandbox.get("filesystem", {}).get("allowWrite", [])]
    if sandbox.get("mode") != "read-only" or "enabled" in sandbox:
        grants.append(f"mode {sandbox.get('mode')} / enabled {sandbox.get('enabled')}")
    return grants


def write_grants(name: str, result: Result) -> list[str]:
    """Everything in an agent's output that would let a command or a tool write somewhere."""
    readers: dict[str, Callable[[Result], list[str]]] = {
        "claude": _claude_write_grants,
        "codex": _codex_write_grants,
        "copilot": _copilot_write_grants,
        "deepcode": _deepcode_write_grants,
        "gemini": _gemini_write_grants,
        "qwen": _qwen_write_grants,
        "pi": _pi_write_grants,
        "opencode": _permission_grants,
        "kilo": _permission_grants,
        "droid": _droid_write_grants,
    }
    # a new agent must say here what a write grant looks like in its output
    assert name in readers, f"no write-grant reader for agent {name}"
    return readers[name](result)


def denies(name: str, result: Result) -> dict[str, set[str]]:
    """The deny rules an agent enforces itself, in a comparable form, by kind."""
    if name in ("claude", "deepcode", "qwen"):  # the same permissions grammar
        return {"permissions.deny": set(_json(result)["permissions"]["deny"])}
    if name == "codex":
        _config_doc, rules = _codex(result)
        return {"rules": {rules}}
    if name == "copilot":
        flags = _flags(result)
        return {"flags": {f"{f} {v}" for f, v in flags if f in ("--deny-tool", "--deny-url")}}
    if name == "gemini":
        rules, _settings = _gemini(result)
        return {"rules": {json.dumps(r, sort_keys=True) for r in rules if r["decision"] == "deny"}}
    if name == "pi":  # its sandbox is srt, the deny lists all it has
        return _pi_denies(result)
    if name in ("opencode", "kilo"):
        return _permission_denies(result)
    if name == "droid":  # its command lists hold with the sandbox on or off
        document = _json(result)
        return {"commandBlocklist": set(document["commandBlocklist"])}
    raise AssertionError(f"no deny reader for agent {name}")


def _pi_write_grants(result: Result) -> list[str]:
    """pi's srt document: its write roots, or the sandbox off."""
    document = _json(result)
    grants = [f"allowWrite {p}" for p in document["filesystem"]["allowWrite"]]
    return grants if document["enabled"] is True else [*grants, "sandbox not enabled"]


def _pi_denies(result: Result) -> dict[str, set[str]]:
    """pi's deny lists; the names at a write root's top guard what a write root could change,
    so with no write root (read-only) they have nothing to guard."""
    document = _json(result)
    from twsrt.agents import config_layers
    from twsrt.agents.rootnames import names as root_names

    names = [name for name, _tree in root_names(layer for _a, layer in config_layers("project"))]
    guards = (*names, *{name.split("/")[0] for name in names})
    filesystem, network = document["filesystem"], document["network"]
    return {
        "denyRead": set(filesystem["denyRead"]),
        "denyWrite": {p for p in filesystem["denyWrite"] if not _protection(p, guards)},
        "deniedDomains": set(network["deniedDomains"]),
    }


def sandbox_denies(name: str, result: Result) -> dict[str, set[str]]:
    """The deny entries an agent's own sandbox takes (only where a sandbox runs)."""
    if name in ("claude", "deepcode"):  # both copy the srt lists into sandbox.*
        sandbox = _json(result)["sandbox"]
        fs, net = sandbox.get("filesystem", {}), sandbox.get("network", {})
        return {
            "denyRead": set(fs.get("denyRead", [])),
            "denyWrite": set(fs.get("denyWrite", [])),
            "deniedDomains": set(net.get("deniedDomains", [])),
        }
    if name == "codex":
        config, _rules = _codex(result)
        profile = config.get("permissions", {}).get("twsrt", {})
        entries = _walk(profile.get("filesystem", {})) + _walk(profile.get("network", {}))
        # the protections at each write root's top guard what a write root could change; with
        # no write root (read-only) they have nothing to guard
        names = protected_names(named())
        return {
            "entries": {
                f"{k}={v}"
                for k, v in entries
                if v in ("deny", "read") and not (v == "read" and _protection(k, names))
            }
        }
    if name == "copilot":
        policy = _copilot_settings(result)["sandbox"]["userPolicy"]
        return {
            "deniedPaths": set(policy["filesystem"]["deniedPaths"]),
            "blockedHosts": set(policy["network"]["blockedHosts"]),
        }
    if name == "gemini":  # its sandbox takes no deny list, only the network switch
        tools = _gemini(result)[1]["tools"]
        return {"network": {json.dumps(tools["sandboxNetworkAccess"])}}
    if name == "qwen":  # its sandbox takes no deny list, only the network switch
        sandbox = _json(result)["tools"]["executionSandbox"]
        return {"network": {sandbox["network"]}}
    if name == "pi":
        return _pi_denies(result)
    if name == "opencode":  # no sandbox of its own
        return {}
    if name == "kilo":  # its sandbox takes no deny list, only the network switch
        return {"network": {_permission_file(result)["sandbox"]["network"]}}
    if name == "droid":
        return _droid_sandbox_denies(result)
    raise AssertionError(f"no sandbox deny reader for agent {name}")


def test_every_agent_has_readers() -> None:
    results = compile_all({}, {"deny": ["rm -rf"]}, False, "read-only")
    for name, result in results.items():
        assert write_grants(name, result) == [], name
        assert denies(name, result), name


@PROPS
@given(srt=compilable_srt_settings(), bash=compilable_bash_rules(), yolo=st.booleans())
def test_read_only_never_emits_a_write_grant(srt, bash, yolo):
    results = compile_all(srt, bash, yolo, "read-only")
    for name, result in results.items():
        assert write_grants(name, result) == [], name


@PROPS
@given(srt=compilable_srt_settings(), bash=compilable_bash_rules(), yolo=st.booleans())
def test_danger_full_access_always_warns(srt, bash, yolo):
    results = compile_all(srt, bash, yolo, "danger-full-access")
    for name, result in results.items():
        warnings = [f for f in result.findings if f.rule_id == "TWS212"]
        assert len(warnings) == 1, name
        assert warnings[0].level.value == "warning"
        assert warnings[0].agent == name
        assert warnings[0].location == Location("twsrt.toml", 3, 8, "/sandbox/mode")


@PROPS
@given(srt=compilable_srt_settings(), bash=compilable_bash_rules(), yolo=st.booleans())
def test_every_mode_keeps_every_deny(srt, bash, yolo):
    baseline = compile_all(srt, bash, yolo, "workspace-write")
    for mode in ("read-only", "danger-full-access"):
        results = compile_all(srt, bash, yolo, mode)
        for name, result in results.items():
            before, after = denies(name, baseline[name]), denies(name, result)
            for kind, values in before.items():
                assert _kept(values, after[kind]), (name, mode, kind)
            if mode == "read-only":  # a sandbox still runs: its denies are all there too
                before = sandbox_denies(name, baseline[name])
                after = sandbox_denies(name, result)
                for kind, values in before.items():
                    assert values <= after[kind], (name, mode, kind)


# ---------------------------------------------------------------- CLI


def test_sandbox_modes_agree_with_the_cli_choices() -> None:
    from twsrt import cli

    assert cli.SANDBOX_MODES == SANDBOX_MODES


CONFIG = """\
home = "/home/user"
checkout = "~/dotfiles"
[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[targets]
claude_settings = "home/.claude/settings.full.json"
"""


def _setup(sandbox: Sandbox, extra: str = "") -> None:
    sandbox.write(".srt-settings.json", '{"filesystem": {"allowWrite": ["~/work"]}}\n')
    sandbox.write("bash-rules.json", '{"deny": ["rm -rf"]}\n')
    sandbox.write("twsrt.toml", CONFIG + extra)


def test_config_mode_is_used_and_located(sandbox: Sandbox) -> None:
    _setup(sandbox, '\n[sandbox]\nmode = "danger-full-access"\n')
    result = sandbox.run("generate", "claude")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sandbox"]["enabled"] is False
    lines = result.stderr.splitlines()
    assert lines[0] == "twsrt: approval mode full, sandbox mode danger-full-access"
    assert lines[1].startswith(
        "twsrt.toml:11:8: warning[TWS212] sandbox mode danger-full-access ([sandbox] mode): "
        "claude runs commands without an OS sandbox"
    )
    assert lines[1].endswith("(at /sandbox/mode, agent claude)")


def test_flag_wins_over_config_and_is_independent_of_yolo(sandbox: Sandbox) -> None:
    _setup(sandbox, '\n[sandbox]\nmode = "danger-full-access"\n')
    result = sandbox.run("generate", "claude", "--yolo", "--sandbox", "read-only")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == ("twsrt: approval mode yolo, sandbox mode read-only")
    document = json.loads(result.stdout)
    assert document["sandbox"]["enabled"] is True
    assert "Edit" in document["permissions"]["deny"]
    assert "ask" not in document["permissions"]
    assert "TWS212" not in result.stderr


def test_unknown_mode_in_config_is_a_located_schema_error(sandbox: Sandbox) -> None:
    _setup(sandbox, '\n[sandbox]\nmode = "read-write"\n')
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 2
    assert result.stderr.startswith("twsrt.toml:11:8: error[TWS102]")
    assert "Traceback" not in result.stderr
    assert not (sandbox.repo / "home").exists()


def test_unknown_mode_on_the_command_line_is_a_usage_error(sandbox: Sandbox) -> None:
    _setup(sandbox)
    result = sandbox.run("generate", "--sandbox", "off")
    assert result.returncode == 2
    assert "Invalid value for '--sandbox'" in result.stderr


def test_diff_reports_mode_drift_and_warns(sandbox: Sandbox) -> None:
    _setup(sandbox)
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert sandbox.run("diff", "claude").returncode == 0
    drift = sandbox.run("diff", "claude", "--sandbox", "read-only")
    assert drift.returncode == 1
    assert drift.stderr.splitlines()[0] == "twsrt: approval mode full, sandbox mode read-only"
    assert "+ permissions.deny: Edit" in drift.stdout
    assert '- sandbox.filesystem.allowWrite: "~/work"' in drift.stdout
    danger = sandbox.run("diff", "claude", "--sandbox", "danger-full-access")
    assert danger.returncode == 1
    assert "warning[TWS212]" in danger.stderr


def test_check_compiles_for_the_mode_and_reports_it(sandbox: Sandbox) -> None:
    _setup(sandbox, '\n[sandbox]\nmode = "read-only"\n')
    sandbox.accept_planted_layers()  # Claude's shell still writes its launch directory
    assert sandbox.run("generate", "-w").returncode == 0
    clean = sandbox.run("check", "--format", "json")
    report = json.loads(clean.stdout)
    assert report["summary"]["sandbox_mode"] == "read-only"
    assert clean.returncode == 0, clean.stdout
    text = sandbox.run("check")
    assert text.stdout.rstrip().endswith("(sandbox mode read-only)")
    # the files were written for read-only: checking them as workspace-write is drift
    other = sandbox.run("check", "--sandbox", "workspace-write", "--format", "json")
    assert other.returncode == 1
    drift = [f for f in json.loads(other.stdout)["findings"] if f["rule_id"].startswith("TWS3")]
    assert [f["rule_name"] for f in drift] == ["drift-unapplied"]  # allowWrite is missing


@pytest.mark.parametrize("mode", SANDBOX_MODES)
def test_dry_run_names_the_pair(sandbox: Sandbox, mode: str) -> None:
    _setup(sandbox)
    result = sandbox.run("generate", "-n", "-w", "--sandbox", mode)
    assert result.returncode == 0, result.stderr
    assert f"twsrt: approval mode full, sandbox mode {mode}\n" in result.stderr
    assert not (sandbox.repo / "home").exists()
