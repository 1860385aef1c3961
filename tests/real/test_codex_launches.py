"""The real Codex CLI (0.171.0) on what a command may leave for a later launch (issue 25,
observations 5 and 6; twsrt/agents/codex/launches.py).

- srt refuses writes to shell rc files, ``.gitconfig``, ``.mcp.json``, ``.vscode/``, ... Codex
  has none of that: on ``allowWrite: ["."]`` (and an absolute root ``~/dev``) a command writes
  every one of them under the profile without twsrt's entries (the control). With them, at the
  top of the root, each is refused however it is tried: created, appended, overwritten,
  renamed over, renamed aside and recreated, unlinked, symlinked; a directory cannot be
  emptied, renamed or made. ``git status`` still works at the root and ``git commit`` in a
  repository below it; Codex's own read-only ``.git`` and ``.codex`` hold there without twsrt.
- Below the top of the root nothing holds (TWS465, which ``generate`` reports at the root): a
  nested repository's hook, ``sub/.codex/config.toml`` and ``sub/.vscode/tasks.json`` are
  written.
- ``allowWrite: ["."]`` with ``denyWrite: ["~/dev/app/locked"]``: started in ``~/dev`` (or
  ``~``), a command renamed ``app`` aside and recreated ``locked`` with its own content
  (control); with the launch pins it cannot, and a pin elsewhere creates nothing on the host.
"""

from __future__ import annotations

import copy
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.policies import named

from tests.support.policies import make_policy
from twsrt.agents.codex.agent import Compiled, merged_config, translate
from twsrt.agents.codex.declaration import WORKSPACE
from twsrt.agents.codex.launches import protected_names

from .codex_client import config_loads, sandbox_run

pytestmark = pytest.mark.real

ORIGINAL = "twsrt-original"
GIT = "git -c user.email=t@example.com -c user.name=t"

FILE_ATTACKS = {  # on a file N that exists when Codex starts
    "append": "echo x >> N",
    "overwrite": "echo x > N",
    "rename over": "echo x > N.new && mv -f N.new N",
    "rename aside": "mv N N.aside && echo x > N",
    "unlink": "rm -f N",
}
DIR_ATTACKS = {  # on a directory N holding a file f
    "write inside": "echo x > N/f",
    "create inside": "echo x > N/new",
    "rename aside": "mv N N.aside && mkdir N && echo x > N/f",
    "remove": "rm -rf N",
}
MISSING_ATTACKS = {  # on N that does not exist when Codex starts
    "create": "mkdir -p N/sub && echo x > N/sub/f",
    "create file": "echo x > N",
    "symlink": "ln -s /etc/hostname N",
}
DIRECTORIES = {".vscode", ".idea", ".claude", ".github", ".deepcode"}


def _compiled(srt: dict[str, Any]) -> Compiled:
    compiled, _ = translate(make_policy(srt))
    return compiled


def _text(compiled: Compiled) -> str:
    return merged_config(None, compiled)


def _without(compiled: Compiled, drop: Any) -> Compiled:
    """``compiled`` without the filesystem entries ``drop(key, sub, mode)`` names: the same
    profile as before twsrt wrote them (the controls)."""
    out = copy.deepcopy(compiled)
    filesystem = out.profile["filesystem"]
    for key in list(filesystem):
        value = filesystem[key]
        if isinstance(value, dict):
            filesystem[key] = {s: m for s, m in value.items() if not drop(key, s, m)}
        elif drop(key, ".", value):
            del filesystem[key]
    return out


def _is_protection(key: str, sub: str, mode: str) -> bool:
    name = sub if key == WORKSPACE else key.rsplit("/", 1)[-1]
    return mode == "read" and name in protected_names(named())


def _script(attacks: dict[str, str], name: str, reset: str = "") -> str:
    """Each attack on ``name`` in its own subshell, printing ``RESULT <attack> <rc>``, then
    ``reset`` (which puts the original back where an attack succeeded: the controls)."""
    lines = []
    for key, command in attacks.items():
        lines.append(f"( {command.replace('N', name)} ) 2>/dev/null; echo RESULT {key!r} $?")
        if reset:
            lines.append(f"( {reset.replace('N', name)} ) 2>/dev/null")
    return "\n".join(lines)


def _reset(name: str, present: bool) -> str:
    restore = ""
    if present:
        restore = (
            f"mkdir N && printf {ORIGINAL} > N/f"
            if name in DIRECTORIES
            else f"printf {ORIGINAL} > N"
        )
    return "rm -rf N N.aside N.new" + (f"; {restore}" if restore else "")


def _results(out: str) -> dict[str, int]:
    found = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            attack, _, rc = line[len("RESULT ") :].rpartition(" ")
            found[attack.strip("'")] = int(rc)
    return found


def _place(root: Path, name: str, present: bool) -> None:
    path = root / name
    if not present:
        return
    if name in DIRECTORIES:
        path.mkdir()
        (path / "f").write_text(ORIGINAL)
    else:
        path.write_text(ORIGINAL)


