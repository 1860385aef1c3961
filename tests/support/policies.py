"""Policies built straight from srt settings, without a config file or a sandbox."""

from __future__ import annotations

import json
from typing import Any

from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy


def make_policy(srt: dict[str, Any], bash: dict[str, Any] | None = None) -> Any:
    """The policy, carrying the names each write root protects (as every run's does), so a
    translation can take it without the rest of the protected set."""
    srt_text = json.dumps(srt, indent=2)
    bash_text = json.dumps(bash or {"allow": [], "deny": [], "ask": []})
    built = build_policy(parse_json(srt_text), "srt.json", parse_json(bash_text), "bash.json")
    return with_root_names(built)


def fs(deny_read=(), allow_read=(), deny_write=(), allow_write=(), **network: Any) -> Any:
    return make_policy(
        {
            "filesystem": {
                "denyRead": list(deny_read),
                "allowRead": list(allow_read),
                "denyWrite": list(deny_write),
                "allowWrite": list(allow_write),
            },
            "network": {"allowedDomains": [], "deniedDomains": [], **network},
        }
    )


# A config's suppression of TWS465 (an error at every Codex write root), for tests about
# something else that expect a clean check
CODEX_NESTED_ACCEPTED = (
    '\n[[check.ignore]]\nrule = "codex-nested-unprotected"\nagent = "codex"\n'
    'reason = "the test\'s write roots hold no other repository or project"\n'
)


def named() -> Any:
    """An empty policy carrying the names every write root protects (``rootnames.of``), for
    the tests that ask which names a translation protects."""
    return make_policy({})
