"""``twsrt test`` FAILs what the files on disk grant beyond the policy, at the key that grants
it: an entry added by hand to a section twsrt manages (a write root in the Codex profile,
``allowUnsandboxedCommands: true`` in a Claude yolo file) and every effective-configuration error
``check`` reports. Before, these all PASSed (no probe looks there) and the run exited 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.sandbox import Sandbox

from twsrt.agents.claude.engine import ClaudeEngine
from twsrt.agents.codex.engine import CodexEngine
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.model import Verdict
from twsrt.testing.ondisk import on_disk_results
from twsrt.testing.run import run_tests


class Here:
    """The engines as they are, but never run: every probe is filtered out by -k, so only
    what the files on disk say is reported."""

    def __call__(self, name: str) -> Any:
        engine = {"srt": SrtEngine, "codex": CodexEngine, "claude": ClaudeEngine}[name]()
        engine.check_available = lambda ctx: None
        return engine


def context(sandbox: Sandbox, yolo: bool = False) -> Any:
    from twsrt.invocation import context as make
    from twsrt.invocation import find_config
    from twsrt.sources import load_policy

    config = find_config(str(sandbox.repo / "twsrt.toml"), repo_names=True)
    return make(config, load_policy(config), yolo, None)


def failing(sandbox: Sandbox, engine: str, yolo: bool = False) -> dict[str, tuple[str, str]]:
    ctx = context(sandbox, yolo)
    found = on_disk_results(ctx, [Here()(engine)])
    if found:  # the run that reports them exits 1
        report = run_tests(ctx, engine, "hand-added", factory=Here())
        assert report.results == found and report.exit_code == 1
    assert all(r.verdict is Verdict.FAIL for r in found)
    return {r.probe.name: (str(r.probe.origin), r.detail) for r in found}


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_write_root_added_to_the_codex_profile_fails_at_its_key(sandbox: Sandbox) -> None:
    sandbox.use_example()
    assert failing(sandbox, "codex") == {}  # the example as generated: nothing to report
    config = sandbox.repo / "home/.codex/config.toml"
    config.write_text(
        config.read_text().replace('"/tmp" = "write"\n', '"/tmp" = "write"\n"/srv/x" = "write"\n')
    )
    found = failing(sandbox, "codex")
    line = line_of(config, '"/srv/x"')
    assert list(found) == ['hand-added permissions.twsrt.filesystem./srv/x = "write"']
    where, detail = found['hand-added permissions.twsrt.filesystem./srv/x = "write"']
    assert where == f"home/.codex/config.toml:{line}:1"
    assert detail.startswith("TWS303 drift-out-of-band: home/.codex/config.toml holds")
    assert "run `twsrt generate -w`" in detail


def test_allow_unsandboxed_commands_in_a_yolo_file_fails_at_its_key(sandbox: Sandbox) -> None:
    sandbox.use_example()
    yolo = sandbox.repo / "home/.claude/settings.yolo.json"
    settings = json.loads(yolo.read_text())
    settings["sandbox"]["allowUnsandboxedCommands"] = True
    yolo.write_text(json.dumps(settings, indent=2) + "\n")
    assert failing(sandbox, "claude") == {}  # the full file is probed without --yolo
    found = failing(sandbox, "claude", yolo=True)
    line = line_of(yolo, '"allowUnsandboxedCommands"')
    assert found == {
        "hand-added sandbox.allowUnsandboxedCommands = true": (
            f"home/.claude/settings.yolo.json:{line}:5",
            "TWS302 drift-unapplied: home/.claude/settings.yolo.json holds "
            "'sandbox.allowUnsandboxedCommands = true' in a section twsrt manages, which the "
            "policy does not compile: the agent loads it as it is (added or changed by hand); "
            "run `twsrt generate -w --yolo`",
        )
    }


def test_an_effective_configuration_error_fails_at_its_key(sandbox: Sandbox) -> None:
    """A user key check reports as an error (TWS604: a write root the policy does not grant)
    fails the run at the key; a suppressed one does not (the example suppresses TWS601)."""
    sandbox.use_example()
    full = sandbox.repo / "home/.claude/settings.full.json"
    settings = json.loads(full.read_text())
    settings["permissions"]["additionalDirectories"] = ["/srv/shared"]
    full.write_text(json.dumps(settings, indent=2) + "\n")
    report = run_tests(context(sandbox), "claude", "effective", factory=Here())
    assert report.exit_code == 1
    [result] = report.results
    line = line_of(full, '"/srv/shared"')
    assert result.verdict is Verdict.FAIL
    assert result.probe.kind == "effective"
    assert str(result.probe.origin) == f"home/.claude/settings.full.json:{line}:7"
    assert result.detail.startswith("TWS604 user-write-root: ")
    # the srt engine reads the canonical source: nothing of an agent's file is its business
    assert on_disk_results(context(sandbox), [Here()("srt")]) == []
