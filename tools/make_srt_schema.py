"""Regenerate schemas/srt-settings.schema.json from the key facts of the sandbox runtime schema.

Usage (from the repository root, inputs in tests/fixtures/srt-reference/):

    python tools/make_srt_schema.py \
        tests/fixtures/srt-reference/srt-settings-0.0.83.schema.json \
        tests/fixtures/srt-reference/srt-settings-key-history.md \
        > schemas/srt-settings.schema.json

Keeps structure, types and constraints (public format facts), drops upstream prose (every
description here is twsrt's own, with the srt release that added the key, from the key history;
defaults are the ones srt documents), converts to draft 2020-12, and adds twsrt's own rules: the
top-level ``enabled`` and ``$schema`` keys, no ``~user`` paths, non-blank strings, and no required
sections (seed files omit deniedDomains).
"""

from __future__ import annotations

import json
import sys
from typing import Any

PATH_STRING = {
    "type": "string",
    "minLength": 1,
    "pattern": r"^(?!~[^/])(?!\s*$)",
    "description": "Absolute, ~/-relative or working-directory-relative path or glob.",
}

OWN_DESCRIPTIONS = {
    "": "Canonical sandbox policy for twsrt: the sandbox runtime (srt) settings file.",
    "/$schema": "URL of this JSON Schema, for editors; twsrt and srt ignore it.",
    "/enabled": "twsrt extension: false marks the canonical sandbox as disabled (srt ignores it).",
    # network
    "/network": "Network policy: an allow list of domains, checked after the deny list.",
    "/network/allowedDomains": "Domains commands may reach; empty means no network. "
    "*.example.com matches subdomains only; an optional :port limits an entry to that port.",
    "/network/deniedDomains": "Domains that are always refused, even when allowed "
    "(an optional :port limits an entry to that port).",
    "/network/deniedDomainReasons": "Text shown to the agent when a deniedDomains entry refuses a "
    "connection, keyed by that exact entry.",
    "/network/strictAllowlist": "true: a host outside allowedDomains is refused without asking, "
    "and per-command allow lists are ignored.",
    "/network/deniedResolvedAddresses": "IP addresses or CIDR ranges an allowed host name must "
    "not resolve to (added to srt's built-in set).",
    "/network/allowUnixSockets": "Unix socket paths sandboxed commands may connect to (macOS "
    "only; Linux cannot filter sockets by path).",
    "/network/allowAllUnixSockets": "true: every Unix socket is allowed (on Linux VM sockets "
    "too), which lifts the socket block on every platform.",
    "/network/allowLocalBinding": "true: sandboxed commands may bind and use local ports "
    "directly (macOS, Windows).",
    "/network/allowMachLookup": "Extra XPC/Mach service names commands may look up (macOS "
    "only); a trailing * matches a prefix.",
    "/network/httpProxyPort": "Port of an external HTTP proxy srt uses instead of starting its "
    "own; that proxy must filter domains itself.",
    "/network/socksProxyPort": "Port of an external SOCKS proxy srt uses instead of starting "
    "its own; that proxy must filter domains itself.",
    "/network/mitmProxy": "An upstream MITM proxy, reached over a Unix socket, for the listed "
    "domains; srt still applies the allow and deny lists.",
    "/network/mitmProxy/socketPath": "Unix socket of the MITM proxy.",
    "/network/mitmProxy/domains": "Domains routed through the MITM proxy.",
    "/network/allowPlaintextHeaderSet": "true: a request filter may set headers on plain-HTTP "
    "requests (they then travel unencrypted).",
    "/network/stripResponseHeaders": "Response headers srt never passes back to sandboxed "
    "commands (case-insensitive).",
    "/network/refuseOpaqueTunnels": "true: refuse every tunnel the request filter cannot see "
    "into (CONNECT without TLS termination, every SOCKS CONNECT).",
    "/network/requireHostMatch": "true: refuse (421) a request whose Host header, TLS server "
    "name or authority names another host than the one it goes to.",
    "/network/ambiguousRequestTarget": "With a request filter: what happens to a request whose "
    "path means something else once normalized (refuse, forward as spelled, or normalize).",
    "/network/tlsTerminate": "Experimental: terminate TLS inside srt's proxy so HTTPS traffic "
    "can be filtered; without a CA, srt makes a temporary one.",
    "/network/tlsTerminate/caCertPath": "PEM CA certificate the proxy signs per-host "
    "certificates with; sandboxed commands trust it.",
    "/network/tlsTerminate/caKeyPath": "PEM private key of caCertPath.",
    "/network/tlsTerminate/excludeDomains": "Domains whose HTTPS connections are passed "
    "through untouched (still subject to the domain lists).",
    "/network/tlsTerminate/extraCaCertPaths": "Further PEM CA files added to the trust bundle "
    "of sandboxed commands, e.g. an internal root.",
    "/network/tlsTerminate/maxTunnels": "How many TLS-terminated tunnels may be open at once; "
    "more are refused (503).",
    "/network/tlsTerminate/handshakeTimeoutMs": "Milliseconds a terminated tunnel has to "
    "finish its TLS handshake before it is closed.",
    "/network/parentProxy": "Upstream proxy srt's proxy connects through (otherwise the "
    "HTTP_PROXY / HTTPS_PROXY / NO_PROXY variables apply).",
    "/network/parentProxy/http": "Upstream proxy URL for plain HTTP.",
    "/network/parentProxy/https": "Upstream proxy URL for HTTPS (CONNECT); defaults to http.",
    "/network/parentProxy/noProxy": "Comma-separated host suffixes and CIDR ranges reached "
    "directly, not through the parent proxy.",
    # filesystem
    "/filesystem": "Filesystem policy.",
    "/filesystem/disabled": "true: no filesystem rules at all, srt's built-in write protections "
    "included; only for trusted commands.",
    "/filesystem/denyRead": "Paths no agent may read.",
    "/filesystem/denyRead/literal": "true: the path is taken literally, never as a glob.",
    "/filesystem/allowRead": "Paths re-allowed for reading inside a denied path.",
    "/filesystem/allowRead/literal": "true: the path is taken literally, never as a glob.",
    "/filesystem/allowWrite": "Paths commands may write to.",
    "/filesystem/allowWrite/literal": "true: the path is taken literally, never as a glob.",
    "/filesystem/denyWrite": "Paths no agent may write, even inside a write root.",
    "/filesystem/denyWrite/literal": "true: the path is taken literally, never as a glob.",
    "/filesystem/allowGitConfig": "true: .git/config may be written (e.g. to change a remote); "
    ".git/hooks stays protected.",
    # credentials
    "/credentials": "Credentials srt hides from sandboxed commands or masks and injects at the "
    "proxy; only the files and variables listed here.",
    "/credentials/files": "Credential files or directories to deny or mask.",
    "/credentials/files/path": "The credential file or directory (absolute or ~/ path).",
    "/credentials/files/mode": "deny: unreadable; mask: readable with placeholders that the "
    "proxy swaps for the real value on the way out.",
    "/credentials/files/extract": "Regular expression whose first group is the secret to mask; "
    "the rest of the file stays as is (mode mask).",
    "/credentials/files/onExtractNoMatch": "When extract (or decode) finds nothing: warn and "
    "leave the file readable, deny it, or fail.",
    "/credentials/files/decode": "jwt: find JSON Web Tokens in the file and mask them (or the "
    "claims in maskClaims).",
    "/credentials/files/maskClaims": "Top-level token claims to mask instead of the whole "
    "token (needs decode).",
    "/credentials/files/maskDuplicates": "true: also mask copies of a captured secret found "
    "elsewhere in the file.",
    "/credentials/files/injectHosts": "Hosts where the proxy puts the real value back; default: "
    "every allowed domain.",
    "/credentials/envVars": "Environment variables to unset or mask.",
    "/credentials/envVars/name": "Name of the environment variable.",
    "/credentials/envVars/mode": "deny: unset in the sandbox; mask: a placeholder that the "
    "proxy swaps for the real value on the way out.",
    "/credentials/envVars/extract": "Regular expression whose first group is the secret to mask "
    "(mode mask).",
    "/credentials/envVars/onExtractNoMatch": "When extract finds nothing: warn and pass the "
    "value through, unset it, or fail.",
    "/credentials/envVars/decode": "jwt: the value is a JSON Web Token, replaced by a fake one "
    "of the same shape.",
    "/credentials/envVars/maskClaims": "Top-level token claims to mask instead of the whole "
    "token (needs decode).",
    "/credentials/envVars/injectHosts": "Hosts where the proxy puts the real value back; "
    "default: every allowed domain.",
    "/credentials/allowPlaintextInject": "true: the proxy also injects real values into "
    "plain-HTTP requests (cleartext; for test setups only).",
    "/credentials/awsPairs": "Masked variables that form an AWS key pair under non-standard "
    "names, so the proxy can re-sign SigV4 requests.",
    "/credentials/awsPairs/accessKeyIdVar": "Variable holding the AWS access key id.",
    "/credentials/awsPairs/secretAccessKeyVar": "Variable holding the AWS secret access key.",
    "/credentials/awsPairs/sessionTokenVar": "Variable holding the AWS session token, if any.",
    "/credentials/sigv4": "What to do with AWS SigV4 requests the proxy cannot re-sign.",
    "/credentials/sigv4/streaming": "Chunked streaming uploads: deny or pass through.",
    "/credentials/sigv4/presigned": "Presigned URLs: deny or pass through.",
    "/credentials/sigv4/sigv4a": "SigV4A (asymmetric) signatures: deny or pass through.",
    # top level
    "/ignoreViolations": "Violations srt should not report, by command pattern and path.",
    "/enableWeakerNestedSandbox": "true: a weaker sandbox that works inside containers such as "
    "Docker (Linux).",
    "/allowNestedUserNamespaces": "true: sandboxed commands may create user namespaces (Linux), "
    "which lets a hostile command undo write denies.",
    "/enableWeakerNetworkIsolation": "true: allow the macOS trust service, needed by Go tools "
    "behind a MITM proxy; a possible exfiltration path.",
    "/allowAppleEvents": "true: sandboxed commands may send Apple Events (open, osascript), "
    "which starts other apps outside the sandbox (macOS).",
    "/ripgrep": "The ripgrep command srt uses to find files.",
    "/ripgrep/command": "The ripgrep executable.",
    "/ripgrep/args": "Arguments put before srt's own ripgrep arguments.",
    "/ripgrep/argv0": "argv[0] to start ripgrep with (multicall binaries).",
    "/mandatoryDenySearchDepth": "How many directory levels below the working directory srt "
    "searches for files it always protects (Linux).",
    "/allowPty": "true: sandboxed commands may open pseudo-terminals (macOS).",
    "/seccomp": "Where srt finds its seccomp helper (Linux).",
    "/seccomp/applyPath": "Path of the apply-seccomp binary.",
    "/seccomp/argv0": "ARGV0 value for a multicall binary that provides apply-seccomp.",
    "/bwrapPath": "Absolute path of bubblewrap, instead of bwrap from PATH (Linux).",
    "/socatPath": "Absolute path of socat, instead of socat from PATH (Linux).",
    "/javaAgentJarPath": "Absolute path of srt's JVM proxy agent jar, so Java tools use the proxy.",
    "/windows": "Windows settings: enforcement backend, sandbox user, filter sublayer, ports.",
    "/windows/backend": "Windows enforcement backend; srt refuses settings it cannot enforce.",
    "/windows/sandboxUser": "Account the sandboxed commands run as; must match srt-win install.",
    "/windows/sublayerGuid": "GUID of the WFP sublayer the filters were installed under.",
    "/windows/wfpSublayerGuid": "Deprecated name of sublayerGuid.",
    "/windows/proxyPortRange": "Inclusive [low, high] ports srt's proxies listen on; must match "
    "srt-win install.",
    "/windows/srtWin": "How srt starts its srt-win helper.",
    "/windows/srtWin/path": "Path of the srt-win binary.",
    "/git": "Git settings srt passes to sandboxed commands through GIT_CONFIG_* variables.",
    "/git/safeDirectories": "Directories git treats as safe.directory; grants no write access.",
}