def _unchanged(root: Path, name: str, present: bool) -> bool:
    path = root / name
    aside = [p for p in root.iterdir() if p.name.startswith(name + ".")]
    if not present:
        return not path.exists() and not path.is_symlink() and not aside
    if name in DIRECTORIES:
        return sorted(p.name for p in path.iterdir()) == ["f"] and not aside
    return path.read_text() == ORIGINAL and not aside


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    (home / "dev").mkdir(parents=True)
    return {"home": home, "dev": home / "dev"}


@pytest.mark.parametrize("spelling", [".", "~/dev"])
@pytest.mark.parametrize("present", [False, True], ids=["missing", "present"])
def test_the_mandatory_set_holds_at_the_top_of_a_write_root(
    codex: str, world: dict[str, Path], spelling: str, present: bool
) -> None:
    home, dev = world["home"], world["dev"]
    compiled = _compiled({"filesystem": {"allowWrite": [spelling]}})
    protected, control = _text(compiled), _text(_without(compiled, _is_protection))
    assert protected != control
    ok, out = config_loads(codex, protected, cwd=dev, home=home)
    assert ok, out
    for name in protected_names(named()):
        attacks = (
            MISSING_ATTACKS if not present else DIR_ATTACKS if name in DIRECTORIES else FILE_ATTACKS
        )
        for config, refused in ((protected, True), (control, False)):
            _place(dev, name, present)
            script = _script(attacks, name, _reset(name, present))
            rc, out = sandbox_run(codex, config, script, dev, home)
            results = _results(out)
            assert set(results) == set(attacks), (rc, out)
            if refused:
                assert all(code != 0 for code in results.values()), (name, results)
                assert _unchanged(dev, name, present), (name, sorted(p.name for p in dev.iterdir()))
            else:  # without twsrt's entries every attack succeeds
                assert all(code == 0 for code in results.values()), (name, results)
            subprocess.run(["rm", "-rf", *map(str, dev.iterdir())], check=True)


def test_git_keeps_working_and_codex_keeps_git_and_codex_itself(
    codex: str, world: dict[str, Path]
) -> None:
    home, dev = world["home"], world["dev"]
    nested = dev / "app"
    nested.mkdir()
    for repo in (dev, nested):
        subprocess.run(
            f"git init -q && echo a > f && {GIT} add f && {GIT} commit -qm a",
            shell=True,
            cwd=repo,
            check=True,
        )
    (dev / ".gitmodules").write_text(ORIGINAL)
    config = _text(_compiled({"filesystem": {"allowWrite": ["."]}}))
    rc, out = sandbox_run(codex, config, "git status --short && echo STATUS-OK", dev, home)
    assert rc == 0 and "STATUS-OK" in out, out
    commit = f"cd app && echo b > f && {GIT} commit -qam b && echo COMMITTED"
    rc, out = sandbox_run(codex, config, commit, dev, home)  # a repository below the root
    assert rc == 0 and "COMMITTED" in out, out
    # at the top of the write root, Codex itself keeps .git and .codex read-only
    for command in (
        "echo x > .git/hooks/pre-commit",
        "echo x >> .git/config",
        "mkdir -p .codex && echo x > .codex/config.toml",
    ):
        rc, out = sandbox_run(codex, config, command, dev, home)
        assert rc != 0, (command, out)
    assert not (dev / ".git" / "hooks" / "pre-commit").exists()
    assert not (dev / ".codex" / "config.toml").exists()


def test_below_the_top_nothing_holds_and_generate_says_so(
    codex: str, world: dict[str, Path]
) -> None:
    home, dev = world["home"], world["dev"]
    nested = dev / "vendor" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    srt = {"filesystem": {"allowWrite": ["."]}}
    config = _text(_compiled(srt))
    planted = {
        "vendor/lib/.git/hooks/pre-commit": "echo x > vendor/lib/.git/hooks/pre-commit",
        "vendor/lib/.git/config": "echo x >> vendor/lib/.git/config",
        "sub/.codex/config.toml": "mkdir -p sub/.codex && echo x > sub/.codex/config.toml",
        "sub/.vscode/tasks.json": "mkdir -p sub/.vscode && echo x > sub/.vscode/tasks.json",
    }
    for path, command in planted.items():
        rc, out = sandbox_run(codex, config, command, dev, home)
        assert rc == 0 and (dev / path).exists(), (path, out)
    _, findings = translate(make_policy(srt))
    assert [f.rule_id for f in findings if f.level.value == "error"] == ["TWS465"]
    assert (
        next(f for f in findings if f.rule_id == "TWS465").location.pointer
        == "/filesystem/allowWrite/0"
    )


def _is_launch_pin(key: str, sub: str, mode: str) -> bool:
    return key == WORKSPACE and mode == "write" and sub != "."


