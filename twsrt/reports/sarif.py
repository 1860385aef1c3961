"""SARIF 2.1.0 for ``twsrt check --sarif FILE``: one run, every catalog rule, every finding.

Suppressed findings are results too, with an external suppression carrying the config's reason,
so code scanning shows them as dismissed instead of losing them.

The log is built from the ``sarif_om`` classes and serialized here. The usual companion
serializer drops every value equal to its class default, so an explicit ``"level": "warning"``
would vanish and read as the rule's default level. Here the rule is simpler: every value that is
not None is written, and :func:`_om` sets every class default to None, so what appears in the
file is exactly what this module passed.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from twsrt.findings import MESSAGE_LIMIT, Finding, quoted
from twsrt.locations import Location
from twsrt.report import CheckReport
from twsrt.rules import CATALOG, Rule

if TYPE_CHECKING:
    from twsrt.reports import RenderOptions

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/twsrt/twsrt"
RULES_DOC = "https://github.com/twsrt/twsrt/blob/main/docs/rules.md"
FINGERPRINT_KEY = "twsrt/v1"  # bump only if Finding.fingerprint changes meaning
SRCROOT = "%SRCROOT%"  # the repository root (report.root); GitHub maps it to the checkout
HOME = "HOME"  # "~/..." paths: outside the repository, left for the consumer to resolve


def sarif_log(report: CheckReport) -> dict[str, Any]:
    """The SARIF log of ``report`` as JSON-ready data (active results, then suppressed ones)."""
    import sarif_om as om

    from twsrt import __version__

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
        original_uri_base_ids={SRCROOT: _om(om.ArtifactLocation, uri=_root_uri(report.root))},
        # A run that could not check says so, SARIF's way: its results are the reasons only.
        invocations=[_om(om.Invocation, execution_successful=False, exit_code=report.exit_code)]
        if report.aborted
        else None,
        results=[_result(om, item, index[item.rule_id]) for item in report.findings]
        + [_result(om, item, index[item.rule_id], rule.reason) for item, rule in report.suppressed],
    )
    log = _to_json(_om(om.SarifLog, runs=[run], version=SARIF_VERSION, schema_uri=SARIF_SCHEMA))
    # "$schema" and "version" first, as readers and sniffers expect them.
    return {"$schema": log.pop("$schema"), "version": log.pop("version"), **log}


def sarif_text(report: CheckReport) -> str:
    """The SARIF file's text: same report, same bytes (no timestamps, fixed key order)."""
    return json.dumps(sarif_log(report), indent=2, ensure_ascii=False) + "\n"


def render(report: CheckReport, _options: RenderOptions) -> str:
    return sarif_text(report)


def _descriptor(om: Any, rule: Rule) -> Any:
    help_text = rule.help or rule.short
    return _om(
        om.ReportingDescriptor,
        id=rule.id,
        name=rule.name,
        short_description=_om(om.MultiformatMessageString, text=rule.short),
        full_description=_om(om.MultiformatMessageString, text=help_text),
        # The help text uses backticks, so it is also the markdown that GitHub renders.
        help=_om(om.MultiformatMessageString, text=help_text, markdown=help_text),
        help_uri=f"{RULES_DOC}#{rule.anchor}",
        default_configuration=_om(om.ReportingConfiguration, level=rule.level.value),
        properties=_bag(
            om,
            {"security-severity": rule.security_severity},
            tags=["security", rule.family.tag],  # the family tag filters in code scanning UIs
        ),
    )


def _result(om: Any, item: Finding, rule_index: int, suppressed: str | None = None) -> Any:
    """One result; ``suppressed`` is the reason of the ``[[check.ignore]]`` that hides it."""
    pointer = quoted(item.location.pointer, MESSAGE_LIMIT)
    extra = {"agent": item.agent, "pointer": pointer, "diff": item.diff}
    related = [
        _location(om, where, id=n, message=quoted(where.pointer, MESSAGE_LIMIT))
        for n, where in enumerate(item.related, start=1)
    ]
    return _om(
        om.Result,
        rule_id=item.rule_id,
        rule_index=rule_index,
        level=item.level.value,  # always explicit, even when it equals the rule's default
        message=_om(om.Message, text=item.message),
        locations=[_location(om, item.location)],
        related_locations=related or None,
        partial_fingerprints={FINGERPRINT_KEY: item.fingerprint},
        suppressions=None
        if suppressed is None
        else [_om(om.Suppression, kind="external", justification=suppressed)],
        properties=_bag(om, {k: v for k, v in extra.items() if v}) if any(extra.values()) else None,
    )


def _location(om: Any, where: Location, id: int | None = None, message: str = "") -> Any:
    uri, base = _uri(where.path)
    region = _om(
        om.Region,
        start_line=where.line if where.line > 0 else 1,  # unknown line: the file's start
        start_column=where.column if where.line > 0 and where.column > 0 else None,
    )
    physical = _om(
        om.PhysicalLocation,
        artifact_location=_om(om.ArtifactLocation, uri=uri, uri_base_id=base),
        region=region,
    )
    text = _om(om.Message, text=message) if message else None
    return _om(om.Location, id=id, physical_location=physical, message=text)


def _uri(path: str) -> tuple[str, str | None]:
    """A URI reference for a location path and its base id (None for an absolute URI)."""
    if path.startswith("~/"):
        return quote(path[2:]), HOME
    if PurePosixPath(path).is_absolute():
        return Path(path).as_uri(), None
    return quote(path), SRCROOT  # repo-relative; quote() keeps "/" and escapes spaces, "#", "%"


def _root_uri(root: Path) -> str:
    return root.absolute().as_uri().rstrip("/") + "/"  # a base URI must end with a slash


def _om(cls: type, **values: Any) -> Any:
    """An instance of a sarif_om class with only ``values`` set: every class default is None.

    sarif_om defaults include sentinels such as ``byteOffset: -1`` and ``rank: -1.0`` that mean
    "absent"; nulling them keeps them out of the file while explicit values always stay in.
    """
    fields = cls.__attrs_attrs__  # type: ignore[attr-defined]
    unset = {f.name: None for f in fields if f.name not in values and f.init}
    return cls(**unset, **values)


def _bag(om: Any, values: dict[str, Any], tags: list[str] | None = None) -> Any:
    """A PropertyBag with additional properties, which sarif_om has no fields for."""
    bag = _om(om.PropertyBag, tags=tags)
    vars(bag).update(values)
    return bag


def _to_json(value: Any) -> Any:
    """sarif_om objects to JSON data: JSON names from the field metadata, every non-None value."""
    fields = getattr(type(value), "__attrs_attrs__", None)
    if fields is not None:
        out: dict[str, Any] = {}
        for field in fields:
            item = getattr(value, field.name)
            if item is not None:
                out[field.metadata["schema_property_name"]] = _to_json(item)
        names = {field.name for field in fields}
        for key, item in vars(value).items():  # a PropertyBag's additional properties
            if key not in names and item is not None:
                out[key] = _to_json(item)
        return out
    if isinstance(value, dict):
        return {str(key): _to_json(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_to_json(item) for item in value]
    return value
