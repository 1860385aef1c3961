"""`twsrt show`: the composed policy, every srt key and bash list entry by entry, each with the
file:line:col that set it; golden text and JSON, structure, bad input, determinism."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.golden import GOLDEN_ROOT, assert_golden
from support.sandbox import Sandbox
from support.strategies import bash_rules, srt_settings

from twsrt import __version__
from twsrt.locations import Location

GOLDEN = GOLDEN_ROOT / "show"
FAST = settings(max_examples=60, deadline=None)
VERSION_LINE = f'"version": "{__version__}"'


def _golden_json(text: str) -> str:
    """The JSON document with the tool's version as a placeholder (a release changes it)."""
    assert text.count(VERSION_LINE) == 1
    return text.replace(VERSION_LINE, '"version": "<twsrt version>"')


def _case(sandbox: Sandbox, name: str) -> Sandbox:
    """The sandbox with the case's sources as its policy."""
    for source, target in (("srt.json", ".srt-settings.json"), ("bash.json", "bash-rules.json")):
        shutil.copyfile(GOLDEN / name / source, sandbox.repo / target)
    return sandbox


def _show(box: Sandbox, *args: str, cwd: Path | None = None) -> tuple[str, str]:
    result = box.run("show", *args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout, result.stderr


@pytest.mark.parametrize("name", ["example", "every-key"])
def test_show_golden(sandbox: Sandbox, name: str) -> None:
    box = sandbox.use_example() if name == "example" else _case(sandbox, name)
    text, _ = _show(box)
    assert_golden(GOLDEN / name / "expected.txt", text)
    document, _ = _show(box, "--format", "json")
    assert_golden(GOLDEN / name / "expected.json", _golden_json(document))
    assert _show(box) == (text, "")  # the same bytes on every run


def _leaves(document: dict) -> list[dict]:
    return [
        *document["srt"],
        *(e for name in ("allow", "deny", "ask") for e in document["bash"][name]),
    ]


@pytest.mark.parametrize("name", ["example", "every-key"])
def test_every_origin_points_at_its_value(sandbox: Sandbox, name: str) -> None:
    """Each leaf's file:line:col is where its value is written, in the file it names."""
    box = sandbox.use_example() if name == "example" else _case(sandbox, name)
    document = json.loads(_show(box, "--format", "json")[0])
    leaves = _leaves(document)
    assert len(leaves) > 10
    for leaf in leaves:
        where = leaf["location"]
        line = (
            (box.repo / where["path"]).read_text(encoding="utf-8").splitlines()[where["line"] - 1]
        )
        written = json.dumps(leaf["value"], separators=(", ", ": "))
        if isinstance(leaf["value"], dict | list) and leaf["value"]:
            written = written[0]  # a table or list entry: it starts there
        assert line[where["column"] - 1 :].startswith(written), (leaf, line)


def test_every_srt_key_is_shown(sandbox: Sandbox) -> None:
    """Every key of the source is a leaf, or holds leaves: nothing of the policy is left out."""
    box = _case(sandbox, "every-key")
    document = json.loads(_show(box, "--format", "json")[0])
    source = json.loads((GOLDEN / "every-key" / "srt.json").read_text(encoding="utf-8"))
    pointers = [leaf["pointer"] for leaf in document["srt"]]

    def expected(node: object, pointer: str) -> list[str]:
        if isinstance(node, dict) and node:
            return [p for key, v in node.items() for p in expected(v, f"{pointer}/{key}")]
        if isinstance(node, list) and node:
            return [f"{pointer}/{index}" for index in range(len(node))]
        return [pointer]

    del source["$schema"]  # the editor's hint, not policy
    assert pointers == expected(source, "")
    assert [leaf["value"] for leaf in document["bash"]["allow"]] == ["git status", "git diff *"]
    assert document["bash"]["ask"] == []
    assert "profile" not in document  # no [profiles]: no selection


def test_show_names_files_from_the_repository_root(sandbox: Sandbox) -> None:
    box = sandbox.use_example()
    (box.repo / "home").mkdir(exist_ok=True)
    text, _ = _show(box, cwd=box.repo / "home")
    assert text == _show(box)[0]
    assert "  policy/srt-settings.json:2:14\n" in text


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (
            '{"enabled": true,\n  "filesystem": {"denyRead": [1]}}\n',
            ".srt-settings.json:2:31: error[TWS102]",
        ),
        ('{"enabled": true,\n  "network": {\n}\n', ".srt-settings.json:4:1: error[TWS"),
    ],
    ids=["schema", "syntax"],
)
def test_bad_source_is_located_exit_2(sandbox: Sandbox, content: str, where: str) -> None:
    sandbox.write(".srt-settings.json", content)
    for fmt in ("text", "json"):
        result = sandbox.run("show", "--format", fmt)
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert result.stderr.startswith(where), result.stderr
        assert "Traceback" not in result.stderr