# Defaults srt documents for a missing key (facts of its schema and README).
OWN_DEFAULTS: dict[str, Any] = {
    "/enabled": True,
    "/network/strictAllowlist": False,
    "/network/allowAllUnixSockets": False,
    "/network/allowLocalBinding": False,
    "/network/allowPlaintextHeaderSet": False,
    "/network/refuseOpaqueTunnels": False,
    "/network/requireHostMatch": False,
    "/network/ambiguousRequestTarget": "refuse",
    "/network/tlsTerminate/maxTunnels": 256,
    "/network/tlsTerminate/handshakeTimeoutMs": 10000,
    "/filesystem/disabled": False,
    "/filesystem/allowGitConfig": False,
    "/credentials/files/onExtractNoMatch": "warn",
    "/credentials/files/maskDuplicates": False,
    "/credentials/envVars/onExtractNoMatch": "warn",
    "/credentials/allowPlaintextInject": False,
    "/credentials/sigv4/streaming": "deny",
    "/credentials/sigv4/presigned": "deny",
    "/credentials/sigv4/sigv4a": "deny",
    "/enableWeakerNestedSandbox": False,
    "/allowNestedUserNamespaces": False,
    "/enableWeakerNetworkIsolation": False,
    "/allowAppleEvents": False,
    "/ripgrep": {"command": "rg"},
    "/mandatoryDenySearchDepth": 3,
    "/allowPty": False,
    "/windows/backend": "srt-win",
    "/windows/sandboxUser": "srt-sandbox",
    "/windows/proxyPortRange": [60080, 60089],
    "/git/safeDirectories": [],
}

