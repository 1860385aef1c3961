"""SARIF details (issue 29, item 5): every placed region ends where its value ends, each rule's
``help.markdown`` is its full help rendered by GitHub's Markdown, and no message becomes a link.

Regions are checked by what they cover: the text between start and end (columns count code
points, the end column one past the last character) must parse back to the value at the
location's pointer. Markdown is rendered with cmarkgfm, the bindings of GitHub's own cmark fork.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.reports import validate_sarif
from support.sandbox import Sandbox

from twsrt import rules
from twsrt.findings import Finding
from twsrt.jsonpos import parse_json, walk
from twsrt.locations import Location, located
from twsrt.report import CheckReport
from twsrt.reports.sarif import RULES_DOC, sarif_log
from twsrt.rules import CATALOG
from twsrt.tomlpos import parse_toml

cmarkgfm = pytest.importorskip("cmarkgfm")


def covered(text: str, region: dict[str, int]) -> str:
    """The characters a SARIF region covers in ``text`` (lines split at ``\\n`` only)."""
    lines = text.split("\n")
    first, last = region["startLine"] - 1, region["endLine"] - 1
    start, end = region["startColumn"] - 1, region["endColumn"] - 1
    if first == last:
        return lines[first][start:end]
    return "\n".join([lines[first][start:], *lines[first + 1 : last], lines[last][:end]])


def _extent_region(extent: tuple[int, int, int, int]) -> dict[str, int]:
    line, column, end_line, end_column = extent
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _nest(keys: list[str], value: Any) -> Any:
    return {keys[0]: _nest(keys[1:], value)} if keys else value


def _value_at(document: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        document = document[int(token)] if isinstance(document, list) else document[token]
    return document


# ---------------------------------------------------------------- extents of parsed values

text_value = st.text(
    alphabet=st.one_of(
        st.sampled_from(list('é✓🔑ÿ"\\/\n\t[]{}# ,:')), st.characters(codec="utf-8")
    ),
    max_size=6,
)
json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-1000, 10**20), text_value),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(text_value, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=80, deadline=None)
@given(value=json_value, indent=st.sampled_from([None, 2]), ascii_only=st.booleans())
def test_a_json_extent_covers_exactly_its_value(
    value: Any, indent: int | None, ascii_only: bool
) -> None:
    """Every value's extent is its text (one line or several, any code point), and a member's
    extent runs from its key to the end of its value."""
    text = json.dumps({"root": value}, indent=indent, ensure_ascii=ascii_only)
    parsed = parse_json(text)
    for pointer, is_key, node in walk(parsed.value):
        if is_key:
            member = covered(text, _extent_region(parsed.extent(pointer, key=True)))
            assert json.loads("{" + member + "}") == {node: _value_at(parsed.value, pointer)}
        else:
            assert json.loads(covered(text, _extent_region(parsed.extent(pointer)))) == node
    for pointer, _, node in walk(parsed.value):
        if isinstance(node, list):
            assert parsed.item_extents(pointer) == [
                parsed.extent(f"{pointer}/{index}") for index in range(len(node))
            ]


TOML = """\
# a comment with "quotes" and [brackets]
title = "héllo ✓🔑"  # trailing
n = 1_000
when = 1979-05-27 07:32:00Z
flag = true
lines = \"\"\"
first "" line
second\"\"\"\"
raw = '''x ' y'''
list = [
  "a]",  # a ] in a comment
  ["b", 'c'],
]
inline = { a = 1, b = [2, { c = "}" }] }

[table]
"quoted key" = 'literal é'
dotted.key = -0.5

[[items]]
  name = "first"
[[items]]
  name = "second"
