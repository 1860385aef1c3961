"""A local stand-in for a host on the internet, for the real-tool tests that ask whether a
sandboxed command reached the network: an HTTP server on 127.0.0.1 that answers every GET
with 200 "ok" and records the path asked for, so a test tags each request with the run it came
from and looks the tag up."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class HitServer:
    port: int
    hits: list[str] = field(default_factory=list)  # the paths asked for, in arrival order
    scheme: str = "http"

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"


@contextmanager
def hit_server(tls: tuple[Path, Path] | None = None) -> Iterator[HitServer]:
    """A running server of its own (a fresh list of hits), shut down on exit; ``tls``: the
    certificate and key files of an HTTPS server."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server hook name)
            hits.append(self.path)
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield HitServer(server.server_address[1], hits, "http" if tls is None else "https")
    finally:
        server.shutdown()
        server.server_close()
