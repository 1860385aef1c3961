"""srt's proxy-port keys hand the sandbox's traffic to another proxy, past the allowlist (real
srt 0.0.83): a host outside allowedDomains is refused by srt's own proxy (the control) and
reaches a loopback stub proxy once ``network.httpProxyPort`` or ``network.socksProxyPort``
names it. So srtkeys.py counts both as grants, and a project that sets one is TWS225."""

from __future__ import annotations

import json
import socketserver
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from support.policies import make_policy

from twsrt.agents.srtkeys import SRT_KEYS
from twsrt.narrowing import narrowing_findings
from twsrt.testing.engines import upstream_stub

from .codex_client import FETCH_SCRIPT

pytestmark = pytest.mark.real

HOST = "forbidden.test"  # outside the allowlist; only a proxy that asks no one answers it
MARKER = b"twsrt-socks-stub"


def settings(**network: Any) -> dict[str, Any]:
    return {
        "network": {"allowedDomains": ["github.com"], "deniedDomains": [], **network},
        "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []},
    }


def run_srt(srt: str, tmp: Path, document: dict[str, Any], command: str) -> str:
    path = tmp / "srt-settings.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    (tmp / "fetch.py").write_text(FETCH_SCRIPT, encoding="utf-8")
    proc = subprocess.run(
        [srt, "--settings", str(path), "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp)},
    )
    return proc.stdout + proc.stderr


def fetched(output: str) -> dict[str, Any]:
    line = next(line for line in output.splitlines() if line.startswith("FETCH "))
    return json.loads(line.removeprefix("FETCH "))


def test_http_proxy_port_hands_traffic_past_the_allowlist(srt: str, tmp_path: Path) -> None:
    assert SRT_KEYS["/network/httpProxyPort"].effect == "grants"
    fetch = f"python3 fetch.py http://{HOST}/ proxy"
    with upstream_stub() as url:
        port = int(url.rsplit(":", 1)[1])
        control = fetched(run_srt(srt, tmp_path, settings(), fetch))
        assert control["status"] == 403 and control["xpe"] == "blocked-by-allowlist", control
        handed = fetched(run_srt(srt, tmp_path, settings(httpProxyPort=port), fetch))
    assert handed == {"status": 200, "body": "twsrt upstream stub\n"}


class _Socks(socketserver.BaseRequestHandler):
    """A SOCKS5 proxy that asks no one: it accepts any method and any target, and answers the
    first request on the tunnel itself, naming the host it was asked for."""

    def handle(self) -> None:
        conn = self.request
        _version, count = conn.recv(2)
        methods = conn.recv(count)
        method = 2 if 2 in methods else 0
        conn.sendall(bytes([5, method]))
        if method == 2:  # username/password: take whatever comes
            _ver, ulen = conn.recv(2)
            conn.recv(ulen)
            (plen,) = conn.recv(1)
            conn.recv(plen)
            conn.sendall(b"\x01\x00")
        _ver, _cmd, _rsv, kind = conn.recv(4)
        if kind == 3:
            (length,) = conn.recv(1)
            host = conn.recv(length)
        else:
            host = conn.recv(4 if kind == 1 else 16)
        conn.recv(2)  # the port
        conn.sendall(b"\x05\x00\x00\x01" + bytes(6))
        conn.recv(65536)  # the tunnelled request
        body = MARKER + b" " + host
        head = f"HTTP/1.0 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        conn.sendall(head + body)


@contextmanager
def socks_stub() -> Iterator[int]:
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Socks)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_socks_proxy_port_hands_traffic_past_the_allowlist(srt: str, tmp_path: Path) -> None:
    assert SRT_KEYS["/network/socksProxyPort"].effect == "grants"
    # srt names its SOCKS proxy (with the credentials it wants) in FTP_PROXY inside the sandbox
    curl = f'curl -s -m 20 -x "$FTP_PROXY" http://{HOST}/; echo " rc=$?"'
    with socks_stub() as port:
        control = run_srt(srt, tmp_path, settings(), curl)
        assert MARKER.decode() not in control and " rc=0" not in control, control
        handed = run_srt(srt, tmp_path, settings(socksProxyPort=port), curl)
    assert f"{MARKER.decode()} {HOST} rc=0" in handed, handed


def test_a_project_that_sets_a_proxy_port_widens_the_user_policy() -> None:
    user = make_policy(settings())
    for key in ("httpProxyPort", "socksProxyPort"):
        project = make_policy(settings(**{key: 3128}))
        [found] = narrowing_findings(project, user, replacing=())
        assert (found.rule_id, found.location.pointer) == ("TWS225", f"/network/{key}")
        assert found.message.startswith(f"project 'network.{key}' grants more than the user")
