"""The agent registry is the one list of agents: every other list derives from it."""

from __future__ import annotations

import ast
import json
import os
import sys
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from twsrt import agents
from twsrt.agents import AGENTS, REGISTRY

if TYPE_CHECKING:
    from support.sandbox import Sandbox

REPO_ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def module_files(module: str) -> list[Path]:
    """The source files of a module: its file, or every file of its package."""
    base = REPO_ROOT / module.replace(".", "/")
    return sorted(base.glob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def test_no_agent_module_imports_another() -> None:
    """Cross-agent helpers live in shared modules (``twsrt.domains``, ``twsrt.bashrules``,
    ``twsrt.agents.base``, ``twsrt.agents.targets``): an agent module (or package) never
    imports another agent's module or a part of it."""
    for name, module in REGISTRY.items():
        others = tuple(m for n, m in REGISTRY.items() if n != name)
        files = module_files(module)
        assert files and all(path.is_file() for path in files), module
        for path in files:
            imported = imported_modules(path)
            crossing = {m for m in imported if any(m == o or m.startswith(o + ".") for o in others)}
            assert crossing == set(), (name, path.name)


def test_registry_names_are_the_declared_names() -> None:
    for name in REGISTRY:
        spec = AGENTS[name].spec
        assert spec.name == AGENTS[name].name == name
        assert AGENTS[name].target_keys == spec.keys
    keys = [target.key for target in agents.target_specs()]
    assert len(keys) == len(set(keys)), "a [targets] key belongs to one agent"


def test_listing_the_agents_imports_no_agent_module() -> None:
    """The CLI reads the names for its choices: that must not load any translator."""
    import subprocess

    code = (
        "import sys\n"
        "from twsrt.cli import cli\n"
        "names = cli.commands['check'].params\n"
        "from twsrt.agents import AGENTS\n"
        "print(list(AGENTS))\n"
        "print(sorted(m for m in sys.modules if m.startswith('twsrt.agents.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    ).stdout.splitlines()
    assert out == [str(list(REGISTRY)), "[]"]


def test_derived_lists() -> None:
    """What used to be hand-kept lists, now derived from the declarations."""
    assert agents.primary_key("claude") == "claude_settings"
    assert agents.primary_key("copilot") == "copilot_output"
    assert agents.yolo_keys() == {
        "claude_settings": "claude_settings_yolo",
        "copilot_output": "copilot_output_yolo",
        "deepcode_settings": "deepcode_settings_yolo",
    }
    assert agents.home_dependent_keys() == (
        "copilot_settings",
        "deepcode_settings",
        "deepcode_settings_yolo",
        "deepcode_project",
        "gemini_policy",
        "kilo_config",
    )
    assert agents.agent_of("codex_rules") == "codex"
    assert agents.agent_of("nothing") is None
    labels = [
        "Claude",
        "Codex",
        "Copilot",
        "DeepCode",
        "Gemini",
        "Qwen Code",
        "OpenCode",
        "Kilo Code CLI",
        "pi",
        "Factory Droid",
    ]
    assert [agents.label(name) for name in AGENTS] == labels


@pytest.mark.parametrize("name", list(REGISTRY))
def test_declared_defaults_are_where_init_puts_them(name: str) -> None:
    from twsrt import templates

    module = import_module(REGISTRY[name])
    scaffolded = dict(templates.repo_targets()[name])
    for target in module.AGENT.spec.targets:
        if target.scope != "user":  # relative to the project root or the managed tree
            assert not target.scaffold
            assert not target.default.startswith(("~", "/"))
            continue
        assert target.default.startswith("~/")
        if target.scaffold:
            assert scaffolded[target.key] == "home/" + target.default[2:]


def test_registry_schema_hook_and_cli_agree() -> None:
    """The shipped config schema lists exactly the declared keys, the published hook's pattern
    matches every declared target file (where the agent reads it and where ``init --repo``
    puts it), and the CLI offers exactly the registered agents."""
    import re

    import yaml

    from twsrt.cli import cli

    schema = json.loads((REPO_ROOT / "schemas/config.schema.json").read_text("utf-8"))
    declared = [target.key for target in agents.target_specs()]
    assert list(schema["properties"]["targets"]["properties"]) == declared
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    for hook in hooks:
        for target in agents.target_specs():
            if target.scope == "user":
                paths = (target.default[2:], "dots/home/" + target.default[2:])
            else:  # relative to the project root or the managed tree, at the top or below
                paths = (target.default, "sub/dir/" + target.default)
            for path in paths:
                assert re.search(hook["files"], path), (hook["id"], path)
        assert not re.search(hook["files"], "home/.claude/notes.txt")
    for command in ("generate", "diff", "check"):
        (agent,) = [p for p in cli.commands[command].params if p.name == "agent"]
        assert agent.type.choices == tuple(REGISTRY)


def test_generated_files_are_fresh() -> None:
    """schemas/config.schema.json, .pre-commit-hooks.yaml and docs/pre-commit.md hold what
    ``python -m twsrt.registry --write`` gives them."""
    from twsrt.registry import stale

    assert stale(REPO_ROOT) == []


def test_staleness_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of the generated files with one target left out, and the agent list shortened,
    is reported stale file by file, and ``--write`` puts the registry's text back."""
    from twsrt import registry

    for name in (registry.CONFIG_SCHEMA, *registry.HOOK_FILES):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        text = (REPO_ROOT / name).read_text("utf-8")
        edited = text.replace("      | \\.codex/config\\.toml\n", "", 1)
        edited = edited.replace("            | \\.codex/config\\.toml\n", "", 1)
        edited = edited.replace('"codex_rules": {', '"codex_rulez": {', 1)
        edited = edited.replace("deepcode, srt).", "srt).", 1)
        assert edited != text, name
        (tmp_path / name).write_text(edited, "utf-8")
    assert registry.stale(tmp_path) == [registry.CONFIG_SCHEMA, *registry.HOOK_FILES]
    monkeypatch.setattr(registry, "__file__", str(tmp_path / "twsrt" / "registry.py"))
    assert registry.main([]) == 1
    assert registry.main(["--write"]) == 0
    assert registry.stale(tmp_path) == []
    for name in (registry.CONFIG_SCHEMA, *registry.HOOK_FILES):
        assert (tmp_path / name).read_text("utf-8") == (REPO_ROOT / name).read_text("utf-8")


# --------------------------------------------------------------------------- a new agent


FAKE_KEY = "fake_output"
FAKE_DEFAULT = "~/.fake/fake-policy.txt"


def fake_agent_module() -> ModuleType:
    """The smallest agent there is: one target, a text file with one line per denied path and
    command, drift as missing and extra lines. Built only from what an agent module may use."""
    from twsrt.agents.base import (
        AgentSpec,
        Context,
        Drift,
        DriftItem,
        Result,
        TargetSpec,
        read_target,
    )
    from twsrt.writes import FileWrite

    spec = AgentSpec(
        "fake",
        "Fake",
        (
            TargetSpec(
                FAKE_KEY,
                "flags-text",
                "The fake agent's policy file.",
                FAKE_DEFAULT,
                r"\.fake/fake-policy\.txt",
            ),
        ),
    )

    class FakeAgent:
        name = spec.name
        target_keys = spec.keys

        def __init__(self) -> None:
            self.spec = spec

        def compile(self, ctx: Context) -> Result:
            lines = [f"deny-read {rule.path}" for rule in ctx.policy.deny_read]
            lines += [f"deny {entry.value}" for entry in ctx.policy.bash_deny]
            text = "".join(f"{line}\n" for line in lines)
            path = ctx.config.targets.get(FAKE_KEY)
            if path is None:
                return Result(self.name, text, target_configured=False)
            display = ctx.config.display_path(path)
            disk = read_target(path, display, ctx.config, ctx.documents)
            drift = Drift(display, target_key=FAKE_KEY, old_text=disk, new_text=text)
            if disk is None:
                drift.missing_file = True
            else:
                drift.missing = [DriftItem("line", v) for v in lines if v not in disk.splitlines()]
                drift.extra = [DriftItem("line", v) for v in disk.splitlines() if v not in lines]
            change = FileWrite(path, display, text, disk, new_mode=0o600)
            return Result(self.name, text, changes=[change], drift=[drift])

    module = ModuleType("twsrt_test_fake_agent")
    module.AGENT = FakeAgent()  # type: ignore[attr-defined]
    return module


@pytest.fixture
def fake_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the fake agent: one entry in the registry, nothing else."""
    module = fake_agent_module()
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(REGISTRY, "fake", module.__name__)


@pytest.fixture
def fake_repo(sandbox: Sandbox) -> Sandbox:
    """A repository whose config names only the fake agent's target."""
    sandbox.write("srt.json", {"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."]}})
    sandbox.write("bash.json", {"deny": ["sudo"]})
    sandbox.write(
        "twsrt.toml",
        'checkout = "~/dotfiles"\n[sources]\nsrt = "srt.json"\nbash_rules = "bash.json"\n'
        f'[targets]\n{FAKE_KEY} = "out/fake-policy.txt"\n',
    )
    return sandbox