OWN_EXAMPLES: dict[str, list[Any]] = {
    "/network/allowedDomains": [["github.com", "*.github.com", "pypi.org", "registry.npmjs.org"]],
    "/network/deniedDomains": [["gist.github.com", "github.com:22"]],
    "/network/deniedDomainReasons": [{"github.com:22": "use an https remote"}],
    "/network/deniedResolvedAddresses": [["10.0.0.0/8", "fd00::/8"]],
    "/network/httpProxyPort": [8080],
    "/filesystem/denyRead": [["~/.aws", "~/.ssh", "~/.gnupg"]],
    "/filesystem/allowRead": [["~/.ssh/known_hosts"]],
    "/filesystem/allowWrite": [[".", "/tmp"]],
    "/filesystem/denyWrite": [["**/.env", "~/.bashrc"]],
    "/credentials/files": [[{"path": "~/.netrc", "mode": "deny"}]],
    "/credentials/envVars": [[{"name": "GITHUB_TOKEN", "mode": "mask"}]],
    "/git/safeDirectories": [["~/src/project"]],
}


def convert(node: Any, pointer: str, named: bool = False) -> Any:
    """``named``: the node is the schema of the key at ``pointer`` (not its items or values)."""
    if isinstance(node, list):
        return [convert(item, pointer) for item in node]
    if not isinstance(node, dict):
        return node
    out = _members(node, pointer)
    if out.get("type") == "object" and pointer.count("/") >= 1 and "properties" in out:
        # nested objects whose own required keys srt enforces (e.g. ripgrep.command)
        required = [
            k for k in node.get("required", []) if pointer not in ("/network", "/filesystem")
        ]
        if required:
            out["required"] = required
    if named:
        _add_own_facts(out, pointer)
    return out


