"""No file twsrt reads as policy or writes lies in .git/ (or another VCS's metadata), and no file
twsrt writes is executable (issue 26, items 2 and 3).

The attacks: a pull request names ``.git/hooks/commit-msg`` as a yolo file and commits an
executable full file for it to copy the mode of, so the pre-commit hook's plain ``generate -w``
plants a hook the next commit runs; or it names ``.git/config`` (which holds the CI checkout's
token) as a file twsrt generates whole, so every report prints the token as drift.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from support.sandbox import DEFAULT_CONFIG, Sandbox, tree_snapshot

from twsrt.findings import TwsrtError
from twsrt.vcs import folded, metadata_hit
from twsrt.writes import FileWrite, apply

HOOK = ".git/hooks/commit-msg"
TOKEN = "ghs_FAKEcheckoutTOKEN0123456789abcdef"
GIT_CONFIG = (
    "[core]\n\trepositoryformatversion = 0\n"
    '[http "https://github.com/"]\n'
    f"\textraheader = AUTHORIZATION: basic {TOKEN}\n"
)
EXECUTABLE_FULL = '#!/bin/sh\n{\n  "model": "opus"\n}\n'


def _refused(sandbox: Sandbox, *args: str, line: int, col: int, key: str) -> None:
    """``twsrt *args`` refuses the config at ``twsrt.toml:line:col`` (TWS019), exit 2, with
    nothing written anywhere under HOME."""
    before = tree_snapshot(sandbox.home)
    result = sandbox.run(*args)
    detail = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 2, detail
    assert "Traceback" not in result.stderr + result.stdout, detail
    output = result.stderr if "check" not in args else result.stdout
    first = next(line for line in output.splitlines() if "error[" in line)
    assert first.startswith(f"twsrt.toml:{line}:{col}: error[TWS019] "), detail
    assert f"(at /targets/{key})" in first, detail
    assert tree_snapshot(sandbox.home) == before


# ------------------------------------------------------------------ the hook attack


def test_a_yolo_target_in_git_hooks_is_refused_before_anything_is_written(
    sandbox: Sandbox,
) -> None:
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + f'claude_settings_yolo = "{HOOK}"\n')
    full = sandbox.write("home/.claude/settings.full.json", EXECUTABLE_FULL.split("\n", 1)[1])
    full.chmod(0o755)
    (sandbox.repo / ".git/hooks").mkdir()
    _refused(sandbox, "generate", "-w", line=9, col=24, key="claude_settings_yolo")
    assert not (sandbox.repo / HOOK).exists()
    for args in (("generate", "-w", "--yolo"), ("diff",), ("check",), ("generate",)):
        _refused(sandbox, *args, line=9, col=24, key="claude_settings_yolo")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("git-hooks", ".git/hooks/pre-commit"),
        ("git-config", ".git/config"),
        ("git-top", "home/.git"),  # a worktree's or submodule's .git file
        ("upper", ".GIT/hooks/pre-commit"),
        ("mixed", "sub/.Git/config"),
        ("trailing-dot", ".git./hooks/x"),
        ("ntfs-stream", ".git::$INDEX_ALLOCATION/hooks/x"),
        ("ntfs-short-name", "GIT~1/hooks/x"),
        ("hfs-ignorable", ".g\u200cit/hooks/x"),
        ("hg", ".hg/hgrc"),
        ("svn", "a/.svn/wc.db"),
        ("jj", ".jj/repo/config.toml"),
        ("bzr", ".bzr/branch/branch.conf"),
        ("darcs", "_darcs/prefs/defaults"),
        ("pijul", ".pijul/config"),
        ("fossil", ".fslckout"),
        ("nested-repository", "vendor/lib/.git/hooks/post-checkout"),
    ],
)
def test_every_metadata_spelling_is_refused_at_its_key(
    sandbox: Sandbox, name: str, value: str
) -> None:
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + f'copilot_output = "{value}"\n')
    _refused(sandbox, "generate", "copilot", "-w", line=9, col=18, key="copilot_output")


def test_names_that_only_look_like_metadata_are_fine() -> None:
    for name in (".github", ".gitignore", ".gitconfig", "git", ".git-credentials", "x.git"):
        assert metadata_hit(Path("/r") / name / "f") is None, name
    assert folded(".GIT. ") == ".git"


def test_a_symlink_into_git_is_refused_for_a_target_and_its_yolo_file(sandbox: Sandbox) -> None:
    (sandbox.repo / ".git/hooks").mkdir()
    (sandbox.repo / "hooks").symlink_to(".git/hooks")
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'copilot_output = "hooks/flags.sh"\n')
    _refused(sandbox, "diff", "copilot", line=9, col=18, key="copilot_output")
    # the full file is an ordinary file; only the yolo file beside it (which a --yolo run
    # and every generate -w with an explicit yolo key writes) is a link into .git
    (sandbox.repo / "flags").mkdir()
    (sandbox.repo / "flags/flags.yolo.sh").symlink_to("../.git/hooks/pre-push")
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'copilot_output = "flags/flags.sh"\n')
    result = sandbox.run("generate", "copilot", "-w")
    assert result.returncode == 2, result.stderr
    assert (
        "error[TWS019] the yolo file of copilot_output (flags/flags.yolo.sh) resolves to "
        ".git/hooks/pre-push, which lies inside .git" in result.stderr
    )
    assert not (sandbox.repo / ".git/hooks/pre-push").exists()


def test_a_source_and_a_fragment_in_git_are_refused(sandbox: Sandbox) -> None:
    sandbox.write(".git/srt.json", "{}\n")
    config = DEFAULT_CONFIG.replace('".srt-settings.json"', '".git/srt.json"')
    sandbox.write("twsrt.toml", config)
    result = sandbox.run("check")
    assert result.returncode == 2
    assert "twsrt.toml:4:7: error[TWS019] the srt source (.git/srt.json) lies inside .git" in (
        result.stdout
    )
    profiles = (
        'checkout = "~/dotfiles"\nprofile = "p"\n\n[fragments.base]\n'
        'srt = ".git/srt.json"\nbash_rules = "bash-rules.json"\n\n'
        '[profiles.p]\nextends = ["base"]\n\n[targets]\n'
        'claude_settings = "home/.claude/settings.full.json"\n'
    )
    sandbox.write("twsrt.toml", profiles)
    result = sandbox.run("diff")
    assert result.returncode == 2
    assert result.stderr.startswith("twsrt.toml:5:7: error[TWS019] the srt file of fragment base")


def test_the_settings_link_beside_a_target_in_git_is_refused(sandbox: Sandbox) -> None:
    """The settings.json link twsrt keeps beside the Claude files is a placed file too."""
    (sandbox.repo / ".git/x").mkdir(parents=True)
    (sandbox.repo / "claude").symlink_to(".git/x")  # the link's directory is .git/x
    config = DEFAULT_CONFIG.replace("home/.claude/settings.full.json", "claude/s.full.json")
    sandbox.write("twsrt.toml", config)
    _refused(sandbox, "generate", "-w", line=8, col=19, key="claude_settings")


# ------------------------------------------------------------------ the token attack


def _outputs(sandbox: Sandbox, agent: str) -> dict[str, tuple[int, str]]:
    """Every output a run on the config can make: (exit code, stdout + stderr + report file)."""
    reports = sandbox.home / "reports"
    reports.mkdir(exist_ok=True)
    runs = {
        **{f"check --format {f}": ("check", "--format", f) for f in ("text", "json", "github")},
        **{f"check --format {f}": ("check", "--format", f) for f in ("sarif", "junit")},
        "check -v": ("check", "-v"),
        "diff": ("diff", agent),
        "diff --yolo": ("diff", agent, "--yolo"),
        "generate": ("generate", agent),
        "generate -n -w": ("generate", agent, "-n", "-w"),
        "generate -w": ("generate", agent, "-w"),
        "show": ("show",),
    }
    out = {}
    for name, args in runs.items():
        result = sandbox.run(*args)
        out[name] = (result.returncode, result.stdout + result.stderr)
    for kind in ("json", "sarif", "junit"):
        path = reports / f"report.{kind}"
        result = sandbox.run("check", f"--{kind}", str(path))
        written = path.read_text(encoding="utf-8") if path.exists() else ""
        out[f"check --{kind} FILE"] = (result.returncode, result.stdout + result.stderr + written)
    return out


@pytest.mark.parametrize(
    ("key", "agent", "extra"),
    [
        ("copilot_output", "copilot", ""),
        ("codex_rules", "codex", 'codex_config = "home/.codex/config.toml"\n'),
    ],
)
def test_the_token_in_git_config_reaches_no_output(
    sandbox: Sandbox, key: str, agent: str, extra: str
) -> None:
    config = sandbox.write(".git/config", GIT_CONFIG)
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + f'{key} = ".git/config"\n' + extra)
    before = tree_snapshot(sandbox.home)
    outputs = _outputs(sandbox, agent)
    assert len(outputs) == 15
    for name, (code, text) in outputs.items():
        assert TOKEN not in text, name
        assert code == 2, f"{name}: exit {code}\n{text}"
        assert f"error[TWS019] {key} (.git/config) lies inside .git" in text, name
    assert config.read_text(encoding="utf-8") == GIT_CONFIG
    after = tree_snapshot(sandbox.home)
    assert {k for k in after if not k.startswith("reports")} == set(before)


# ------------------------------------------------------------------ writes.apply's own guard


def test_no_write_goes_into_git_whoever_asks(tmp_path: Path) -> None:
    """A report file, ``init``'s scaffold or any later writer: ``writes.apply`` refuses."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "out").symlink_to(".git")
    for path in (tmp_path / ".git/report.json", tmp_path / "out/hook", tmp_path / ".Hg/x"):
        with pytest.raises(TwsrtError) as caught:
            apply([FileWrite(path, path.name, "{}\n", None)])
        assert caught.value.findings[0].rule_id == "TWS019"
        assert not path.exists()


