"""``twsrt test``'s attacks across launches (twsrt/testing/launches.py) against the real
sandboxes: srt 0.0.83 and Codex 0.171.0 themselves, Claude Code through the claude engine (srt
with the settings Claude derives from its file).

Each attack runs without a sandbox first (its control must take effect on the host) and then
in the sandbox started on the files on disk; a GAP is only what ``check`` reports for the run.
Shown here, each against the landed compile and against the compile of before (the same file
with the protections twsrt adds for a later launch taken out):

- srt refuses its own mandatory-deny names in the directory it starts in (the reference);
- the Claude files refuse them at the top of every write root (Claude 2.1.332's sandbox alone:
  only in the launch directory), and a planted Claude layer below the launch directory is the
  TWS628 that check reports;
- a folded stow link (``~/.claude`` one symlink into the repository) is unlinked from the
  launch directory, which is the TWS240 that check reports; unfolded, nothing is attacked.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli

pytestmark = pytest.mark.real

POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/.aws"],
        "denyWrite": ["app/locked"],
        "allowWrite": [".", "~/dev"],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
}
CONFIG = """\
[sources]
srt = "policy/srt.json"
bash_rules = "policy/bash.json"

[targets]
claude_settings = "home/.claude/settings.json"

[[check.ignore]]
rule = "claude-planted-layers"
reason = "the tests plant the layers on purpose and look for the gap"
"""


def env(tmp_path: Path, srt: str, codex: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    out.update(HOME=str(tmp_path / "home"), NO_COLOR="1", TWSRT_SRT_BIN=srt, TWSRT_CODEX_BIN=codex)
    out["GIT_CEILING_DIRECTORIES"] = str(tmp_path)
    out["TWSRT_MANAGED_ROOT"] = str(tmp_path / "host-root")
    return out


def repository(tmp_path: Path, srt: str, codex: str, config: str = CONFIG) -> Path:
    repo = tmp_path / "home" / "dots"
    (repo / ".git").mkdir(parents=True)
    (repo / "policy").mkdir()
    (repo / "policy/srt.json").write_text(json.dumps(POLICY, indent=2))
    (repo / "policy/bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    (repo / "twsrt.toml").write_text(config)
    run = run_cli(("generate", "-w"), cwd=repo, env=env(tmp_path, srt, codex))
    assert run.returncode == 0, run.stderr
    return repo


def probe(repo: Path, tmp_path: Path, srt: str, codex: str, *args: str) -> dict[tuple, Any]:
    run = run_cli(("test", "--json", *args), cwd=repo, env=env(tmp_path, srt, codex))
    assert run.stdout, run.stderr
    results = json.loads(run.stdout)["results"]
    for result in results:  # every attack's control took effect on the host
        assert result["kind"] in ("effective", "hand-added") or result["control"]["outcome"] == (
            "allowed"
        ), result
    return {(r["engine"], r["name"]): r for r in results}


def verdicts(found: dict[tuple, Any], engine: str) -> dict[str, str]:
    return {name: r["verdict"] for (e, name), r in found.items() if e == engine}


def strip(path: Path, drop: Any) -> None:
    """The Claude file without what ``drop`` says twsrt added for a later launch."""
    settings = json.loads(path.read_text())
    settings["permissions"]["deny"] = [r for r in settings["permissions"]["deny"] if not drop(r)]
    fs = settings["sandbox"]["filesystem"]
    fs["denyWrite"] = [p for p in fs["denyWrite"] if not drop(p)]
    path.write_text(json.dumps(settings, indent=2) + "\n")


def test_mandatory_names_srt_and_the_claude_files(tmp_path: Path, srt: str, codex: str) -> None:
    repo = repository(tmp_path, srt, codex)
    found = probe(
        repo, tmp_path, srt, codex, "--engine", "srt", "--engine", "claude", "-k", "mandatory"
    )
    srt_seen = verdicts(found, "srt")
    assert srt_seen and set(srt_seen.values()) == {"PASS"}, srt_seen  # its own set, launch dir
    assert all("[launch " in name for name in srt_seen)
    claude = verdicts(found, "claude")
    top = {n: v for n, v in claude.items() if " top " in n}
    assert {
        "mandatory .bashrc [~/dev top create]",
        "mandatory .git/hooks [~/dev top create]",
    } <= set(top)
    assert set(top.values()) == {"PASS"}, top
    # below the top of a write root other than the launch directory nothing refuses (Claude's
    # sandbox protects the launch directory only): the gap check reports there (TWS629)
    deeper = {n: found["claude", n] for n, v in claude.items() if v != "PASS"}
    assert set(deeper) == {n for n in claude if "[~/dev one" in n or "[~/dev nested" in n}, claude
    assert {(r["verdict"], r["gap"]["rule_id"]) for r in deeper.values()} == {("GAP", "TWS629")}

    # the compile of before: the Claude file without the ROOT/NAME write denies and the
    # Edit(NAME) rules (what twsrt added for a later launch): the top of ~/dev is writable
    strip(
        repo / "home/.claude/settings.json",
        lambda entry: "dev/" in entry or entry.startswith("Edit(//**"),
    )
    before = verdicts(
        probe(repo, tmp_path, srt, codex, "--engine", "claude", "-k", "~/dev top"), "claude"
    )
    assert before["mandatory .bashrc [~/dev top create]"] == "FAIL"
    assert before["mandatory .git/hooks [~/dev top create]"] == "FAIL"


def test_a_planted_claude_layer_is_the_gap_check_reports(
    tmp_path: Path, srt: str, codex: str
) -> None:
    repo = repository(tmp_path, srt, codex)
    found = probe(repo, tmp_path, srt, codex, "--engine", "claude", "-k", "plant-layer")
    claude = {name: r for (_, name), r in found.items()}
    for layer in (".claude/settings.json", ".claude/settings.local.json", ".mcp.json"):
        for where in ("launch one", "launch three", "~/dev one"):
            result = claude[f"plant-layer {layer} [{where} create]"]
            assert (result["verdict"], result["gap"]["rule_id"]) == ("GAP", "TWS628"), result
    # the run targets Claude only: its layers are all that is planted, and each is the gap
    assert {r["verdict"] for r in claude.values()} == {"GAP"}, claude
    assert len(claude) == 6 * 2 * 2  # six layers, one and three deep, the launch dir and ~/dev


def test_a_folded_settings_directory_is_unlinked_where_check_reports_it(
    tmp_path: Path, srt: str, codex: str
) -> None:
    repo = repository(tmp_path, srt, codex)
    unfolded = run_cli(("test", "-k", "relink"), cwd=repo, env=env(tmp_path, srt, codex))
    assert "no probe matches -k 'relink'" in unfolded.stderr  # no link here: nothing to attack
    # stow without --no-folding: ~/.claude is one symlink into the repository
    (tmp_path / "home" / ".claude").symlink_to(repo / "home" / ".claude")
    seen = verdicts(
        probe(repo, tmp_path, srt, codex, "--engine", "claude", "-k", "relink"), "claude"
    )
    assert seen["relink ~/.claude [launch unlink-link]"] == "GAP"  # started in ~: TWS240
    assert seen["relink ~/.claude [~ unlink-link]"] == "PASS"  # ~ itself is no write root


# What no engine refuses on examples/dotfiles and no rule of check reports (srt 0.0.83, Codex
# 0.171.0 and Claude Code's files as generated on this commit): (engine, family, whose layer or
# where). Each would be a FAIL of `twsrt test` on the example; none is left (a DeepCode layer
# a Claude command plants is DeepCode's TWS472, a repository nested below /tmp Claude's TWS629).
EXAMPLE_OPEN: set[tuple[str, str, str]] = set()


def open_key(result: Any) -> tuple[str, str, str]:
    """(engine, family, whose layer it plants, or where a mandatory name is, or the form)."""
    from twsrt.agents import config_layers

    probe = result.probe
    if probe.kind == "plant-layer":
        owner = next(agent for agent, layer in config_layers("project") if layer.path == probe.rule)
        return result.engine, probe.kind, owner
    if probe.kind != "mandatory":
        return result.engine, probe.kind, probe.form
    where, depth = probe.form.split(" ", 1)
    scope = "launch" if where == "launch" else "root"
    return (
        result.engine,
        probe.kind,
        f"{scope} nested" if scope == "root" and depth == "nested" else scope,
    )


def test_examples_dotfiles_across_launches(tmp_path: Path, srt: str, codex: str) -> None:
    """Every attack across launches on the example either is refused or is a gap check reports
    (TWS628 for a planted Claude layer), except what EXAMPLE_OPEN lists."""
    import shutil

    from support.sandbox import REPO_ROOT

    from twsrt.agents.codex.engine import CodexEngine
    from twsrt.invocation import context, find_config
    from twsrt.sources import load_policy
    from twsrt.testing.engine_srt import SrtEngine
    from twsrt.testing.engines import make_engine
    from twsrt.testing.run import run_tests

    from .probing import across_launches

    repo = tmp_path / "dotfiles"
    shutil.copytree(REPO_ROOT / "examples" / "dotfiles", repo, symlinks=True)
    (repo / ".git").mkdir()  # a dotfiles repository (outside one, its files lie in /tmp)
    config = find_config(str(repo / "twsrt.toml"), repo_names=True)
    ctx = context(config, load_policy(config), False, None)

    def factory(name: str) -> Any:
        return {"srt": lambda: SrtEngine(srt), "codex": lambda: CodexEngine(codex)}.get(
            name, lambda: make_engine(name)
        )()

    report = run_tests(ctx, None, "", factory=factory)
    launches = [r for r in report.results if across_launches(r)]
    assert {r.engine for r in launches} == {"srt", "codex", "claude", "deepcode"}
    verdicts = {r.verdict.value for r in launches}
    assert verdicts <= {"PASS", "GAP", "FAIL"}, verdicts
    failing = {open_key(r) for r in launches if r.verdict.value == "FAIL"}
    assert failing == EXAMPLE_OPEN, (sorted(failing - EXAMPLE_OPEN), sorted(EXAMPLE_OPEN - failing))
    gaps = {(r.engine, r.gap.rule_id) for r in launches if r.verdict.value == "GAP"}
    assert gaps == {
        ("claude", "TWS628"),
        ("claude", "TWS465"),  # a Codex layer a Claude command plants: Codex's check says so
        ("claude", "TWS471"),  # a Copilot layer: Copilot's check says a planted one is no way in
        ("claude", "TWS472"),  # a DeepCode layer: whoever plants it, DeepCode loads it
        ("claude", "TWS629"),  # srt's set below /tmp and ~/.cache/uv (the example accepts it)
        ("codex", "TWS628"),
        ("codex", "TWS465"),  # below the top of each write root (the example accepts it)
        ("codex", "TWS471"),
        ("codex", "TWS472"),  # a DeepCode layer: the loader's rule is asked first
        ("deepcode", "TWS628"),
        ("deepcode", "TWS465"),
        ("deepcode", "TWS471"),
        ("deepcode", "TWS472"),  # DeepCode's Linux sandbox writes the whole set
    }
    assert not [r for r in launches if r.engine == "codex" and r.verdict.value == "FAIL"]
    srt_seen = {r.verdict.value for r in launches if r.engine == "srt"}
    assert srt_seen == {"PASS"}


ROOT_CONFIG = """\
checkout = "~/dev/dots"

