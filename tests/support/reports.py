"""Validate SARIF logs and JUnit reports against the schemas vendored in tests/fixtures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SARIF_SCHEMA = FIXTURES / "sarif" / "sarif-schema-2.1.0.codeql-action.json"
JUNIT_XSD = FIXTURES / "junit" / "junit-10-plus-file-line.xsd"


def validate_sarif(log: dict) -> None:
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    jsonschema.Draft7Validator(schema, format_checker=checker).validate(log)
    # The file declares draft 2020-12; it must pass under that dialect too.
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    # Format "uri" is only checked when optional packages are present: check URIs by hand.
    for uri in _artifact_uris(log):
        assert re.fullmatch(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+", uri), uri


def _artifact_uris(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["uri"]] if isinstance(node.get("uri"), str) else []
        return own + [u for value in node.values() for u in _artifact_uris(value)]
    if isinstance(node, list):
        return [u for value in node for u in _artifact_uris(value)]
    return []


def parse_junit(text: str):  # noqa: ANN201 (lxml element)
    """Parse and validate against the vendored XSD (needs lxml, a test dependency)."""
    from lxml import etree

    schema = etree.XMLSchema(etree.parse(str(JUNIT_XSD)))
    root = etree.fromstring(text.encode("utf-8"))
    schema.assertValid(root)
    return root
