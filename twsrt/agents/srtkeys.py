"""Every key of the srt settings schema, what it does to the sandbox, and the findings for the
keys an agent neither compiles nor reports itself.

Each agent module declares ``HANDLED_SRT_KEYS``: the JSON pointers it compiles or reports on its
own (a pointer covers its subtree). ``unhandled_key_findings`` reports every other key the
policy sets, at the key, by what leaving it out means: a key that restricts is a warning (the
agent enforces less than the policy), a key that grants or only configures srt's own machinery
is a note (the agent is stricter, or nothing changes). ``SRT_KEYS`` must name every pointer of
``schemas/srt-settings.schema.json``; a test keeps it so, so a key added to the schema cannot be
dropped without a finding.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from twsrt.findings import Finding, finding, quoted
from twsrt.locations import pointer_join
from twsrt.policy import Policy
from twsrt.records import record
from twsrt.rules import LOSSY_UNSUPPORTED_KEY, UNCOMPILED_KEY_NOTE

Effect = Literal["restricts", "grants", "runtime"]


@record
class KeyInfo:
    effect: Effect
    why: str  # what srt does with the key, in a few words (read in the finding message)


def _r(why: str) -> KeyInfo:
    return KeyInfo("restricts", why)


def _g(why: str) -> KeyInfo:
    return KeyInfo("grants", why)


def _p(why: str) -> KeyInfo:
    return KeyInfo("runtime", why)


_MITM = "srt sends these domains through an external MITM proxy for inspection"
_TLS = "srt terminates HTTPS in its own proxy so credential masking can see requests"
_FILTER_ONLY = "read only with a filterRequest callback, which a settings file cannot set"
_SIGV4 = "how srt's proxy answers AWS requests it cannot re-sign for a masked credential"
_WINDOWS = "Windows backend settings of srt, which decide what enforces the sandbox there"
_PARENT = "srt's proxy sends the commands' traffic on through this upstream proxy"
_CA = "the commands trust a CA from this file, so whoever holds its key can read their TLS"
_RG = "srt runs this ripgrep on the host to find the files its built-in denies protect"
_SECCOMP = "srt's seccomp helper, which blocks Unix sockets inside the sandbox (Linux)"

# Facts from sandbox-runtime 0.0.83 (dist/sandbox/sandbox-config.js and the code using each key).
SRT_KEYS: dict[str, KeyInfo] = {
    "/$schema": _p("an editor hint; srt ignores it"),
    "/enabled": _r("false marks the policy's sandbox as off (a twsrt key)"),
    "/network": _r("the network policy"),
    "/network/allowedDomains": _r("commands reach only these hosts"),
    "/network/deniedDomains": _r("these hosts are always refused"),
    "/network/deniedDomainReasons": _p("the text srt shows when a denied host is refused"),
    "/network/strictAllowlist": _r("hosts outside allowedDomains are refused without asking"),
    "/network/deniedResolvedAddresses": _r(
        "srt refuses an allowed host name that resolves into these addresses"
    ),
    "/network/allowUnixSockets": _g("srt lets commands connect to these Unix sockets (macOS)"),
    "/network/allowAllUnixSockets": _g("srt lets commands open every Unix socket"),
    "/network/allowLocalBinding": _g("srt lets commands bind and reach local ports (macOS)"),
    "/network/allowMachLookup": _g("srt lets commands look up these Mach services (macOS)"),
    "/network/httpProxyPort": _g(
        "srt hands the commands' HTTP traffic to the proxy on this port, past its allowlist"
    ),
    "/network/socksProxyPort": _g(
        "srt hands the commands' SOCKS traffic to the proxy on this port, past its allowlist"
    ),
    "/network/mitmProxy": _g(_MITM),
    "/network/mitmProxy/socketPath": _g(_MITM),
    "/network/mitmProxy/domains": _g(_MITM),
    "/network/allowPlaintextHeaderSet": _p(_FILTER_ONLY),
    "/network/stripResponseHeaders": _r("srt never passes these response headers to commands"),
    "/network/refuseOpaqueTunnels": _r("srt refuses every tunnel it cannot see into"),
    "/network/requireHostMatch": _r(
        "srt refuses a request whose Host header or TLS name differs from where it is sent"
    ),
    "/network/ambiguousRequestTarget": _p(_FILTER_ONLY),
    "/network/tlsTerminate": _p(_TLS),
    "/network/tlsTerminate/caCertPath": _g(_CA),
    "/network/tlsTerminate/caKeyPath": _g(_CA),
    "/network/tlsTerminate/excludeDomains": _p("hosts srt's proxy tunnels without terminating"),
    "/network/tlsTerminate/extraCaCertPaths": _g("the commands trust these CA files as well"),
    "/network/tlsTerminate/maxTunnels": _p("how many tunnels srt terminates at once"),
    "/network/tlsTerminate/handshakeTimeoutMs": _p("how long srt waits for a TLS handshake"),
    "/network/parentProxy": _g(_PARENT),
    "/network/parentProxy/http": _g(_PARENT),
    "/network/parentProxy/https": _g(_PARENT),
    "/network/parentProxy/noProxy": _g("hosts srt's proxy reaches past the upstream proxy"),
    "/filesystem": _r("the filesystem policy"),
    "/filesystem/disabled": _g("srt drops every filesystem rule, its built-in denies included"),
    "/filesystem/denyRead": _r("commands cannot read these paths"),
    "/filesystem/allowRead": _g("srt re-opens reads inside a denied path"),
    "/filesystem/allowWrite": _g("commands may write these paths"),
    "/filesystem/denyWrite": _r("commands cannot write these paths, even inside a write root"),
    "/filesystem/allowGitConfig": _g("srt lets commands write .git/config"),
    "/credentials": _r("srt hides or masks credential files and variables"),
    "/credentials/files": _r("srt makes these credential files unreadable or masked"),
    "/credentials/envVars": _r("srt removes or masks these environment variables"),
    "/credentials/allowPlaintextInject": _g(
        "srt injects masked credentials into plain-HTTP requests"
    ),
    "/credentials/awsPairs": _p("which masked variables srt re-signs AWS requests with"),
    "/credentials/sigv4": _p(_SIGV4),
    "/credentials/sigv4/streaming": _p(_SIGV4),
    "/credentials/sigv4/presigned": _p(_SIGV4),
    "/credentials/sigv4/sigv4a": _p(_SIGV4),
    "/ignoreViolations": _p("srt stops reporting these violations (it still blocks them)"),
    "/enableWeakerNestedSandbox": _g("srt weakens its isolation to run inside a container"),
    "/allowNestedUserNamespaces": _g(
        "srt lets commands create user namespaces, which can undo its write denies"
    ),
    "/enableWeakerNetworkIsolation": _g("srt lets commands reach the macOS trustd service"),
    "/allowAppleEvents": _g("srt lets commands send Apple Events and launch other apps (macOS)"),
    "/ripgrep": _g(_RG),
    "/ripgrep/command": _g(_RG),
    "/ripgrep/args": _g(_RG),
    "/ripgrep/argv0": _g(_RG),
    # lowered below the user's (or srt's default of 3), it protects fewer files: a grant then
    "/mandatoryDenySearchDepth": _p("how deep srt looks for files its built-in denies protect"),
    "/allowPty": _g("srt lets commands open pseudo-terminals (macOS)"),
    "/seccomp": _g(_SECCOMP),
    "/seccomp/applyPath": _g(_SECCOMP),
    "/seccomp/argv0": _g(_SECCOMP),
    "/bwrapPath": _g("srt runs this program on the host as bubblewrap, the sandbox itself"),
    "/socatPath": _g("srt runs this program on the host as socat, its network bridge"),
    "/javaAgentJarPath": _p("the JVM agent srt injects so Java honours its proxy"),
    "/windows": _g(_WINDOWS),
    "/windows/backend": _g(
        "which Windows backend enforces the sandbox (mxc lets commands open windows)"
    ),
    "/windows/sandboxUser": _g("the Windows account sandboxed commands run as"),
    "/windows/sublayerGuid": _g("the WFP filters srt relies on for the network policy (Windows)"),
    "/windows/wfpSublayerGuid": _g(
        "the WFP filters srt relies on for the network policy (Windows)"
    ),
    "/windows/proxyPortRange": _p(
        "the ports srt's proxy listens on (Windows; must match the install)"
    ),
    "/windows/srtWin": _g(_WINDOWS),
    "/windows/srtWin/path": _g("srt runs this program on the host as its Windows helper"),
    "/git": _g("git settings srt passes to commands"),
    "/git/safeDirectories": _g(
        "git inside srt trusts these directories' config and hooks though others own them"
    ),
}

# Numbers that protect less the lower they are, with srt's default: a lower one is a grant.
LOWER_LOOSENS = {"/mandatoryDenySearchDepth": 3}

# The key a finding is never about: it changes nothing anywhere.
IGNORED = frozenset({"/$schema"})

_TAIL = {
    "restricts": "; {agent} enforces less than the policy here (run it under srt to enforce it)",
    "grants": "; the grant is left out, so {agent} is stricter than the policy",
    "runtime": "; it configures srt itself and changes no permission",
}


# Switches that are on unless the policy says false.
DEFAULT_ON = frozenset({"/enabled"})


def is_set(value: Any, pointer: str = "") -> bool:
    """Whether a value asks for anything: missing, empty and default values ask for nothing."""
    if pointer in DEFAULT_ON:
        return value is False
    return not (value is None or value is False or value in ("", [], {}))


def dotted(pointer: str) -> str:
    """``/network/allowLocalBinding`` -> ``network.allowLocalBinding``, as users read a key."""
    return pointer[1:].replace("/", ".")


def _children(pointer: str) -> bool:
    return any(other.startswith(pointer + "/") for other in SRT_KEYS)


def set_keys(srt: Mapping[str, Any], base: str = "") -> Iterator[str]:
    """The pointers of the schema's leaf keys that ``srt`` sets, in document order. An object the
    schema gives properties is walked; a map or a list is one key."""
    for name, value in srt.items():
        pointer = pointer_join(base, name)
        if pointer not in SRT_KEYS:
            continue  # unknown keys are schema errors, reported elsewhere
        if isinstance(value, dict) and _children(pointer):
            yield from set_keys(value, pointer)
        elif is_set(value, pointer):
            yield pointer


def covered(pointer: str, handled: Iterable[str]) -> bool:
    return any(pointer == h or pointer.startswith(h.rstrip("/") + "/") for h in handled)


def key_finding(policy: Policy, agent: str, pointer: str, why: str | None = None) -> Finding:
    """The finding for one srt key the agent does not compile: warning when the key restricts,
    note when it grants or only configures srt; ``why`` replaces the generic reason."""
    info = SRT_KEYS[pointer]
    rule = LOSSY_UNSUPPORTED_KEY if info.effect == "restricts" else UNCOMPILED_KEY_NOTE
    message = f"'{quoted(dotted(pointer))}' is not compiled for {agent}: {why or info.why}" + _TAIL[
        info.effect
    ].format(agent=agent)
    return finding(rule, message, policy.srt_location(pointer, key=True), agent=agent)


def unhandled_key_findings(
    policy: Policy,
    agent: str,
    handled: Iterable[str],
    reasons: Mapping[str, str] | None = None,
) -> list[Finding]:
    """One finding per key the policy sets that no pointer in ``handled`` covers. ``reasons``
    gives the agent's own words for keys it knows it cannot take (pointer -> why)."""
    handled = tuple(handled)
    reasons = reasons or {}
    out = []
    for pointer in set_keys(policy.srt):
        if pointer in IGNORED or covered(pointer, handled):
            continue
        why = next((text for key, text in reasons.items() if covered(pointer, (key,))), None)
        out.append(key_finding(policy, agent, pointer, why))
    return out


def unenforced_suffix(policy: Policy) -> str:
    """What a danger-full-access finding adds for an agent that runs commands with no sandbox
    at all: every sandbox key the policy sets (``; not enforced: 'a', 'b'``), or ""."""
    keys = [p for p in set_keys(policy.srt) if p not in IGNORED and p != "/enabled"]
    named = ", ".join(f"'{quoted(dotted(p))}'" for p in keys)
    return f"; not enforced: {named}" if named else ""
