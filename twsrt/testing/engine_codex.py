"""The Codex engine: ``codex sandbox`` with the generated config.toml as it is on disk."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from twsrt.testing.engines import EngineUnavailable, Run, base_env, executable, locate, run_process

if TYPE_CHECKING:
    from twsrt.agents.base import Context

CODEX_ENV = "TWSRT_CODEX_BIN"
CODEX_DEFAULT = "/opt/twsrt-tools/codex/bin/codex"
CODEX_HINT = (
    "install the Codex CLI (npm install -g @openai/codex@0.171.0) and bubblewrap "
    f"(apt-get install -y bubblewrap), or point ${CODEX_ENV} at codex"
)
CONFIG_KEY, RULES_KEY = "codex_config", "codex_rules"


class CodexEngine:
    name = "codex"
    agent = "codex"
    hint = CODEX_HINT

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or locate("codex", CODEX_ENV, CODEX_DEFAULT)

    def reads(self, ctx: Context) -> list[Path]:
        targets = ctx.config.targets
        if CONFIG_KEY not in targets:
            return []
        return [targets[key] for key in (CONFIG_KEY, RULES_KEY) if key in targets]

    def check_available(self, ctx: Context) -> None:
        if not executable(self.binary):
            problem = f"missing codex ({self.binary or 'not on PATH'})"
            raise EngineUnavailable(self.name, problem, CODEX_HINT)

    def prepare(self, ctx: Context, root: Path, upstream: str) -> Path:
        from twsrt.agents.base import read_target
        from twsrt.config import display_path
        from twsrt.findings import fail
        from twsrt.locations import Location
        from twsrt.testing.inputs import codex_config

        self.root = root
        # Codex will not put its helpers in a TMPDIR that contains CODEX_HOME: keep them apart
        self.home = root / "codex" / "home"
        self.tmpdir = root / "codex" / "tmp"
        (self.home / "rules").mkdir(parents=True)
        self.tmpdir.mkdir(parents=True)
        source = ctx.config.targets[CONFIG_KEY]
        display = display_path(source)
        text = read_target(source, display) or ""  # missing: Codex runs on its defaults
        try:
            mapped = codex_config(text, str(root))
        except ValueError as exc:
            raise fail("target-unusable", f"not valid TOML: {exc}", Location(display)) from None
        config = self.home / "config.toml"
        config.write_text(mapped, encoding="utf-8")
        rules = ctx.config.targets.get(RULES_KEY)
        rules_text = read_target(rules, display_path(rules)) if rules else None
        if rules_text is not None:
            (self.home / "rules" / "twsrt.rules").write_text(rules_text, encoding="utf-8")
        return config

    def run(self, shell: str, timeout: float) -> Run:
        env = base_env(self.root)
        env.update(CODEX_HOME=str(self.home), TMPDIR=str(self.tmpdir))
        argv = [str(self.binary), "sandbox", "--", "sh", "-c", shell]
        return run_process(argv, env, self.root / "work", timeout)


ENGINE = CodexEngine
