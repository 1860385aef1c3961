"""A config `twsrt check` cannot use reaches every requested output (issue 15 item 6).

Before, a broken or missing twsrt.toml made `check` print one stderr line and exit 2: no
annotation, no JSON, no SARIF, no JUnit, so CI showed nothing but a failed step. The table below
crosses broken configs with every output (`--format text|json|github` and the `--sarif`,
`--junit`, `--json` files, all requested in each run): each carries the located finding, the
files validate against the vendored schemas, the exit code is 2 in every format, and nothing
else is written. The last rows are problems `check` already reported as findings (exit 1); they
stay so, in every output too.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.reports import parse_junit, validate_sarif
from support.sandbox import DEFAULT_CONFIG, Sandbox, tree_snapshot

from twsrt.rules import CATALOG

Setup = Callable[[Sandbox], None]


def config(text: str) -> Setup:
    def setup(box: Sandbox) -> None:
        box.write("twsrt.toml", text)

    return setup


def remove_config(box: Sandbox) -> None:
    (box.repo / "twsrt.toml").unlink()


def fifo_config(box: Sandbox) -> None:
    """A named pipe as the config: reading it would block forever."""
    remove_config(box)
    os.mkfifo(box.repo / "twsrt.toml")


def conf_dir(box: Sandbox) -> None:
    (box.repo / "conf.d").mkdir()


def nothing(box: Sandbox) -> None:
    pass


@dataclass(frozen=True)
class Case:
    id: str
    setup: Setup
    args: tuple[str, ...]
    rule: str
    path: str  # repo-relative (or absolute) as every report names it
    line: int  # 0: no position
    col: int
    fragment: str
    exit_code: int = 2
    cwd: str = ""  # a subdirectory of the repository to run in
    env: tuple[tuple[str, str], ...] = ()


REASON = '\n[check]\n[[check.ignore]]\nrule = "TWS208"\nreason = "ok"\n'

CASES = [
    Case(
        "toml-syntax",
        config("[sources]\nsrt = \n"),
        (),
        "TWS001",
        "twsrt.toml",
        2,
        7,  # `srt = ` ends where the value should start
        "invalid TOML",
    ),
    Case(
        "toml-syntax-from-a-subdirectory",
        config(DEFAULT_CONFIG + "x = = 1\n"),
        (),
        "TWS001",
        "twsrt.toml",  # relative to the repository root, not to sub/
        9,
        5,  # the second `=`
        "invalid TOML",
        cwd="sub",
    ),
    Case(
        "schema-unknown-key",
        config(DEFAULT_CONFIG + 'claude_setings_yolo = "x.json"\n'),
        (),
        "TWS101",
        "twsrt.toml",
        9,
        1,
        "did you mean 'claude_settings_yolo'?",
    ),
    Case(
        "schema-wrong-type",
        config('[sources]\nsrt = 5\nbash_rules = "bash-rules.json"\n'),
        (),
        "TWS102",
        "twsrt.toml",
        2,
        7,
        "expected a string, got number 5",
    ),
    Case(
        "ignore-reason-too-short",
        config(DEFAULT_CONFIG + REASON),
        (),
        "TWS102",
        "twsrt.toml",
        13,
        10,
        "a reason must say why the finding is acceptable",
    ),
    Case(
        "none-found",
        remove_config,
        (),
        "TWS013",
        "twsrt.toml",  # where the search looks first: the repository root
        0,
        0,
        "no twsrt config found",
    ),
    Case(
        "none-found-from-a-subdirectory",
        remove_config,
        (),
        "TWS013",
        "twsrt.toml",
        0,
        0,
        "no twsrt config found",
        cwd="sub",
    ),
    Case(
        "flag-missing-file",
        nothing,
        ("-c", "missing.toml"),
        "TWS001",
        "missing.toml",
        0,
        0,
        "config file named by -c/--config does not exist",
    ),
    Case(
        "flag-directory",
        conf_dir,
        ("-c", "conf.d"),
        "TWS001",
        "conf.d",
        0,
        0,
        "config file named by -c/--config is a directory",
    ),
    Case(
        "env-missing-absolute-file",
        nothing,
        (),
        "TWS001",
        "/nonexistent/twsrt.toml",  # outside the repository: an absolute file URI in SARIF
        0,
        0,
        "config file named by $TWSRT_CONFIG does not exist",
        env=(("TWSRT_CONFIG", "/nonexistent/twsrt.toml"),),
    ),
    Case(
        "config-is-a-fifo",
        fifo_config,
        (),
        "TWS001",
        "twsrt.toml",
        0,
        0,
        "cannot read config",
    ),
    # Already findings before this change (exit 1); they stay findings in every output.
    Case(
        "source-missing",
        config(DEFAULT_CONFIG.replace(".srt-settings.json", "nope.json")),
        (),
        "TWS002",
        "nope.json",
        0,
        0,
        "",
        exit_code=1,
    ),
    Case(
        "placement-outside-the-repository",
        config(DEFAULT_CONFIG.replace("home/.claude/settings.full.json", "/etc/settings.json")),
        (),
        "TWS005",
        "twsrt.toml",
        8,
        19,
        "outside the repository",
        exit_code=1,
    ),
    Case(
        "empty-config",  # the seed's user config left empty: say what to do, at 1:1
        config(""),
        (),
        "TWS001",
        "twsrt.toml",
        1,
        1,
        "the config is empty (no [sources], no [targets]): run `twsrt init`",
    ),
    Case(
        "comments-only-config",
        config("# to fill in later\n\n"),
        (),
        "TWS001",
        "twsrt.toml",
        1,
        1,
        "or `twsrt init --repo DIR` for a dotfiles repository",
    ),
]


def run(box: Sandbox, case: Case, reports: Path, fmt: str) -> tuple[int, str, str]:
    cwd = box.repo / case.cwd
    cwd.mkdir(exist_ok=True)
    args = [
        "check",
        *case.args,
        "--format",
        fmt,
        "--sarif",
        str(reports / "twsrt.sarif"),
        "--junit",
        str(reports / "twsrt.xml"),
        "--json",
        str(reports / "twsrt.json"),
    ]
    result = box.run(*args, cwd=cwd, **dict(case.env))
    return result.returncode, result.stdout, result.stderr


def located(case: Case) -> str:
    where = case.path + (f":{case.line}:{case.col}" if case.line else "")
    return f"{where}: error[{case.rule}] "


def assert_json(text: str, case: Case) -> None:
    document = json.loads(text)
    assert document["summary"]["exit_code"] == case.exit_code
    mine = [f for f in document["findings"] if f["rule_id"] == case.rule]
    assert mine, document["findings"]
    item = mine[0]
    assert item["level"] == "error" and item["rule_name"] == CATALOG[case.rule].name
    assert case.fragment in item["message"]
    where = item["location"]
    assert (where["path"], where["line"], where["column"]) == (case.path, case.line, case.col)
    if case.exit_code == 2:  # nothing else was checked, and the report says so
        assert len(document["findings"]) == 1 and document["checked"] == []
        assert "sandbox_mode" not in document["summary"]


def assert_sarif(text: str, case: Case, box: Sandbox) -> None:
    log = json.loads(text)
    validate_sarif(log)
    run = log["runs"][0]
    results = [r for r in run["results"] if r["ruleId"] == case.rule]
    assert results and all(r["level"] == "error" for r in results)
    physical = results[0]["locations"][0]["physicalLocation"]
    artifact = physical["artifactLocation"]
    if case.path.startswith("/"):
        assert artifact == {"uri": Path(case.path).as_uri()}
    else:
        assert artifact == {"uri": case.path, "uriBaseId": "%SRCROOT%"}
        assert "uri" not in run["originalUriBaseIds"]["%SRCROOT%"]
    assert physical["region"]["startLine"] == (case.line or 1)
    if case.exit_code == 2:
        assert run["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
        assert len(run["results"]) == 1
    else:
        assert "invocations" not in run


def assert_junit(text: str, case: Case) -> None:
    root = parse_junit(text)  # valid against the vendored XSD
    failing = [c for c in root.iter("testcase") if c.find("failure") is not None]
    mine = [c for c in failing if c.get("classname") == f"twsrt.{case.rule}"]
    assert mine, text
    assert mine[0].get("file") == case.path
    assert located(case) in mine[0].find("failure").get("message")
    if case.exit_code == 2:
        assert len(list(root.iter("testcase"))) == 1


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_config_error_in_every_output(
    sandbox: Sandbox, tmp_path: Path, case: Case, fmt: str
) -> None:
    case.setup(sandbox)
    reports = tmp_path / "reports"
    reports.mkdir()
    before = tree_snapshot(sandbox.home)
    code, out, err = run(sandbox, case, reports, fmt)
    detail = f"exit {code}\nstdout:\n{out}\nstderr:\n{err}"
    assert code == case.exit_code, detail
    assert "Traceback" not in out + err and "internal error" not in out + err, detail

    if fmt == "text":
        assert located(case) in out, detail
        assert case.fragment in out
        assert err == "", detail  # the report says it once
        if case.exit_code == 2:
            assert out.endswith(
                "twsrt check: 1 error, 0 warnings, 0 notes; could not check, nothing else was "
                "checked (exit code 2)\n"
            )
    elif fmt == "json":
        assert_json(out, case)
        if case.exit_code == 2:  # stdout is for a program; the person reads stderr
            assert err.startswith(located(case)) and err.count("\n") == 1, detail
    else:
        first = out.splitlines()[0]
        props = f"file={case.path.replace(':', '%3A')}"
        if case.line:
            props += f",line={case.line},col={case.col}"
        name = CATALOG[case.rule].name
        if case.exit_code == 2:
            assert first.startswith(f"::error {props},title={case.rule} {name}::"), detail
        else:
            assert f"::error {props},title={case.rule} {name}::" in out, detail
        assert located(case) in out  # the text report after the annotations, inert
        assert err == "", detail

    assert_json((reports / "twsrt.json").read_text(encoding="utf-8"), case)
    assert_sarif((reports / "twsrt.sarif").read_text(encoding="utf-8"), case, sandbox)
    assert_junit((reports / "twsrt.xml").read_text(encoding="utf-8"), case)
    after = tree_snapshot(sandbox.home)
    if case.cwd:  # the test made the directory to run in
        made = (sandbox.repo / case.cwd).relative_to(sandbox.home).as_posix()
        before[made] = after[made]
    if case.exit_code != 2:  # a checked policy is remembered in the validity cache
        after = {k: v for k, v in after.items() if not k.startswith(".cache")}
    assert after == before  # only the requested reports were written


def test_the_reports_are_the_same_in_every_format(sandbox: Sandbox, tmp_path: Path) -> None:
    """The stdout format changes neither the exit code nor a byte of the report files."""
    case = CASES[0]
    case.setup(sandbox)
    seen = set()
    for fmt in ("text", "json", "github"):
        reports = tmp_path / fmt
        reports.mkdir()
        code, _out, _err = run(sandbox, case, reports, fmt)
        assert code == 2
        assert sorted(os.listdir(reports)) == ["twsrt.json", "twsrt.sarif", "twsrt.xml"]
        seen.add(tuple((reports / name).read_bytes() for name in sorted(os.listdir(reports))))
    assert len(seen) == 1


def test_quiet_still_shows_the_config_error(sandbox: Sandbox, tmp_path: Path) -> None:
    case = CASES[0]
    case.setup(sandbox)
    quiet = Case(**{**case.__dict__, "args": ("-q",)})
    code, out, err = run(sandbox, quiet, tmp_path, "text")
    assert (code, err) == (2, "")
    assert out == "twsrt.toml:2:7: error[TWS001] invalid TOML: " + out.split("invalid TOML: ")[1]
    assert out.count("\n") == 1