@pytest.mark.parametrize("name", [".git/hooks/pre-commit", "up/.git/x.json", "out/r.json"])
def test_a_report_file_in_git_is_refused(sandbox: Sandbox, name: str) -> None:
    """Named as written, or through a link outside the repository that leads into one."""
    (sandbox.home / "up").mkdir()
    (sandbox.home / "up/.git").mkdir()
    (sandbox.repo / "up").symlink_to(sandbox.home / "up")
    (sandbox.home / "out").symlink_to(sandbox.repo / ".git")
    before = tree_snapshot(sandbox.home)
    args = ("check", "-c", "dotfiles/twsrt.toml", "--sarif", name, "--json", "fine.json")
    result = sandbox.run(*args, cwd=sandbox.home)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{name}: error[TWS019] " in result.stdout + result.stderr
    assert tree_snapshot(sandbox.home) == before  # no report written, the fine one neither


# ------------------------------------------------------------------ no file is executable


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_yolo_file_seeded_from_an_executable_full_file_is_not_executable(
    sandbox: Sandbox,
) -> None:
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'claude_settings_yolo = "home/y.json"\n')
    full = sandbox.write("home/.claude/settings.full.json", '{\n  "model": "opus"\n}\n')
    full.chmod(0o6775)  # setuid, setgid, group-writable, executable
    result = sandbox.run("generate", "-w")
    assert result.returncode == 0, result.stderr
    assert _mode(sandbox.repo / "home/y.json") == 0o664  # the full file's mode, no x/s bits
    assert _mode(full) == 0o664  # rewritten: its x bits are gone


