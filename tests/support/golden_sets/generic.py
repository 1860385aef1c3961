"""An agent's user files, from its declaration alone (a set with no module of its own): the
config pins home = "/home/user" and names each user-scope target at its default place under
``home/`` (a case's twsrt.toml or config-extra.toml as everywhere). A case holds, per sandbox
mode, each file ``generate AGENT -w -v`` writes (``expected.<file name>``) and what it prints
(stderr.txt); ``diff`` then finds no drift."""

from __future__ import annotations

from pathlib import Path

from support.golden import GoldenCase, pinned_config
from support.sandbox import Sandbox
from twsrt.agents import spec_of
from twsrt.config import SANDBOX_MODES

MODES = SANDBOX_MODES


def targets(agent: str) -> dict[str, str]:
    """Each user-scope target key of ``agent`` at its default place under ``home/``."""
    spec = spec_of(agent)
    user = [target for target in spec.targets if target.scope == "user"]
    return {target.key: "home/" + target.default.removeprefix("~/") for target in user}


def check(case: GoldenCase, sandbox_mode: str, sandbox: Sandbox, _tmp_path: Path) -> None:
    files = targets(case.agent)
    case.install(sandbox, pinned_config(**files), next(iter(files.values())))
    run = sandbox.run("generate", case.agent, "-w", "-v", "--sandbox", sandbox_mode)
    assert run.returncode == 0, run.stderr
    written = [path for path in files.values() if (sandbox.repo / path).exists()]
    assert written, f"generate {case.agent} wrote none of {sorted(files.values())}"
    for path in written:
        text = (sandbox.repo / path).read_text(encoding="utf-8")
        case.expect(sandbox, sandbox_mode, f"expected.{Path(path).name}", text)
    case.expect(sandbox, sandbox_mode, "stderr.txt", run.stderr)
    assert sandbox.run("diff", case.agent, "--sandbox", sandbox_mode).returncode == 0