def test_no_config_exit_2(sandbox: Sandbox) -> None:
    (sandbox.repo / "twsrt.toml").unlink()
    result = sandbox.run("show")
    assert result.returncode == 2 and result.stdout == ""
    assert "error[TWS013] no twsrt config found" in result.stderr


def test_show_is_in_the_help() -> None:
    from twsrt.cli import cli

    assert "show" in cli.commands
    formats = [p for p in cli.commands["show"].params if p.name == "output_format"]
    assert formats and list(formats[0].type.choices) == ["text", "json"]


def test_show_never_prints_a_source_outside_the_repository(sandbox: Sandbox) -> None:
    """A source that resolves outside the repository (here through a symlink) is refused at
    its config line, and nothing of the file reaches stdout: show prints what it reads."""
    outside = sandbox.home / "secret-policy.json"
    outside.write_text('{"allow": ["CANARY-OUTSIDE"], "deny": [], "ask": []}\n', encoding="utf-8")
    (sandbox.repo / "bash-rules.json").unlink()
    (sandbox.repo / "bash-rules.json").symlink_to(outside)
    result = sandbox.run("show", "--format", "json")
    assert result.returncode == 2 and result.stdout == ""
    assert "error[TWS005]" in result.stderr and "CANARY-OUTSIDE" not in result.stderr


def test_fragment_names_take_a_column_of_their_own() -> None:
    """Composed from fragments, each origin is preceded by its fragment's name, aligned; the
    JSON names it as "fragment"."""
    from twsrt.commands.show import Shape, Shown, render_json, render_text

    base = Location("policy/base.srt.json", 5, 18, "/filesystem/denyRead/0")
    corp = Location("policy/corp-network.srt.json", 4, 18, "/filesystem/denyRead/0")
    enabled = Location("policy/base.srt.json", 3, 14, "/enabled")
    fragments = {base.path: "base", corp.path: "corp-network"}
    srt = [
        Shown("enabled", "/enabled", True, enabled, item=False),
        Shown("filesystem.denyRead", "/filesystem/denyRead/0", "~/.aws", base, item=True),
        Shown("filesystem.denyRead", "/filesystem/denyRead/1", "~/.kube", corp, item=True),
    ]
    allow = Location("policy/python.bash.json", 3, 13, "/allow/0")
    fragments[allow.path] = "python"
    bash = {"allow": [Shown("allow", "/allow/0", "pytest", allow, item=True)], "deny": []}
    shown = Shape(srt, bash, fragment_of=lambda where: fragments.get(where.path, ""))
    assert render_text(shown) == (
        "srt settings:\n"
        "  enabled = true  base          policy/base.srt.json:3:14\n"
        "  filesystem.denyRead:\n"
        "    ~/.aws        base          policy/base.srt.json:5:18\n"
        "    ~/.kube       corp-network  policy/corp-network.srt.json:4:18\n"
        "bash rules:\n"
        "  allow:\n"
        "    pytest        python        policy/python.bash.json:3:13\n"
        "  deny: (none)\n"
    )
    document = json.loads(render_json(shown))
    assert [leaf["fragment"] for leaf in document["srt"]] == ["base", "base", "corp-network"]
    assert document["bash"]["allow"][0]["fragment"] == "python"


# --- a policy composed from fragments: the bundled two-profile example ---------------------------


