"""The README and docs/ as a newcomer reads them: install lines that can work, a first screen
that explains before it commands, links that resolve, a `check` synopsis that matches the
command, and pre-commit recipes that run as written (real pre-commit, offline)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from support.precommit import EXAMPLE, MANIFEST, isolated_env
from support.sandbox import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = sorted((REPO_ROOT / "docs").rglob("*.md"))
PAGES = [README, *DOCS]
PRECOMMIT_DOC = REPO_ROOT / "docs" / "pre-commit.md"
CHECK_DOC = REPO_ROOT / "docs" / "check.md"
# Files that tell users how to install twsrt or pin it.
INSTALL_FILES = [
    *PAGES,
    REPO_ROOT / "action" / "action.yml",
    REPO_ROOT / "tests" / "run.sh",
    *sorted((REPO_ROOT / ".ci").glob("*")),
    *sorted((REPO_ROOT / "examples").rglob("*.y*ml")),
]


def rel(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT))


def fenced_blocks(text: str, lang: str = "") -> list[str]:
    """The bodies of the fenced code blocks of a Markdown text (of one language, if given)."""
    return re.findall(r"^```" + re.escape(lang) + r"[^\n]*\n(.*?)^```$", text, re.M | re.S)


def section(path: Path, heading: str) -> str:
    """The text of a `## heading` section, up to the next one."""
    body = path.read_text(encoding="utf-8").partition(f"\n## {heading}\n")[2]
    assert body, f"{rel(path)} has no '## {heading}' section"
    return body.partition("\n## ")[0]


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", prose, re.M)}


# --------------------------------------------------------------------------- install lines


def test_install_lines_name_our_distribution() -> None:
    """`twsrt` on PyPI is someone else's project: no install line may ask for it."""
    foreign = re.compile(
        r"\btwsrt==|pip install(\s+-[-\w=.]+)*\s+[\"']?twsrt(\[[^\]]*\])?([\s\"'=<>]|$)"
    )
    bad = []
    for path in INSTALL_FILES:
        if path.is_file():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if foreign.search(line):
                    bad.append(f"{rel(path)}:{number}: {line.strip()}")
    assert bad == []
    readme = README.read_text(encoding="utf-8")
    assert "`twsrt-policy`" in readme and "unrelated" in readme


def test_no_reference_to_a_tag_that_does_not_exist() -> None:
    """No release is tagged yet: a `rev: vX` or `@vX` pin cannot resolve."""
    tag = re.compile(r"\brev:\s*v?\d+\.\d+|@v\d+\.\d+")
    bad = []
    for path in INSTALL_FILES:
        if path.is_file():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if tag.search(line):
                    bad.append(f"{rel(path)}:{number}: {line.strip()}")
    assert bad == []


# --------------------------------------------------------------------------- the README


def test_readme_explains_before_it_commands() -> None:
    """The first screen says what twsrt is and why; the first command follows the set-up
    heading, in a virtual environment."""
    text = README.read_text(encoding="utf-8")
    intro, _, rest = text.partition("\n## Set up\n")
    assert rest, "no '## Set up' section"
    assert "```" not in intro and "\n    " not in intro  # no command before the set-up
    for agent in ("Claude Code", "Codex CLI", "Copilot CLI", "DeepCode"):
        assert agent in intro
    assert "never grants an agent more than the policy" in intro
    first = fenced_blocks(rest, "sh")[0]
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install . ")


def test_readme_setup_command_leaves_the_shell_where_it_started(tmp_path: Path) -> None:
    """The set-up command runs twsrt in examples/dotfiles and comes back, so the next README
    command (`bash tests/run.sh`) runs from the checkout (it failed with 127 from the example).
    The install part is replaced by this environment's twsrt on PATH."""
    setup = fenced_blocks(section(README, "Set up"), "sh")[0].strip()
    install = "python3 -m venv .venv && . .venv/bin/activate && pip install . && "
    assert setup.startswith(install)
    env = isolated_env(tmp_path)
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    script = f"{setup.removeprefix(install)}\npwd\ntest -f tests/run.sh"
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == str(REPO_ROOT)


def test_readme_has_the_local_pre_commit_recipe() -> None:
    """The README shows the `repo: local` hook, as `twsrt init --repo` writes it."""
    from twsrt import templates

    blocks = [yaml.safe_load(b) for b in fenced_blocks(README.read_text("utf-8"), "yaml")]
    assert yaml.safe_load(templates.pre_commit_config()) in blocks


