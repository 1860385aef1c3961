"""The adversarial probes of ``twsrt.testing.attacks`` against the real srt 0.0.83 and Codex
0.171.0: the false PASSes of issue 13 (a tree deny compiled as a ``P/**`` glob entry, a denied
file only ever probed as a directory) turn into FAIL on a deliberately weakened Codex config,
and every attack passes (or is a documented gap) on the files twsrt generated.

The attacks run as ``twsrt test`` runs them: staged on the host, batched into one sandbox start
per batch, a control batch without the sandbox first, judged by their effect on the host.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.sandbox import REPO_ROOT
from support.tools import locate_tool, require_tool

from twsrt.invocation import find_config
from twsrt.policy import Policy
from twsrt.sources import load_policy
from twsrt.testing.attacks import derive_attacks
from twsrt.testing.batches import observe_all
from twsrt.testing.model import SRT_REQUIRED, Attack, Verdict
from twsrt.testing.verdicts import explain_gap, judge

from .codex_client import codex_bin, sandbox_run

pytestmark = pytest.mark.real

EXAMPLE = REPO_ROOT / "examples" / "dotfiles"
TIMEOUT = 60


class _Done:
    def __init__(self, code: int | None, output: str) -> None:
        self.exit_code, self.output, self.seconds = code, output, 0.0


def _env(root: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root / "home"),
        "LANG": "C.UTF-8",
    }


def _tree(tmp_path: Path) -> Path:
    # under /var/tmp: Codex's base profile opens /tmp, which would hide a widened write root
    root = Path(os.environ.get("TWSRT_ATTACK_ROOT", "/var/tmp")) / f"twsrt-attacks-{tmp_path.name}"
    shutil.rmtree(root, ignore_errors=True)
    for name in ("home", "work", "fs", "outside"):
        (root / name).mkdir(parents=True)
    return root


def _plain(root: Path):
    def run(script: str) -> _Done:
        proc = subprocess.run(
            ["sh", "-c", script],
            cwd=root / "work",
            env=_env(root),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        return _Done(proc.returncode, proc.stdout + proc.stderr)

    return run


def _codex(root: Path, config: str):
    binary = codex_bin()

    def run(script: str) -> _Done:
        code, out = sandbox_run(
            binary, config, script, root / "work", root / "home", timeout=TIMEOUT
        )
        return _Done(code, out)

    return run


def _srt(root: Path, policy: Policy):
    binary = require_tool(
        "srt", locate_tool("srt", "TWSRT_SRT_BIN", "/opt/twsrt-tools/srt/bin/srt")
    )
    settings = json.loads(json.dumps(policy.srt))  # srt anchors ~ and relative paths itself
    for section, keys in SRT_REQUIRED.items():
        for key in keys:
            settings.setdefault(section, {}).setdefault(key, [])
    path = root / "srt-settings.json"
    path.write_text(json.dumps(settings), encoding="utf-8")

    def run(script: str) -> _Done:
        proc = subprocess.run(
            [binary, "--settings", str(path), "-c", script],
            cwd=root / "work",
            env=_env(root),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            start_new_session=True,
        )
        return _Done(proc.returncode, proc.stdout + proc.stderr)

    return run


def _verdicts(engine: str, policy: Policy, attacks: list[Attack], root: Path, run) -> dict:
    out = {}
    for attack, control, sandboxed in observe_all(_plain(root), run, attacks, root):
        gap = None
        if sandboxed is not None and sandboxed.outcome not in (None, attack.expect):
            gap = explain_gap(engine, attack, sandboxed.outcome, policy, sys.platform)
        verdict, detail = judge(attack, control, sandboxed, gap)
        out[attack.name] = (verdict, detail)
    return out


def _example() -> tuple[Policy, str]:
    policy = load_policy(find_config(str(EXAMPLE / "twsrt.toml")))
    config = (EXAMPLE / "home" / ".codex" / "config.toml").read_text(encoding="utf-8")
    return policy, config


def _weakened(config: str) -> str:
    """The Codex config as a translation that compiles tree denies as P/** globs would write it."""
    out = config
    for path in ("~/.ssh", "~/.netrc"):
        line = f'"{path}" = "deny"'
        assert line in out
        out = out.replace(line, f'"{path}/**" = "deny"')
    return out


def _in_tree(policy: Policy) -> list[Attack]:
    """The attacks on ~ and relative rules: this harness gives the sandboxes the files as they
    are (HOME and the working directory in the tree), so an absolute rule such as /tmp names
    the real path, not its fixture image (twsrt test's engines re-root those)."""
    return [a for a in derive_attacks(policy) if not a.rule.startswith("/")]


def _reads(policy: Policy) -> list[Attack]:
    return [
        a
        for a in derive_attacks(policy)
        if a.kind == "deny-read" and a.rule in ("~/.ssh", "~/.netrc")
    ]


def test_codex_weakened_tree_deny_fails_where_the_old_probe_passed(tmp_path):
    policy, config = _example()
    root = _tree(tmp_path)
    try:
        seen = _verdicts("codex", policy, _reads(policy), root, _codex(root, _weakened(config)))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    failed = {name for name, (verdict, _) in seen.items() if verdict is Verdict.FAIL}
    # the denied paths probed as files, and the tree's listing, get past a P/** entry
    for name in (
        "deny-read ~/.ssh [file read]",
        "deny-read ~/.ssh [file symlink-read]",
        "deny-read ~/.netrc [file read]",
        "deny-read ~/.netrc [file proc-read]",
        "deny-read ~/.ssh [tree list]",
    ):
        assert name in failed, seen.get(name)
    # the shape the old probe tried (a file inside the path, present at start) still passes:
    # that is the false PASS this issue is about
    assert seen["deny-read ~/.ssh [tree read]"][0] is Verdict.PASS


def test_codex_generated_config_passes_every_attack_or_is_a_documented_gap(tmp_path):
    policy, config = _example()
    root = _tree(tmp_path)
    try:
        seen = _verdicts("codex", policy, _in_tree(policy), root, _codex(root, config))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    bad = {n: d for n, (v, d) in seen.items() if v not in (Verdict.PASS, Verdict.GAP)}
    assert not bad, bad
    gaps = sorted(n for n, (v, _) in seen.items() if v is Verdict.GAP)
    # Codex expands deny globs at start (TWS412): only new matching files would get through,
    # and the example names directories instead of globs, so nothing does
    assert all(n.startswith("deny-write **/") for n in gaps), gaps
    assert all(n.endswith(("[file create]", "[file create-match]")) for n in gaps), gaps
    assert gaps == [], gaps
    assert len(seen) > 100


def test_srt_canonical_policy_passes_every_attack_or_is_a_documented_gap(tmp_path):
    for tool in ("bwrap", "socat", "rg"):
        require_tool(tool, shutil.which(tool))
    policy, _ = _example()
    root = _tree(tmp_path)
    try:
        seen = _verdicts("srt", policy, _in_tree(policy), root, _srt(root, policy))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    bad = {n: d for n, (v, d) in seen.items() if v not in (Verdict.PASS, Verdict.GAP)}
    assert not bad, bad
    gaps = {n for n, (v, _) in seen.items() if v is Verdict.GAP}
    # srt on Linux skips globs in denyWrite (srt-linux-write-glob): only those rules could be
    # gaps, and the example has none (it names directories)
    assert all(n.startswith("deny-write **/") for n in gaps), sorted(gaps)
    assert not any(n.startswith(("deny-read", "deny-write ~/")) for n in gaps)
    assert gaps == set(), sorted(gaps)
