"""Composed profiles compiled for every agent: golden files (tests/golden/profiles/<case>/), and
the property that composing fragments equals one policy file listing their entries in order.

A golden case holds ``twsrt.toml`` (its default profile is the one compiled) and its fragment
files under ``policy/``; ``expected/`` holds every file ``generate -w`` writes under ``out/``
(each agent's target), and ``stderr.txt`` the findings ``generate -w -v`` prints, which stand
at the fragment lines. ``UPDATE_GOLDEN=1`` rewrites them (read every byte you accept).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.golden import GOLDEN_ROOT, assert_golden, update_golden
from support.sandbox import Sandbox, make_sandbox
from support.strategies import compilable_bash_rules, compilable_srt_settings

CASES = sorted(p.name for p in (GOLDEN_ROOT / "profiles").iterdir() if p.is_dir())
TARGETS = {
    "claude_settings": "out/.claude/settings.full.json",
    "codex_config": "out/.codex/config.toml",
    "codex_rules": "out/.codex/rules/twsrt.rules",
    "copilot_output": "out/.config/twsrt/copilot-flags.txt",
    "copilot_settings": "out/.copilot/settings.json",
    "deepcode_settings": "out/.deepcode/settings.json",
}


def _clear(box: Sandbox) -> None:
    for name in ("twsrt.toml", ".srt-settings.json", "bash-rules.json"):
        (box.repo / name).unlink()


def written(root: Path) -> dict[str, bytes]:
    """Every file (and link) under ``root/out``, by its path relative to ``root``."""
    out = {}
    for path in sorted((root / "out").rglob("*")):
        if path.is_symlink():
            out[path.relative_to(root).as_posix()] = f"-> {path.readlink()}".encode()
        elif path.is_file():
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


@pytest.mark.parametrize("name", CASES)
def test_composed_profile_golden(sandbox: Sandbox, name: str) -> None:
    case = GOLDEN_ROOT / "profiles" / name
    _clear(sandbox)
    shutil.copy(case / "twsrt.toml", sandbox.repo / "twsrt.toml")
    shutil.copytree(case / "policy", sandbox.repo / "policy")
    result = sandbox.run("generate", "-w", "-v")
    assert result.returncode == 0, result.stderr
    files = written(sandbox.repo)
    assert set(files) >= set(TARGETS.values())  # every agent compiled
    expected = case / "expected"
    if update_golden():
        shutil.rmtree(expected, ignore_errors=True)
        for rel, data in files.items():
            (expected / rel).parent.mkdir(parents=True, exist_ok=True)
            (expected / rel).write_bytes(data)
    on_disk = {
        p.relative_to(expected).as_posix(): p.read_bytes()
        for p in sorted(expected.rglob("*"))
        if p.is_file()
    }
    assert files == on_disk
    assert_golden(case / "stderr.txt", result.stderr)
    assert sandbox.run("check", "--fail-on", "warning").returncode in (0, 1)
    assert sandbox.run("diff").returncode == 0  # no drift after the write


@pytest.mark.parametrize("name", CASES)
def test_composed_profile_equals_the_concatenated_policy(sandbox: Sandbox, name: str) -> None:
    """The golden case's profile and one [sources] policy holding its fragments' entries in
    order write the same bytes for every agent."""
    case = GOLDEN_ROOT / "profiles" / name
    from twsrt.configload import load_config

    _clear(sandbox)
    shutil.copy(case / "twsrt.toml", sandbox.repo / "twsrt.toml")
    shutil.copytree(case / "policy", sandbox.repo / "policy")
    config = load_config(sandbox.repo / "twsrt.toml", sandbox.home)
    srt = [json.loads(f.srt.read_text()) for f in config.fragments if f.srt]
    bash = [json.loads(f.bash_rules.read_text()) for f in config.fragments if f.bash_rules]
    other = make_sandbox(Path(tempfile.mkdtemp(dir=sandbox.home.parent)))
    single = write_single(other, concatenated(srt), concatenated(bash))
    composed = sandbox.run("generate", "-w")
    assert composed.returncode == 0, composed.stderr
    assert single.returncode == 0, single.stderr
    assert written(sandbox.repo) == written(other.repo)


def concatenated(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """What one file holding the documents' entries in order says (the spec of composition,
    written independently of compose.py): lists joined, objects merged, scalars kept."""
    out: dict[str, Any] = {}
    for document in documents:
        _merge(out, document)
    return out


def _merge(into: dict[str, Any], source: dict[str, Any]) -> None:
    for key, value in source.items():
        if isinstance(value, dict):
            _merge(into.setdefault(key, {}), value)
        elif isinstance(value, list):
            into.setdefault(key, []).extend(value)
        else:
            into.setdefault(key, value)


def single_config() -> str:
    lines = "".join(f'{key} = "{path}"\n' for key, path in TARGETS.items())
    return (
        'home = "/home/user"\n[sources]\nsrt = "one.srt.json"\nbash_rules = "one.bash.json"\n'
        f"[targets]\n{lines}"
    )


def profile_config(srt_count: int, bash_count: int) -> str:
    fragments = "".join(
        f"[fragments.f{i}]\n{'srt = ' + json.dumps(f'f{i}.srt.json') if i < srt_count else ''}\n"
        f"{'bash_rules = ' + json.dumps(f'f{i}.bash.json') if i < bash_count else ''}\n"
        for i in range(max(srt_count, bash_count))
    )
    extends = json.dumps([f"f{i}" for i in range(max(srt_count, bash_count))])
    lines = "".join(f'{key} = "{path}"\n' for key, path in TARGETS.items())
    return (
        f'home = "/home/user"\nprofile = "p"\n{fragments}'
        f"[profiles.p]\nextends = {extends}\n[profiles.p.targets]\n{lines}"
    )


def write_single(box: Sandbox, srt: dict[str, Any], bash: dict[str, Any]) -> Any:
    _clear(box)
    box.write("twsrt.toml", single_config())
    box.write("one.srt.json", srt)
    box.write("one.bash.json", bash)
    return box.run("generate", "-w")


scalars = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.just(True),
        "allowPty": st.booleans(),
    },
)


@st.composite
def fragment_srt(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(compilable_srt_settings()), **draw(scalars)}


def _agree(documents: list[dict[str, Any]]) -> bool:
    """No single value set to two different values (a TWS016 conflict)."""
    seen: dict[str, Any] = {}
    for document in documents:
        for key, value in document.items():
            if not isinstance(value, (dict, list)) and seen.setdefault(key, value) != value:
                return False
    return True


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    srt=st.lists(fragment_srt(), min_size=1, max_size=3),
    bash=st.lists(compilable_bash_rules(), min_size=1, max_size=3),
)
def test_composing_fragments_equals_one_file_listing_their_entries(
    tmp_path_factory: pytest.TempPathFactory, srt: list[dict], bash: list[dict]
) -> None:
    """For every conflict-free draw, a profile extending fragments f0, f1, ... compiles to the
    same bytes, for every agent, as one [sources] policy with their entries concatenated; when
    the single policy cannot be generated, neither can the profile."""
    assume(_agree(srt))
    root = tmp_path_factory.mktemp("compose")
    composed = make_sandbox(root / "a")
    _clear(composed)
    composed.write("twsrt.toml", profile_config(len(srt), len(bash)))
    for index, document in enumerate(srt):
        composed.write(f"f{index}.srt.json", document)
    for index, document in enumerate(bash):
        composed.write(f"f{index}.bash.json", document)
    single_box = make_sandbox(root / "b")
    single = write_single(single_box, concatenated(srt), concatenated(bash))
    result = composed.run("generate", "-w")
    assert "Traceback" not in result.stderr
    assert result.returncode == single.returncode, (result.stderr, single.stderr)
    if result.returncode == 0:
        assert written(composed.repo) == written(single_box.repo)
