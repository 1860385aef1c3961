"""The pre-commit hooks, run by real pre-commit on throwaway copies of ``examples/dotfiles``.

pre-commit installs a ``language: python`` hook by pip-installing the hook repository at a commit.
``pre-commit try-repo`` on a dirty tree commits only the staged and the tracked, modified files
into a shadow repo (``git add -u``): an untracked file — ``.pre-commit-hooks.yaml`` itself before
its first commit, a new module — would be missing. So the module fixture copies the working tree
(tracked and untracked files, ignored ones left out) into a temporary repository and commits it:
the hooks always run the code under test, whatever the state of the checkout.

``try-repo`` builds its hook environment in a throwaway store on every call (it ignores
``PRE_COMMIT_HOME``), ~15 s, so it runs once. The other tests use a ``.pre-commit-config.yaml``
naming the same repository and rev — the config try-repo writes for itself — and one
``PRE_COMMIT_HOME`` shared by the module, so the environment is built once.

HOME, the git config and every ``GIT_*``/``PRE_COMMIT*``/``TWSRT_*`` variable are replaced, so the
developer's settings (or a git hook running this suite) cannot leak in; only pip's config file and
cache carry over, to build the hook environment. Nothing here skips.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest
import yaml
from support.precommit import (
    EXAMPLE,
    MANIFEST,
    isolated_env,
    run_merged,
    schema_registry,
    snapshot_this_repository,
)
from support.sandbox import REPO_ROOT

HOOK_IDS = ("twsrt-check", "twsrt-generate")

FULL = "home/.claude/settings.full.json"
YOLO = "home/.claude/settings.yolo.json"
LINK = "home/.claude/settings.json"
CODEX_RULES = "home/.codex/rules/twsrt.rules"
BASH_RULES = "policy/bash-rules.json"

# one worker builds the module fixture once (tests/run.sh: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("precommit")


@dataclass
class Result:
    returncode: int
    output: str  # pre-commit's stdout and stderr, interleaved as a user sees them


@dataclass
class Hooks:
    """A committed snapshot of this repository and an environment that isolates pre-commit."""

    env: dict[str, str]
    repo: Path
    rev: str

    def dotfiles(self, where: Path, hook_ids: Iterable[str] = HOOK_IDS) -> Path:
        """A committed copy of examples/dotfiles that uses the hooks."""
        shutil.copytree(EXAMPLE, where, symlinks=True)
        config = precommit_config(str(self.repo), self.rev, hook_ids)
        (where / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
        self.git(where, "init", "-q")
        self.git(where, "add", "-A")
        self.git(where, "commit", "-q", "-m", "dotfiles")
        return where

    def project(self, where: Path) -> Path:
        """A committed copy of examples/project (a project repository) that uses the hooks, with
        the dotfiles example beside it: the user policy its [project] user_config names, outside
        this repository, so the check hook names it in its args (docs/project.md)."""
        shutil.copytree(EXAMPLE.parent / "project", where, symlinks=True)
        shutil.copytree(EXAMPLE.parent / "dotfiles", where.parent / "dotfiles", symlinks=True)
        config = yaml.safe_load(precommit_config(str(self.repo), self.rev))
        config["repos"][0]["hooks"][0]["args"] = ["--user-config", "../dotfiles/twsrt.toml"]
        (where / ".pre-commit-config.yaml").write_text(
            yaml.safe_dump(config, sort_keys=False), encoding="utf-8"
        )
        self.git(where, "init", "-q")
        self.git(where, "add", "-A")
        self.git(where, "commit", "-q", "-m", "project")
        return where

    def git(self, cwd: Path, *args: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
        return proc.stdout

    def changed(self, cwd: Path) -> set[str]:
        """Paths that differ from HEAD in the work tree (untracked files included)."""
        lines = self.git(cwd, "status", "--porcelain", "--no-renames").splitlines()
        return {line[3:] for line in lines}

    def pre_commit(self, cwd: Path, *args: str, timeout: float = 120) -> Result:
        proc = run_merged([sys.executable, "-m", "pre_commit", *args], cwd, self.env, timeout)
        return Result(proc.returncode, proc.stdout)

    def run_hook(self, cwd: Path, hook_id: str, *args: str) -> Result:
        return self.pre_commit(cwd, "run", hook_id, *(args or ("--all-files",)))


def precommit_config(repo: str, rev: str, hook_ids: Iterable[str] = HOOK_IDS) -> str:
    """The ``.pre-commit-config.yaml`` try-repo would write, for a repo that uses the hooks."""
    hooks = [{"id": hook_id} for hook_id in hook_ids]
    return yaml.safe_dump({"repos": [{"repo": repo, "rev": rev, "hooks": hooks}]}, sort_keys=False)


@pytest.fixture(scope="session")
def hooks(tmp_path_factory: pytest.TempPathFactory) -> Hooks:
    base = tmp_path_factory.mktemp("precommit")
    env = isolated_env(base)
    repo = base / "twsrt"
    snapshot_this_repository(repo, env)
    box = Hooks(env, repo, "")
    box.git(repo, "init", "-q")
    box.git(repo, "add", "-A")
    box.git(repo, "commit", "-q", "-m", "twsrt working tree")
    box.rev = box.git(repo, "rev-parse", "HEAD").strip()
    # Build the hook environment once; every test below reuses it through PRE_COMMIT_HOME.
    warm = box.dotfiles(base / "warm-up")
    built = box.pre_commit(warm, "install-hooks", timeout=600)
    assert built.returncode == 0, built.output
    return box


@pytest.fixture
def dotfiles(hooks: Hooks, tmp_path: Path) -> Path:
    return hooks.dotfiles(tmp_path / "dotfiles")


def load_manifest() -> list[dict]:
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))


def hook(hook_id: str) -> dict:
    return next(h for h in load_manifest() if h["id"] == hook_id)


def edit_json_text(path: Path, old: str, new: str) -> None:
    """A hand edit: replace text once, so the file's own formatting stays as it was."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found exactly once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def add_bash_deny_rule(repo: Path, command: str) -> None:
    path = repo / BASH_RULES
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules["deny"].append(command)
    path.write_text(json.dumps(rules, indent=2) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- the manifest


def test_manifest_validates_against_the_schemastore_schema() -> None:
    hooks_schema, _, registry = schema_registry()
    jsonschema.Draft7Validator.check_schema(hooks_schema)
    jsonschema.Draft7Validator(hooks_schema, registry=registry).validate(load_manifest())


@pytest.mark.tool
def test_manifest_is_accepted_by_pre_commit_itself() -> None:
    from pre_commit.clientlib import load_manifest as pre_commit_load_manifest

    loaded = pre_commit_load_manifest(str(MANIFEST))
    assert [h["id"] for h in loaded] == list(HOOK_IDS)


@pytest.mark.parametrize("hook_id", HOOK_IDS)
def test_manifest_hook_settings(hook_id: str) -> None:
    import pre_commit.constants

    entry = hook(hook_id)
    assert (
        entry["entry"]
        == {
            "twsrt-check": "twsrt check",
            "twsrt-generate": "twsrt generate -w --exit-code",
        }[hook_id]
    )
    assert entry["language"] == "python"
    assert entry["pass_filenames"] is False
    assert entry["require_serial"] is True
    minimum = tuple(int(part) for part in entry["minimum_pre_commit_version"].split("."))
    installed = tuple(int(part) for part in pre_commit.constants.VERSION.split(".")[:3])
    assert (3, 2, 0) <= minimum <= installed


def test_both_hooks_trigger_on_the_same_files() -> None:
    check, generate = (hook(i) for i in HOOK_IDS)
    assert check["files"] == generate["files"]
    assert (check["types"], check["types_or"]) == (generate["types"], generate["types_or"])


FILES_PATTERN_CASES = [
    # the config
    ("twsrt.toml", True),
    (".twsrt.toml", True),
    ("dotfiles/twsrt.toml", True),
    (".config/twsrt/config.toml", True),
    ("home/.config/twsrt/config.toml", True),
    # sources of the default layout (and of twsrt init --repo)
    (".srt-settings.json", True),
    ("srt-settings.json", True),
    ("policy/srt-settings.json", True),
    ("bash-rules.json", True),
    ("policy/bash-rules.json", True),
    (".config/twsrt/bash-rules.json", True),
    # generated targets
    (".claude/settings.json", True),
    (".claude/settings.full.json", True),
    ("home/.claude/settings.yolo.json", True),
    (".claude/settings.local.json", True),
    (".codex/config.toml", True),
    ("home/.codex/config.toml", True),
    (".codex/rules/twsrt.rules", True),
    ("home/.codex/rules/default.rules", True),
    (".copilot/settings.json", True),
    ("copilot-flags.txt", True),
    ("home/copilot-flags.yolo.txt", True),
    (".deepcode/settings.json", True),
    ("home/.deepcode/settings.json", True),
    ("home/.deepcode/settings.yolo.json", True),
    # an agent's credential file: the check that reports it (TWS241) must run
    ("home/.codex/auth.json", True),
    (".codex/auth.json", True),
    ("home/.claude/.credentials.json", True),
    ("home/.claude/.device-keys.json", True),
    ("home/.copilot/config.json", True),
    ("home/.deepcode/credentials.json", True),
    # near misses
    ("README.md", False),
    ("pyproject.toml", False),
    ("mytwsrt.toml", False),
    ("twsrt.toml.bak", False),
    ("twsrt.tomlx", False),
    ("config.toml", False),
    ("nottwsrt/config.toml", False),
    (".config/other/config.toml", False),
    ("twsrt/config.toml.orig", False),
    ("my-srt-settings.json", False),
    ("..srt-settings.json", False),
    ("srt-settings.json5", False),
    ("policy/srt-settings.json~", False),
    ("old-bash-rules.json", False),
    ("bash-rules.json.bak", False),
    ("claude/settings.json", False),
    (".claude/agents/settings.json", False),
    (".claude/settings/extra.json", False),
    (".claude/settings.json.bak", False),
    (".claude/commands/review.md", False),
    ("codex/config.toml", False),
    (".codex/auth.json.lock", False),
    ("codex/auth.json", False),
    (".claude/credentials.json", False),
    (".codex/config.json", False),
    (".codex/rules/twsrt.rules.bak", False),
    (".codex/rules/nested/twsrt.rules", False),
    (".copilot/config.json.bak", False),
    ("copilot-flags.md", False),
    (".deepcode/config.json", False),
    ("src/app/settings.json", False),
    ("policy/notes.txt", False),
]


@pytest.mark.parametrize(("path", "matches"), FILES_PATTERN_CASES)
def test_files_pattern(path: str, matches: bool) -> None:
    # pre-commit applies `files` with re.search to repo-relative POSIX paths
    assert bool(re.search(hook("twsrt-check")["files"], path)) is matches


def test_pre_commit_configs_validate_and_name_existing_hooks() -> None:
    """The config the tests use, and every one the examples ship, against the schema."""
    _, config_schema, registry = schema_registry()
    validator = jsonschema.Draft7Validator(config_schema, registry=registry)
    shipped = sorted(REPO_ROOT.glob("examples/**/*.y*ml"))  # pathlib's * matches dotfiles
    ours = precommit_config("/tmp/twsrt", "0" * 40)
    texts = [ours] + [p.read_text(encoding="utf-8") for p in shipped]
    known = {h["id"] for h in load_manifest()}
    for text in texts:
        document = yaml.safe_load(text)
        if not isinstance(document, dict) or "repos" not in document:
            continue  # another YAML file (a workflow)
        validator.validate(document)
        for repo in document["repos"]:
            if "twsrt" in repo["repo"]:
                assert {h["id"] for h in repo["hooks"]} <= known


# --------------------------------------------------------------------------- real pre-commit


@pytest.mark.tool
def test_try_repo_on_the_clean_example_passes(hooks: Hooks, dotfiles: Path) -> None:
    result = hooks.pre_commit(dotfiles, "try-repo", str(hooks.repo), "--all-files", timeout=600)
    assert result.returncode == 0, result.output
    assert re.search(r"^twsrt check .*\.Passed$", result.output, re.M), result.output
    assert re.search(r"^twsrt generate .*\.Passed$", result.output, re.M), result.output
    assert hooks.changed(dotfiles) == set()


@pytest.mark.tool
def test_clean_example_passes_both_hooks(hooks: Hooks, dotfiles: Path) -> None:
    result = hooks.pre_commit(dotfiles, "run", "--all-files")
    assert result.returncode == 0, result.output
    assert result.output.count("Passed") == 2, result.output
    assert hooks.changed(dotfiles) == set()


@pytest.mark.tool
def test_hand_edited_target_fails_check_with_a_diff(hooks: Hooks, dotfiles: Path) -> None:
    target = dotfiles / FULL
    edit_json_text(target, '"deny": [\n', '"deny": [\n      "Read(~/.kube)",\n')
    edited = target.read_bytes()

    result = hooks.run_hook(dotfiles, "twsrt-check")

    assert result.returncode == 1, result.output
    assert "- hook id: twsrt-check" in result.output
    assert f"--- a/{FULL}\n+++ b/{FULL}\n" in result.output, result.output
    # the file has the entry, the policy does not: the diff removes it
    assert re.search(r'^-\s+"Read\(~/\.kube\)",$', result.output, re.M), result.output
    # read-only: the hand edit is still there and nothing else changed
    assert target.read_bytes() == edited
    assert hooks.changed(dotfiles) == {FULL}


@pytest.mark.tool
def test_policy_edit_generate_rewrites_and_fails_once_then_passes(
    hooks: Hooks, dotfiles: Path
) -> None:
    add_bash_deny_rule(dotfiles, "dd")

    first = hooks.run_hook(dotfiles, "twsrt-generate")

    assert first.returncode == 1, first.output
    assert "files were modified by this hook" in first.output, first.output
    assert {BASH_RULES, FULL, CODEX_RULES} <= hooks.changed(dotfiles)
    assert '"Bash(dd)"' in (dotfiles / FULL).read_text(encoding="utf-8")
    assert 'pattern = ["dd"]' in (dotfiles / CODEX_RULES).read_text(encoding="utf-8")

    second = hooks.run_hook(dotfiles, "twsrt-generate")

    assert second.returncode == 0, second.output
    assert re.search(r"^twsrt generate .*\.Passed$", second.output, re.M), second.output


@pytest.mark.tool
def test_check_passes_after_generate_has_rewritten_the_targets(
    hooks: Hooks, dotfiles: Path
) -> None:
    add_bash_deny_rule(dotfiles, "dd")
    assert hooks.run_hook(dotfiles, "twsrt-check").returncode == 1  # drift before generating
    assert hooks.run_hook(dotfiles, "twsrt-generate").returncode == 1

    result = hooks.run_hook(dotfiles, "twsrt-check")

    # The example configures claude_settings_yolo, which check compares too: the generate hook
    # must leave every configured target up to date, not only the full variant.
    assert result.returncode == 0, result.output
    assert '"Bash(dd)"' in (dotfiles / YOLO).read_text(encoding="utf-8")


@pytest.mark.tool
def test_commit_of_a_policy_edit_is_stopped_once_then_goes_through(
    hooks: Hooks, tmp_path: Path
) -> None:
    """The real flow: the git hook runs on the staged files, not --all-files."""
    repo = hooks.dotfiles(tmp_path / "dotfiles", hook_ids=("twsrt-generate",))
    assert hooks.pre_commit(repo, "install").returncode == 0
    add_bash_deny_rule(repo, "dd")
    hooks.git(repo, "add", BASH_RULES)

    stopped = subprocess.run(
        ["git", "commit", "-m", "deny dd"],
        cwd=repo,
        env=hooks.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )

    assert stopped.returncode == 1, stopped.stdout
    assert "files were modified by this hook" in stopped.stdout
    assert {FULL, CODEX_RULES} <= hooks.changed(repo)  # rewritten, left for review

    hooks.git(repo, "add", "-A")
    hooks.git(repo, "commit", "-q", "-m", "deny dd")
    assert hooks.changed(repo) == set()


@pytest.mark.tool
def test_a_symlink_change_alone_triggers_check(hooks: Hooks, dotfiles: Path) -> None:
    # types_or: [file, symlink] — with pre-commit's default types: [file] this would be skipped
    link = dotfiles / LINK
    link.unlink()
    link.symlink_to("settings.gone.json")

    result = hooks.run_hook(dotfiles, "twsrt-check", "--files", LINK)

    assert result.returncode == 1, result.output
    assert "settings.gone.json" in result.output


@pytest.mark.tool
def test_unrelated_files_do_not_trigger_the_hooks(hooks: Hooks, dotfiles: Path) -> None:
    (dotfiles / "notes.md").write_text("# notes\n", encoding="utf-8")
    (dotfiles / FULL).write_text("not json at all\n", encoding="utf-8")  # would fail if run

    result = hooks.pre_commit(dotfiles, "run", "--files", "notes.md")

    assert result.returncode == 0, result.output
    assert result.output.count("(no files to check)Skipped") == 2, result.output


@pytest.mark.tool
def test_hooks_in_a_project_repository(hooks: Hooks, tmp_path: Path) -> None:
    """examples/project, a repository with [project]: both hooks pass as committed; a policy
    edit makes twsrt-generate rewrite the project files once, after which check passes; a hand
    edit of .claude/settings.json fails twsrt-check with its diff."""
    project = hooks.project(tmp_path / "project")
    clean = hooks.pre_commit(project, "run", "--all-files")
    assert clean.returncode == 0, clean.output
    rules = project / "policy" / "bash-rules.json"
    edit_json_text(rules, '"deny": ["sudo",', '"deny": ["dd", "sudo",')
    first = hooks.run_hook(project, "twsrt-generate")
    assert first.returncode == 1, first.output
    written = {".claude/settings.json", ".deepcode/settings.json", ".codex/rules/twsrt.rules"}
    assert written | {"policy/bash-rules.json"} <= hooks.changed(project), first.output
    assert '"Bash(dd)"' in (project / ".claude/settings.json").read_text(encoding="utf-8")
    assert hooks.run_hook(project, "twsrt-check").returncode == 0
    hooks.git(project, "add", "-A")
    hooks.git(project, "commit", "-q", "-m", "deny dd")
    target = project / ".claude" / "settings.json"
    edit_json_text(target, '"deny": [\n', '"deny": [\n      "Read(/notes)",\n')
    check = hooks.run_hook(project, "twsrt-check")
    assert check.returncode == 1, check.output
    assert "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n" in check.output
    assert re.search(r'^-\s+"Read\(/notes\)",$', check.output, re.M), check.output
