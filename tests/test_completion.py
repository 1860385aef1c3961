"""Shell completion and suggestions: click's completion protocol (what the script of
`twsrt completion bash` calls with _TWSRT_COMPLETE=bash_complete), run in-process, completes rule
ids and names for `explain`, the sources `edit` takes, the config's profile names and the agent
names; a wrong agent name gets "did you mean"."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from support.sandbox import Sandbox

from twsrt.cli import cli


def complete(sandbox: Sandbox, line: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What bash completion offers for ``line`` (the word under the cursor is its last, empty
    when the line ends in a space), from the sandbox's repository."""
    monkeypatch.chdir(sandbox.repo)
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    env = {
        **sandbox.env(),
        "_TWSRT_COMPLETE": "bash_complete",
        "COMP_WORDS": line,
        "COMP_CWORD": str(cword),
    }
    result = CliRunner().invoke(cli, [], prog_name="twsrt", env=env)
    assert result.exit_code == 0, result.output
    return [item.split(",", 1)[1] for item in result.output.splitlines() if item]


def test_the_completion_script_names_the_protocol(sandbox: Sandbox) -> None:
    result = sandbox.run("completion", "bash")
    assert result.returncode == 0 and "_TWSRT_COMPLETE=bash_complete" in result.stdout


def test_explain_completes_rule_ids_and_names(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Today: nothing (RULE is plain text)."""
    assert complete(sandbox, "twsrt explain TWS10", monkeypatch)[:3] == [
        "TWS101",
        "TWS102",
        "TWS103",
    ]
    assert "TWS101" in complete(sandbox, "twsrt explain tws1", monkeypatch)
    assert complete(sandbox, "twsrt explain schema-", monkeypatch) == [
        "schema-unknown-key",
        "schema-violation",
    ]


def test_edit_completes_the_config_sources(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert complete(sandbox, "twsrt edit ", monkeypatch) == ["srt", "bash"]
    sandbox.use_example("profiles")
    names = complete(sandbox, "twsrt edit ", monkeypatch)
    assert names == ["base.srt", "base.bash", "python.bash", "corp-network.srt", "srt", "bash"]
    assert complete(sandbox, "twsrt edit ba", monkeypatch) == ["base.srt", "base.bash", "bash"]


def test_edit_completes_nothing_without_a_usable_config(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    (sandbox.repo / "twsrt.toml").write_text("[sources\n", "utf-8")
    assert complete(sandbox, "twsrt edit ", monkeypatch) == []
    assert complete(sandbox, "twsrt check --profile ", monkeypatch) == []


def test_profile_completes_the_config_profiles(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    sandbox.use_example("profiles")
    assert complete(sandbox, "twsrt check --profile ", monkeypatch) == ["home", "work"]
    assert complete(sandbox, "twsrt --profile w", monkeypatch) == ["work"]
    assert complete(sandbox, "twsrt generate --profile h", monkeypatch) == ["home"]
    assert complete(sandbox, "twsrt test --profile ", monkeypatch) == ["home", "work"]


def test_agents_complete(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    assert complete(sandbox, "twsrt generate c", monkeypatch) == ["claude", "codex", "copilot"]
    assert complete(sandbox, "twsrt check --agent d", monkeypatch) == ["deepcode", "droid"]
    assert complete(sandbox, "twsrt test --engine s", monkeypatch) == ["srt"]
    assert complete(sandbox, "twsrt init --agents claude,c", monkeypatch) == [
        "claude,codex",
        "claude,copilot",
    ]
    assert complete(sandbox, "twsrt init --agents a", monkeypatch) == ["all"]


@pytest.mark.parametrize(
    "args",
    [
        ("generate", "codx"),
        ("diff", "codx"),
        ("check", "--agent", "codx"),
        ("init", "--repo", "dots", "--agents", "claude,codx"),
    ],
)
def test_a_wrong_agent_name_gets_did_you_mean(sandbox: Sandbox, args: tuple[str, ...]) -> None:
    result = sandbox.run(*args)
    assert result.returncode == 2
    assert "did you mean 'codex'?" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_name_close_to_none_gets_no_suggestion(sandbox: Sandbox) -> None:
    result = sandbox.run("generate", "zzzzzz")
    assert result.returncode == 2
    assert "is not one of" in result.stderr and "did you mean" not in result.stderr
