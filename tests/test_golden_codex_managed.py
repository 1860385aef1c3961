"""Golden files for Codex's managed scope: requirements.toml, managed_config.toml, findings.

A case (``tests/golden/codex-managed/<case>/``) holds the sources (srt.json, bash.json) and,
per sandbox mode (the default's plain name, the others prefixed as everywhere), the two
generated files and the findings of the run (findings.txt); a managed file applies in every
approval mode (``--yolo`` is refused in a managed run). Both files are generated whole; their
bytes are the contract.
"""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest
from support.golden import GOLDEN_ROOT, assert_golden, golden_name, pinned_config
from support.sandbox import Sandbox

from twsrt.agents.codex.agent import AGENT
from twsrt.config import SANDBOX_MODES, Config
from twsrt.protection import protected_context
from twsrt.sources import load_policy

AGENT_DIR = GOLDEN_ROOT / "codex-managed"
CASES = sorted(p.name for p in AGENT_DIR.iterdir() if p.is_dir())
TREE = "managed"
KEYS = {
    "codex_requirements_linux": "linux/etc/codex/requirements.toml",
    "codex_requirements_macos": "macos/etc/codex/requirements.toml",
    "codex_managed_config_linux": "linux/etc/codex/managed_config.toml",
    "codex_managed_config_macos": "macos/etc/codex/managed_config.toml",
}


def compiled(case: Path, tmp_path: Path, sandbox_mode: str) -> tuple[dict, str]:
    """The managed-scope compile of a case: the file texts by tree path, and the findings."""
    config = Config(
        path=case / "twsrt.toml",
        display="twsrt.toml",
        home=Path("/home/user"),
        srt=case / "srt.json",
        bash_rules=case / "bash.json",
        targets={key: tmp_path / TREE / path for key, path in KEYS.items()},
        pinned_home="/home/user",
        checkout="~/dotfiles",  # as pinned_config() says, so both tests read one golden tree
        display_root=tmp_path,
        scope="managed",
        scope_root=tmp_path / TREE,
    )
    result = AGENT.compile(
        protected_context(config, load_policy(config), sandbox_mode=sandbox_mode)
    )
    texts = {change.display: change.text for change in result.changes}
    findings = "".join(f.render().replace(str(case) + "/", "") + "\n" for f in result.findings)
    return texts, findings


@pytest.mark.parametrize("sandbox_mode", SANDBOX_MODES)
@pytest.mark.parametrize("name", CASES)
def test_codex_managed_golden(tmp_path: Path, name: str, sandbox_mode: str) -> None:
    case = AGENT_DIR / name
    texts, findings = compiled(case, tmp_path, sandbox_mode)
    assert sorted(texts) == sorted(f"{TREE}/{path}" for path in KEYS.values())
    for file in ("requirements.toml", "managed_config.toml"):
        linux, macos = (
            texts[f"{TREE}/linux/etc/codex/{file}"],
            texts[f"{TREE}/macos/etc/codex/{file}"],
        )
        assert linux == macos  # one file for both systems
        tomllib.loads(linux)  # valid TOML
        assert_golden(case / golden_name(sandbox_mode, file), linux)
    assert_golden(case / golden_name(sandbox_mode, "findings.txt"), findings)


def test_generate_managed_writes_the_golden_tree(sandbox: Sandbox) -> None:
    """The command line: ``generate --managed DIR -w`` writes the four files of the tree with the
    golden bytes, ``diff`` then finds no drift, a changed file is drift, ``--yolo`` is refused."""
    case = AGENT_DIR / "seed-example"
    sandbox.write(".srt-settings.json", (case / "srt.json").read_text())
    sandbox.write("bash-rules.json", (case / "bash.json").read_text())
    sandbox.write("twsrt.toml", pinned_config())
    result = sandbox.run("generate", "codex", "--managed", "out", "-w")
    assert result.returncode == 0, result.stderr
    for key, path in KEYS.items():
        file = path.rsplit("/", 1)[1]
        written = (sandbox.repo / "out" / path).read_text(encoding="utf-8")
        # every user's Codex reads it: a new file is world-readable, not private
        assert stat.S_IMODE((sandbox.repo / "out" / path).stat().st_mode) == 0o644, key
        assert written == (case / file).read_text(encoding="utf-8"), key
    assert sandbox.run("diff", "codex", "--managed", "out").returncode == 0
    changed = sandbox.repo / "out" / KEYS["codex_requirements_macos"]
    changed.write_text(changed.read_text().replace('"never"', '"untrusted"'))
    drift = sandbox.run("diff", "codex", "--managed", "out")
    assert drift.returncode == 1
    assert "out/macos/etc/codex/requirements.toml" in drift.stdout + drift.stderr
    assert sandbox.run("generate", "codex", "--managed", "out", "--yolo").returncode == 2