"""


def test_a_toml_extent_covers_exactly_its_value() -> None:
    """Each pair's value (strings of all four kinds, a date-time, arrays and inline tables over
    several lines, a bracket inside a string or a comment) parses back to the value, each
    member from its key to its end parses back to the pair; a table header covers its name."""
    parsed = parse_toml(TOML)
    pairs = [pointer for pointer in parsed.keys if parsed.keys[pointer] != parsed.values[pointer]]
    assert len(pairs) == 12
    for pointer in pairs:
        value = _value_at(parsed.value, pointer)
        shown = covered(TOML, _extent_region(parsed.extent(pointer)))
        assert tomllib.loads(f"v = {shown}")["v"] == value, pointer
        member = covered(TOML, _extent_region(parsed.extent(pointer, key=True)))
        tokens = pointer.split("/")[1:]  # the member's keys: the pointer's last ones
        nests = [_nest(tokens[-n:], value) for n in range(1, len(tokens) + 1)]
        assert tomllib.loads(member) in nests, pointer
    assert covered(TOML, _extent_region(parsed.extent("/table"))) == "table"
    assert covered(TOML, _extent_region(parsed.extent("/items/1", key=True))) == "items"
    # a pointer the line scan does not know (inside an array) is its nearest parent's member
    assert parsed.extent("/list/1/0", key=True) == parsed.extent("/list", key=True)
    assert parsed.extent("/list")[::2] == (10, 13)  # lines 10 to 13


# ---------------------------------------------------------------- regions of a real check

SRT = """\
{
  "filesystem": {
    "denyRead": ["~/.aws", "~/données/é✓🔑", "~/données/é✓🔑"],
    "denyWrite": ["**/.env"],
    "allowWrite": [
      ".",
      "/tmp"
    ]
  },
  "network": {"allowedDomains": ["github.com", "*.github.com"], "deniedDomains": []}
}
"""


def _regions(log: dict) -> list[tuple[str, str, dict[str, int]]]:
    found = []
    for result in log["runs"][0]["results"]:
        for where in result["locations"] + result.get("relatedLocations", []):
            physical = where["physicalLocation"]
            found.append(
                (result["ruleId"], physical["artifactLocation"]["uri"], physical["region"])
            )
    return found


def test_check_sarif_regions_end_where_their_values_end(sandbox: Sandbox, tmp_path: Path) -> None:
    """``check --sarif``: a region with a start column has an end; a duplicate non-ASCII
    entry is covered to its closing quote (code points: 🔑 is one column), a member over
    several lines to its closing bracket, a config value to its end; valid SARIF."""
    sandbox.write(".srt-settings.json", SRT)
    out = tmp_path / "twsrt.sarif"
    assert sandbox.run("check", "--sarif", str(out)).returncode == 1
    log = json.loads(out.read_text(encoding="utf-8"))
    validate_sarif(log)
    shown: dict[str, list[str]] = {}
    for rule_id, uri, region in _regions(log):
        if "startColumn" in region:
            assert region["endLine"] >= region["startLine"]
            text = (sandbox.repo / uri).read_text(encoding="utf-8")
            shown.setdefault(rule_id, []).append(covered(text, region))
        else:  # a whole file: its first line, no column and no end
            assert set(region) == {"startLine"}
    assert shown["TWS208"] == ['"~/données/é✓🔑"'] * 2  # the repeat, then the first
    assert shown["TWS628"][0] == '"allowWrite": [\n      ".",\n      "/tmp"\n    ]'
    assert shown["TWS629"] == ['"/tmp"']
    assert shown["TWS301"] == ['"home/.claude/settings.full.json"']  # twsrt.toml's value


def test_a_location_without_its_document_marks_its_first_character(tmp_path: Path) -> None:
    """A location made from a start only (a syntax error) is the one character there; one
    with a line but no column is the whole line; equality ignores the end."""
    parsed = parse_json('{"a": [1,\n 2]}')
    whole = located("x.json", parsed, "/a")
    assert (whole.line, whole.column, whole.end_line, whole.end_column) == (1, 7, 2, 4)
    assert whole == Location("x.json", 1, 7, "/a")  # fingerprints and dedup see no end
    report = CheckReport(
        findings=[
            Finding(rules.SOURCE_UNPARSABLE.id, "bad", Location("x.json", 3, 9)),
            Finding(rules.SOURCE_UNPARSABLE.id, "bad", Location("x.json", 3)),
            Finding(rules.SOURCE_UNPARSABLE.id, "bad", whole),
        ],
        root=tmp_path,
    )
    log = sarif_log(report)
    validate_sarif(log)
    assert [region for _, _, region in _regions(log)] == [
        {"endColumn": 10, "endLine": 3, "startColumn": 9, "startLine": 3},
        {"startLine": 3},
        {"endColumn": 4, "endLine": 2, "startColumn": 7, "startLine": 1},
    ]


# ---------------------------------------------------------------- help.markdown


def _descriptors() -> list[dict[str, Any]]:
    log = sarif_log(CheckReport(root=Path("/repo")))
    return log["runs"][0]["tool"]["driver"]["rules"]


def test_help_markdown_is_the_rules_full_help_rendered_by_github() -> None:
    """For every rule: Markdown other than the plain help text, rendered by GitHub's cmark to
    a heading with id, name and level, the summary, the help, the ``[[check.ignore]]`` example
    (in a TOML code block) or that none can suppress it, and the link to docs/rules.md."""
    descriptors = _descriptors()
    assert len(descriptors) == len(CATALOG)
    for entry in descriptors:
        rule = CATALOG[entry["id"]]
        markdown = entry["help"]["markdown"]
        assert markdown != entry["help"]["text"]
        assert rule.help in markdown  # the help as written, its example and fix kept
        html = cmarkgfm.github_flavored_markdown_to_html(markdown)
        assert f"<h2>{rule.id} {rule.name} ({rule.level.value})</h2>" in html
        assert f'<a href="{RULES_DOC}#{rule.anchor}">' in html
        blocks = re.findall(r'<pre lang="toml"><code>(.*?)</code></pre>', html, re.S)
        if rule.suppressible:
            (block,) = blocks
            snippet = tomllib.loads(block.replace("&quot;", '"'))
            (entry_,) = snippet["check"]["ignore"]
            assert entry_["rule"] == rule.id and entry_["path"] and len(entry_["reason"]) >= 10
        else:
            assert blocks == [] and "cannot be suppressed" in html


# ---------------------------------------------------------------- message escaping

LINK = "[x](https://twsrt-evil.invalid)"


def _markdown_members(node: Any, found: list[str]) -> list[str]:
    if isinstance(node, dict):
        found += [value for key, value in node.items() if key == "markdown"]
        for value in node.values():
            _markdown_members(value, found)
    elif isinstance(node, list):
        for value in node:
            _markdown_members(value, found)
    return found


def test_a_quoted_link_is_text_in_every_field_a_viewer_renders(tmp_path: Path) -> None:
    """A checkout value ``[x](https://evil)`` in a message and a pointer: every Markdown member
    of the log is rendered by cmarkgfm without a link to it (none quotes a value at all), and
    every message text, SARIF's plain text, renders as the bracket text it is."""
    where = Location("srt.json", 2, 3, f"/filesystem/denyRead/{LINK}", 2, 20)
    item = Finding(
        rules.DUPLICATE_ENTRY.id,
        f"'{LINK}' is listed twice",
        where,
        level=rules.DUPLICATE_ENTRY.level,
        related=(where,),
    )
    log = sarif_log(CheckReport(findings=[item], root=tmp_path), suppressed=True)
    validate_sarif(log)
    markdown = _markdown_members(log, [])
    assert len(markdown) == len(CATALOG)  # help.markdown only: no message has a markdown
    for text in markdown:
        assert "twsrt-evil" not in text
        assert "twsrt-evil" not in cmarkgfm.github_flavored_markdown_to_html(text)
    (result,) = log["runs"][0]["results"]
    texts = [result["message"]["text"], result["relatedLocations"][0]["message"]["text"]]
    for text in texts:
        assert LINK not in text  # an embedded link by SARIF 3.11.6 would be exactly this
        assert "<a" not in cmarkgfm.markdown_to_html(text)
        rendered = cmarkgfm.github_flavored_markdown_to_html(text)
        assert "[x](" in rendered  # the brackets show as text
        # GFM's autolink extension links a bare URL, showing the URL itself: never disguised
        for href, shown in re.findall(r'<a href="([^"]*)">([^<]*)</a>', rendered):
            assert href == shown
