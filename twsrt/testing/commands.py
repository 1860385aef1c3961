"""The shell text of one probe, and what its output says happened."""

from __future__ import annotations

import json
import posixpath
import shlex
from typing import Any

from twsrt.testing.model import (
    INCONCLUSIVE_REASONS,
    MARK,
    NET_MARK,
    REFUSAL_HEADERS,
    Action,
    Observation,
    Outcome,
    Probe,
)

# argv: URL TIMEOUT, or --batch NONCE TIMEOUT (POSITION URL)...: then each fetch of a batch
# prints its own section (batches.section_line's markers), one Python for all of them.
FETCH_SCRIPT = r"""
import json, os, sys, urllib.error, urllib.request
# Always through the proxy the sandbox names: srt lists localhost in NO_PROXY.
for name in ("no_proxy", "NO_PROXY"):
    os.environ.pop(name, None)
proxy = os.environ.get("http_proxy") or os.environ.get("HTTP_PROXY")
opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy} if proxy else {}))
def fetch(url, timeout):
    try:
        with opener.open(url, timeout=timeout) as r:
            return {"status": r.status, "upstream": r.headers.get("x-twsrt-upstream")}
    except urllib.error.HTTPError as e:
        body, reason = e.read(4096).decode("utf-8", "replace"), None
        try:
            reason = json.loads(body).get("reason")
        except Exception:
            pass
        return {"status": e.code, "xpe": e.headers.get("x-proxy-error"), "reason": reason}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
if sys.argv[1] == "--batch":
    nonce, timeout, rest = sys.argv[2], float(sys.argv[3]), sys.argv[4:]
    for position, url in zip(rest[::2], rest[1::2]):
        print(f"@@{nonce}{position}@@", flush=True)
        print("TWSRT-PROBE-NET " + json.dumps(fetch(url, timeout)), flush=True)
        print(f"@@/{nonce}{position}@@ 0", flush=True)
else:
    print("TWSRT-PROBE-NET " + json.dumps(fetch(sys.argv[1], float(sys.argv[2]))))
"""

CONNECT_SCRIPT = r"""
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    print("TWSRT-PROBE allowed")
except OSError as e:
    print("TWSRT-PROBE denied", e)
"""


def _verdict_shell(test: str) -> str:
    return f"if {test}; then echo '{MARK} allowed'; else echo '{MARK} denied'; fi"


# In a batch the Python helpers are set once, in shell variables, instead of once per probe.
HELPERS = {"TWSRT_FETCH": FETCH_SCRIPT, "TWSRT_CONNECT": CONNECT_SCRIPT}
HELPERS_PRELUDE = "\n".join(f"{name}={shlex.quote(text)}" for name, text in HELPERS.items())


def command(
    probe: Probe,
    root: str,
    python: str,
    index: int = 0,
    net_timeout: float = 15,
    helpers: bool = False,
) -> str:
    """The ``sh -c`` text of one probe, with the fixture tree at ``root``; ``helpers``: the
    Python scripts are read from the shell variables ``HELPERS_PRELUDE`` sets."""
    path = probe.target if probe.target.startswith("/") else posixpath.join(root, probe.target)
    if probe.action is Action.READ:
        return _verdict_shell(f"head -c 1 -- {shlex.quote(path)} >/dev/null")
    if probe.action is Action.APPEND:
        # `true >> f` opens f for appending and writes nothing; `true` is not a special
        # built-in, so a refused redirection fails the test instead of ending the shell
        return _verdict_shell(f"true >> {shlex.quote(path)}")
    if probe.action is Action.CREATE:
        unique = f"{path}-{index}"
        return (
            f"f={shlex.quote(unique)}; "
            f'if true > "$f"; then rm -f -- "$f"; echo \'{MARK} allowed\'; '
            f"else echo '{MARK} denied'; fi"
        )
    if probe.action is Action.FETCH:
        return _python_call(python, "TWSRT_FETCH", helpers, probe.target, str(net_timeout))
    return _python_call(python, "TWSRT_CONNECT", helpers, path)


def fetches(python: str, nonce: str, net_timeout: float, targets: list[tuple[int, str]]) -> str:
    """One Python that fetches each (position, URL) of a batch, each in its own section."""
    args = [a for position, url in targets for a in (str(position), url)]
    return _python_call(python, "TWSRT_FETCH", True, "--batch", nonce, str(net_timeout), *args)


def _python_call(python: str, helper: str, by_name: bool, *args: str) -> str:
    text = f'"${helper}"' if by_name else shlex.quote(HELPERS[helper])
    return " ".join([shlex.quote(python), "-c", text, *map(shlex.quote, args)])


def classify_fetch(result: dict[str, Any]) -> Outcome | None:
    """Offline, the proxy's answer is the observable: a refusal by the allow/deny lists is
    DENIED; any answer from past them (the upstream, an upstream error) is ALLOWED; no answer at
    all means the network is cut: DENIED. Codex's ``not_allowed_local`` (its DNS or
    private-address check, which can come before its lists) is None: it proves nothing."""
    if "status" not in result:
        return Outcome.DENIED
    if result["status"] == 403 and result.get("reason") in INCONCLUSIVE_REASONS:
        return None
    header = str(result.get("xpe") or "").lower()
    refused = result["status"] == 403 and header in REFUSAL_HEADERS
    return Outcome.DENIED if refused else Outcome.ALLOWED


def observe(probe: Probe, exit_code: int | None, output: str, seconds: float = 0.0) -> Observation:
    """Parse a probe run's output; without the result line the command did not run."""
    outcome: Outcome | None = None
    answered = False  # a fetch answered, even when the answer proves nothing (outcome None)
    for line in output.splitlines():
        if probe.action is Action.FETCH and line.startswith(NET_MARK + " "):
            try:
                outcome = classify_fetch(json.loads(line[len(NET_MARK) + 1 :]))
                answered = True
            except (ValueError, TypeError, AttributeError):
                outcome, answered = None, False
        elif probe.action is not Action.FETCH and line.startswith(MARK + " "):
            word = line[len(MARK) + 1 :].split(" ", 1)[0]
            outcome = Outcome(word) if word in ("allowed", "denied") else None
    ran = outcome is not None or answered
    return Observation(ran, outcome, exit_code, _tail(output), seconds)


def unanswered_fetch(probe: Probe, seen: Observation) -> bool:
    """A fetch the policy allows that got no answer at all (a connection error or a timeout,
    not a refusal by the lists): under load that can be the machine rather than the sandbox,
    so it earns a second run before it counts as a FAIL."""
    if probe.action is not Action.FETCH or probe.expect is not Outcome.ALLOWED:
        return False
    if seen.outcome is not Outcome.DENIED:
        return False
    lines = [line for line in seen.output.splitlines() if line.startswith(NET_MARK + " ")]
    return bool(lines) and '"status"' not in lines[-1]


def _tail(output: str, limit: int = 2000) -> str:
    text = output.strip()
    return text if len(text) <= limit else "..." + text[-limit:]
