"""Documented engine gaps: what a sandbox is known not to enforce.

Two users: ``check`` reports the gaps a policy runs into without running anything
(``static_gaps``), and ``twsrt test`` explains a probe's mismatch by its engine's gap table
(``GapRule``s on each engine class, looked up by ``verdicts.explain_gap``). srt's own gaps live
here because both need them. Keep this module's imports cheap: ``check`` loads it on every run,
and nothing of the runner, the engines or the probe model may come with it (the model alone
was ~5 ms of every check's start): srt's gap table, which needs the model's outcomes, is made
when ``twsrt test`` first asks for it (``SRT_GAPS``, see ``__getattr__``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from twsrt.findings import Finding, finding, quoted
from twsrt.policy import Policy, is_glob
from twsrt.records import record
from twsrt.rules import SRT_LINUX_UNIX_SOCKETS, SRT_LINUX_WRITE_GLOB, Rule

if TYPE_CHECKING:
    from twsrt.testing.model import Outcome, Probe

# the srt keys that name a program srt starts on the host (``hostrun.SRT_HOST_PROGRAMS``, whose
# module imports the probe model): ``static_gaps`` loads it only for a policy that sets one
HOST_PROGRAM_KEYS = ("ripgrep", "bwrapPath", "socatPath")


def srt_skips_write_glob(path: str) -> bool:
    """``globs.srt_skips_write_glob`` (which imports the probe model): only a pattern that is
    still a glob once a trailing ``/**`` is stripped is skipped in srt's write lists."""
    return is_glob(path.removesuffix("/**"))


@record
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


def probe_gap(
    rule: Rule,
    message: str,
    observed: Outcome,
    kind: str | Callable[[Probe], bool],
    linux: bool = False,
) -> GapRule:
    """The gap rule of one documented limitation: a probe of ``kind`` (or one the predicate
    ``kind`` accepts) that comes out ``observed`` (on Linux only, with ``linux``) is ``rule``'s
    gap, ``message`` naming the probe's rule as ``{rule}``; every engine's table is made of
    these and of rules that need more than the probe to decide."""

    def gap(m: Mismatch) -> Finding | None:
        probe = m.probe
        fits = probe.kind == kind if isinstance(kind, str) else kind(probe)
        if fits and m.observed is observed and (m.linux or not linux):
            return m.gap(rule, message.format(rule=quoted(probe.rule)))
        return None

    return gap


def _skipped_glob(kind: str) -> Callable[[Probe], bool]:
    """A probe of ``kind`` whose glob srt skips: it enforces a trailing /** as the directory,
    only a glob left after that is skipped."""
    return lambda probe: probe.kind == kind and probe.glob and srt_skips_write_glob(probe.rule)


SRT_GAPS: tuple[GapRule, ...]  # made on first use (``__getattr__``): it needs the probe model


def _srt_gaps() -> tuple[GapRule, ...]:
    from twsrt.testing.model import Outcome

    return (
        probe_gap(
            SRT_LINUX_WRITE_GLOB,
            "srt on Linux skips glob '{rule}' in denyWrite; matching files stay writable inside "
            "allowWrite roots",
            Outcome.ALLOWED,
            _skipped_glob("deny-write"),
            linux=True,
        ),
        probe_gap(
            SRT_LINUX_WRITE_GLOB,
            "srt on Linux skips glob '{rule}' in allowWrite; it grants nothing",
            Outcome.DENIED,
            _skipped_glob("allow-write"),
            linux=True,
        ),
        probe_gap(
            SRT_LINUX_UNIX_SOCKETS,
            "srt on Linux ignores allowUnixSockets; '{rule}' is blocked with every other Unix "
            "socket (only allowAllUnixSockets opens them)",
            Outcome.DENIED,
            "allow-unix-socket",
            linux=True,
        ),
    )


def __getattr__(name: str) -> object:
    """``SRT_GAPS``, made once when first asked for (PEP 562): ``check`` never asks."""
    if name == "SRT_GAPS":
        gaps = globals()["SRT_GAPS"] = _srt_gaps()
        return gaps
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def static_gaps(policy: Policy, platform: str = "linux") -> list[Finding]:
    """Engine limitations that the policy runs into, without running anything (for ``check``)."""
    found: list[Finding] = []
    if not platform.startswith("linux"):
        return found
    for rule in [*policy.deny_write, *policy.allow_write]:
        if rule.glob and srt_skips_write_glob(rule.path):
            message = f"srt on Linux skips glob '{quoted(rule.path)}' in write lists"
            found.append(finding(SRT_LINUX_WRITE_GLOB, message, rule.origin, agent="srt"))
    if any(key in policy.srt for key in HOST_PROGRAM_KEYS):
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