[sources]
srt = "policy/srt.json"
bash_rules = "policy/bash.json"

[targets]
claude_settings = "home/.claude/settings.json"
codex_config = "home/.codex/config.toml"

[[check.ignore]]
rule = "claude-planted-layers"
reason = "this test is about the protected set, not about planted layers"
"""


def test_the_protected_set_inside_a_write_root_is_refused(
    tmp_path: Path, srt: str, codex: str
) -> None:
    """The policy repository checked out in the write root ``~/dev`` and a denyRead secret
    there: the files as generated (the protected set compiled into each) refuse every write,
    rename and plant in them, in Codex and in the Claude files; the same files without the
    protected set's entries (the compile of before) let them through."""
    policy = {
        **POLICY,
        "filesystem": {"denyRead": ["~/dev/secret"], "allowWrite": [".", "~/dev"]},
    }
    repo = tmp_path / "home" / "dev" / "dots"
    (repo / ".git").mkdir(parents=True)
    (repo / "policy").mkdir()
    (repo / "policy/srt.json").write_text(json.dumps(policy, indent=2))
    (repo / "policy/bash.json").write_text('{"allow": [], "deny": ["sudo"], "ask": []}')
    (repo / "twsrt.toml").write_text(ROOT_CONFIG)
    environ = env(tmp_path, srt, codex)
    assert run_cli(("generate", "-w"), cwd=repo, env=environ).returncode in (0, 1)
    argv = ("--engine", "codex", "--engine", "claude", "-k", "protected")
    found = probe(repo, tmp_path, srt, codex, *argv)
    names = {name for _, name in found}
    for path in ("~/dev/dots", "~/dev/secret"):
        assert f"protected {path} [tree rename-aside]" in names, names
    assert {r["verdict"] for r in found.values()} == {"PASS"}, found
    protected = ("~/dev/dots", "~/dev/secret")
    config = repo / "home/.codex/config.toml"
    config.write_text(
        "".join(
            line
            for line in config.read_text().splitlines(keepends=True)
            if not any(f'"{p}' in line for p in protected)
        )
    )
    strip(repo / "home/.claude/settings.json", lambda entry: any(p in entry for p in protected))
    before = probe(repo, tmp_path, srt, codex, *argv)
    failed = {(e, name) for (e, name), r in before.items() if r["verdict"] == "FAIL"}
    for engine in ("codex", "claude"):
        assert (engine, "protected ~/dev/dots [tree create]") in failed, failed
        assert (engine, "protected ~/dev/dots [tree rename-aside]") in failed, failed
