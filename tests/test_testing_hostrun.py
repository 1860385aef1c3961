"""``twsrt test`` never starts a program the checkout names on the host outside a sandbox:
srt's ``ripgrep.command``, ``bwrapPath`` and ``socatPath`` (from the policy for the srt engine,
from the settings file's ``sandbox`` for the claude engine) are left out of the engine's input
and reported as UNMODELLED at their key (TWS506); the Codex keys naming programs of the Codex
process are left out of its copy. Before, srt ran the policy's ``ripgrep.command`` as the user
running the test (root in CI). The real runs with canary programs are in
tests/real/test_twsrt_test_hostrun.py."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from support.policies import make_policy
from support.sandbox import Sandbox

from twsrt.agents.claude.engine import ClaudeEngine
from twsrt.agents.codex.engine import codex_config
from twsrt.documents import Documents
from twsrt.rules import Level
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.gaps import static_gaps
from twsrt.testing.inputs import srt_settings
from twsrt.testing.model import Verdict
from twsrt.testing.run import run_tests

HOSTILE = {
    "filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."], "denyWrite": []},
    "network": {"allowedDomains": [], "deniedDomains": []},
    "ripgrep": {"command": "./tools/rg", "args": ["--hidden"]},
    "bwrapPath": "/opt/evil/bwrap",
    "socatPath": "/opt/evil/socat",
}


def test_srt_runs_without_the_policy_s_programs() -> None:
    settings = srt_settings(make_policy(HOSTILE), "/R")
    assert not {"ripgrep", "bwrapPath", "socatPath"} & set(settings)
    assert settings["filesystem"]["denyRead"] == ["/R/home/.aws"]  # the rest as before


def test_check_names_each_program_as_a_note() -> None:
    found = [f for f in static_gaps(make_policy(HOSTILE)) if f.rule_id == "TWS506"]
    assert [(f.location.pointer, f.level) for f in found] == [
        ("/ripgrep", Level.NOTE),
        ("/bwrapPath", Level.NOTE),
        ("/socatPath", Level.NOTE),
    ]
    assert found[0].message == (
        "ripgrep.command names './tools/rg', which srt starts on this host outside its sandbox, "
        "unsandboxed at every start (keep it out of every write root); twsrt test does not run "
        "it and takes rg from PATH instead"
    )
    assert not [f for f in static_gaps(make_policy({"filesystem": {}})) if f.rule_id == "TWS506"]


def line_of(path: Path, key: str) -> int:
    return next(n for n, t in enumerate(path.read_text().splitlines(), 1) if f'"{key}"' in t)


def context(sandbox: Sandbox, srt: dict[str, Any]) -> Any:
    from twsrt.invocation import context as make
    from twsrt.invocation import find_config
    from twsrt.sources import load_policy

    sandbox.write(".srt-settings.json", srt)
    config = find_config(str(sandbox.repo / "twsrt.toml"), repo_names=True)
    return make(config, load_policy(config), False, None)


class NeverRun:
    """The engine as it is, never started (every probe is filtered out by -k)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __call__(self, name: str) -> Any:
        engine = self.cls()
        engine.check_available = lambda ctx: None
        return engine


def test_the_srt_engine_reports_each_program_it_did_not_start(sandbox: Sandbox) -> None:
    ctx = context(sandbox, HOSTILE)
    report = run_tests(ctx, "srt", "host-program", factory=NeverRun(SrtEngine))
    assert report.exit_code == 0  # UNMODELLED fails only with --strict
    shown = {r.probe.name: (str(r.probe.origin), r.verdict, r.gap.rule_id) for r in report.results}
    source = sandbox.repo / ".srt-settings.json"
    assert shown == {
        f"host-program {key}": (
            f".srt-settings.json:{line_of(source, key)}:3",
            Verdict.UNMODELLED,
            "TWS506",
        )
        for key in ("ripgrep", "bwrapPath", "socatPath")
    }
    assert report.results[0].gap.message.endswith(
        "twsrt test never runs a program the checkout names there, so srt ran with rg from "
        "PATH instead: what './tools/rg' does is not tested"
    )
    strict = run_tests(ctx, "srt", "host-program", strict=True, factory=NeverRun(SrtEngine))
    assert strict.exit_code == 1


def test_the_claude_engine_leaves_the_file_s_programs_out(sandbox: Sandbox, tmp_path: Path) -> None:
    ctx = context(sandbox, HOSTILE)
    target = ctx.config.targets["claude_settings"]
    target.parent.mkdir(parents=True)
    settings = {
        "sandbox": {
            "enabled": True,
            "filesystem": {"denyRead": ["~/.aws"]},
            "ripgrep": {"command": "/opt/evil/rg"},
            "bwrapPath": "/opt/evil/bwrap",
        }
    }
    target.write_text(json.dumps(settings, indent=2) + "\n")
    engine = ClaudeEngine()
    found = {r.probe.name: str(r.probe.origin) for r in engine.host_programs(ctx)}
    display = ctx.config.display_path(target)
    assert found == {
        f"host-program {key}": f"{display}:{line_of(target, key)}:5"
        for key in ("ripgrep", "bwrapPath")
    }
    root = tmp_path / "root"
    root.mkdir()
    engine.prepare(ctx, root, "http://127.0.0.1:9")
    derived = json.loads((root / "claude-srt-settings.json").read_text())
    assert not {"ripgrep", "bwrapPath", "socatPath"} & set(derived)
    assert derived["filesystem"]["denyRead"] == [f"{root}/home/.aws"]
    settings["sandbox"]["enabled"] = False  # no sandbox: srt is not started at all
    target.write_text(json.dumps(settings, indent=2) + "\n")
    assert ClaudeEngine().host_programs(replace_run(ctx)) == []


def replace_run(ctx: Any) -> Any:
    from dataclasses import replace

    return replace(ctx, documents=Documents())


def test_codex_s_copy_has_no_program_of_the_codex_process() -> None:
    text = """\
model = "m"
notify = ["sh", "-c", "touch /tmp/x"]
js_repl_node_path = "/opt/evil/node"
log_dir = "/root/.ssh"
default_permissions = "twsrt"

[mcp_servers.x]
command = "sh"

[hooks]
x = 1

[model_providers.p.auth]
command = "sh"

[permissions.twsrt.filesystem]
"/srv" = "write"
"""
    copied = tomllib.loads(codex_config(text, "/R"))
    assert copied == {
        "model": "m",
        "default_permissions": "twsrt",
        "permissions": {"twsrt": {"filesystem": {"/R/fs/srv": "write"}}},
    }