def test_an_executable_target_is_rewritten_without_its_execute_bits(sandbox: Sandbox) -> None:
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'copilot_output = "flags.sh"\n')
    flags = sandbox.write("flags.sh", "#!/bin/sh\necho old\n")
    flags.chmod(0o1755)
    result = sandbox.run("generate", "copilot", "-w")
    assert result.returncode == 0, result.stderr
    assert _mode(flags) == 0o644
    assert "echo old" not in flags.read_text(encoding="utf-8")


def test_no_new_file_is_executable_whatever_its_mode_or_umask(tmp_path: Path) -> None:
    like = tmp_path / "like"
    like.write_text("x")
    like.chmod(0o777)
    old = os.umask(0)
    try:
        apply(
            [
                FileWrite(tmp_path / "a", "a", "a\n", None, like=like),
                FileWrite(tmp_path / "b", "b", "b\n", None, new_mode=0o4777),
                FileWrite(tmp_path / "c", "c", "c\n", None),
            ]
        )
    finally:
        os.umask(old)
    assert [_mode(tmp_path / name) for name in "abc"] == [0o666, 0o666, 0o666]


def test_a_user_policy_in_git_is_refused(sandbox: Sandbox) -> None:
    sandbox.write(".git/user.toml", DEFAULT_CONFIG)
    config = DEFAULT_CONFIG + '\n[project]\nuser_config = ".git/user.toml"\n'
    sandbox.write("twsrt.toml", config.replace("claude_settings", "claude_project"))
    result = sandbox.run("check")
    assert result.returncode == 2, result.stdout
    assert "twsrt.toml:11:15: error[TWS019] [project] user_config (.git/user.toml) lies" in (
        result.stdout
    )
