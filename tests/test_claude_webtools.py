"""Claude's yolo file denies WebFetch and WebSearch whole (TWS638): under bypassPermissions they
reach any host (tests/real/test_claude_webfetch.py), and a deny outranks a host's allow. The
full file keeps the host allow rules and gains no deny."""

from __future__ import annotations

import pytest
from support.policies import make_policy

from twsrt.agents.claude.rules import CLAUDE_YOLO_WEB_TOOLS_DENIED
from twsrt.agents.claude.translate import translate

ALLOWING = {"network": {"allowedDomains": ["github.com", "pypi.org:8443"]}}


def _ids(findings: list) -> list[str]:
    return [f.rule_id for f in findings]


@pytest.mark.parametrize("mode", ["workspace-write", "read-only", "danger-full-access"])
def test_yolo_denies_both_web_tools_and_allows_no_host(mode: str) -> None:
    managed, findings = translate(make_policy(ALLOWING), True, {}, mode)
    assert {"WebFetch", "WebSearch"} <= set(managed.deny)
    assert managed.webfetch_allow == []
    [note] = [f for f in findings if f.rule_id == CLAUDE_YOLO_WEB_TOOLS_DENIED.id]
    assert note.level.value == "note"
    assert (note.location.path, note.location.pointer) == ("srt.json", "/network/allowedDomains")
    # no port note for a host the yolo file does not allow anyway
    assert "TWS403" not in _ids(findings)


def test_full_file_keeps_the_host_allows_and_no_whole_deny() -> None:
    managed, findings = translate(make_policy(ALLOWING), False, {})
    assert not {"WebFetch", "WebSearch"} & set(managed.deny)
    assert managed.webfetch_allow == ["WebFetch(domain:github.com)"]
    assert CLAUDE_YOLO_WEB_TOOLS_DENIED.id not in _ids(findings)


def test_yolo_without_allowed_hosts_loses_nothing_and_says_nothing() -> None:
    managed, findings = translate(make_policy({"network": {"allowedDomains": []}}), True, {})
    assert {"WebFetch", "WebSearch"} <= set(managed.deny)
    assert CLAUDE_YOLO_WEB_TOOLS_DENIED.id not in _ids(findings)