def test_readme_names_the_test_command_and_what_it_installs() -> None:
    text = README.read_text(encoding="utf-8")
    assert "\nTest command: `bash tests/run.sh`\n" in text
    setup = section(README, "Set up")
    assert "bash tests/run.sh" in fenced_blocks(setup, "sh")[1]
    for fact in ("`/opt/twsrt-tools/`", "needs root", "`TWSRT_REQUIRE_REAL_TOOLS=1`", "apt-get"):
        assert fact in setup


def test_readme_walkthrough_covers_the_dotfiles_path() -> None:
    walk = section(README, "Ten minutes: a dotfiles repository")
    commands = "\n".join(fenced_blocks(walk, "sh"))
    steps = [
        "twsrt init --repo .",
        "twsrt check",
        "twsrt generate -w",
        "stow --no-folding -d ~/dotfiles -t ~ home",
        "pre-commit install",
        'git commit -m "agent policy"',
    ]
    positions = [commands.find(step) for step in steps]
    assert -1 not in positions and positions == sorted(positions), positions
    assert "policy/srt-settings.json" in walk  # the policy edit
    assert re.search(r"^stow (?!--no-folding)", commands, re.M) is None  # never folded
    for fact in ("TWS240", "TWS241", "TWS242", "`.gitignore`", "`~/.srt-settings.json`"):
        assert fact in walk, fact


def test_init_doc_names_every_agents_credential_files() -> None:
    """docs/init.md says what the scaffold's .gitignore keeps out: each credential file of
    each registered agent, by name (the list itself derives from AgentSpec.state_files)."""
    from twsrt.agents import specs

    text = (REPO_ROOT / "docs" / "init.md").read_text(encoding="utf-8")
    for spec in specs():
        for state in spec.state_files:
            if state.credential:
                assert f"`{state.path.rsplit('/', 1)[1]}`" in text, state.path
    assert "stow --no-folding -d ~/dotfiles -t ~ home" in text


def test_readme_lists_every_command() -> None:
    from twsrt.cli import cli

    commands = fenced_blocks(section(README, "Commands"), "sh")[0]
    listed = set(re.findall(r"^twsrt ([a-z]+)", commands, re.M))
    assert listed == set(cli.commands)


