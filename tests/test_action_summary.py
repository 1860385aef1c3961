"""The job summary is Markdown that GitHub renders: hostile finding messages, paths, agents and
inputs must come out as the same text, never as a link, image, code span, emphasis or HTML.
Rendered with cmarkgfm, the bindings of GitHub's own cmark fork, with GitHub's extensions."""

from __future__ import annotations

import importlib.util
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

ACTION = Path(__file__).resolve().parent.parent / "action" / "twsrt_action.py"
BLOB = "https://github.com/alice/dotfiles/blob/0123456789abcdef0123456789abcdef01234567/"

EVIL = "https://evil.example/x"
MESSAGE = (
    f"see [click]({EVIL}) ![img]({EVIL}.png) <{EVIL}> www.evil.example {EVIL} a@evil.example "
    "`code` ``` | pipe | <b>bold</b> <img src=x onerror=alert(1)> *em* _em_ **strong** "
    "~~del~~ &amp; \\` [ref]: x\n# heading\r\n- item\n| a | b |\n[x][ref]"
)
PATH = "pol`](javascript:alert(1))[`b/x|y <i>/[t](evil).json"
MISSING = "home/``a`/[c](javascript:x)|z"
AGENT = f"ag[ent]({EVIL})`*x*`"


def helper() -> Any:
    spec = importlib.util.spec_from_file_location("twsrt_action_summary", ACTION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Elements(HTMLParser):
    """Every element of the rendered HTML, with the text inside each code and td element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: dict[str, list[str]] = {"code": [], "td": [], "li": [], "p": []}
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.texts:
            self.texts[tag].append("")
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.texts and self.open and self.open[-1] == tag:
            self.open.pop()

    def handle_data(self, data: str) -> None:
        for tag in self.open:
            self.texts[tag][-1] += data

    def handle_comment(self, data: str) -> None:
        self.tags.append(("!--", {"text": data}))


def render(markdown: str) -> Elements:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    # UNSAFE keeps raw HTML in the output, so any that got through is seen
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    parsed = Elements()
    parsed.feed(html)
    return parsed


@pytest.fixture
def summary(monkeypatch: pytest.MonkeyPatch) -> str:
    for key, value in {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "alice/dotfiles",
        "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
        "WORKING_DIRECTORY": f"dir\n```\n[x]({EVIL})\n````",
        "CONFIG": "",
        "SUMMARY_FINDINGS": "10",
        "UPLOAD": "true",
        "CATEGORY": f"cat` [x]({EVIL}) `",
    }.items():
        monkeypatch.setenv(key, value)
    hostile = {
        "rule_id": "TWS208",
        "rule_name": "duplicate-entry",
        "level": "warning",
        "agent": AGENT,
        "message": MESSAGE,
        "location": {"path": PATH, "line": 3, "column": 1, "pointer": ""},
    }
    missing = {
        "rule_id": "TWS301",
        "rule_name": "target-missing",
        "level": "error",
        "agent": "codex",
        "message": f"{MISSING} does not exist; run `twsrt generate -w`",
        "location": {"path": "twsrt.toml", "line": 9, "column": 1, "pointer": ""},
    }
    drift = {**hostile, "rule_id": "TWS303", "rule_name": "drift-out-of-band", "level": "error"}
    report = {
        "tool": {"version": "0.1.0"},
        "summary": {"error": 2, "warning": 1, "note": 0, "suppressed": 0, "files": 3}
        | {"fail_on": "error", "exit_code": 1, "sandbox_mode": "workspace-write"},
        "findings": [hostile, missing, drift],
    }
    return helper().render_summary(report, 1)


def one_line(text: str) -> str:
    return re.sub("[\r\n]+", " ", text)


def test_no_link_image_code_span_or_html_but_ours(summary: str) -> None:
    page = render(summary)
    allowed = {"h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code", "a"}
    allowed |= {"strong", "ul", "li", "pre"}  # the exit code, the drift list, the fix command
    assert {tag for tag, _ in page.tags} <= allowed, page.tags
    links = [attrs["href"] for tag, attrs in page.tags if tag == "a"]
    assert links and [href for href in links if not href.startswith(BLOB)] == []
    # the only strong text is twsrt's own: the exit code
    assert sum(tag == "strong" for tag, _ in page.tags) == 1
    assert [tag for tag, _ in page.tags if tag.startswith("h")] == ["h2", "h3", "h3"]


def test_text_comes_out_as_written(summary: str) -> None:
    page = render(summary)
    cells = [text.replace("\u2060", "") for text in page.texts["td"]]  # after every @
    assert cells.count(one_line(MESSAGE)) == 2  # the hostile finding and its drift twin
    assert one_line(AGENT) in cells
    codes = set(page.texts["code"])
    assert f"{PATH}:3" in codes and MISSING in codes
    assert one_line("cat` [x](https://evil.example/x) `") in codes
    # the fix command is one code block; the hostile directory stays inside it
    block = [text for text in page.texts["code"] if "twsrt generate -w" in text]
    assert block and "cd 'dir\n```\n[x](https://evil.example/x)\n````'" in block[0]


@pytest.mark.parametrize("text", ["", "a", "`", "``a`", " x ", "a|b", "x```y"])
def test_code_spans_hold_any_text(text: str) -> None:
    span = helper().code(text, table=False)
    if text:
        assert render(span).texts["code"] == [text]
    else:
        assert span == ""


def test_an_input_error_starts_no_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.github import runner_commands

    monkeypatch.setenv("ANNOTATIONS", "true")
    monkeypatch.setenv("SARIF", "true")
    monkeypatch.setenv("ARGS", "'--format=x\n::add-mask::PWN\n##[error]PWN'")
    assert helper().validate() == 2
    commands = runner_commands(capsys.readouterr().out)
    assert [name for name, _, _ in commands] == ["error"] and "PWN" in commands[0][1]


@pytest.mark.parametrize(
    ("env", "prefix"),
    [
        ({"UPLOAD": "false", "UPLOAD_SKIPPED": MESSAGE}, "SARIF not uploaded: "),
        (
            {"UPLOAD": "true", "UPLOAD_OUTCOME": "failure", "UPLOAD_FAILURE": MESSAGE},
            "SARIF upload failed (this fails the job): ",
        ),
        (
            {
                "UPLOAD": "true",
                "UPLOAD_OUTCOME": "failure",
                "UPLOAD_FAILURE": MESSAGE,
                "UPLOAD_TOLERATED": "true",
            },
            "SARIF upload failed: ",
        ),
    ],
    ids=["skipped", "failed", "tolerated"],
)
def test_upload_reasons_stay_text(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], prefix: str
) -> None:
    """A reason quotes GitHub's API message and a repository name: text, never markup."""
    for key in ("UPLOAD_SKIPPED", "UPLOAD_OUTCOME", "UPLOAD_FAILURE", "UPLOAD_TOLERATED"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    report = {
        "tool": {"version": "0.1.0"},
        "summary": {"error": 0, "warning": 0, "note": 0, "suppressed": 0, "files": 1}
        | {"fail_on": "error", "exit_code": 0},
        "findings": [],
    }
    text = helper().render_summary(report, 0)
    line = next(line for line in text.splitlines() if line.startswith(prefix))
    page = render(line)
    assert [tag for tag, _ in page.tags] == ["p"]  # no link, image, code, emphasis or HTML
    texts = [text.replace("\u2060", "") for text in page.texts["p"]]  # after every @
    assert texts == [prefix + one_line(MESSAGE) + "."]
