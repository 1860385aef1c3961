"""OpenCode's and Kilo's managed scope (agents/opencode/managed.py, agents/kilo/managed.py):
one file per OS in the managed output tree, the same bytes, the permission rules (Kilo: no
sandbox, TWS674) and what still beats the file (TWS673). The bytes are pinned by
tests/golden/opencode-managed and kilo-managed; the project scope's by the project goldens of
tests/test_project_scope.py."""

from __future__ import annotations

import pytest
from support.golden import GoldenCase
from support.sandbox import Sandbox

from twsrt.agents.kilo.declaration import TREE_PATHS as KILO_TREE
from twsrt.agents.opencode.declaration import TREE_PATHS as OPENCODE_TREE
from twsrt.jsonpos import parse_jsonc

TREES = {"opencode": OPENCODE_TREE, "kilo": KILO_TREE}
# the golden case sets (tests/golden/<name>/)
GOLDEN = {"opencode": "opencode-managed", "kilo": "kilo-managed"}


def _config(agent: str) -> str:
    return (
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[managed]\nroot = "managed"\nagents = ["{agent}"]\n'
    )


@pytest.mark.parametrize("agent", list(TREES))
def test_the_managed_tree_is_golden_and_the_same_for_every_os(sandbox: Sandbox, agent: str) -> None:
    case = GoldenCase(GOLDEN[agent], "example")
    linux = "managed/" + TREES[agent]["linux"]
    target = case.install(sandbox, _config(agent), linux)
    run = sandbox.run("generate", "-w", "-v")
    assert run.returncode == 0, run.stderr
    text = target.read_text(encoding="utf-8")
    case.expect(sandbox, None, "expected.json", text)
    case.expect(sandbox, None, "stderr.txt", run.stderr)
    for tree_path in TREES[agent].values():
        assert (sandbox.repo / "managed" / tree_path).read_text(encoding="utf-8") == text
        assert oct((sandbox.repo / "managed" / tree_path).stat().st_mode & 0o777) == "0o644"
    value = parse_jsonc(text).value
    assert value["permission"]["bash"]["*"] == "ask"
    assert "sandbox" not in value
    assert "warning[TWS673]" in run.stderr
    assert ("warning[TWS674]" in run.stderr) == (agent == "kilo")
    assert sandbox.run("diff").returncode == 0
    again = sandbox.run("generate", "-w")
    assert again.returncode == 0, again.stderr
    assert "twsrt: wrote" not in again.stderr


@pytest.mark.parametrize("agent", list(TREES))
def test_the_merge_keeps_the_administrators_keys(sandbox: Sandbox, agent: str) -> None:
    case = GoldenCase(GOLDEN[agent], "example")
    linux = "managed/" + TREES[agent]["linux"]
    target = case.install(sandbox, _config(agent), linux)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        '{\n  // the organisation\'s model\n  "model": "org/model",\n'
        '  "permission": {"lsp": "deny"}\n}\n',
        encoding="utf-8",
    )
    run = sandbox.run("generate", "-w")
    assert run.returncode == 0, run.stderr
    text = target.read_text(encoding="utf-8")
    assert "// the organisation's model" in text
    value = parse_jsonc(text).value
    assert value["model"] == "org/model"
    assert value["permission"]["lsp"] == "deny"
    assert value["permission"]["bash"]["*"] == "ask"


PROJECT_LAYER = (
    '{\n  "permission": {\n    "bash": {"touch *": "allow", "rm *": "deny"},\n'
    '    "read": "ask"\n  }\n}\n'
)


@pytest.mark.parametrize(
    ("agent", "layer", "reported"),
    [
        ("kilo", ".kilo/kilo.jsonc", True),
        ("kilo", "opencode.json", True),
        ("opencode", ".opencode/opencode.jsonc", True),
        ("opencode", "kilo.jsonc", False),  # OpenCode does not load Kilo's names
    ],
)
def test_project_check_reports_a_project_layer_that_grants(
    sandbox: Sandbox, agent: str, layer: str, reported: bool
) -> None:
    """TWS647 at each allow or ask entry of a project file beside twsrt's that the agent loads;
    a deny entry and twsrt's own project file are quiet."""
    sandbox.write(".srt-settings.json", {"filesystem": {"allowWrite": ["."]}})
    sandbox.write("bash-rules.json", {"deny": ["touch"]})
    config = _config(agent).replace('[managed]\nroot = "managed"\n', "[project]\n")
    sandbox.write("twsrt.toml", ('home = "/home/user"\n' if agent == "kilo" else "") + config)
    assert sandbox.run("generate", "-w").returncode == 0
    sandbox.write(layer, PROJECT_LAYER)
    run = sandbox.run("check")
    found = [line for line in run.stdout.splitlines() if "TWS647" in line]
    if not reported:
        assert found == []
        return
    assert run.returncode == 1
    assert [line.split(" ")[0] for line in found] == [f"{layer}:3:14:", f"{layer}:4:5:"]
    assert "'bash touch *': allow" in found[0]


@pytest.mark.parametrize(("agent", "name"), [("opencode", "opencode.json"), ("kilo", "kilo.jsonc")])
def test_project_check_reports_a_late_key_in_twsrts_own_project_file(
    sandbox: Sandbox, agent: str, name: str
) -> None:
    """TWS640 in the project file twsrt writes: a key after twsrt's that matches its tools."""
    sandbox.write(".srt-settings.json", {"filesystem": {"allowWrite": ["."]}})
    sandbox.write("bash-rules.json", {"deny": ["touch"]})
    config = _config(agent).replace('[managed]\nroot = "managed"\n', "[project]\n")
    sandbox.write("twsrt.toml", ('home = "/home/user"\n' if agent == "kilo" else "") + config)
    assert sandbox.run("generate", "-w").returncode == 0
    target = sandbox.repo / name
    text = target.read_text(encoding="utf-8")
    assert text.count('"websearch": "deny"') == 1
    late = text.replace('"websearch": "deny"', '"websearch": "deny",\n    "*": "allow"')
    target.write_text(late, encoding="utf-8")
    run = sandbox.run("check")
    found = [line.strip() for line in run.stdout.splitlines() if "TWS640" in line]
    assert len(found) == 1 and found[0].startswith(f"{name}:"), run.stdout
    assert run.returncode == 1
