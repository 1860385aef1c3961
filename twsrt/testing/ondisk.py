"""What the files on disk give an agent beyond the policy, as FAIL results of ``twsrt test``.

The probes show what a sandbox does with the files it loads; some grants in those files no
probe can show (a Claude yolo file's ``allowUnsandboxedCommands: true`` only matters when the
model retries a refused command outside the sandbox, an ``excludedCommands`` entry or a
``bypassPermissions`` outside a yolo file act before any sandbox starts), and a grant the
policy does not name (a write root added by hand to the Codex profile) is not where any probe
derived from the policy looks. So ``twsrt test`` also reports, for every engine it runs:

- each entry that a file the engine reads holds in a section twsrt manages and the policy does
  not compile (a hand-added or hand-changed entry: ``check``'s drift, TWS302/TWS303), at the
  entry's own ``file:line:col``;
- each effective-configuration error ``check`` reports for that agent (its ``effective`` module:
  user keys and other config layers that grant more than the policy), at its key.

Each is a FAIL (exit 1), after the config's ``[[check.ignore]]`` suppressions, as in ``check``.
Nothing here runs a process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twsrt.findings import Finding, finding, quoted
from twsrt.locations import Location, pointer_join
from twsrt.records import record
from twsrt.rules import Level
from twsrt.testing.model import Action, Outcome, Probe, Result, Verdict

if TYPE_CHECKING:
    from twsrt.agents.base import Context, DriftItem
    from twsrt.testing.engines import Engine

HAND_ADDED = "hand-added"
EFFECTIVE = "effective"


@record
class Grant:
    """One thing a file on disk gives beyond the policy: the result's kind and name, and the
    finding (``check``'s rule, at the key) it is reported and suppressed as."""

    kind: str
    name: str
    finding: Finding


def on_disk_results(ctx: Context, engines: list[Engine]) -> list[Result]:
    """The FAIL results of what each engine's files grant beyond the policy (see above)."""
    from twsrt.suppressions import unsuppressed

    out: list[Result] = []
    for engine in engines:
        agent = engine.agent
        if agent is None or not engine.reads(ctx):
            continue
        grants = list(dict.fromkeys(hand_added(ctx, engine) + effective_errors(ctx, agent)))
        active, _ = unsuppressed(ctx.config, [g.finding for g in grants])
        kept = set(active)
        out += [_result(engine.name, g) for g in grants if g.finding in kept]
    return out


def _result(engine: str, grant: Grant) -> Result:
    item = grant.finding
    probe = Probe(grant.kind, grant.name, item.location, Action.LOAD, Outcome.DENIED)
    return Result(engine, probe, Verdict.FAIL, f"{item.rule_id} {item.rule.name}: {item.message}")


def effective_errors(ctx: Context, agent: str) -> list[Grant]:
    """``check``'s effective-configuration errors for ``agent`` (its ``effective`` module)."""
    from twsrt.agents import effective_findings

    out = []
    for item in effective_findings(ctx, agent):
        if item.level is Level.ERROR:
            pointer = item.location.pointer or ""
            name = f"{item.rule_id} {item.location.path}{pointer and ' ' + pointer}"
            out.append(Grant(EFFECTIVE, name, item))
    return out


def hand_added(ctx: Context, engine: Engine) -> list[Grant]:
    """Every managed entry on disk, in the files the engine reads, that the policy does not
    compile: each at its own key (the drift finding's place when it cannot be found)."""
    from twsrt.agents import AGENTS
    from twsrt.drift import drift_findings
    from twsrt.invocation import fix_command

    agent = str(engine.agent)
    if agent not in AGENTS:
        return []
    read = {ctx.config.display_path(p): p for p in engine.reads(ctx)}
    result = AGENTS[agent].compile(ctx)
    out: list[Grant] = []
    for drift in result.drift:
        if drift.display not in read or not drift.extra:
            continue
        reported = drift_findings(drift, result, ctx.config, fix_command(ctx))[0]
        for item in drift.extra:
            where = _item_location(ctx, read[drift.display], item) or reported.location
            shown = f"{item.key} = {item.value}"
            message = (
                f"{drift.display} holds '{quoted(shown)}' in a section twsrt manages, which the "
                "policy does not compile: the agent loads it as it is (added or changed by "
                f"hand); run `{fix_command(ctx)}`"
            )
            grant = finding(reported.rule, message, where, agent=agent)
            out.append(Grant(HAND_ADDED, shown, grant))
    return out


def _item_location(ctx: Context, path: Path, item: DriftItem) -> Location | None:
    """Where the entry sits in the file: its key, or its list item (None: a file twsrt does
    not parse by key, such as Codex's rules)."""
    from twsrt.effective import load_layer

    kind = {".json": "json", ".toml": "toml"}.get(path.suffix)
    if kind is None:
        return None
    layer, _ = load_layer(path, kind, "", ctx.config, ctx.documents)
    if layer is None:
        return None
    found = _pointer(layer.value, item.key)
    if found is None:
        return None
    pointer, node = found
    if isinstance(node, list):
        wanted = _decoded(item.value)
        index = next((i for i, entry in enumerate(node) if entry == wanted), None)
        if index is None:
            return layer.at(pointer)
        return layer.at(pointer_join(pointer, index), key=False)
    return layer.at(pointer)


def _pointer(value: Any, dotted: str) -> tuple[str, Any] | None:
    """The JSON pointer of a dotted drift key, matching the longest key at each level (a key
    may itself hold dots: ``permissions.twsrt.filesystem.~/.aws``)."""
    pointer, node, rest = "", value, dotted
    while rest:
        if not isinstance(node, dict):
            return None
        keys = [k for k in node if isinstance(k, str) and (rest == k or rest.startswith(k + "."))]
        if not keys:
            return None
        key = max(keys, key=len)
        pointer, node, rest = pointer_join(pointer, key), node[key], rest[len(key) + 1 :]
    return pointer, node


def _decoded(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def reported_findings(ctx: Context, agents: list[str]) -> tuple[Finding, ...]:
    """What ``check`` reports in this run, before suppressions: about the policy and this
    machine (lints, host checks, srt's static gaps), and for each of the run's agents in its
    modes (its compile's and effective findings). A gap of an attack across launches must be
    one of these (``gaps.Mismatch.reports``)."""
    from twsrt.agents import AGENTS, effective_findings
    from twsrt.checking import policy_findings
    from twsrt.findings import TwsrtError

    found = policy_findings(getattr(ctx, "written", None) or ctx.policy, ctx.config)
    for agent in (a for a in agents if a in AGENTS):
        try:
            found += AGENTS[agent].compile(ctx).findings
        except TwsrtError as exc:  # an unusable target: the run reports it where it reads it
            found += exc.findings
        found += effective_findings(ctx, agent)
    return tuple(found)
