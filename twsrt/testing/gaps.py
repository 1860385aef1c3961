"""Documented engine gaps: what a sandbox is known not to enforce.

Two users: ``check`` reports the gaps a policy runs into without running anything
(``static_gaps``), and ``twsrt test`` explains a probe's mismatch by its engine's gap table
(``GapRule``s on each engine class, looked up by ``verdicts.explain_gap``). srt's own gaps live
here because both need them. Keep this module's imports cheap: ``check`` loads it on every run,
and nothing of the runner or the engines may come with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from twsrt.findings import Finding, finding, quoted
from twsrt.policy import Policy
from twsrt.rules import SRT_LINUX_UNIX_SOCKETS, SRT_LINUX_WRITE_GLOB, Rule
from twsrt.testing.globs import srt_skips_write_glob
from twsrt.testing.model import Outcome, Probe


@dataclass(frozen=True)
class Mismatch:
    """A probe whose sandboxed outcome differs from the policy, as a gap rule sees it."""

    engine: str
    probe: Probe
    observed: Outcome
    policy: Policy
    linux: bool
    # what ``check`` reports for the engine's agent on this run (its compile and effective
    # findings, before suppressions): a gap of the attacks across launches is one of these
    reported: tuple[Finding, ...] = ()

    def gap(self, rule: Rule, message: str) -> Finding:
        """The gap as a finding at the probe's rule, for this engine."""
        return finding(rule, message, self.probe.origin, agent=self.engine)

    def as_reported(self, found: Finding) -> Finding:
        """``check``'s own finding, as this engine's gap (its rule, message and place)."""
        return Finding(
            found.rule_id, found.message, found.location, found.level, self.engine, found.related
        )

    def reports(self, *rules: Rule) -> Finding | None:
        """The first finding ``check`` reports with one of ``rules`` (None: it reports none,
        so the mismatch is no documented gap)."""
        return next((f for f in self.reported if f.rule in rules), None)


# One documented limitation: the finding when it explains the mismatch, else None.
GapRule = Callable[[Mismatch], Finding | None]


def first_gap(rules: Sequence[GapRule], mismatch: Mismatch) -> Finding | None:
    """The first rule of an engine's table (in order) that explains the mismatch."""
    for rule in rules:
        found = rule(mismatch)
        if found is not None:
            return found
    return None


def srt_write_glob(m: Mismatch) -> Finding | None:
    """srt enforces a trailing /** as the directory; only a glob left after that is skipped."""
    probe = m.probe
    if not (m.linux and probe.glob and srt_skips_write_glob(probe.rule)):
        return None
    if probe.kind == "deny-write" and m.observed is Outcome.ALLOWED:
        return m.gap(
            SRT_LINUX_WRITE_GLOB,
            f"srt on Linux skips glob '{quoted(probe.rule)}' in denyWrite; matching files stay "
            "writable inside allowWrite roots",
        )
    if probe.kind == "allow-write" and m.observed is Outcome.DENIED:
        return m.gap(
            SRT_LINUX_WRITE_GLOB,
            f"srt on Linux skips glob '{quoted(probe.rule)}' in allowWrite; it grants nothing",
        )
    return None


def srt_unix_sockets(m: Mismatch) -> Finding | None:
    if m.linux and m.probe.kind == "allow-unix-socket" and m.observed is Outcome.DENIED:
        return m.gap(
            SRT_LINUX_UNIX_SOCKETS,
            f"srt on Linux ignores allowUnixSockets; '{quoted(m.probe.rule)}' is blocked with "
            "every other Unix socket (only allowAllUnixSockets opens them)",
        )
    return None


SRT_GAPS: tuple[GapRule, ...] = (srt_write_glob, srt_unix_sockets)


def static_gaps(policy: Policy, platform: str = "linux") -> list[Finding]:
    """Engine limitations that the policy runs into, without running anything (for ``check``)."""
    found: list[Finding] = []
    if not platform.startswith("linux"):
        return found
    for rule in [*policy.deny_write, *policy.allow_write]:
        if rule.glob and srt_skips_write_glob(rule.path):
            message = f"srt on Linux skips glob '{quoted(rule.path)}' in write lists"
            found.append(finding(SRT_LINUX_WRITE_GLOB, message, rule.origin, agent="srt"))
    from twsrt.testing.hostrun import static_findings

    found += static_findings(policy)  # programs srt starts on the host: twsrt test does not
    network = policy.srt.get("network", {})
    for index, path in enumerate(network.get("allowUnixSockets", [])):
        if not network.get("allowAllUnixSockets"):
            found.append(
                finding(
                    SRT_LINUX_UNIX_SOCKETS,
                    f"srt on Linux ignores allowUnixSockets; '{quoted(path)}' stays blocked",
                    policy.srt_location(f"/network/allowUnixSockets/{index}"),
                    agent="srt",
                )
            )
    return found
