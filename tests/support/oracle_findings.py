"""The findings path as it was before issue 17, kept as the oracle of its faster replacement:
the standard library's indented JSON, SARIF results built from sarif_om objects, and ignore
matching that tries every ``[[check.ignore]]`` entry against every finding."""

from __future__ import annotations

import json
import re
from typing import Any

from twsrt.findings import MESSAGE_LIMIT, Finding, quoted
from twsrt.locations import Location
from twsrt.report import CheckReport, Suppression
from twsrt.reports.sarif import (
    FINGERPRINT_KEY,
    SARIF_SCHEMA,
    SARIF_VERSION,
    _bag,
    _descriptor,
    _om,
    _uri,
)
from twsrt.rules import CATALOG
from twsrt.suppressions import matches as _matches


def dump(document: dict[str, Any]) -> str:
    """A JSON report's text as json_report.dump wrote it before, with what a terminal acts on
    (DEL, C1, line separators, lone surrogates) as the ``\\u`` escapes json.dumps could use."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    for char in sorted(set(re.findall("[\x7f-\x9f\u2028\u2029]", text))):  # as a C scan
        text = text.replace(char, f"\\u{ord(char):04x}")
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def junit_text(suites: list[Any]) -> str:
    """The JUnit XML text as junit_xml writes it (serialize, strip, reparse, pretty-print),
    its lines inert in a CI log (escaping.no_commands, tested in tests/test_escaping.py)."""
    from junit_xml import to_xml_report_string

    from twsrt.escaping import no_commands

    text = to_xml_report_string(suites, prettyprint=True, encoding="utf-8")
    # the one intended difference (issue 29): no `disabled` counts, which junit-10.xsd refuses
    return no_commands(re.sub(r' disabled="[0-9]+"', "", text))


def schema_findings(name: str, instance: Any, path: str, positions: Any) -> list[Finding]:
    """Schema findings with jsonschema run over the whole instance, every list item included."""
    from twsrt import schemas

    validator = schemas._validator(name, schemas._registry_state(name))
    errors = sorted(
        validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]
    )
    out = [item for error in errors for item in schemas._to_findings(error, path, positions)]
    return sorted(out, key=lambda f: (f.location.line, f.location.column, f.message))


def first_suppression(suppressions: list[Suppression], item: Finding) -> Suppression | None:
    """The ignore entry that suppresses ``item``: every entry tried, in config order."""
    return next((s for s in suppressions if _matches(s, item)), None)


def sarif_results(report: CheckReport) -> list[Any]:
    """The results of the SARIF log, each built from sarif_om objects and converted."""
    import sarif_om as om

    from twsrt.reports.sarif import _to_json

    rules = sorted(CATALOG.values(), key=lambda rule: rule.id)
    index = {rule.id: i for i, rule in enumerate(rules)}
    # the upload leaves suppressed findings out (issue 29: code scanning ignores suppressions)
    results = [_result(om, item, index[item.rule_id]) for item in report.findings]
    return [_to_json(result) for result in results]


def sarif_whole(report: CheckReport) -> dict[str, Any]:
    """The whole log as it was built: every part from sarif_om, results included."""
    import sarif_om as om

    from twsrt import __version__
    from twsrt.reports.sarif import INFORMATION_URI, SRCROOT, SRCROOT_TEXT, _to_json

    rules = sorted(CATALOG.values(), key=lambda rule: rule.id)
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
        column_kind="unicodeCodePoints",
        original_uri_base_ids={SRCROOT: {"description": {"text": SRCROOT_TEXT}}},
        invocations=[_om(om.Invocation, execution_successful=False, exit_code=report.exit_code)]
        if report.aborted
        else None,
        results=sarif_results(report),
    )
    log = _to_json(_om(om.SarifLog, runs=[run], version=SARIF_VERSION, schema_uri=SARIF_SCHEMA))
    return {"$schema": log.pop("$schema"), "version": log.pop("version"), **log}


def _result(om: Any, item: Finding, rule_index: int, suppressed: str | None = None) -> Any:
    pointer = quoted(item.location.pointer, MESSAGE_LIMIT)
    extra = {"agent": item.agent, "pointer": pointer, "diff": item.diff}
    related = [
        _location(om, where, id=n, message=_plain(quoted(where.pointer, MESSAGE_LIMIT)))
        for n, where in enumerate(item.related, start=1)
    ]
    return _om(
        om.Result,
        rule_id=item.rule_id,
        rule_index=rule_index,
        level=item.level.value,
        message=_om(om.Message, text=_plain(item.message)),
        locations=[_location(om, item.location)],
        related_locations=related or None,
        partial_fingerprints={FINGERPRINT_KEY: item.fingerprint},
        suppressions=None
        if suppressed is None
        else [_om(om.Suppression, kind="external", justification=suppressed)],
        properties=_bag(om, {k: v for k, v in extra.items() if v}) if any(extra.values()) else None,
    )


def _plain(text: str) -> str:
    """SARIF's plain text (3.11.6): literal brackets and backslashes escaped."""
    return "".join("\\" + char if char in "\\[]" else char for char in text)


def _location(om: Any, where: Location, id: int | None = None, message: str = "") -> Any:
    uri, base = _uri(where.path)
    placed = where.line > 0 and where.column > 0
    # issue 29: a placed region ends where the location says, else after its first character
    known = placed and where.end_line > 0
    region = _om(
        om.Region,
        start_line=where.line if where.line > 0 else 1,
        start_column=where.column if placed else None,
        end_line=(where.end_line if known else where.line) if placed else None,
        end_column=(where.end_column if known else where.column + 1) if placed else None,
    )
    physical = _om(
        om.PhysicalLocation,
        artifact_location=_om(om.ArtifactLocation, uri=uri, uri_base_id=base),
        region=region,
    )
    text = _om(om.Message, text=message) if message else None
    return _om(om.Location, id=id, physical_location=physical, message=text)


__all__ = [
    "dump",
    "first_suppression",
    "junit_text",
    "schema_findings",
    "sarif_results",
    "sarif_whole",
]