@pytest.mark.parametrize("path", PAGES, ids=rel)
def test_no_undefined_references(path: Path) -> None:
    """Words only the project's own history defines mean nothing to a reader."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"\bthe seed\b|\bseed's\b|\bDESIGN\b|§|\bissue \d+|#\d{2,}\b", text, re.I)
    assert found == []


@pytest.mark.parametrize("path", PAGES, ids=rel)
def test_relative_links_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    prose = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        stale_anchor = bool(anchor) and linked.suffix == ".md" and anchor not in anchors(linked)
        if not linked.exists() or stale_anchor:
            broken.append(target)
    assert broken == []


def test_every_test_a_page_names_exists() -> None:
    """A page that names a test as `tests/module.py::test` (docs/security.md names one for
    each guarantee) names a test function that exists, so a claim cannot outlive its proof."""

    named = {
        (path, module, name)
        for path in PAGES
        for module, name in re.findall(
            r"`(tests/[\w/]+\.py)::(\w+)`", path.read_text(encoding="utf-8")
        )
    }
    assert any(path.name == "security.md" for path, _, _ in named)
    missing = []
    for path, module, name in sorted(named):
        source = REPO_ROOT / module
        functions = set()
        if source.is_file():
            tree = ast.parse(source.read_text(encoding="utf-8"))
            functions = {
                node.name
                for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        if name not in functions:
            missing.append(f"{rel(path)}: {module}::{name}")
    assert missing == []


def test_readme_links_every_page_of_docs() -> None:
    text = README.read_text(encoding="utf-8")
    linked = {(README.parent / t).resolve() for t in re.findall(r"\]\((docs/[^)#\s]+)", text)}
    assert set(DOCS) - linked == set()


# --------------------------------------------------------------------------- check synopsis


def synopsis(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    blocks = [b for b in fenced_blocks(text) if b.startswith("twsrt check [")]
    assert len(blocks) == 1, f"{rel(path)}: one `twsrt check [...]` synopsis expected"
    return blocks[0]


@pytest.mark.parametrize("path", [README, CHECK_DOC], ids=rel)
def test_check_synopsis_matches_the_command(path: Path) -> None:
    from twsrt.cli import cli

    command = cli.commands["check"]
    options = [p for p in command.params if isinstance(p, click.Option) and p.name != "help"]
    written = set(re.findall(r"(?<![\w-])--?[a-z][a-z-]*", synopsis(path)))
    known = {name for p in options for name in p.opts}
    assert written - known == set(), "the synopsis names options the command lacks"
    missing = [p.opts for p in options if not written & set(p.opts)]
    assert missing == [], "options of `twsrt check --help` missing from the synopsis"
    for p in options:  # choices are spelled as the command spells them
        if isinstance(p.type, click.Choice) and p.opts[0] != "--sandbox":
            shown = re.search(re.escape(p.opts[0]) + r" ([\w|-]+)", synopsis(path))
            assert shown and shown[1].split("|") == list(p.type.choices), p.opts


# --------------------------------------------------------------------------- pre-commit


def precommit_configs() -> list[dict]:
    text = PRECOMMIT_DOC.read_text(encoding="utf-8")
    return [yaml.safe_load(block) for block in fenced_blocks(text, "yaml")]


def local_recipe() -> dict:
    configs = [c for c in precommit_configs() if c["repos"][0]["repo"] == "local"]
    assert len(configs) == 1
    return configs[0]


def test_local_recipe_is_the_manifest_hook() -> None:
    """The `repo: local` hook runs what the published hook runs, on the same files."""
    (hook,) = local_recipe()["repos"][0]["hooks"]
    manifest = next(h for h in yaml.safe_load(MANIFEST.read_text("utf-8")) if h["id"] == hook["id"])
    assert hook["language"] == "system"
    for key in ("entry", "pass_filenames", "require_serial", "types_or", "files"):
        assert hook[key] == manifest[key], key


def test_local_recipe_is_what_init_writes() -> None:
    """docs/pre-commit.md says `twsrt init --repo` writes this recipe: it does, to the byte of
    every setting."""
    from twsrt import templates

    assert yaml.safe_load(templates.pre_commit_config()) == local_recipe()


def test_remote_recipe_pins_a_commit() -> None:
    (remote,) = [c["repos"][0] for c in precommit_configs() if c["repos"][0]["repo"] != "local"]
    assert remote["repo"] == "https://github.com/twsrt/twsrt"
    assert remote["rev"] == "<commit SHA>"
    text = PRECOMMIT_DOC.read_text(encoding="utf-8")
    assert "pre-commit autoupdate --freeze" in text and "pre-commit install" in text


@pytest.mark.tool
def test_local_recipe_blocks_a_stale_commit_then_lets_the_fix_through(tmp_path: Path) -> None:
    """Real pre-commit, offline, with the recipe exactly as documented and the twsrt of this
    environment on PATH: a policy edit without `generate -w` is stopped, the fix commits."""
    env = isolated_env(tmp_path)
    env["PATH"] = f"{Path(sys.executable).parent}:{env['PATH']}"
    repo = tmp_path / "dotfiles"
    shutil.copytree(EXAMPLE, repo, symlinks=True)
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(local_recipe(), sort_keys=False), encoding="utf-8"
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args,
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=120,
        )

    assert run("git", "init", "-q").returncode == 0
    installed = run(sys.executable, "-m", "pre_commit", "install")
    assert installed.returncode == 0, installed.stdout
    assert run("git", "add", "-A").returncode == 0
    first = run("git", "commit", "-q", "-m", "dotfiles")
    assert first.returncode == 0, first.stdout
    assert re.search(r"^twsrt check .*\.Passed$", first.stdout, re.M), first.stdout

    rules = repo / "policy" / "bash-rules.json"
    data = json.loads(rules.read_text(encoding="utf-8"))
    data["deny"].append("dd")
    rules.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    run("git", "add", "-A")
    stopped = run("git", "commit", "-q", "-m", "deny dd")
    assert stopped.returncode == 1, stopped.stdout
    assert re.search(r"^twsrt check .*\.Failed$", stopped.stdout, re.M), stopped.stdout
    assert "error[TWS302]" in stopped.stdout or "error[TWS303]" in stopped.stdout

    assert run("twsrt", "generate", "-w").returncode == 0
    run("git", "add", "-A")
    fixed = run("git", "commit", "-q", "-m", "deny dd")
    assert fixed.returncode == 0, fixed.stdout


def test_init_synopsis_lists_the_registered_agents() -> None:
    from twsrt.agents import REGISTRY

    text = (REPO_ROOT / "docs" / "init.md").read_text(encoding="utf-8")
    shown = re.search(r"--agents ([\w,]+) \|", text)
    assert shown is not None, "docs/init.md: no `--agents a,b,...` synopsis"
    assert shown[1].split(",") == list(REGISTRY), "docs/init.md: --agents lists other agents"
