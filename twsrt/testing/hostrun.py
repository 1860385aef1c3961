"""Programs the checkout names that an engine would start on this host, outside any sandbox:
``twsrt test`` never starts them.

srt starts some programs itself, before and beside its sandbox, as the user who runs it (in
CI, often root), and takes their paths from its settings: the policy's for the srt engine, the
settings file's ``sandbox`` section for the claude engine (Claude Code hands those keys to its
bundled srt):

- ``ripgrep`` (``command``, ``args``, ``argv0``): the scan for srt's mandatory denies, at every
  start on Linux (observed: a ``ripgrep.command`` script ran as root in the fixture tree);
- ``bwrapPath``: bubblewrap, the sandbox itself;
- ``socatPath``: the network bridge, started outside the sandbox.

The engines run srt with these keys left out, so srt takes ``rg``, ``bwrap`` and ``socat``
from ``PATH`` (the ones ``check_available`` found), and the run reports each key as
``UNMODELLED`` at its own ``file:line:col`` with TWS506: what the named program does is not
tested. Codex's ``codex sandbox`` starts none of the programs its config names (``notify``,
MCP servers, hooks, ...; observed with 0.171.0), and the codex engine leaves those keys out of
its copy all the same (``CODEX_HOST_KEYS``), so a later version cannot start them either.
DeepCode's sandbox code takes no program from its settings (the engine runs its own bwrap).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from twsrt.findings import finding, quoted
from twsrt.locations import Location
from twsrt.rules import HOST_PROGRAM_NOT_RUN
from twsrt.testing.model import Action, Outcome, Probe, Result, Verdict

if TYPE_CHECKING:
    from twsrt.findings import Finding
    from twsrt.policy import Policy

# srt settings key -> the program srt takes from PATH without it
SRT_HOST_PROGRAMS = {"ripgrep": "rg", "bwrapPath": "bwrap", "socatPath": "socat"}
# Codex config keys that name a program or a host directory the Codex process itself uses
CODEX_HOST_KEYS = (
    "notify",
    "mcp_servers",
    "hooks",
    "model_providers",
    "js_repl_node_path",
    "js_repl_node_module_dirs",
    "log_dir",
    "sqlite_home",
)
KIND = "host-program"


def without_host_programs(settings: dict[str, Any]) -> dict[str, Any]:
    """srt settings without the keys that name a program srt starts outside its sandbox."""
    return {k: v for k, v in settings.items() if k not in SRT_HOST_PROGRAMS}


def named(settings: Any) -> list[tuple[str, str]]:
    """(key, program) for each such key the settings set: what would have run."""
    if not isinstance(settings, dict):
        return []
    out = []
    for key in SRT_HOST_PROGRAMS:
        value = settings.get(key)
        if key == "ripgrep":
            value = value.get("command") if isinstance(value, dict) else value
        if value is not None:
            out.append((key, value if isinstance(value, str) else repr(value)))
    return out


def host_program_finding(
    key: str, program: str, where: Location, engine: str, *, ran: bool = True
) -> Finding:
    """TWS506 for one key; ``ran``: said of a run that took the program from PATH instead
    (else of the policy, for ``check``)."""
    label = "ripgrep.command" if key == "ripgrep" else key
    instead = SRT_HOST_PROGRAMS[key]
    shown = quoted(program)
    head = f"{label} names '{shown}', which srt starts on this host outside its sandbox"
    if ran:
        message = (
            f"{head}; twsrt test never runs a program the checkout names there, so srt ran "
            f"with {instead} from PATH instead: what '{shown}' does is not tested"
        )
    else:
        message = (
            f"{head}, unsandboxed at every start (keep it out of every write root); twsrt test "
            f"does not run it and takes {instead} from PATH instead"
        )
    return finding(HOST_PROGRAM_NOT_RUN, message, where, agent=engine)


def results(engine: str, found: list[tuple[str, str, Location]]) -> list[Result]:
    """UNMODELLED results for the programs ``engine`` did not start: (key, program, where)."""
    out = []
    for key, program, where in found:
        gap = host_program_finding(key, program, where, engine)
        probe = Probe(KIND, key, where, Action.RUN, Outcome.DENIED)
        detail = f"not run: srt ran with {SRT_HOST_PROGRAMS[key]} from PATH instead"
        out.append(Result(engine, probe, Verdict.UNMODELLED, detail, gap))
    return out


def policy_programs(policy: Policy) -> list[tuple[str, str, Location]]:
    """The policy's own keys of that kind, at their place in the policy."""
    return [
        (key, program, policy.srt_location(f"/{key}", key=True))
        for key, program in named(policy.srt)
    ]


def static_findings(policy: Policy) -> list[Finding]:
    """For ``check`` (``gaps.static_gaps``): each such policy key, as a note."""
    return [host_program_finding(k, p, w, "srt", ran=False) for k, p, w in policy_programs(policy)]
