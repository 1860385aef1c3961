"""SARIF 2.1.0 for ``twsrt check --sarif FILE``: one run, every catalog rule, every finding.

Suppressed findings are left out (``--sarif``): GitHub code scanning does not honour the
``suppressions`` of an uploaded file, so a passing run would show every accepted finding as an
open alert. ``--sarif-suppressed`` keeps them as results with an external suppression carrying
the config's reason, for tools that read SARIF suppressions (VS Code's SARIF viewer, DefectDojo).

The log is built from the ``sarif_om`` classes and serialized here. The usual companion
serializer drops every value equal to its class default, so an explicit ``"level": "warning"``
would vanish and read as the rule's default level. Here the rule is simpler: every value that is
not None is written, and :func:`_om` sets every class default to None, so what appears in the
file is exactly what this module passed.

Regions. A location found in a parsed file (``locations.located``: the JSON value's span, the
TOML value's extent, a member from its key to the end of its value) carries its end, so a
region runs from ``startLine``/``startColumn`` to ``endLine``/``endColumn``, the end column one
past the last character (SARIF's exclusive end; columns count code points, the run's
``columnKind``); a value over several lines ends on its last line. Where only the start is
known (a parser's syntax error, a line of a diff, a location made without its document) the
region is the one character there: ``endLine`` = ``startLine``, ``endColumn`` = ``startColumn``
+ 1. No file is read again here for a better end (that cost 40% more render time per 10k
results). A location with a line but no column is a whole-line region, one without a line
(a whole file) the file's first line: ``startLine`` only, which SARIF reads as the whole line.

Markdown. ``help.markdown`` is the rule's help as code scanning shows it (``help_markdown``),
catalog text only. Messages carry ``text`` only, SARIF's plain text (``plain_message``); no
``markdown`` member anywhere quotes a value of the checkout.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from twsrt import __version__
from twsrt.findings import MESSAGE_LIMIT, Finding, quoted
from twsrt.locations import Location
from twsrt.report import CheckReport
from twsrt.reports.json_report import dump, selection_json
from twsrt.rules import CATALOG, Rule

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/twsrt/twsrt"
RULES_DOC = "https://github.com/twsrt/twsrt/blob/main/docs/rules.md"
FINGERPRINT_KEY = "twsrt/v2"  # bump only if Finding.fingerprint changes meaning (v2: no line)
SRCROOT = "%SRCROOT%"  # the repository root (report.root); GitHub maps it to the checkout
SRCROOT_TEXT = "The root of the repository twsrt checked (its git root)."
HOME = "HOME"  # "~/..." paths: outside the repository, left for the consumer to resolve


def sarif_log(report: CheckReport, suppressed: bool = False) -> dict[str, Any]:
    """The SARIF log of ``report`` as JSON-ready data: the active results, then with
    ``suppressed`` the suppressed ones (each with its ``suppressions``)."""
    import sarif_om as om

    rules = sorted(CATALOG.values(), key=lambda rule: rule.id)
    index = {rule.id: i for i, rule in enumerate(rules)}
    driver = _om(
        om.ToolComponent,
        name="twsrt",
        version=__version__,
        semantic_version=__version__,
        information_uri=INFORMATION_URI,
        rules=[_descriptor(om, rule) for rule in rules],
    )
    run = _om(
        om.Run,
        tool=_om(om.Tool, driver=driver),
        # Columns count characters (code points), not UTF-16 units.
        column_kind="unicodeCodePoints",
        # no uri: the checkout's absolute path is the runner's, and readers (code scanning)
        # resolve %SRCROOT%-relative paths against their own checkout
        original_uri_base_ids={SRCROOT: {"description": {"text": SRCROOT_TEXT}}},
        # A run that could not check says so, SARIF's way: its results are the reasons only.
        invocations=[_om(om.Invocation, execution_successful=False, exit_code=report.exit_code)]
        if report.aborted
        else None,
        **_profile(om, report),
    )
    log = _to_json(_om(om.SarifLog, runs=[run], version=SARIF_VERSION, schema_uri=SARIF_SCHEMA))
    # the results after the run's other members, where sarif_om puts them
    results = [_result(item, index[item.rule_id]) for item in report.findings]
    if suppressed:
        results += [
            _result(item, index[item.rule_id], rule.reason) for item, rule in report.suppressed
        ]
    log["runs"][0]["results"] = results
    # "$schema" and "version" first, as readers and sniffers expect them.
    return {"$schema": log.pop("$schema"), "version": log.pop("version"), **log}


def _profile(om: Any, report: CheckReport) -> dict[str, Any]:
    """A run that composed a profile names it: ``automationDetails.id`` ``twsrt/profile/NAME/``
    (code scanning's category is the id up to its last slash, so each profile keeps its own
    alerts) and the selection in the run's ``properties``; nothing without a profile."""
    if report.selection is None:
        return {}

    name = quote(report.selection.name, safe="")  # a slash in a name cannot split the category
    return {
        "automation_details": _om(om.RunAutomationDetails, id=f"twsrt/profile/{name}/"),
        "properties": _bag(om, {"profile": selection_json(report.selection)}),
    }


