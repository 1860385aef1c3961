"""The agent registry is the one list of agents: every other list derives from it."""

from __future__ import annotations

import ast
import sys
from importlib import import_module
from pathlib import Path

import pytest

from twsrt import agents
from twsrt.agents import AGENTS, REGISTRY

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


def test_no_agent_module_imports_another() -> None:
    """Cross-agent helpers live in shared modules (``twsrt.domains``, ``twsrt.bashrules``,
    ``twsrt.agents.base``): an agent module never imports another agent's module."""
    for name, module in REGISTRY.items():
        path = REPO_ROOT / (module.replace(".", "/") + ".py")
        others = {m for n, m in REGISTRY.items() if n != name}
        assert imported_modules(path) & others == set(), name


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
    )
    assert agents.agent_of("codex_rules") == "codex"
    assert agents.agent_of("nothing") is None
    assert [agents.label(name) for name in AGENTS] == ["Claude", "Codex", "Copilot", "DeepCode"]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_declared_defaults_are_where_init_puts_them(name: str) -> None:
    from twsrt import templates

    module = import_module(REGISTRY[name])
    scaffolded = dict(templates.repo_targets()[name])
    for target in module.AGENT.spec.targets:
        assert target.default.startswith("~/")
        if target.scaffold:
            assert scaffolded[target.key] == "home/" + target.default[2:]
