"""``generate -w`` is one transaction: every target ends entirely old or entirely new.

Fault injection: a low-level call failing at each position of a real plan, a full tmpfs, a
read-only file in the middle of the plan and ``kill -9`` at seeded random points. Then the
properties a write keeps: no lost update (TWS009), the user's settings.json link (TWS010), file
modes, owners and CRLF line endings, recognisable temp files removed by the next run.
"""

from __future__ import annotations

import errno
import json
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import compiled as compile_request
from support.cli import run_here
from support.sandbox import DEFAULT_BASH, DEFAULT_CONFIG, Sandbox

from twsrt import run, writes
from twsrt.agents.base import Result
from twsrt.findings import TwsrtError
from twsrt.writes import FileWrite

ALL_TARGETS = DEFAULT_CONFIG + textwrap.dedent(
    """\
    claude_settings_yolo = "home/.claude/settings.yolo.json"
    codex_config = "home/.codex/config.toml"
    codex_rules = "home/.codex/rules/twsrt.rules"
    copilot_output = "home/.copilot/flags.txt"
    copilot_settings = "home/.copilot/settings.json"
    deepcode_settings = "home/.deepcode/settings.json"
    """
)
USER_SETTINGS = '{\n  "model": "opus",\n  "env": {"TOKEN": "user-secret"}\n}\n'
USER_CODEX = 'model = "o3"\n\n[mcp_servers.x]\ncommand = "x"\n'
NOBODY = 65534
TEMP = re.compile(r"\.twsrt\.\d+\.")
LOW_LEVEL = ("open", "write", "fsync", "replace", "symlink", "link", "fchmod", "fchown", "mkdir")


# ------------------------------------------------------------------ helpers


