"""The repository as this host links it (hostchecks.repository_findings): a folded agent
directory (TWS240), agent state or credentials inside the tree (TWS241), and a plain `srt` that
does not read the policy (TWS242). The home tree is linked here the way GNU stow links it, with
and without --no-folding (tests/real/test_stowed_links.py runs real stow and the real agents)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from support.sandbox import Sandbox

SECRET = "sk-live-do-not-print-me"


def scaffold(sandbox: Sandbox) -> Path:
    repo = sandbox.home / "dots"
    (repo / ".git").mkdir(parents=True)
    result = sandbox.run("init", "--repo", str(repo))
    assert result.returncode == 0, result.stderr
    return repo


def stow(repo: Path, home: Path, fold: bool) -> None:
    """What `stow -d REPO -t ~ home` does on an empty target: folded, each top-level entry of
    home/ is one link; with --no-folding, directories are made and each file is linked."""
    package = repo / "home"
    if fold:
        for entry in package.iterdir():
            (home / entry.name).symlink_to(os.path.relpath(entry, home))
        return
    for directory, dirs, files in os.walk(package):
        here = home / Path(directory).relative_to(package)
        here.mkdir(exist_ok=True)
        for name in files + [d for d in dirs if (Path(directory) / d).is_symlink()]:
            (here / name).symlink_to(os.path.relpath(Path(directory) / name, here))


def check(sandbox: Sandbox, repo: Path, *args: str) -> tuple[int, list[dict]]:
    result = sandbox.run("check", "--format", "json", *args, cwd=repo)
    assert result.returncode in (0, 1), result.stderr
    ours = ("TWS240", "TWS241", "TWS242")
    report = json.loads(result.stdout)
    return result.returncode, [f for f in report["findings"] if f["rule_id"] in ours]


def test_a_fresh_scaffold_linked_with_no_folding_is_clean(sandbox: Sandbox) -> None:
    repo = scaffold(sandbox)
    stow(repo, sandbox.home, fold=False)
    assert (sandbox.home / ".claude").is_dir() and not (sandbox.home / ".claude").is_symlink()
    assert os.path.realpath(sandbox.home / ".srt-settings.json") == str(
        (repo / "policy/srt-settings.json").resolve()
    )
    code, found = check(sandbox, repo)
    assert (code, found) == (0, [])


def test_a_scaffold_not_linked_yet_is_clean(sandbox: Sandbox) -> None:
    repo = scaffold(sandbox)
    assert check(sandbox, repo) == (0, [])


def test_folded_agent_directories_are_errors_at_their_targets(sandbox: Sandbox) -> None:
    repo = scaffold(sandbox)
    stow(repo, sandbox.home, fold=True)
    code, found = check(sandbox, repo)
    assert code == 1
    assert [(f["rule_id"], f["level"], f["agent"]) for f in found] == [
        ("TWS240", "error", "claude"),
        ("TWS240", "error", "codex"),
    ]
    claude, codex = found
    config = (repo / "twsrt.toml").read_text().splitlines()
    line = next(i for i, text in enumerate(config, 1) if text.startswith("claude_settings ="))
    assert (claude["location"]["path"], claude["location"]["line"]) == ("twsrt.toml", line)
    assert claude["location"]["pointer"] == "/targets/claude_settings"
    assert codex["location"]["pointer"] == "/targets/codex_config"
    assert claude["message"].startswith(
        "'~/.claude' on this host is one symlink into the repository ('home/.claude'), a "
        "folded stow link: Claude reads its configuration through it"
    )
    assert (
        "`stow -D -d ~/dots -t ~ home` and `stow --no-folding -d ~/dots -t ~ home`"
        in (claude["message"])
    )


def test_a_folded_directory_below_a_real_one_is_found(sandbox: Sandbox) -> None:
    """stow folds the deepest directory that exists only in the package: with ~/.codex already
    there, ~/.codex/rules becomes the link."""
    repo = scaffold(sandbox)
    (sandbox.home / ".codex").mkdir()
    (sandbox.home / ".codex/config.toml").symlink_to("../dots/home/.codex/config.toml")
    (sandbox.home / ".codex/rules").symlink_to("../dots/home/.codex/rules")
    _code, found = check(sandbox, repo, "--agent", "codex")
    assert [f["message"].split(" on this host")[0] for f in found] == ["'~/.codex/rules'"]
    assert found[0]["location"]["pointer"] == "/targets/codex_rules"


def test_links_that_leave_the_repository_and_links_of_files_are_quiet(sandbox: Sandbox) -> None:
    repo = scaffold(sandbox)
    elsewhere = sandbox.home / "elsewhere" / ".claude"
    elsewhere.mkdir(parents=True)
    (sandbox.home / ".claude").symlink_to(elsewhere)  # a link, but not into the repository
    (sandbox.home / ".codex").mkdir()
    (sandbox.home / ".codex/config.toml").symlink_to(repo / "home/.codex/config.toml")
    (sandbox.home / ".srt-settings.json").symlink_to(repo / "home/.srt-settings.json")
    assert check(sandbox, repo)[1] == []


def test_credentials_and_state_in_the_tree_are_named_never_printed(sandbox: Sandbox) -> None:
    repo = scaffold(sandbox)
    (repo / "home/.codex/auth.json").write_text(json.dumps({"OPENAI_API_KEY": SECRET}))
    (repo / "home/.codex/sessions/2026").mkdir(parents=True)
    (repo / "home/.codex/state_5.sqlite").write_bytes(b"SQLite format 3\0" + SECRET.encode())
    (repo / "home/.claude/.credentials.json").write_text(SECRET)
    (repo / "home/.deepcode").mkdir()
    (repo / "home/.deepcode/credentials.json").write_text(SECRET)  # an agent not configured
    result = sandbox.run("check", cwd=repo)
    assert result.returncode == 1
    assert SECRET not in result.stdout + result.stderr
    _code, found = check(sandbox, repo)
    got = {f["location"]["path"]: f for f in found}
    assert set(got) == {
        "home/.claude/.credentials.json",
        "home/.codex/auth.json",
        "home/.codex/sessions",
        "home/.codex/state_5.sqlite",
        "home/.deepcode/credentials.json",
    }
    assert {f["rule_id"] for f in found} == {"TWS241"}
    assert {f["level"] for f in found} == {"error"}
    auth = got["home/.codex/auth.json"]
    assert auth["agent"] == "codex"
    assert auth["message"].startswith(
        "'home/.codex/auth.json' is Codex's login (API key or ChatGPT tokens) (a credential) "
        "inside the repository, where `git add -A` stages it: move it back to "
        "'~/.codex/auth.json'"
    )
    assert "rotate the credential" in auth["message"]
    assert "rotate" not in got["home/.codex/sessions"]["message"]
    assert got["home/.deepcode/credentials.json"]["agent"] == "deepcode"


def test_state_behind_a_link_that_leaves_the_repository_is_not_looked_at(
    sandbox: Sandbox,
) -> None:
    repo = scaffold(sandbox)
    outside = sandbox.home / "outside"
    outside.mkdir()
    (outside / "credentials.json").write_text(SECRET)
    (repo / "home/.deepcode").symlink_to(outside)
    assert check(sandbox, repo)[1] == []


def test_a_repository_that_is_the_home_reports_no_state(sandbox: Sandbox) -> None:
    """A yadm-style repository whose work tree is ~ itself: the agents' files are in place, not
    copies in a repository, so nothing is reported (and nothing is folded)."""
    (sandbox.home / ".git").mkdir()
    sandbox.write("twsrt.toml", "")  # the sandbox's own repository is not used here
    config = sandbox.home / "twsrt.toml"
    config.write_text(
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\ncodex_config = ".codex/config.toml"\n'
    )
    (sandbox.home / ".srt-settings.json").write_text(
        (sandbox.repo / ".srt-settings.json").read_text()
    )
    (sandbox.home / "bash-rules.json").write_text((sandbox.repo / "bash-rules.json").read_text())
    assert sandbox.run("generate", "-w", cwd=sandbox.home).returncode == 0
    (sandbox.home / ".codex/auth.json").write_text(SECRET)
    code, found = check(sandbox, sandbox.home)
    assert found == []


def test_srt_reading_another_file_is_a_warning_where_the_host_uses_the_repository(
    sandbox: Sandbox,
) -> None:
    repo = scaffold(sandbox)
    stow(repo, sandbox.home, fold=False)
    srt_file = sandbox.home / ".srt-settings.json"
    srt_file.unlink()
    code, found = check(sandbox, repo)
    assert code == 0  # a warning
    (missing,) = found
    assert (missing["rule_id"], missing["level"]) == ("TWS242", "warning")
    assert missing["location"]["pointer"] == "/sources/srt"
    assert (
        "'~/.srt-settings.json', the file a plain `srt CMD` reads, does not exist"
        in (missing["message"])
    )
    assert "'home/.srt-settings.json' -> '../policy/srt-settings.json'" in missing["message"]
    assert "`srt --settings ~/dots/policy/srt-settings.json`" in missing["message"]
    srt_file.write_text("{}\n")
    (own,) = check(sandbox, repo)[1]
    assert "is a file of its own, not the policy" in own["message"]
    # --agent: srt is no agent, so not reported
    assert check(sandbox, repo, "--agent", "claude")[1] == []


def test_srt_settings_are_not_looked_at_on_a_host_that_does_not_use_the_repository(
    sandbox: Sandbox,
) -> None:
    """CI, or a laptop where the tree is not linked: nothing of the repository is in ~."""
    repo = scaffold(sandbox)
    (sandbox.home / ".srt-settings.json").write_text("{}\n")
    assert check(sandbox, repo)[1] == []