def sarif_text(report: CheckReport, suppressed: bool = False) -> str:
    """The SARIF file's text: same report, same bytes (no timestamps, fixed key order)."""

    return dump(sarif_log(report, suppressed))


def render(report: CheckReport, _options: RenderOptions) -> str:
    return sarif_text(report)


def render_with_suppressed(report: CheckReport, _options: RenderOptions) -> str:
    """``--sarif-suppressed``: the suppressed findings too, marked as suppressed."""
    return sarif_text(report, suppressed=True)


def _descriptor(om: Any, rule: Rule) -> Any:
    help_text = rule.help or rule.short
    return _om(
        om.ReportingDescriptor,
        id=rule.id,
        name=rule.name,
        short_description=_om(om.MultiformatMessageString, text=rule.short),
        full_description=_om(om.MultiformatMessageString, text=help_text),
        help=_om(om.MultiformatMessageString, text=help_text, markdown=help_markdown(rule)),
        help_uri=f"{RULES_DOC}#{rule.anchor}",
        default_configuration=_om(om.ReportingConfiguration, level=rule.level.value),
        properties=_bag(
            om,
            {"security-severity": rule.security_severity},
            tags=["security", rule.family.tag],  # the family tag filters in code scanning UIs
        ),
    )


def help_markdown(rule: Rule) -> str:
    """The rule's help as code scanning shows it beside an alert: a heading with its id, name
    and level, the summary, the help as docs/rules.md prints it (its example and fix kept),
    how to suppress a finding of it (or that none can be), and the link to docs/rules.md.
    Catalog text only: no value of a checkout reaches it."""
    if rule.suppressible:
        suppress = [
            "To accept a finding of this rule, give the reason in the twsrt config:",
            "",
            "```toml",
            "[[check.ignore]]",
            f'rule = "{rule.id}"  # or its name, "{rule.name}"',
            'path = "policy/*.json"  # optional: a glob of the file; also pointer, agent',
            'reason = "why the finding is accepted (10 characters, two words at least)"',
            "```",
        ]
    else:
        why = " (the policy was not checked as written)" if not rule.family.suppressible else ""
        suppress = [
            f"A finding of this rule cannot be suppressed{why}: a `[[check.ignore]]` entry "
            f"naming {rule.id} is itself an error (TWS008)."
        ]
    return "\n".join(
        [
            f"## {rule.id} {rule.name} ({rule.level.value})",
            "",
            rule.short,
            "",
            *([rule.help, ""] if rule.help else []),
            "### Suppress",
            "",
            *suppress,
            "",
            f"See [{rule.id} {rule.name}]({RULES_DOC}#{rule.anchor}) in docs/rules.md.",
        ]
    )


