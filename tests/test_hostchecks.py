"""Host checks: policy paths that are symlinks on this machine (TWS220), with real symlinks in
temporary directories. The findings name both spellings; generated files never change."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.sandbox import Sandbox

from twsrt.findings import Finding, Level
from twsrt.hostchecks import symlink_findings
from twsrt.jsonpos import parse_json
from twsrt.sources import build_policy


def findings(tmp: Path, srt: dict, home: Path, cwd: Path) -> list[Finding]:
    srt_text = json.dumps(srt, indent=2)
    policy = build_policy(parse_json(srt_text), "srt.json", parse_json("{}"), "bash.json")
    return symlink_findings(policy, home, cwd)


def tree(tmp: Path) -> tuple[Path, Path]:
    """home/real/secrets, home/link -> real, and a working directory with build -> ../out."""
    home, work = tmp / "home", tmp / "work"
    (home / "real" / "secrets").mkdir(parents=True)
    (home / "link").symlink_to("real")
    (tmp / "out").mkdir()
    work.mkdir()
    (work / "build").symlink_to("../out")
    return home, work


def test_write_root_through_a_symlink_names_both_spellings(tmp_path: Path) -> None:
    home, work = tree(tmp_path)
    srt = {"filesystem": {"allowWrite": ["~/link"], "denyWrite": ["~/real/secrets"]}}
    (found,) = findings(tmp_path, srt, home, work)
    assert found.rule_id == "TWS220" and found.level is Level.WARNING
    assert found.location.pointer == "/filesystem/allowWrite/0"
    assert (found.location.line, found.location.column) == (4, 7)
    assert found.message.startswith(
        f"allowWrite '~/link' goes through a symlink on this host: '{home}/link' points to "
        "'real', so the path is really '~/real'."
    )


def test_paths_under_a_symlink_and_globs_keep_their_tail(tmp_path: Path) -> None:
    home, work = tree(tmp_path)
    srt = {
        "filesystem": {
            "denyWrite": ["~/link/secrets", "~/link/not-yet"],
            "denyRead": ["~/link/**/*.pem", f"{home}/link/secrets/"],
        }
    }
    got = {f.location.pointer: f.message for f in findings(tmp_path, srt, home, work)}
    assert "really '~/real/secrets'" in got["/filesystem/denyWrite/0"]
    assert "really '~/real/not-yet'" in got["/filesystem/denyWrite/1"]
    assert "really '~/real/**/*.pem'" in got["/filesystem/denyRead/0"]
    assert "really '~/real/secrets'" in got["/filesystem/denyRead/1"]


def test_real_paths_and_missing_paths_are_quiet(tmp_path: Path) -> None:
    home, work = tree(tmp_path)
    srt = {
        "filesystem": {
            "allowWrite": ["~/real", ".", "~/missing/x", "/no/such/dir"],
            "denyWrite": ["~/real/secrets", "**/.env", "out"],
            "denyRead": [{"path": "~/real/[x]", "literal": True}],
        }
    }
    assert findings(tmp_path, srt, home, work) == []


def test_relative_paths_start_at_the_working_directory(tmp_path: Path) -> None:
    """A relative path counts the parts it spells, not the directories above the working
    directory (where an agent starts is not known to check)."""
    home, work = tree(tmp_path)
    srt = {"filesystem": {"denyWrite": ["build", "./build/**", "secrets"]}}
    got = findings(tmp_path, srt, home, work)
    assert [f.location.pointer for f in got] == [
        "/filesystem/denyWrite/0",
        "/filesystem/denyWrite/1",
    ]
    assert f"really '{tmp_path}/out'" in got[0].message
    assert f"really '{tmp_path}/out/**'" in got[1].message
    linked_cwd = tmp_path / "cwd-link"
    linked_cwd.symlink_to(home / "real")
    assert findings(tmp_path, srt, home, linked_cwd) == []


def test_a_symlinked_home_puts_every_tilde_path_under_a_symlink(tmp_path: Path) -> None:
    home, work = tree(tmp_path)
    (tmp_path / "home-link").symlink_to("home")
    srt = {"filesystem": {"denyRead": ["~/real/secrets"]}}
    (found,) = findings(tmp_path, srt, tmp_path / "home-link", work)
    assert f"'{tmp_path}/home-link' points to 'home'" in found.message
    assert f"really '{home}/real/secrets'" in found.message


def test_credential_files_are_checked(tmp_path: Path) -> None:
    home, work = tree(tmp_path)
    srt = {"credentials": {"files": [{"path": "~/link/secrets", "mode": "deny"}]}}
    (found,) = findings(tmp_path, srt, home, work)
    assert found.location.pointer == "/credentials/files/0/path"
    assert found.message.startswith("credentials.files '~/link/secrets'")


def test_check_warns_with_the_running_users_home_and_generates_the_same(sandbox: Sandbox) -> None:
    """`twsrt check` reports it at the rule (the pinned home is for output, the finding is about
    this machine), exits 0 under the default --fail-on error, and generate is unchanged."""
    (sandbox.home / "real").mkdir()
    (sandbox.home / "link").symlink_to("real")
    sandbox.write("twsrt.toml", 'home = "/home/user"\n' + (sandbox.repo / "twsrt.toml").read_text())
    srt = json.loads((sandbox.repo / ".srt-settings.json").read_text())
    srt["filesystem"]["denyRead"].append("~/link")
    sandbox.write(".srt-settings.json", srt)
    with_link = sandbox.run("generate", "claude", "codex")
    (sandbox.home / "link").unlink()
    assert sandbox.run("generate", "claude", "codex").stdout == with_link.stdout
    assert "TWS220" not in sandbox.run("check").stdout
    (sandbox.home / "link").symlink_to("real")
    result = sandbox.run("check")
    lines = [line for line in result.stdout.splitlines() if "[TWS220]" in line]
    assert lines == [
        ".srt-settings.json:6:7: warning[TWS220] denyRead '~/link' goes through a symlink on "
        f"this host: '{sandbox.home}/link' points to 'real', so the path is really '~/real'. "
        "Codex does not match a write root and a deny when one is spelled through the symlink "
        "and the other by the real path (the denied directory stays writable), and it refuses "
        "to start when a denyRead crosses a symlink inside a writable directory; write the real "
        "path in every rule (at /filesystem/denyRead/2)"
    ]
    assert sandbox.run("check", "--fail-on", "warning").returncode == 1


def test_file_write_root_is_reported_for_codex(tmp_path: Path) -> None:
    """tests/real/test_codex_widenings.py shows every Codex start failing on such a root."""
    from twsrt.hostchecks import file_root_findings

    home, work = tree(tmp_path)
    (home / "notes.txt").write_text("n\n")
    srt = {"filesystem": {"allowWrite": ["~/notes.txt", "~/real", "~/missing", "~/*.txt"]}}
    policy = build_policy(parse_json(json.dumps(srt)), "srt.json", parse_json("{}"), "bash.json")
    (found,) = file_root_findings(policy, home, work)
    # Codex refuses to start: stricter than the policy, a note
    assert (found.rule_id, found.level, found.agent) == ("TWS221", Level.NOTE, "codex")
    assert found.location.pointer == "/filesystem/allowWrite/0"
    assert found.message.startswith("allowWrite '~/notes.txt' is a file on this host")


def test_check_reports_a_file_root_only_where_codex_is_a_target(sandbox: Sandbox) -> None:
    (sandbox.home / "notes.txt").write_text("n\n")
    srt = json.loads((sandbox.repo / ".srt-settings.json").read_text())
    srt["filesystem"]["allowWrite"] = ["~/notes.txt"]
    sandbox.write(".srt-settings.json", srt)

    def rules() -> list[str]:
        report = json.loads(sandbox.run("check", "--format", "json").stdout)
        return [f["rule_id"] for f in report["findings"]]

    assert "TWS221" not in rules()  # the finding is about Codex, which is not a target yet
    config = (sandbox.repo / "twsrt.toml").read_text()
    sandbox.write("twsrt.toml", config + 'codex_config = "home/.codex/config.toml"\n')
    assert "TWS221" in rules()


def test_each_path_is_looked_at_once_per_run(tmp_path: Path, monkeypatch) -> None:
    """Thousands of rules share their ancestors: each one is looked at once, not per rule."""
    home, work = tree(tmp_path)
    names = [f"~/real/secrets/key-{i}" for i in range(50)]
    srt = {"filesystem": {"denyRead": names, "denyWrite": ["~/real", "~/real/secrets"]}}
    looked: list[str] = []
    real_lstat = os.lstat

    def counting_lstat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        looked.append(str(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counting_lstat)
    assert findings(tmp_path, srt, home, work) == []  # no symlink: os.path.realpath not called
    assert len(looked) == len(set(looked)), sorted(p for p in looked if looked.count(p) > 1)
    # the home and its ancestors, real, real/secrets and each key: nothing else
    assert len(looked) == len(home.parents) + 1 + 2 + len(names)


def test_a_very_deep_path_is_walked_in_linear_memory(tmp_path: Path) -> None:
    """Each ancestor is made only when it is looked at, and the walk stops at the first
    missing one: a path of 4,000 parts must not become 4,000 prefixes of up to 40 kB each
    (a 1.6 MB path took 54 s and 24 GB before)."""
    import tracemalloc

    home, work = tree(tmp_path)
    deep = "~/real/" + "abcdefghi/" * 4_000
    tracemalloc.start()
    try:
        assert findings(tmp_path, {"filesystem": {"denyRead": [deep]}}, home, work) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak  # the prefixes alone would be 80 MB
