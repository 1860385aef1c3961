"""TWS625 in the user scope: a trusted project in the user's Codex config.toml that a write root
of the policy reaches (agents/codex/effective_trust.py). The real runs behind it are in
tests/real/test_codex_planted_layer.py."""

from __future__ import annotations

import json

import pytest
from support.policies import CODEX_NESTED_ACCEPTED
from support.sandbox import Sandbox

CONFIG = "home/.codex/config.toml"


def _box(sandbox: Sandbox, allow_write: list[str], trust: dict[str, str]) -> Sandbox:
    sandbox.write(
        ".srt-settings.json",
        json.dumps({"filesystem": {"allowWrite": allow_write}}, indent=2) + "\n",
    )
    sandbox.write("bash-rules.json", "{}")
    sandbox.write(
        "twsrt.toml",
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        f'[targets]\ncodex_config = "{CONFIG}"\n' + CODEX_NESTED_ACCEPTED,
    )
    entries = "".join(
        f'\n[projects."{d}"]\ntrust_level = "{level}"\n' for d, level in trust.items()
    )
    sandbox.write(CONFIG, 'model = "o3"\n' + entries)
    assert sandbox.run("generate", "-w").returncode == 0
    return sandbox


def _found(box: Sandbox, *args: str) -> tuple[int, list[dict]]:
    result = box.run("check", "--format", "json", *args)
    report = json.loads(result.stdout)
    return result.returncode, [f for f in report["findings"] if f["rule_id"] == "TWS625"]


def test_a_trusted_project_is_an_error_at_its_trust_line(sandbox: Sandbox) -> None:
    box = _box(sandbox, ["."], {"/home/u/app": "trusted", "/home/u/old": "untrusted"})
    code, found = _found(box)
    assert code == 1 and len(found) == 1
    (item,) = found
    text = (box.repo / CONFIG).read_text()
    line = text[: text.index('trust_level = "trusted"')].count("\n") + 1
    assert item["level"] == "error"
    assert (item["location"]["path"], item["location"]["line"]) == (CONFIG, line)
    assert item["location"]["pointer"] == "/projects/~1home~1u~1app/trust_level"
    assert "write root '.'" in item["message"] and 'trust_level = "untrusted"' in item["message"]
    assert [r["pointer"] for r in item["related"]] == ["/filesystem/allowWrite/0"]


@pytest.mark.parametrize(
    ("roots", "reported"),
    [
        (["/srv/build"], False),  # an absolute root beside the project: no layer of it there
        (["/home/u"], True),  # above it
        (["/home/u/app/out"], True),  # inside it
        (["/home/u/app/**"], True),
    ],
)
def test_an_absolute_root_counts_where_it_reaches_the_project(
    sandbox: Sandbox, roots: list[str], reported: bool
) -> None:
    box = _box(sandbox, roots, {"/home/u/app": "trusted"})
    _, found = _found(box)
    assert bool(found) is reported


def test_read_only_and_full_access_are_quiet(sandbox: Sandbox) -> None:
    box = _box(sandbox, ["."], {"/home/u/app": "trusted"})
    for mode in ("read-only", "danger-full-access"):
        box.run("generate", "-w", "--sandbox", mode)
        assert _found(box, "--sandbox", mode)[1] == [], mode
