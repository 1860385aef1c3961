"""Values under keys that hold credentials are never printed.

Reports quote what twsrt manages (diffs, drift items); the user's own keys are elided before
that (``diffs.py``). As a second line, every value twsrt prints from a target file passes through
``redact``: a value whose key name says it holds a credential (a token, a password, an API key, a
header map, an environment block, a helper that prints a key, ...) becomes ``<redacted>``.
"""

from __future__ import annotations

import json
import re
from typing import Any

MARK = "<redacted>"

# Substrings of a normalised key name (lower case, letters and digits only).
_SECRET_PARTS = (
    "token",
    "secret",
    "passw",
    "apikey",
    "auth",  # authorization, oauth, awsAuthRefresh
    "bearer",
    "credential",
    "header",  # http_headers, env_http_headers, otelHeadersHelper
    "cookie",
    "privatekey",
    "accesskey",
    "session",
    "signature",
)
# Whole names: environment blocks (Claude ``env``, an MCP server's ``env``).
_SECRET_NAMES = frozenset({"env", "environment"})
# Managed members whose name matches a part above but which carry policy text, never a secret:
# Claude's ``sandbox.credentials`` is the srt ``credentials`` section (file paths, variable names).
POLICY_PATHS = frozenset({("sandbox", "credentials")})
# Below these, keys are data, not names: a Codex permission profile maps paths (``secrets``,
# ``"**/.env"``) and hosts to access modes under ``filesystem`` and ``network.domains``.
DATA_MAPS = frozenset({"filesystem", "domains"})
_NORMALISE = re.compile(r"[^a-z0-9]")
# A setting's name; a key with a dot, slash, glob or colon is data (a path or a domain in a
# Codex profile, such as "**/.env" or "~/.aws/credentials"), not a name that says "secret".
_NAME = re.compile(r"^[A-Za-z0-9_ -]+$")


def secret_key(name: str) -> bool:
    """Does a key of this name hold a credential?"""
    if not _NAME.match(name):
        return False
    plain = _NORMALISE.sub("", name.lower())
    return plain in _SECRET_NAMES or any(part in plain for part in _SECRET_PARTS)


def secret_path(path: tuple[str, ...]) -> bool:
    """Does any key on ``path`` (outer first) hold a credential?"""
    for index, name in enumerate(path):
        if secret_key(name) and path[: index + 1] not in POLICY_PATHS:
            return True
        if name in DATA_MAPS:
            return False
    return False


def redact(value: Any, path: tuple[str, ...] = ()) -> Any:
    """``value`` (found at ``path``) with every value under a credential key replaced."""
    if path and secret_path(path):
        return MARK
    if isinstance(value, dict):
        return {key: redact(item, (*path, str(key))) for key, item in value.items()}
    if isinstance(value, list):
        return [redact(item, path) for item in value]
    return value


def redact_item(key: str, value: str) -> str:
    """A drift item's value (``key`` dotted, ``value`` JSON or plain text) as it may be quoted."""
    path = tuple(key.split("."))
    if secret_path(path):
        return MARK
    try:
        decoded = json.loads(value)
    except ValueError:
        return value
    if not isinstance(decoded, dict | list):
        return value
    cleaned = redact(decoded, path)
    return value if cleaned == decoded else json.dumps(cleaned, ensure_ascii=False)