def plain_message(text: str) -> str:
    """A plain text message as SARIF 2.1.0 reads one (3.11.6): ``[text](target)`` is an
    embedded link, so a literal bracket, and the backslash that escapes it, are escaped. A
    message quotes the checkout's values: none may become a link a viewer renders."""
    if "[" not in text and "]" not in text and "\\" not in text:
        return text
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _result(item: Finding, rule_index: int, suppressed: str | None = None) -> dict[str, Any]:
    """One result as JSON data; ``suppressed`` is the reason of the ``[[check.ignore]]`` that
    hides it. Members in sarif_om's order, so the text equals the sarif_om form."""
    out: dict[str, Any] = {
        "message": {"text": plain_message(item.message)},
        "level": item.level.value,  # always explicit, even when it equals the rule's default
        "locations": [_location(item.location)],
        "partialFingerprints": {FINGERPRINT_KEY: item.fingerprint},
    }
    pointer = quoted(item.location.pointer, MESSAGE_LIMIT)
    extra = {"agent": item.agent, "pointer": pointer, "diff": item.diff}
    if any(extra.values()):
        out["properties"] = {key: value for key, value in extra.items() if value}
    if item.related:
        out["relatedLocations"] = [
            _location(where, id=n, message=quoted(where.pointer, MESSAGE_LIMIT))
            for n, where in enumerate(item.related, start=1)
        ]
    out["ruleId"] = item.rule_id
    out["ruleIndex"] = rule_index
    if suppressed is not None:
        out["suppressions"] = [{"kind": "external", "justification": suppressed}]
    return out


def _location(where: Location, id: int | None = None, message: str = "") -> dict[str, Any]:
    uri, base = _uri(where.path)
    artifact: dict[str, Any] = {"uri": uri}
    if base is not None:
        artifact["uriBaseId"] = base
    region: dict[str, Any] = {}
    if where.line > 0 and where.column > 0:
        if where.end_line > 0:  # found in the parsed file: the value's own end
            region["endColumn"] = where.end_column
            region["endLine"] = where.end_line
        else:  # only the start is known (a syntax error, a line of a diff): its character
            region["endColumn"] = where.column + 1
            region["endLine"] = where.line
        region["startColumn"] = where.column
    region["startLine"] = where.line if where.line > 0 else 1  # unknown line: the file's start
    out: dict[str, Any] = {}
    if id is not None:
        out["id"] = id
    if message:
        out["message"] = {"text": plain_message(message)}
    out["physicalLocation"] = {"artifactLocation": artifact, "region": region}
    return out


def _uri(path: str) -> tuple[str, str | None]:
    """A URI reference for a location path and its base id (None for an absolute URI)."""
    if path.startswith("~/"):
        return quote(path[2:]), HOME
    if path.startswith("/"):  # what PurePosixPath.is_absolute says, without building one
        return Path(path).as_uri(), None
    return quote(path), SRCROOT  # repo-relative; quote() keeps "/" and escapes spaces, "#", "%"


def _om(cls: type, **values: Any) -> Any:
    """An instance of a sarif_om class with only ``values`` set: every class default is None.

    sarif_om defaults include sentinels such as ``byteOffset: -1`` and ``rank: -1.0`` that mean
    "absent"; nulling them keeps them out of the file while explicit values always stay in.
    """
    arguments = dict.fromkeys(_init_names(cls))
    arguments.update(values)
    return cls(**arguments)


@cache
def _init_names(cls: type) -> tuple[str, ...]:
    """The names ``cls``'s constructor takes (its attrs fields with ``init``)."""
    return tuple(f.name for f in cls.__attrs_attrs__ if f.init)  # type: ignore[attr-defined]


@cache
def _json_names(cls: type) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
    """``cls``'s fields as (attribute, JSON property) pairs, and the set of its attributes."""
    fields = cls.__attrs_attrs__  # type: ignore[attr-defined]
    pairs = tuple((f.name, f.metadata["schema_property_name"]) for f in fields)
    return pairs, frozenset(f.name for f in fields)


def _bag(om: Any, values: dict[str, Any], tags: list[str] | None = None) -> Any:
    """A PropertyBag with additional properties, which sarif_om has no fields for."""
    bag = _om(om.PropertyBag, tags=tags)
    vars(bag).update(values)
    return bag


def _to_json(value: Any) -> Any:
    """sarif_om objects to JSON data: JSON names from the field metadata, every non-None value."""
    kind: type = type(value)
    if hasattr(kind, "__attrs_attrs__"):
        pairs, names = _json_names(kind)
        members = vars(value)
        out: dict[str, Any] = {}
        for name, json_name in pairs:
            item = members[name]
            if item is not None:
                out[json_name] = _to_json(item)
        if len(members) > len(names):  # a PropertyBag's additional properties
            for key, item in members.items():
                if key not in names and item is not None:
                    out[key] = _to_json(item)
        return out
    if isinstance(value, dict):
        return {str(key): _to_json(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_to_json(item) for item in value]
    return value
