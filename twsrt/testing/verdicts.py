"""The verdict for one probe, and the documented engine gaps that explain a mismatch.

``check`` imports ``static_gaps`` from here: keep this module's imports cheap.
"""

from __future__ import annotations

import posixpath

from twsrt.findings import Finding, finding
from twsrt.policy import Policy
from twsrt.testing.domains import domain_matches, instance_host, split_domain
from twsrt.testing.globs import srt_skips_write_glob
from twsrt.testing.model import Action, Observation, Outcome, Probe, Verdict


def explain_gap(
    engine: str, probe: Probe, observed: Outcome, policy: Policy, platform: str
) -> Finding | None:
    """The documented engine limitation that explains a mismatch, as a finding at the rule."""
    linux = platform.startswith("linux")

    def gap(name: str, message: str) -> Finding:
        return finding(name, message, probe.origin, agent=engine)

    # srt enforces a trailing /** as the directory; only a glob left after that is skipped
    skips = probe.glob and srt_skips_write_glob(probe.rule)
    # Claude Code's sandbox is srt (the claude engine runs it): srt's gaps are Claude's
    if engine in ("srt", "claude") and linux:
        if probe.kind == "deny-write" and skips and observed is Outcome.ALLOWED:
            return gap(
                "srt-linux-write-glob",
                f"srt on Linux skips glob '{probe.rule}' in denyWrite; matching files stay "
                "writable inside allowWrite roots",
            )
        if probe.kind == "allow-write" and skips and observed is Outcome.DENIED:
            return gap(
                "srt-linux-write-glob",
                f"srt on Linux skips glob '{probe.rule}' in allowWrite; it grants nothing",
            )
        if probe.kind == "allow-unix-socket" and observed is Outcome.DENIED:
            return gap(
                "srt-linux-unix-sockets",
                f"srt on Linux ignores allowUnixSockets; '{probe.rule}' is blocked with every "
                "other Unix socket (only allowAllUnixSockets opens them)",
            )
    # Claude Code always lets commands write the directory it starts in, read-only or not
    launch = probe.kind in ("read-only-root", "launch-dir") and probe.rule in (".", "./")
    if engine == "claude" and launch and observed is Outcome.ALLOWED:
        return gap(
            "lossy-readonly-workspace",
            "Claude Code's sandbox always makes the launch directory writable; its settings "
            "cannot take that away",
        )
    key = {"deny-read": "denyRead", "deny-write": "denyWrite"}.get(probe.kind)
    if engine == "deepcode" and linux and key and observed is Outcome.ALLOWED:
        return gap(
            "lossy-linux-deny",
            f"DeepCode's Linux sandbox (bubblewrap) applies no {key}: '{probe.rule}' is open "
            "wherever DeepCode mounts it",
        )
    if engine == "codex":
        # an attack that makes a new path matching a deny glob after Codex started
        fresh = getattr(probe, "attack", "") in ("create", "create-match")
        if probe.glob and fresh and probe.kind.startswith("deny-") and observed is Outcome.ALLOWED:
            return gap(
                "lossy-glob-snapshot",
                f"Codex expands the deny glob '{probe.rule}' when its sandbox starts: a matching "
                "file created later stays writable",
            )
        if probe.kind == "write-tmp" and observed is Outcome.ALLOWED:
            return gap(
                "codex-temp-writable",
                "Codex's :workspace base profile lets sandboxed commands write /tmp and $TMPDIR "
                "although no allowWrite rule names them",
            )
        if probe.kind == "allow-read" and observed is Outcome.DENIED:
            return gap(
                "codex-no-allow-read",
                f"the Codex profile has no allowRead: '{probe.rule}' stays denied with the "
                "denyRead region around it",
            )
        cut = next((e for e in policy.denied_domains if split_domain(e.value)[0] == "*"), None)
        if probe.action is Action.FETCH and cut is not None and observed is Outcome.DENIED:
            return gap(
                "lossy-port-domain",
                f"deniedDomains '{cut.value}' ({cut.origin}) cannot be a Codex domain rule, so "
                "twsrt switches Codex's network off: every host is refused",
            )
        if probe.kind == "allow-domain" and observed is Outcome.DENIED:
            host, _ = instance_host(probe.rule)
            for entry in policy.denied_domains:
                pattern, port = split_domain(entry.value)
                if port is not None and domain_matches(pattern, host, 80):
                    return gap(
                        "lossy-port-domain",
                        f"Codex domain rules take no port: deniedDomains '{entry.value}' "
                        f"({entry.origin}) denies the host on every port",
                    )
        if probe.kind == "allow-domain" and probe.port and observed is Outcome.DENIED:
            return gap(
                "lossy-port-domain",
                f"Codex domain rules take no port; '{probe.rule}' is not allowed",
            )
        if probe.kind == "allow-write" and observed is Outcome.DENIED and _codex_skips(probe):
            return gap(
                "lossy-write-root",
                f"allowWrite '{probe.rule}' cannot be a Codex workspace root and is skipped",
            )
        if probe.kind == "allow-unix-socket" and observed is Outcome.DENIED and linux:
            return gap(
                "codex-linux-unix-sockets",
                f"Codex on Linux gives its sandbox no Unix sockets; '{probe.rule}' is blocked",
            )
    return None


