"""Lossy findings several agents' translations make alike, so each translator states only its
own message: a domain entry whose port the agent's rules cannot take, and where a policy's
write roots stand (the place a finding about what a sandbox leaves open under them points at)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from twsrt.domains import split_port
from twsrt.findings import Finding, finding
from twsrt.locations import Location
from twsrt.policy import Entry, Policy
from twsrt.rules import LOSSY_PORT_DOMAIN


def without_port(
    entries: Iterable[Entry],
    agent: str,
    left_out: Callable[[Entry, str], str],
    findings: list[Finding],
) -> Iterator[tuple[Entry, str]]:
    """(entry, host) of each network entry written without a port. An entry with a port is
    left out with a LOSSY_PORT_DOMAIN finding whose message is ``left_out(entry, port)``: a
    rule that takes no port would hold the host on every port."""
    for entry in entries:
        host, port = split_port(entry.value)
        if port is None:
            yield entry, host
        else:
            message = left_out(entry, port)
            findings.append(finding(LOSSY_PORT_DOMAIN, message, entry.origin, agent=agent))


def write_roots_location(policy: Policy) -> Location:
    """The policy's ``filesystem.allowWrite`` key, or the top of its sandbox settings when it
    grants no write root."""
    has_roots = "allowWrite" in (policy.srt.get("filesystem") or {})
    return policy.srt_location("/filesystem/allowWrite" if has_roots else "", key=has_roots)