def _members(node: dict[str, Any], pointer: str) -> dict[str, Any]:
    """The schema object's members, converted; upstream prose, defaults and ``required`` left
    out, tuple ``items`` as draft 2020-12 ``prefixItems``."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("description", "$schema", "title", "default", "required"):
            continue
        if key == "properties":
            out[key] = {
                name: convert(child, f"{pointer}/{name}", True)
                for name, child in value.items()
                if name != "filterRequest"  # a library callback, not settable from a file
            }
        elif key == "items" and isinstance(value, list):
            out["prefixItems"] = convert(value, pointer)
            out["items"] = False
        else:
            out[key] = convert(value, pointer)
    return out


def _add_own_facts(out: dict[str, Any], pointer: str) -> None:
    """twsrt's own description (with the srt release that added the key), default and
    examples for the key at ``pointer``."""
    if pointer in OWN_DESCRIPTIONS:
        out["description"] = OWN_DESCRIPTIONS[pointer] + ADDED_IN.get(pointer, "")
    if pointer in OWN_DEFAULTS:
        out["default"] = OWN_DEFAULTS[pointer]
    if pointer in OWN_EXAMPLES:
        out["examples"] = OWN_EXAMPLES[pointer]


ADDED_IN: dict[str, str] = {}  # pointer -> " Since srt 0.0.N.", from the key history


def read_history(path: str) -> dict[str, str]:
    """The first srt release that has each key path, from the key history's "added" lines; keys
    of the baseline release (listed before the first release heading) get no note."""
    import re

    first: dict[str, str] = {}
    release = ""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("### "):
                release = line[4:].strip()
            match = re.match(r"- (?:added )?`([^`:]+):", line)
            if match:
                pointer = "/" + match[1].replace("[]", "").replace(".", "/")
                first.setdefault(pointer, f" Since srt {release}." if release else "")
    return first


def main(source: str, history: str) -> None:
    ADDED_IN.update(read_history(history))
    with open(source, encoding="utf-8") as handle:
        upstream = json.load(handle)
    schema = convert(upstream, "", True)
    fs = schema["properties"]["filesystem"]["properties"]
    for name in ("denyRead", "allowRead", "allowWrite", "denyWrite"):
        entry = fs[name]["items"]
        entry["anyOf"][0] = PATH_STRING
        entry["anyOf"][1]["properties"]["path"] = dict(PATH_STRING)
    for name in ("allowedDomains", "deniedDomains"):
        schema["properties"]["network"]["properties"][name]["items"] = {
            "type": "string",
            "minLength": 1,
            "pattern": r"^\S+$",
        }
    props = {
        "$schema": {
            "type": "string",
            "description": OWN_DESCRIPTIONS["/$schema"],
            "examples": ["https://twsrt.dev/schemas/srt-settings.schema.json"],
        },
        "enabled": {
            "type": "boolean",
            "description": OWN_DESCRIPTIONS["/enabled"],
            "default": OWN_DEFAULTS["/enabled"],
        },
    }
    props.update(schema["properties"])
    schema["properties"] = props
    final = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://twsrt.dev/schemas/srt-settings.schema.json",
        "title": "twsrt canonical sandbox settings (srt settings file)",
    }
    final.update(schema)
    json.dump(final, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
