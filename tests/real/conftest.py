"""Fixtures of the real-tool tests: the tools, the engines of `twsrt test`, a local upstream."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from support.fake_chat import FakeChat
from support.tools import locate_tool, require_tool

from twsrt.agents.codex.engine import CodexEngine
from twsrt.testing.engine_srt import SrtEngine
from twsrt.testing.engines import make_engine

from .codex_client import codex_bin, serve_upstream


@pytest.fixture(scope="session")
def srt() -> str:
    path = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", "/opt/twsrt-tools/srt/bin/srt"))
    for tool in ("bwrap", "socat", "rg"):
        require_tool(tool, shutil.which(tool))
    return path


@pytest.fixture(scope="session")
def codex() -> str:
    return codex_bin()


@pytest.fixture(scope="session")
def factory(srt: str, codex: str) -> Any:
    def make(name: str) -> Any:
        if name == "srt":
            return SrtEngine(srt)
        return CodexEngine(codex) if name == "codex" else make_engine(name)

    return make


@pytest.fixture
def upstream() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 (outside the sandbox); yields its port."""
    with serve_upstream() as port:
        yield port


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeChat]:
    """A local fake chat model (support/fake_chat.py) for one test module's headless runs."""
    with FakeChat().serving() as server:
        yield server
