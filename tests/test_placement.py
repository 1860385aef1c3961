"""Issue 14 items 2 and 5: what twsrt may read and where targets may be.

Repo mode (the config is in a git repository) confines every read and write to the repository;
outside it a user config may name absolute paths. Only regular files are read, with a size cap.
Two targets on one file, or a target on the config or a source, are refused before any read.
The bad-input table (tests/test_bad_input.py) holds the one-line refusals; this file holds what
a table row cannot show: secrets that must not reach any report, ``check`` skipping only the
affected targets, and the reader itself.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

import pytest
from support.sandbox import DEFAULT_CONFIG, Sandbox, tree_snapshot, twsrt_command

CANARY = "twsrt-canary-9f3e1c"  # a secret planted where a hostile config points


def invoke(sandbox: Sandbox, *args: str) -> tuple[int, str]:
    """The CLI as run from the repository; stdout then stderr."""
    result = sandbox.run(*args)
    return result.returncode, result.stdout + result.stderr


def all_outputs(sandbox: Sandbox) -> str:
    """Everything ``check`` prints or writes, in every format."""
    out = []
    for fmt in ("text", "json", "github"):
        _code, text = invoke(sandbox, "check", "--format", fmt)
        out.append(text)
    reports = sandbox.home / "reports"
    reports.mkdir(exist_ok=True)
    code, text = invoke(
        sandbox,
        "check",
        "--sarif",
        str(reports / "r.sarif"),
        "--junit",
        str(reports / "r.xml"),
    )
    out.append(text)
    out += [p.read_text(encoding="utf-8") for p in sorted(reports.iterdir())]
    return "\n".join(out)


def test_check_never_prints_proc_self_environ(sandbox: Sandbox) -> None:
    """The review's attack: a text target on /proc/self/environ put the environment (a CI
    token) into the log, the JSON and the SARIF. It must be an error at the config key, and
    the environment must appear in no output. A subprocess: /proc/self/environ is the
    environment the process started with."""
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'copilot_output = "/proc/self/environ"\n')
    outputs = []
    for extra in (("--format", "json"), ("--format", "github"), ("--sarif", "../r.sarif")):
        result = sandbox.run("check", *extra, TWSRT_TEST_CANARY=CANARY)
        assert result.returncode == 1, result.stderr
        outputs += [result.stdout, result.stderr]
    outputs.append((sandbox.home / "r.sarif").read_text(encoding="utf-8"))
    assert not any(CANARY in text for text in outputs)
    report = json.loads(sandbox.run("check", "--format", "json").stdout)
    found = [f for f in report["findings"] if f["rule_id"] == "TWS005"]
    assert [(f["location"]["path"], f["location"]["line"]) for f in found] == [("twsrt.toml", 9)]
    assert found[0]["location"]["pointer"] == "/targets/copilot_output"


def test_check_skips_only_the_targets_it_refuses(sandbox: Sandbox) -> None:
    """A Copilot target symlinked to ~/.bashrc and a Codex rules file on the bash rules: both
    reported at their keys, neither file read; Claude is still checked (its missing file is
    reported)."""
    (sandbox.home / ".bashrc").write_text(f"export TOKEN={CANARY}\n", encoding="utf-8")
    flags = sandbox.repo / "home" / ".copilot" / "flags.sh"
    flags.parent.mkdir(parents=True)
    flags.symlink_to(sandbox.home / ".bashrc")
    sandbox.write(
        "twsrt.toml",
        DEFAULT_CONFIG
        + 'copilot_output = "home/.copilot/flags.sh"\n'
        + 'codex_config = "home/.codex/config.toml"\n'
        + 'codex_rules = "bash-rules.json"\n',
    )
    text = all_outputs(sandbox)
    assert CANARY not in text
    code, out = invoke(sandbox, "check", "--format", "json")
    assert code == 1
    findings = json.loads(out)["findings"]
    ids = {(f["rule_id"], f["location"]["pointer"]) for f in findings}
    assert ("TWS005", "/targets/copilot_output") in ids
    assert ("TWS006", "/targets/codex_rules") in ids
    agents = {f.get("agent") for f in findings if f["rule_id"] == "TWS301"}
    assert agents == {"claude"}  # target-missing: claude compiled, codex and copilot skipped


def test_generate_refuses_before_writing_anything(sandbox: Sandbox) -> None:
    """The DeepCode write stripped Claude's denies when both named one file: now exit 2, and
    not a byte changes, not even the Claude target that has no problem of its own."""
    sandbox.write(
        "twsrt.toml", DEFAULT_CONFIG + 'deepcode_settings = "home/.claude/settings.full.json"\n'
    )
    before = tree_snapshot(sandbox.home)
    code, out = invoke(sandbox, "generate", "-w")
    assert code == 2
    assert "error[TWS006] deepcode_settings (home/.claude/settings.full.json) is the same" in out
    assert tree_snapshot(sandbox.home) == before


def test_absolute_targets_outside_repo_mode_still_work(sandbox: Sandbox) -> None:
    """A user config outside any repository names files in ~ and elsewhere: that is its job.
    The same config inside a repository is refused at each key that leaves it."""
    config = (
        '[sources]\nsrt = "~/dotfiles/.srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\nclaude_settings = "~/.claude/settings.full.json"\n'
    )
    sandbox.write("twsrt.toml", config)
    code, out = invoke(sandbox, "generate", "-w")
    assert code == 2
    assert "twsrt.toml:6:19: error[TWS005] claude_settings (~/.claude/settings.full.json)" in out
    assert not (sandbox.home / ".claude").exists()
    (sandbox.repo / ".git").rmdir()  # no longer a repository: the classic user setup
    code, out = invoke(sandbox, "generate", "-w")
    assert code == 0, out
    assert (sandbox.home / ".claude" / "settings.full.json").is_file()


def test_layers_beside_a_target_are_confined(sandbox: Sandbox) -> None:
    """Files twsrt finds beside a target (a Codex profile, Claude's settings.local.json) are
    read too; a symlink out of the repository is reported at the file and never read."""
    secret = sandbox.home / "secret.toml"
    secret.write_text(f'default_permissions = "{CANARY}"\n', encoding="utf-8")
    codex = sandbox.repo / "home" / ".codex"
    codex.mkdir(parents=True)
    (codex / "work.config.toml").symlink_to(secret)
    claude = sandbox.repo / "home" / ".claude"
    claude.mkdir(parents=True)
    (claude / "settings.local.json").symlink_to(secret)
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'codex_config = "home/.codex/config.toml"\n')
    assert CANARY not in all_outputs(sandbox)
    _code, out = invoke(sandbox, "check")
    for layer in ("home/.codex/work.config.toml", "home/.claude/settings.local.json"):
        assert f"{layer}: error[TWS005] resolves to ~/secret.toml, outside the repository" in out


def test_naming_and_confinement_travel_with_the_config(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No hidden state: a library caller's config names files from the working directory and
    reads anywhere; the CLI's (``repo_names``) names them from the repository root; only a
    config ``confined`` to the repository refuses a read outside it. No call changes the next."""
    from twsrt.findings import TwsrtError
    from twsrt.invocation import find_config
    from twsrt.sources import read_json_source

    for key, value in sandbox.env().items():
        monkeypatch.setenv(key, value)
    (sandbox.home / "outside.json").write_text("{}", encoding="utf-8")
    link = sandbox.repo / "sub" / "rules.json"
    link.parent.mkdir()
    link.symlink_to(sandbox.home / "outside.json")
    monkeypatch.chdir(link.parent)
    repo_named = find_config(None, repo_names=True)
    assert (repo_named.display, repo_named.display_path(link)) == ("twsrt.toml", "sub/rules.json")
    free = find_config(None)
    assert (free.display, free.display_path(link)) == (
        f"~/{sandbox.repo.name}/twsrt.toml",
        "rules.json",
    )
    assert read_json_source(link, "sub/rules.json", "bash", free)[0].value == {}
    with pytest.raises(TwsrtError) as caught:
        read_json_source(link, "sub/rules.json", "bash", free.confined(sandbox.repo))
    assert [f.render() for f in caught.value.findings] == [
        "sub/rules.json: error[TWS005] resolves to ~/outside.json, outside the repository"
    ]
    assert read_json_source(link, "sub/rules.json", "bash", free)[0].value == {}


def test_a_fifo_target_does_not_hang_check(sandbox: Sandbox) -> None:
    """Reading a FIFO blocks until a writer comes: ``check`` hung forever. A subprocess with a
    deadline, so the old behaviour fails the test instead of hanging the suite."""
    flags = sandbox.repo / "flags.sh"
    os.mkfifo(flags)
    sandbox.write("twsrt.toml", DEFAULT_CONFIG + 'copilot_output = "flags.sh"\n')
    proc = subprocess.run(
        [*twsrt_command(), "check"],
        cwd=sandbox.repo,
        env=sandbox.env(),
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert proc.returncode == 1
    assert "flags.sh: error[TWS004] cannot read: is a FIFO, not a regular file" in proc.stdout


def _limit_memory() -> None:
    limit = 1 << 30  # the old code read /dev/zero until memory ran out: make that quick
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_dev_zero_is_refused_outside_repo_mode(sandbox: Sandbox) -> None:
    """Without a repository nothing confines paths, so the file type is what stops
    ``/dev/zero`` (which never ends) from being read."""
    (sandbox.repo / ".git").rmdir()
    srt = sandbox.repo / ".srt-settings.json"
    srt.unlink()
    srt.symlink_to("/dev/zero")
    proc = subprocess.run(
        [*twsrt_command(), "generate", "-w"],
        cwd=sandbox.repo,
        env=sandbox.env(),
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_memory,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        ".srt-settings.json: error[TWS003] cannot read source: is a character device, "
        "not a regular file"
    )


def test_a_yolo_file_name_too_long_matters_only_in_yolo_runs(sandbox: Sandbox) -> None:
    """A 251-byte settings name fits, its 256-byte yolo file (``<stem>.yolo.json``) does not:
    full runs (check looks for the yolo file) work, a yolo run is refused at the key."""
    name = "s" * 246 + ".json"
    sandbox.write("twsrt.toml", DEFAULT_CONFIG.replace("settings.full.json", name))
    sandbox.accept_planted_layers()
    code, out = invoke(sandbox, "generate", "-w")
    assert code == 0, out
    code, out = invoke(sandbox, "check")
    assert code == 0, out
    code, out = invoke(sandbox, "diff", "--yolo")
    assert code == 2
    assert out.startswith("twsrt.toml:8:19: error[TWS004] the yolo file of claude_settings")


# ---------------------------------------------------------------- the reader itself


def test_reader_caps_size_before_reading(tmp_path: Path) -> None:
    from twsrt.safeio import FileProblem, read_bytes

    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 2048)
    assert read_bytes(path, limit=2048) == b"x" * 2048
    with pytest.raises(FileProblem, match=r"^is larger than 1024 bytes$"):
        read_bytes(path, limit=1024)


def test_reader_names_each_kind_of_non_file(tmp_path: Path) -> None:
    from twsrt.safeio import FileProblem, read_text

    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "gone").symlink_to("nowhere")
    (tmp_path / "dir").mkdir()
    expected = {
        "pipe": ("unreadable", "is a FIFO, not a regular file"),
        "loop": ("unreadable", "symlink loop (too many levels of symbolic links)"),
        "gone": ("dangling", "dangling symlink (points to nowhere)"),
        "dir": ("directory", "is a directory"),
        "missing": ("missing", "does not exist"),
    }
    for name, (kind, reason) in expected.items():
        with pytest.raises(FileProblem) as caught:
            read_text(tmp_path / name)
        assert (caught.value.kind, caught.value.reason) == (kind, reason)
    with pytest.raises(FileProblem, match="is a character device, not a regular file"):
        read_text(Path("/dev/zero"))


def test_confinement_follows_symlinks_and_dotdot(tmp_path: Path) -> None:
    from twsrt.safeio import FileProblem, read_text, real

    repo = tmp_path / "repo"
    (repo / "home").mkdir(parents=True)
    (tmp_path / "secret").write_text(CANARY, encoding="utf-8")
    (repo / "home" / "ok.json").write_text("{}", encoding="utf-8")
    (repo / "home" / "link").symlink_to(tmp_path / "secret")
    confine = real(repo)
    assert read_text(repo / "home" / "ok.json", confine=confine) == "{}"
    for path in (repo / "home" / "link", repo / ".." / "secret", tmp_path / "secret"):
        with pytest.raises(FileProblem) as caught:
            read_text(path, confine=confine)
        assert caught.value.kind == "outside"
    assert read_text(repo / "home" / "link") == CANARY  # outside repo mode: allowed


def test_crlf_reads_as_before(tmp_path: Path) -> None:
    """Universal newlines, as ``Path.read_text`` gave every caller before."""
    from twsrt.safeio import read_text

    path = tmp_path / "a.json"
    path.write_bytes(b'{\r\n  "a": 1\r\n}\r\n')
    assert read_text(path) == '{\n  "a": 1\n}\n'
