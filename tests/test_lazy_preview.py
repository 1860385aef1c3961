"""Previews (what ``generate`` prints without -w) are rendered only when printed: ``check``,
``diff`` and ``generate -w`` never build them (at 13k rules they cost a tenth of a check)."""

from __future__ import annotations

import pytest
from support.sandbox import Sandbox

from twsrt.agents.base import Result


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The agents whose preview was rendered in this test."""
    seen: list[str] = []
    original = Result.preview.func  # type: ignore[attr-defined]

    def counting(self: Result) -> str:
        seen.append(self.agent)
        return original(self)

    monkeypatch.setattr(Result, "preview", property(counting))
    return seen


@pytest.mark.parametrize("args", [("check",), ("diff",), ("generate", "-n", "-w")])
def test_commands_that_print_no_preview_render_none(
    sandbox: Sandbox, rendered: list[str], args: tuple[str, ...]
) -> None:
    run = sandbox.use_example().run(*args)
    assert run.returncode == 0, run.stdout + run.stderr
    assert rendered == []


def test_generate_renders_each_agents_preview(sandbox: Sandbox, rendered: list[str]) -> None:
    run = sandbox.use_example().run("generate")
    assert run.returncode == 0, run.stderr
    assert sorted(set(rendered)) == ["claude", "codex", "copilot", "deepcode"]
    assert "# config.toml (managed keys only)" in run.stdout