def test_show_a_composed_profile_golden(sandbox: Sandbox) -> None:
    """--profile work: the fragments' entries in extends order, each with its fragment's name
    and its own file:line:col."""
    box = sandbox.use_example("profiles")
    text, _ = _show(box, "--profile", "work")
    assert_golden(GOLDEN / "profiles-work" / "expected.txt", text)
    document, _ = _show(box, "--profile", "work", "--format", "json")
    assert_golden(GOLDEN / "profiles-work" / "expected.json", _golden_json(document))
    parsed = json.loads(document)
    assert parsed["profile"]["name"] == "work" and parsed["profile"]["selected_by"] == "--profile"
    fragments = {leaf["fragment"] for leaf in _leaves(parsed)}
    assert fragments == {"base", "python", "corp-network"}
    for leaf in _leaves(parsed):  # each origin is where the fragment file writes the value
        where = leaf["location"]
        line = (
            (box.repo / where["path"]).read_text(encoding="utf-8").splitlines()[where["line"] - 1]
        )
        assert line[where["column"] - 1 :].startswith(json.dumps(leaf["value"])), (leaf, line)


@pytest.mark.parametrize(
    ("args", "env", "name", "chosen_by"),
    [
        ((), {}, "home", "default"),
        ((), {"TWSRT_PROFILE": "work"}, "work", "$TWSRT_PROFILE"),
        (("--profile", "home"), {"TWSRT_PROFILE": "work"}, "home", "--profile"),
    ],
)
def test_show_names_what_chose_the_profile(
    sandbox: Sandbox, args: tuple[str, ...], env: dict[str, str], name: str, chosen_by: str
) -> None:
    box = sandbox.use_example("profiles")
    result = box.run("show", *args, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"profile: {name} (selected by {chosen_by}, twsrt.toml:")
    home_only = "corp-network" not in result.stdout
    assert home_only == (name == "home")


def test_show_an_unknown_profile_exit_2(sandbox: Sandbox) -> None:
    result = sandbox.use_example("profiles").run("show", "--profile", "nope", "--format", "json")
    assert result.returncode == 2 and result.stdout == ""
    assert "error[TWS015] profile 'nope'" in result.stderr


# --- a property over drawn policies and layouts --------------------------------------------------


def _leaf_pointers(node: object, pointer: str = "") -> list[str]:
    """The pointers show lists for ``node``: list entries, scalars, empty lists and tables."""
    if isinstance(node, dict) and node:
        return [p for key, value in node.items() for p in _leaf_pointers(value, f"{pointer}/{key}")]
    if isinstance(node, list) and node:
        return [f"{pointer}/{index}" for index in range(len(node))]
    return [pointer]


def _written_at(text: str, line: int, column: int) -> str:
    return text.splitlines()[line - 1][column - 1 :]


@FAST
@given(
    srt=srt_settings(),
    bash=bash_rules(),
    enabled=st.one_of(st.none(), st.booleans()),
    depth=st.one_of(st.none(), st.integers(0, 9)),
    indent=st.sampled_from([None, 2, 4]),
)
def test_every_drawn_leaf_is_shown_at_its_value(
    srt: dict, bash: dict, enabled: bool | None, depth: int | None, indent: int | None
) -> None:
    from twsrt.commands.show import render_text, shape
    from twsrt.jsonpos import parse_json
    from twsrt.sources import build_policy

    if enabled is not None:
        srt = {"enabled": enabled, **srt}
    if depth is not None:
        srt["mandatoryDenySearchDepth"] = depth
    assume(srt and bash)
    srt_text = json.dumps(srt, indent=indent, ensure_ascii=False) + "\n"
    bash_text = json.dumps(bash, indent=indent, ensure_ascii=False) + "\n"
    policy = build_policy(parse_json(srt_text), "s.json", parse_json(bash_text), "b.json")
    shown = shape(policy)
    assert [leaf.pointer for leaf in shown.srt] == _leaf_pointers(srt)
    texts = {"s.json": srt_text, "b.json": bash_text}
    leaves = [*shown.srt, *(e for entries in shown.bash.values() for e in entries)]
    assert [e.value for e in leaves[len(shown.srt) :]] == [
        command for key in ("allow", "deny", "ask") for command in bash.get(key, [])
    ]
    for leaf in leaves:
        written = json.dumps(leaf.value, ensure_ascii=False)
        if isinstance(leaf.value, dict | list) and leaf.value:
            written = written[0]  # a table or list entry: it starts there
        where = leaf.origin
        assert _written_at(texts[where.path], where.line, where.column).startswith(written)
    text = render_text(shown)
    assert text == render_text(shape(policy))  # deterministic
    headings = 2 + 3 + len({leaf.key for leaf in shown.srt if leaf.item})
    assert len(text.splitlines()) == len(leaves) + headings