def test_an_unregistered_agent_key_is_refused(fake_repo: Sandbox) -> None:
    """Without the registry entry the fake agent's key is unknown: what accepts it below is
    the registry and nothing else."""
    result = fake_repo.run("check")
    assert result.returncode == 2, result.stderr
    assert f"unknown key '{FAKE_KEY}'" in result.stdout
    assert fake_repo.run("diff", "fake").returncode == 2  # not a choice


def test_a_registered_agent_flows_through_generate_diff_and_check(
    fake_agent: None, fake_repo: Sandbox
) -> None:
    twsrt = fake_repo.run
    target = fake_repo.repo / "out" / "fake-policy.txt"
    assert twsrt("diff").returncode == 2  # the target is missing

    result = twsrt("generate", "-w", "fake")
    assert result.returncode == 0, result.stdout
    assert target.read_text() == "deny-read ~/.ssh\ndeny sudo\n"
    assert target.stat().st_mode & 0o777 == 0o600

    result = twsrt("diff")
    assert (result.returncode, result.stdout) == (0, "fake: out/fake-policy.txt: no drift\n")
    result = twsrt("check", "--agent", "fake", "--format", "json")
    assert result.returncode == 0, result.stdout
    report = json.loads(result.stdout)
    assert {"path": "out/fake-policy.txt", "kind": "target", "agent": "fake"} in [
        {k: f[k] for k in ("path", "kind", "agent")} for f in report["checked"]
    ]

    target.write_text("deny-read ~/.ssh\ndeny curl\n")
    result = twsrt("diff", "fake")
    assert result.returncode == 1
    assert "+ line: deny sudo" in result.stdout and "- line: deny curl" in result.stdout
    result = twsrt("check", "--format", "json")
    assert result.returncode == 1
    drift = [f for f in json.loads(result.stdout)["findings"] if f["agent"] == "fake"]
    assert drift and {f["location"]["path"] for f in drift} == {"out/fake-policy.txt"}

    assert twsrt("generate", "-w").returncode == 0
    assert twsrt("check").returncode == 0
    assert target.read_text() == "deny-read ~/.ssh\ndeny sudo\n"