def _codex_skips(probe: Probe) -> bool:
    """Mirrors the allowWrite roots the Codex translation drops (TWS408)."""
    path = probe.rule.removesuffix("/**")
    return probe.glob or path in ("~", "/")


def judge(
    probe: Probe,
    control: Observation | None,
    sandboxed: Observation | None,
    gap: Finding | None = None,
) -> tuple[Verdict, str]:
    """PASS / FAIL / INVALID / ERROR / GAP / MOOT for one probe, with a one-line reason."""
    if probe.problem:
        return Verdict.ERROR, probe.problem
    if control is None or not control.ran:
        why = control.output.splitlines()[-1] if control and control.output else "no output"
        return Verdict.INVALID, f"the control could not run without the sandbox ({why})"
    if control.outcome is not Outcome.ALLOWED:
        return (
            Verdict.INVALID,
            f"the control was {control.outcome} without the sandbox, so a denial proves nothing",
        )
    if sandboxed is None or not sandboxed.ran:
        why = sandboxed.output.splitlines()[-1] if sandboxed and sandboxed.output else "no output"
        code = sandboxed.exit_code if sandboxed else None
        return Verdict.ERROR, f"the sandboxed run gave no result (exit {code}: {why})"
    if sandboxed.outcome is None:
        why = sandboxed.output.splitlines()[-1] if sandboxed.output else "no output"
        return (
            Verdict.INVALID,
            f"{_action_text(probe)} was refused before the sandbox's domain lists could decide "
            f"({why}): the answer proves nothing about the rule",
        )
    said = f"{_action_text(probe)} was {sandboxed.outcome}"
    if sandboxed.outcome is probe.expect and probe.moot:
        return Verdict.MOOT, f"{said}, but the probe is not discriminating: {probe.moot}"
    if sandboxed.outcome is probe.expect:
        return Verdict.PASS, f"{said}, as the policy says"
    if gap is not None:
        return Verdict.GAP, f"{said}, the policy says {probe.expect} (engine gap {gap.rule_id})"
    return Verdict.FAIL, f"{said}, but the policy says {probe.expect}"


def _action_text(probe: Probe) -> str:
    does = getattr(probe, "does", None)  # an attack says what it tried (testing.attacks)
    if isinstance(does, str):
        return does
    return {
        Action.READ: f"reading {probe.target}",
        Action.APPEND: f"opening {probe.target} for writing",
        Action.CREATE: f"creating a file in {posixpath.dirname(probe.target)}",
        Action.FETCH: f"fetching {probe.target}",
        Action.CONNECT: f"connecting to {probe.target}",
    }[probe.action]


def static_gaps(policy: Policy, platform: str = "linux") -> list[Finding]:
    """Engine limitations that the policy runs into, without running anything (for ``check``)."""
    found: list[Finding] = []
    if platform.startswith("linux"):
        for rule in [*policy.deny_write, *policy.allow_write]:
            if rule.glob and srt_skips_write_glob(rule.path):
                found.append(
                    finding(
                        "srt-linux-write-glob",
                        f"srt on Linux skips glob '{rule.path}' in write lists",
                        rule.origin,
                        agent="srt",
                    )
                )
        network = policy.srt.get("network", {})
        for index, path in enumerate(network.get("allowUnixSockets", [])):
            if not network.get("allowAllUnixSockets"):
                found.append(
                    finding(
                        "srt-linux-unix-sockets",
                        f"srt on Linux ignores allowUnixSockets; '{path}' stays blocked",
                        policy.srt_location(f"/network/allowUnixSockets/{index}"),
                        agent="srt",
                    )
                )
    return found
