"""Each file a run reads is read once, and each text parsed at most once per format (issue 17:
positioned JSON and TOML, plain json/tomllib values): the compile, the drift compare, the
report views and the effective-configuration check share one run's ``documents`` store, and
none of them changes a parsed value the others see."""

from __future__ import annotations

import copy
import json
import os
import shutil
import sys
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.cli import run_cli

from twsrt import jsonpos, safeio, tomlpos
from twsrt.documents import Documents

REPO = Path(__file__).resolve().parent.parent
COMMANDS = [("check",), ("check", "--yolo"), ("diff",), ("generate", "-n", "-w")]
EXAMPLES = ["dotfiles", "broken/drift", "dotfiles-drifted"]
# dotfiles-drifted: the dotfiles example with every kind of target edited by hand, so the drift
# compare and the report views parse the generated texts too (each once, beside the files')
HAND_EDITS = {
    "home/.codex/config.toml": ('"/tmp" = "write"', '"/tmp" = "read"'),
    "home/.claude/settings.full.json": ('"deny": [', '"deny": [\n      "Bash(hand-added)",'),
    "home/.deepcode/settings.json": ('"deny": [', '"deny": [\n      "Bash(hand-added)",'),
    "home/.copilot/settings.json": ('"deniedPaths": [', '"deniedPaths": [\n          "/x",'),
}
_PARSER_MODULES = ("jsonpos.py", "tomlpos.py", "positions.py")


class Tally:
    """Reads per file and parses per (file text, format), counted while a command runs."""

    def __init__(self) -> None:
        self.reads: Counter[str] = Counter()
        self.texts: dict[str, str] = {}  # a file's text (as read, and with LF) -> its path
        self.parses: Counter[tuple[str, str]] = Counter()

    def read(self, path: Path, data: bytes) -> None:
        name = os.path.realpath(path)
        self.reads[name] += 1
        text = data.decode("utf-8", "replace")
        self.texts[text] = self.texts[text.replace("\r\n", "\n").replace("\r", "\n")] = name

    def parse(self, text: object, kind: str) -> None:
        if isinstance(text, str) and text in self.texts:
            self.parses[(self.texts[text], kind)] += 1


def _inside_parser() -> bool:
    """Is a positioned parser (jsonpos, tomlpos) on the stack? Its own ``loads`` call is the
    positioned parse, counted once as such."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.endswith(_PARSER_MODULES):
            return True
        frame = frame.f_back
    return False


@pytest.fixture
def tally(monkeypatch: pytest.MonkeyPatch) -> Tally:
    seen = Tally()
    read_bytes = safeio.read_bytes

    def counted_read(path: Path, *args: Any, **kwargs: Any) -> bytes:
        data = read_bytes(path, *args, **kwargs)
        seen.read(path, data)
        return data

    def plain(loads: Callable[..., Any], kind: str) -> Callable[..., Any]:
        def counted(text: Any, *args: Any, **kwargs: Any) -> Any:
            if not _inside_parser():
                seen.parse(text, kind)
            return loads(text, *args, **kwargs)

        return counted

    def positioned(cls: type, kind: str) -> None:
        init = cls.__init__

        def counted(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            seen.parse(self.text, kind)

        monkeypatch.setattr(cls, "__init__", counted)

    monkeypatch.setattr(safeio, "read_bytes", counted_read)
    monkeypatch.setattr(json, "loads", plain(json.loads, "json value"))
    monkeypatch.setattr(tomllib, "loads", plain(tomllib.loads, "toml value"))
    positioned(jsonpos.PositionedJson, "positioned json")
    positioned(tomlpos.PositionedToml, "positioned toml")
    return seen


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the bundled examples (nothing a test run does can touch the repository's)."""
    root = tmp_path_factory.mktemp("examples") / "examples"
    shutil.copytree(REPO / "examples", root, symlinks=True)
    drifted = root / "dotfiles-drifted"
    shutil.copytree(root / "dotfiles", drifted, symlinks=True)
    for name, (old, new) in HAND_EDITS.items():
        text = (drifted / name).read_text(encoding="utf-8")
        assert old in text, name
        (drifted / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def _run(directory: Path, args: tuple[str, ...]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TWSRT_")}
    env["TWSRT_NO_CACHE"] = "1"
    proc = run_cli(list(args), cwd=directory, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_each_file_read_once_and_parsed_once_per_format(
    tally: Tally, examples: Path, example: str, args: tuple[str, ...]
) -> None:
    _run(examples / example, args)
    assert tally.reads, "the run read no file through safeio: the tally sees nothing"
    assert {path: n for path, n in tally.reads.items() if n > 1} == {}
    assert {key: n for key, n in tally.parses.items() if n > 1} == {}
    # the run did parse the targets it read (else the tally above would prove nothing)
    assert any(kind.startswith("positioned") for _path, kind in tally.parses)


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, Any]]:
    """Every parse a ``Documents`` store hands out: (its text, the value, a deep copy taken
    when it was handed out). Filled while the command runs."""
    handed: list[tuple[str, Any, Any]] = []
    for name in ("json", "toml", "json_value", "toml_value"):
        method = getattr(Documents, name)

        def recorded(self: Documents, text: str, _method: Any = method) -> Any:
            result = _method(self, text)
            value = getattr(result, "value", result)
            handed.append((text, value, copy.deepcopy(value)))
            return result

        monkeypatch.setattr(Documents, name, recorded)
    return handed


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_no_stage_changes_a_shared_parse(
    monkeypatch: pytest.MonkeyPatch, examples: Path, example: str, args: tuple[str, ...]
) -> None:
    """A parsed value is shared by every stage of the run: each one a stage got is, at the end
    of the run, still what it was when handed out."""
    handed = _recorded(monkeypatch)
    _run(examples / example, args)
    checked = 0
    for text, value, when_handed in handed:
        assert value == when_handed, f"a stage changed the parse of {text[:60]!r}"
        checked += 1
    assert checked, "no parse was handed out: nothing was checked"