def test_a_registered_agent_reaches_the_generated_lists(fake_agent: None) -> None:
    """The schema, the hook pattern and ``init --repo``'s layout take the new agent."""
    import re

    from twsrt import templates
    from twsrt.commands.init import default_repo_agents
    from twsrt.registry import hook_files_regex
    from twsrt.schemas import load_schema

    assert FAKE_KEY in load_schema("config")["properties"]["targets"]["properties"]
    assert re.search(hook_files_regex(), "home/.fake/fake-policy.txt")
    assert templates.repo_targets()["fake"] == [(FAKE_KEY, "home/.fake/fake-policy.txt")]
    assert "fake" not in default_repo_agents()  # a default only when its declaration says so
    assert "fake" in [agents.agent_of(FAKE_KEY), *agents.AGENTS]


def test_every_scoped_compile_resolves() -> None:
    """``DeclaredAgent.scoped`` names each scope's compile as ``module:function`` (imported on
    first use): each name must resolve to a callable, or that scope's runs would fail."""
    from importlib import import_module

    for name in REGISTRY:
        agent = AGENTS[name]
        for scope, where in getattr(agent, "scoped", {}).items():
            module, function = where.split(":")
            assert callable(getattr(import_module(module), function)), (name, scope, where)


def test_a_user_scope_check_imports_only_the_configured_agents(tmp_path: Path) -> None:
    """A pre-commit hook's run (``check`` of the example, which configures four agents) loads
    neither the other agents' translators nor any project or managed compile: only their
    declarations (the protected set needs every agent's layers)."""
    import shutil
    import subprocess

    example = tmp_path / "dotfiles"
    shutil.copytree(REPO_ROOT / "examples" / "dotfiles", example, symlinks=True)
    code = (
        "import sys\n"
        "from twsrt.cli import main\n"
        "sys.argv = ['twsrt', 'check']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    print(exc.code)\n"
        "print(sorted(m for m in sys.modules if m.startswith('twsrt.agents.')))\n"
    )
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(REPO_ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=example, env=env
    )
    code_line, modules_line = run.stdout.splitlines()[-2:]
    assert code_line == "0", run.stdout + run.stderr
    loaded = set(ast.literal_eval(modules_line))
    configured = ("claude", "codex", "copilot", "deepcode")
    for name in REGISTRY:
        mine = {m for m in loaded if m.startswith(f"twsrt.agents.{name}.")}
        if name in configured:
            assert f"twsrt.agents.{name}.agent" in mine
        else:
            assert mine <= {f"twsrt.agents.{name}.declaration", f"twsrt.agents.{name}.rules"}
        assert not {m for m in mine if m.endswith((".project", ".managed"))}, mine
