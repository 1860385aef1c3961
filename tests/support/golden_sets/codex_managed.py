"""Codex's managed scope: requirements.toml, managed_config.toml and the findings. A case holds
the sources (srt.json, bash.json) and, per sandbox mode (the default's plain name, the others
prefixed as everywhere), the two generated files and the findings of the run (findings.txt); a
managed file applies in every approval mode (``--yolo`` is refused in a managed run). Both
files are generated whole; their bytes are the contract."""

from __future__ import annotations

import tomllib
from pathlib import Path

from support.golden import GoldenCase, assert_golden, golden_name
from support.sandbox import Sandbox
from twsrt.agents.codex.agent import AGENT
from twsrt.config import SANDBOX_MODES, Config
from twsrt.protection import protected_context
from twsrt.sources import load_policy

MODES = SANDBOX_MODES
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


def check(case: GoldenCase, sandbox_mode: str, _sandbox: Sandbox, tmp_path: Path) -> None:
    texts, findings = compiled(case.path, tmp_path, sandbox_mode)
    assert sorted(texts) == sorted(f"{TREE}/{path}" for path in KEYS.values())
    for file in ("requirements.toml", "managed_config.toml"):
        linux, macos = (
            texts[f"{TREE}/linux/etc/codex/{file}"],
            texts[f"{TREE}/macos/etc/codex/{file}"],
        )
        assert linux == macos  # one file for both systems
        tomllib.loads(linux)  # valid TOML
        assert_golden(case.path / golden_name(sandbox_mode, file), linux)
    assert_golden(case.path / golden_name(sandbox_mode, "findings.txt"), findings)