@pytest.mark.parametrize("start", ["dev", "."], ids=["in ~/dev", "in ~"])
def test_a_deny_ancestor_cannot_be_renamed_aside_from_above(
    codex: str, world: dict[str, Path], start: str
) -> None:
    home = world["home"]
    locked = home / "dev" / "app" / "locked"
    srt = {"filesystem": {"allowWrite": ["."], "denyWrite": ["~/dev/app/locked"]}}
    compiled = _compiled(srt)
    pinned, control = _text(compiled), _text(_without(compiled, _is_launch_pin))
    assert pinned != control
    cwd = home / start
    below = "" if start == "dev" else "dev/"
    fake = f"echo evil > {below}app/locked/f"
    attack = {  # in this order: the first shows the deny itself holding in both runs
        "write locked": fake,
        "rename app": f"mv {below}app {below}a.x && mkdir -p {below}app/locked && {fake}",
        "rename dev": "mv dev d.x && mkdir -p dev/app/locked && echo evil > dev/app/locked/f",
    }
    if start == "dev":
        del attack["rename dev"]
    for config, refused in ((pinned, True), (control, False)):
        subprocess.run(["rm", "-rf", str(home / "dev")], check=True)
        locked.mkdir(parents=True)
        (locked / "f").write_text(ORIGINAL)
        rc, out = sandbox_run(codex, config, _script(attack, "N"), cwd, home)
        results = _results(out)
        assert set(results) == set(attack), out
        assert results["write locked"] != 0, out  # the deny itself holds either way
        renames = {k: v for k, v in results.items() if k != "write locked"}
        if refused:
            assert all(code != 0 for code in renames.values()), results
            assert (locked / "f").read_text() == ORIGINAL
            assert sorted(p.name for p in (home / "dev").iterdir()) == ["app"]
        else:
            assert all(code == 0 for code in renames.values()), results
            assert (locked / "f").read_text() == "evil\n"  # a fresh locked/, the command's own


def test_a_pin_elsewhere_creates_nothing_and_only_holds_its_name(
    codex: str, world: dict[str, Path]
) -> None:
    home = world["home"]
    other = home / "other"
    other.mkdir()
    config = _text(
        _compiled({"filesystem": {"allowWrite": ["."], "denyWrite": ["~/dev/app/locked"]}})
    )
    rc, out = sandbox_run(codex, config, "echo x > made && echo MADE", other, home)
    assert rc == 0 and "MADE" in out, out
    assert sorted(p.name for p in other.iterdir()) == ["made"]  # no pin left on the host
    (other / "app").mkdir()
    rc, out = sandbox_run(codex, config, "mv app app2", other, home)
    assert rc != 0, out  # an existing directory of a pinned name holds (TWS467)
    rc, out = sandbox_run(codex, config, "mkdir lib && mv lib lib2 && echo MOVED", other, home)
    assert rc == 0 and "MOVED" in out, out


def test_started_below_a_denied_directory_the_launch_directory_wins(
    codex: str, world: dict[str, Path]
) -> None:
    """A gap no profile closes (docs/agents/codex.md): the launch directory's write entry is
    more specific than a deny above it, so Codex started below ``~/sec`` lets a command read
    and write there; started in ``~/sec`` itself, or beside it, the deny holds."""
    home = world["home"]
    (home / "sec" / "sub").mkdir(parents=True)
    (home / "sec" / "sub" / "k").write_text(ORIGINAL)
    config = _text(_compiled({"filesystem": {"allowWrite": ["."], "denyRead": ["~/sec"]}}))
    probe = "cat ~/sec/sub/k; echo x > ~/sec/sub/new && echo WROTE"
    rc, out = sandbox_run(codex, config, probe, home / "sec" / "sub", home)
    assert ORIGINAL in out and "WROTE" in out, out
    for cwd in (home / "sec", home / "dev"):
        (home / "sec" / "sub" / "new").unlink(missing_ok=True)
        rc, out = sandbox_run(codex, config, probe, cwd, home)
        assert ORIGINAL not in out and "WROTE" not in out, (cwd, out)


def test_a_relative_root_meeting_an_absolute_deny_wins_and_is_reported(
    codex: str, world: dict[str, Path]
) -> None:
    """``allowWrite: ["build"]`` with ``denyWrite: ["~/p/build"]``: started in ``~/p`` Codex lets
    the write root win over the deny (TWS469, which translate reports at the root); started in
    ``~``, ``p/build`` is only the deny."""
    home = world["home"]
    (home / "p" / "build").mkdir(parents=True)
    srt = {"filesystem": {"allowWrite": ["build"], "denyWrite": ["~/p/build"]}}
    compiled, findings = translate(make_policy(srt))
    assert [f.location.pointer for f in findings if f.rule_id == "TWS469"] == [
        "/filesystem/allowWrite/0"
    ]
    config = _text(compiled)
    rc, out = sandbox_run(codex, config, "echo x > build/made && echo WROTE", home / "p", home)
    assert rc == 0 and "WROTE" in out, out
    (home / "p" / "build" / "made").unlink()
    rc, out = sandbox_run(codex, config, "echo x > p/build/made && echo WROTE", home, home)
    assert rc != 0 and not (home / "p" / "build" / "made").exists(), out