def state(root: Path) -> dict[str, tuple]:
    """Every entry under ``root``: kind, content or link value, and mode."""
    out: dict[str, tuple] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        rel = path.relative_to(root).as_posix()
        if stat.S_ISLNK(info.st_mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISREG(info.st_mode):
            out[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
        else:
            out[rel] = ("dir",)
    return out


def temp_files(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob(".twsrt.*") if TEMP.match(p.name))


def all_targets(sandbox: Sandbox) -> Path:
    """Every agent configured; a regular settings.json (migrated) and a user config.toml."""
    sandbox.write("twsrt.toml", ALL_TARGETS)
    sandbox.write("home/.claude/settings.json", USER_SETTINGS)
    sandbox.write("home/.codex/config.toml", USER_CODEX)
    return sandbox.repo / "home"


@pytest.fixture
def inproc(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The sandbox's HOME and working directory for in-process runs."""
    for key in [k for k in os.environ if k.startswith("TWSRT_") or k in ("VISUAL", "EDITOR")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(sandbox.home))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(sandbox.home.parent))
    monkeypatch.chdir(sandbox.repo)
    return sandbox


def invoke(*args: str) -> tuple[int, str]:
    result = run_here(*args)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    return result.returncode, result.stderr


def plan(yolo: bool = False) -> list[writes.Change]:
    compiled = compile_request(None, None, yolo, companions=True)
    return run.write_plan(compiled.results, compiled.companions)


class FaultyOs:
    """``os`` for twsrt.writes, where the ``fail_at``-th low-level call fails (0: none), or with
    ``every``, each ``fail_at``-th call (the rollback's too)."""

    def __init__(self, fail_at: int, every: bool = False) -> None:
        self.calls = 0
        self.fail_at = fail_at
        self.every = every
        self.error = errno.EIO

    def __getattr__(self, name: str) -> object:
        real = getattr(os, name)
        if name not in LOW_LEVEL:
            return real

        def call(*args: object, **kwargs: object) -> object:
            self.calls += 1
            if self.calls == self.fail_at or (self.every and self.calls % self.fail_at == 0):
                raise OSError(self.error, os.strerror(self.error), str(args[0]))
            return real(*args, **kwargs)

        return call


# ------------------------------------------------------------------ item 7: all or nothing


def test_a_failure_at_every_position_of_the_plan_writes_nothing(
    inproc: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = all_targets(inproc)
    before = state(home)
    counter = FaultyOs(0)
    monkeypatch.setattr(writes, "os", counter)
    changes = plan()
    assert sum(c.changed for c in changes) >= 8  # every agent, the yolo companion, the link
    writes.apply(changes)
    total = counter.calls
    after = state(home)
    assert after != before and not temp_files(home)

    quiet = []  # positions whose failure left the run successful: the final directory fsyncs
    for position in range(1, total + 1):
        _restore(home, before)
        changes = plan()
        monkeypatch.setattr(writes, "os", FaultyOs(position))
        try:
            writes.apply(changes)
        except TwsrtError as exc:
            message = exc.findings[0].render()
            assert "cannot write: Input/output error; nothing was changed" in message, position
            assert ".twsrt." not in message  # the target is named, never a temp file
            assert state(home) == before, f"failure at call {position} of {total} left a change"
        else:
            quiet.append(position)
            assert state(home) == after, position
        finally:
            monkeypatch.setattr(writes, "os", os)
        assert not temp_files(home)
    directories = {p.parent for p in home.rglob("*") if p.is_file()}
    assert quiet == list(range(total - 2 * len(directories) + 1, total + 1))
    assert total >= 40


def test_every_kth_call_failing_leaves_each_target_old_or_new(
    inproc: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Failures that also hit the rollback: a target may stay new, but none is half-written,
    and the next run removes every temp file."""
    home = all_targets(inproc)
    before = state(home)
    writes.apply(plan())
    after = state(home)
    for k in range(2, 12):
        _restore(home, before)
        changes = plan()
        monkeypatch.setattr(writes, "os", FaultyOs(k, every=True))
        with pytest.raises(TwsrtError):
            writes.apply(changes)
        monkeypatch.setattr(writes, "os", os)
        now = state(home)
        for rel in {*now, *before, *after}:
            if not TEMP.match(Path(rel).name):  # a missing file is old when it was new
                assert now.get(rel) in (before.get(rel), after.get(rel)), (k, rel)
        writes.apply(plan())  # the next run
        assert state(home) == after and not temp_files(home), k


def _restore(home: Path, snapshot: dict[str, tuple]) -> None:
    """Put ``home`` back to ``snapshot`` (files, links, modes; everything else removed)."""
    for path in sorted(home.rglob("*"), reverse=True):
        if path.relative_to(home).as_posix() not in snapshot or path.is_symlink():
            path.unlink() if path.is_symlink() or not path.is_dir() else path.rmdir()
    for rel, entry in snapshot.items():
        path = home / rel
        if entry[0] == "dir":
            path.mkdir(parents=True, exist_ok=True)
        elif entry[0] == "link":
            path.symlink_to(entry[1])
        else:
            path.write_bytes(entry[1])
            path.chmod(entry[2])


def test_a_read_only_file_in_the_middle_of_the_plan_is_refused_before_any_write(
    sandbox: Sandbox,
) -> None:
    home = all_targets(sandbox)
    (home / ".codex" / "config.toml").chmod(0o444)
    before = state(home)
    result = sandbox.run("generate", "-w")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "home/.codex/config.toml: error[TWS004] is read-only (mode 0444); twsrt does not "
        "replace it — make it writable to let twsrt update it"
    )
    assert state(home) == before


@pytest.fixture
def small_tmpfs(sandbox: Sandbox) -> Iterator[Path]:
    """The target tree on a 64 KiB tmpfs, filled until 3 pages are left. Mounting needs root;
    elsewhere this skips (and TWSRT_REQUIRE_REAL_TOOLS=1, as in CI, turns the skip into a
    failure, so CI always runs it)."""
    mount = sandbox.repo / "home"
    mount.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_writes_nothing(sandbox: Sandbox, small_tmpfs: Path) -> None:
    home = all_targets(sandbox)
    assert home == small_tmpfs
    for name in (".claude", ".codex/rules", ".copilot", ".deepcode"):
        (home / name).mkdir(parents=True, exist_ok=True)
    fs = os.statvfs(home)
    # a few targets fit, the rest do not: the run used to write the first ones and stop
    (home / "filler").write_bytes(b"x" * (fs.f_bavail * fs.f_bsize - 3 * fs.f_bsize))
    before = state(home)
    result = sandbox.run("generate", "-w")
    assert state(home) == before
    assert result.returncode == 2, result.stderr
    assert "No space left on device; nothing was changed" in result.stderr
    assert "Traceback" not in result.stderr and ".twsrt." not in result.stderr
    assert not temp_files(home)
    (home / "filler").unlink()
    assert sandbox.run("generate", "-w").returncode == 0
    assert not temp_files(home)


KILLER = """\
import atexit, os, signal, sys
from twsrt import writes
from twsrt.cli import main

LIMIT = int(sys.argv[1])

class Killer:
    calls = 0
    def __getattr__(self, name):
        real = getattr(os, name)
        if name not in {names!r}:
            return real
        def call(*args, **kwargs):
            Killer.calls += 1
            if Killer.calls == LIMIT:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return call

writes.os = Killer()
atexit.register(lambda: print(f"calls={{Killer.calls}}", file=sys.stderr))
sys.argv = ["twsrt", "generate", "-w"]
main()
"""


def test_kill_9_at_random_points_leaves_every_target_old_or_new(sandbox: Sandbox) -> None:
    home = all_targets(sandbox)
    policies = [DEFAULT_BASH, {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]}]
    versions = []
    for bash in policies:  # the two complete states the runs switch between
        sandbox.write("bash-rules.json", bash)
        assert sandbox.run("generate", "-w").returncode == 0
        versions.append(state(home))
    assert versions[0] != versions[1]
    script = sandbox.home / "killer.py"
    script.write_text(KILLER.format(names=LOW_LEVEL), encoding="utf-8")

    def killed_run(bash: dict, limit: int) -> subprocess.CompletedProcess[str]:
        sandbox.write("bash-rules.json", bash)
        return subprocess.run(
            [sys.executable, str(script), str(limit)],
            cwd=sandbox.repo,
            env=sandbox.env(PYTHONPATH=os.pathsep.join(sys.path)),
            capture_output=True,
            text=True,
            timeout=60,
        )

    counted = killed_run(policies[0], 0)  # no kill: how many calls one switch makes
    assert counted.returncode == 0, counted.stderr
    calls = int(counted.stderr.rsplit("calls=", 1)[1])
    assert calls >= 20
    rng = random.Random(14)
    kills = 0
    for round_ in range(1, 31):
        proc = killed_run(policies[round_ % 2], rng.randint(1, calls))
        kills += proc.returncode == -signal.SIGKILL
        now = state(home)
        for rel, entry in now.items():
            if TEMP.match(Path(rel).name):
                continue  # left by the kill; the next run removes it
            assert entry in (versions[0].get(rel), versions[1].get(rel)), (round_, rel)
        assert {r for r in now if not TEMP.match(Path(r).name)} == set(versions[0])
    assert kills >= 15  # after a kill, the next run has fewer targets left to change
    sandbox.write("bash-rules.json", policies[1])
    assert sandbox.run("generate", "-w").returncode == 0
    assert state(home) == versions[1] and not temp_files(home)


def test_stale_temp_files_of_a_killed_run_are_removed(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    claude = sandbox.repo / "home" / ".claude"
    stale = [
        claude / ".twsrt.4194302.0123abcd.new.settings.full.json",
        claude / ".twsrt.4194302.89abcdef.old.settings.full.json",
    ]
    alive = claude / f".twsrt.{os.getppid()}.00000000.new.settings.full.json"  # a live run
    foreign = [claude / ".settings.full.json.x1y2.tmp", claude / ".twsrt.notes"]
    for path in [*stale, alive, *foreign]:
        path.write_text("{}\n")
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert not any(p.exists() for p in stale)
    assert alive.exists() and all(p.exists() for p in foreign)


def test_a_long_target_name_gets_a_short_temp_name(sandbox: Sandbox) -> None:
    long_name = "f" * 250 + ".txt"  # fits NAME_MAX; ".{name}.XXXXXXXX.tmp" did not
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + f'copilot_output = "home/{long_name}"\n')
    result = sandbox.run("generate", "-w")
    assert result.returncode == 0, result.stderr
    assert (sandbox.repo / "home" / long_name).read_text().startswith("--")
    assert (sandbox.repo / "home/.claude/settings.full.json").exists()
    assert not temp_files(sandbox.repo / "home")


def test_a_name_over_name_max_is_refused_before_any_write(sandbox: Sandbox) -> None:
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + f'copilot_output = "home/{"f" * 256}"\n')
    before = state(sandbox.repo)
    result = sandbox.run("generate", "-w")
    assert result.returncode == 2
    # refused at the config key before anything is read (twsrt/placement.py)
    assert "twsrt.toml:9:18: error[TWS004] copilot_output (home/" in result.stderr
    assert "file name is 256 bytes, longer than the file system allows (255)" in result.stderr
    assert state(sandbox.repo) == before


def test_text_that_cannot_be_encoded_is_refused_before_any_write(tmp_path: Path) -> None:
    first = tmp_path / "a.json"
    bad = FileWrite(tmp_path / "b.json", "b.json", '{\n  "x": "rm \udc00"\n}\n', None)
    with pytest.raises(TwsrtError) as caught:
        writes.apply([FileWrite(first, "a.json", "{}\n", None), bad])
    assert caught.value.findings[0].render() == (
        "b.json:2:12: error[TWS004] cannot be written: the generated text holds U+DC00, which "
        "UTF-8 cannot encode"
    )
    assert list(tmp_path.iterdir()) == []


def test_two_targets_on_one_file_are_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to("real")  # one directory, two spellings
    first = FileWrite(tmp_path / "real" / "s.json", "real/s.json", "{}\n", None)
    second = FileWrite(tmp_path / "alias" / "s.json", "alias/s.json", '{"x": 1}\n', None)
    with pytest.raises(TwsrtError) as caught:
        run.write_plan([Result("claude", "", [first]), Result("deepcode", "", [second])])
    assert caught.value.findings[0].render() == (
        "alias/s.json: error[TWS004] is the same file as real/s.json; two targets would "
        "overwrite it"
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as two other users")
def test_another_users_file_in_a_sticky_directory_is_refused_before_any_write(
    inproc: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Running as nobody, whose copilot_output is another user's file in a sticky, world-writable
    directory: rename(2) over it fails with EPERM — after the Claude target was written."""
    base = Path(tempfile.mkdtemp(prefix="twsrt-sticky-", dir="/tmp"))  # nobody can traverse it
    try:
        base.chmod(0o755)
        repo = base / "repo"
        shutil.copytree(inproc.repo, repo)
        # a user config (no repository): only there may a target lie outside the config's tree
        shutil.rmtree(repo / ".git")
        sticky = base / "shared"
        sticky.mkdir()
        sticky.chmod(0o1777)
        flags = sticky / "flags.txt"
        flags.write_text("--old\n")
        flags.chmod(0o666)
        os.chown(flags, 4321, 4321)
        (repo / "twsrt.toml").write_text(DEFAULT_CONFIG + f'copilot_output = "{flags}"\n')
        (repo / "home").mkdir()
        for path in [repo, *repo.rglob("*")]:
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        monkeypatch.chdir(repo)
        changes = plan()
        before = state(base)
        os.setegid(NOBODY)
        os.seteuid(NOBODY)
        try:
            with pytest.raises(TwsrtError) as caught:
                writes.apply(changes)
        finally:
            os.seteuid(0)
            os.setegid(0)
        assert (
            caught.value.findings[0]
            .render()
            .startswith(
                f"{flags}: error[TWS004] belongs to another user in the sticky directory {sticky}"
            )
        )
        assert state(base) == before
    finally:
        shutil.rmtree(base)


# ------------------------------------------------------------------ item 8: no lost update


def generated_then_policy_changed(inproc: Sandbox) -> tuple[Path, list[writes.Change]]:
    """Every target written, then a new deny in the policy: the home tree and the plan."""
    home = all_targets(inproc)
    assert invoke("generate", "-w")[0] == 0
    inproc.write("bash-rules.json", {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]})
    return home, plan()


def test_a_target_edited_during_the_run_is_not_overwritten(
    inproc: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, changes = generated_then_policy_changed(inproc)
    # Claude's "always allow" adds a rule between twsrt's read and its rename
    full = home / ".claude" / "settings.full.json"
    edited = full.read_text().replace('"allow": [', '"allow": [\n      "Bash(make)",')
    full.write_text(edited)
    before = state(home)
    with pytest.raises(TwsrtError) as caught:
        writes.apply(changes)
    item = caught.value.findings[0]
    assert item.rule_id == "TWS009" and item.location.path == "home/.claude/settings.full.json"
    assert state(home) == before  # the edit survives; nothing else was written either
    assert not temp_files(home)


def test_an_edit_just_before_the_rename_rolls_back_what_was_renamed(
    inproc: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, changes = generated_then_policy_changed(inproc)
    deepcode = home / ".deepcode" / "settings.json"
    before = state(home)
    real_replace = os.replace
    renamed: list[str] = []

    def replace(src: str, dst: str) -> None:
        if not renamed:  # the agent writes while twsrt is renaming the first targets
            deepcode.write_text(deepcode.read_text().replace("{", '{\n  "theme": "dark",', 1))
        real_replace(src, dst)
        renamed.append(str(dst))

    monkeypatch.setattr(writes.os, "replace", replace)
    with pytest.raises(TwsrtError) as caught:
        writes.apply(changes)
    monkeypatch.undo()
    assert caught.value.findings[0].rule_id == "TWS009"
    assert str(deepcode) not in renamed[: len(renamed) // 2]
    assert len(renamed) >= 3  # earlier targets had been replaced and were put back
    expected = dict(before)
    expected[".deepcode/settings.json"] = state(home)[".deepcode/settings.json"]
    assert state(home) == expected
    assert '"theme": "dark"' in deepcode.read_text()
    assert not temp_files(home)


# ------------------------------------------------------------------ item 9: file properties


def test_a_private_settings_json_stays_private_when_migrated_and_seeded(sandbox: Sandbox) -> None:
    link = sandbox.write("home/.claude/settings.json", USER_SETTINGS)
    link.chmod(0o600)
    sandbox.write("twsrt.toml", ALL_TARGETS.split("codex_config")[0])  # claude full + yolo
    assert sandbox.run("generate", "-w").returncode == 0
    claude = sandbox.repo / "home" / ".claude"
    assert link.is_symlink()
    for name in ("settings.full.json", "settings.yolo.json"):
        assert "user-secret" in (claude / name).read_text()
        assert stat.S_IMODE((claude / name).stat().st_mode) == 0o600, name


def test_new_settings_files_of_every_agent_are_private(sandbox: Sandbox) -> None:
    sandbox.write("twsrt.toml", ALL_TARGETS)
    assert sandbox.run("generate", "-w").returncode == 0
    home = sandbox.repo / "home"
    for rel in (
        ".claude/settings.full.json",
        ".claude/settings.yolo.json",
        ".codex/config.toml",
        ".copilot/settings.json",
        ".deepcode/settings.json",
    ):
        assert stat.S_IMODE((home / rel).stat().st_mode) == 0o600, rel


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_root_keeps_the_owner_of_every_file(sandbox: Sandbox) -> None:
    home = all_targets(sandbox)
    user = home / ".claude" / "settings.json"
    os.chown(user, 4321, 4322)
    os.chown(home / ".codex" / "config.toml", 4321, 4322)
    assert sandbox.run("generate", "-w").returncode == 0
    for path in (user, home / ".claude" / "settings.full.json", home / ".codex/config.toml"):
        info = path.lstat()
        assert (info.st_uid, info.st_gid) == (4321, 4322), path


def test_crlf_files_stay_crlf(sandbox: Sandbox) -> None:
    home = all_targets(sandbox)
    full = home / ".claude" / "settings.full.json"
    full.parent.joinpath("settings.json").unlink()
    full.write_bytes(USER_SETTINGS.replace("\n", "\r\n").encode())
    config = home / ".codex" / "config.toml"
    config.write_bytes(USER_CODEX.replace("\n", "\r\n").encode())
    assert sandbox.run("generate", "-w").returncode == 0
    for path in (full, config):
        data = path.read_bytes()
        assert data.count(b"\n") > 10 and data.count(b"\n") == data.count(b"\r\n"), path
    assert json.loads(full.read_bytes())["env"] == {"TOKEN": "user-secret"}
    assert sandbox.run("diff").returncode == 0  # and no drift afterwards


def test_crlf_settings_json_stays_crlf_when_migrated(sandbox: Sandbox) -> None:
    sandbox.write("home/.claude/settings.json", "")
    link = sandbox.repo / "home/.claude/settings.json"
    link.write_bytes(USER_SETTINGS.replace("\n", "\r\n").encode())
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    data = (sandbox.repo / "home/.claude/settings.full.json").read_bytes()
    assert data.count(b"\n") > 10 and data.count(b"\n") == data.count(b"\r\n")


# ------------------------------------------------------------------ item 6: symlinked settings


def _stowed(sandbox: Sandbox) -> tuple[Path, Path]:
    """settings.json as GNU stow leaves it: a relative link into the dotfiles package."""
    real = sandbox.write("stow/claude/settings.json", USER_SETTINGS)
    link = sandbox.repo / "home/.claude/settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to("../../stow/claude/settings.json")
    return link, real


def test_a_users_settings_link_is_never_replaced(sandbox: Sandbox) -> None:
    link, real = _stowed(sandbox)
    before = state(sandbox.repo)
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 2
    assert (
        "home/.claude/settings.json: error[TWS010] is a symlink to "
        "../../stow/claude/settings.json, which twsrt did not make" in result.stderr
    )
    assert state(sandbox.repo) == before


def test_a_users_settings_link_is_drift_in_check_and_diff(sandbox: Sandbox) -> None:
    _stowed(sandbox)
    assert sandbox.run("generate", "claude").returncode == 0  # the preview still works
    diff = sandbox.run("diff", "claude")
    assert diff.returncode == 2  # settings.full.json is missing
    (sandbox.repo / "home/.claude/settings.full.json").write_text("{}\n")
    diff = sandbox.run("diff", "claude")
    assert diff.returncode == 1
    assert "claude: home/.claude/settings.json: drift detected\n" in diff.stdout
    assert "    + settings.json: -> settings.full.json\n" in diff.stdout
    assert "    - settings.json: -> ../../stow/claude/settings.json\n" in diff.stdout
    check = sandbox.run("check", "--format", "json")
    found = [f for f in json.loads(check.stdout)["findings"] if f["rule_id"] == "TWS010"]
    assert [f["location"]["path"] for f in found] == ["home/.claude/settings.json"]
    assert check.returncode == 1


def test_a_hand_repointed_link_is_drift_not_no_drift(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    claude = sandbox.repo / "home/.claude"
    (claude / "settings.mine.json").write_text('{"model": "opus"}\n')
    (claude / "settings.json").unlink()
    (claude / "settings.json").symlink_to("settings.mine.json")
    diff = sandbox.run("diff", "claude")
    assert diff.returncode == 1, diff.stdout
    assert "    - settings.json: -> settings.mine.json\n" in diff.stdout


def test_twsrts_own_link_is_switched_by_mode_also_when_absolute(sandbox: Sandbox) -> None:
    sandbox.write("twsrt.toml", ALL_TARGETS.split("codex_config")[0])
    assert sandbox.run("generate", "-w").returncode == 0
    link = sandbox.repo / "home/.claude/settings.json"
    link.unlink()
    link.symlink_to(link.parent / "settings.yolo.json")  # as an older tool may have made it
    assert sandbox.run("diff", "claude").returncode == 0
    assert sandbox.run("generate", "-w").returncode == 0
    assert os.readlink(link) == "settings.full.json"
    assert sandbox.run("generate", "-w", "--yolo").returncode == 0
    assert os.readlink(link) == "settings.yolo.json"


def test_a_dangling_link_is_replaced(sandbox: Sandbox) -> None:
    link = sandbox.repo / "home/.claude/settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to("settings.gone.json")
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert os.readlink(link) == "settings.full.json"


# ------------------------------------------------------------------ issue 26 item 9: the journal

RENAME_KILLER = KILLER.format(names=("replace",))  # killed at the k-th os.replace


def journals(sandbox: Sandbox) -> list[str]:
    return sorted(p.name for p in sandbox.repo.iterdir() if p.name.startswith(".twsrt-journal."))


def killed_at_every_rename(sandbox: Sandbox) -> Iterator[tuple[int, list[dict], Path]]:
    """For each rename k of a switch from the old policy to the new: a `generate -w` killed
    (SIGKILL) just before its k-th rename; yields k, the two complete states and the home."""
    home = all_targets(sandbox)
    policies = [DEFAULT_BASH, {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]}]
    versions = []
    for bash in policies:
        sandbox.write("bash-rules.json", bash)
        assert sandbox.run("generate", "-w").returncode == 0
        versions.append(state(home))
    script = sandbox.home / "rename-killer.py"
    script.write_text(RENAME_KILLER, encoding="utf-8")

    def killed(limit: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), str(limit)],
            cwd=sandbox.repo,
            env=sandbox.env(PYTHONPATH=os.pathsep.join(sys.path)),
            capture_output=True,
            text=True,
            timeout=60,
        )

    sandbox.write("bash-rules.json", policies[0])
    assert sandbox.run("generate", "-w").returncode == 0
    sandbox.write("bash-rules.json", policies[1])
    counted = killed(0)
    assert counted.returncode == 0, counted.stderr
    renames = int(counted.stderr.rsplit("calls=", 1)[1])
    assert renames == total(versions) >= 4  # each file the new deny changes
    for k in range(1, renames + 1):
        sandbox.write("bash-rules.json", policies[0])
        assert sandbox.run("generate", "-w").returncode == 0
        assert state(home) == versions[0]
        sandbox.write("bash-rules.json", policies[1])
        proc = killed(k)
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        assert len(journals(sandbox)) == 1  # recorded before the first rename, never in .git/
        assert not list((sandbox.repo / ".git").iterdir())
        yield k, versions, home


def test_a_kill_at_every_rename_is_finished_by_the_next_run(sandbox: Sandbox) -> None:
    """Item 9: a kill between two renames leaves a mix; the next run first rolls the journal
    forward, before it reads any target: the set is wholly new, every temp file gone."""
    from twsrt import journal

    mixed = kills = 0
    for k, versions, home in killed_at_every_rename(sandbox):
        kills += 1
        now = {r: v for r, v in state(home).items() if not TEMP.match(Path(r).name)}
        mixed += now != versions[0] and now != versions[1]
        lines = journal.recover(sandbox.repo)
        assert len(lines) == 1 and lines[0].startswith("finished an interrupted `generate -w` (")
        assert lines[0].endswith(f" of {total(versions)} files)"), lines
        assert state(home) == versions[1], k
        assert not journals(sandbox) and not temp_files(home)
    assert kills >= 4 and mixed == kills - 1  # each kill after the first rename left a mix


def total(versions: list[dict]) -> int:
    """How many entries one switch renames: those that differ between the two states."""
    return sum(versions[0].get(rel) != value for rel, value in versions[1].items())


def test_the_next_generate_reports_what_it_recovered(sandbox: Sandbox) -> None:
    for k, versions, home in killed_at_every_rename(sandbox):
        if k != 3:
            continue
        result = sandbox.run("generate", "-w")  # the new policy: nothing left to write
        assert result.returncode == 0, result.stderr
        assert "twsrt: finished an interrupted `generate -w` (" in result.stderr
        assert "twsrt: wrote" not in result.stderr  # the journal did it all
        assert state(home) == versions[1]
        assert not journals(sandbox) and not temp_files(home)
        break


def test_a_target_changed_after_the_kill_rolls_the_set_back(sandbox: Sandbox) -> None:
    """A file still to be replaced was edited after the crash (an agent's "always allow"):
    the journal is rolled back instead, so the set is wholly old and the edit is kept."""
    from twsrt import journal

    for k, versions, home in killed_at_every_rename(sandbox):
        if k != 2:
            continue  # one rename made, the rest still to make
        now = state(home)
        left = [  # a file the new policy changes that the kill left old
            rel
            for rel, value in versions[1].items()
            if value[0] == "file" and now.get(rel) == versions[0].get(rel) != value
        ]
        assert left, k
        edited = home / left[0]
        edited.write_text('{"edited": true}\n', encoding="utf-8")
        assert journal.recover(sandbox.repo) == [
            f"rolled back {total(versions)} files of an interrupted `generate -w`"
        ]
        expected = {
            **versions[0],
            left[0]: ("file", b'{"edited": true}\n', versions[0][left[0]][2]),
        }
        assert state(home) == expected
        assert json.loads(edited.read_text(encoding="utf-8")) == {"edited": True}
        assert not journals(sandbox) and not temp_files(home)
        break
