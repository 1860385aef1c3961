"""Real Claude Code 2.1.332: the yolo file keeps WebFetch and WebSearch from hosts the policy
does not allow (TWS638).

WebFetch and WebSearch run in Claude's own process, not in its Bash sandbox, so srt's network
proxy does not hold them; only permission rules do. A yolo file is used with bypassPermissions,
where a call no rule names is approved unasked: the yolo file of a policy allowing github.com
alone fetched a local host, and WebSearch sent its query to the model's server-side search.
A deny outranks an allow (a whole ``WebFetch`` deny beside ``WebFetch(domain:HOST)`` reaches no
host), so twsrt denies both tools whole in the yolo file. The full file keeps its allow rules;
there Claude asks for any other host, and headless (``-p``) nobody answers.

What the runs need, found in the bundle and confirmed here:
- WebFetch upgrades http to https and refuses a host without a dot (``localhost``), so the host
  is an HTTPS server on 127.0.0.1 whose certificate the run trusts (NODE_EXTRA_CA_CERTS).
- Before a fetch Claude asks api.anthropic.com whether the host may be fetched; here that is
  unreachable and the fetch is refused (fail closed, pinned below). The check is a blocklist
  (the setting's own description: "Skip the WebFetch blocklist check"), not the policy's
  allowlist, so where it is reachable it passes whatever host the blocklist lacks (not
  observable offline); every other run sets ``skipWebFetchPreflight`` to stand for that.
- Claude defers its web tools behind ToolSearch; ENABLE_TOOL_SEARCH=false offers them at once,
  so the fake model can call them.

The policy does not allow 127.0.0.1 in any run; each refusal has a run beside it that reaches
the host. About a second per Claude start.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.hitserver import HitServer, hit_server
from support.sandbox import twsrt_command
from support.tools import locate_tool, require_tool

from .claude_client import find_claude, run_bash

pytestmark = pytest.mark.real

POLICY = {"network": {"allowedDomains": ["github.com"]}, "filesystem": {"allowWrite": ["."]}}
WEB_TOOLS = ("WebFetch", "WebSearch")
BYPASS = ["--permission-mode", "bypassPermissions"]
HOST_RULE = "WebFetch(domain:127.0.0.1)"
NOT_GRANTED = "requested permissions to use"
# the twsrt under test where PYTHONPATH names a checkout (the console script may be another's)
SOURCE = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The full and yolo files `twsrt generate claude -w [--yolo]` writes for POLICY."""
    repo = tmp_path_factory.mktemp("repo")
    (repo / ".srt-settings.json").write_text(json.dumps(POLICY))
    (repo / "bash-rules.json").write_text('{"allow": [], "deny": [], "ask": []}\n')
    (repo / "twsrt.toml").write_text(
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\nclaude_settings = "out/settings.full.json"\n'
    )
    for extra in ([], ["--yolo"]):
        proc = subprocess.run(
            [*twsrt_command(), "generate", "claude", "-w", *extra],
            cwd=repo,
            env={"PATH": "/usr/bin:/bin", "HOME": str(repo), "NO_COLOR": "1", **SOURCE},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
    out = repo / "out"
    return {
        mode: json.loads((out / f"settings.{mode}.json").read_text()) for mode in ("full", "yolo")
    }


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key."""
    openssl = require_tool("openssl", locate_tool("openssl", "TWSRT_OPENSSL_BIN"))
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


@pytest.fixture
def host(certificate: tuple[Path, Path]) -> Iterator[HitServer]:
    with hit_server(certificate) as server:
        yield server


def _settings(base: dict[str, Any], preflight: bool = False, **lists: list[str]) -> dict[str, Any]:
    """A copy of ``base`` with permission rules added (``deny=[...]``, ``allow=[...]``) and the
    preflight skipped unless ``preflight``."""
    settings = json.loads(json.dumps(base))
    permissions = settings.setdefault("permissions", {})
    for key, rules in lists.items():
        permissions[key] = [*permissions.get(key, []), *rules]
    if not preflight:
        settings["skipWebFetchPreflight"] = True
    return settings


def _without_web_denies(yolo: dict[str, Any]) -> dict[str, Any]:
    """The yolo file as twsrt wrote it before TWS638: no whole-tool deny, the host allows."""
    settings = json.loads(json.dumps(yolo))
    deny = settings["permissions"]["deny"]
    settings["permissions"]["deny"] = [rule for rule in deny if rule not in WEB_TOOLS]
    settings["permissions"]["allow"] = ["WebFetch(domain:github.com)"]
    return settings


def _call(
    tmp_path: Path,
    settings: dict[str, Any],
    mode: list[str],
    tool: str,
    call: dict[str, Any],
    certificate: tuple[Path, Path],
) -> tuple[str | None, list[dict[str, Any]]]:
    """One Claude start whose fake model calls ``tool`` once: its result (None: never run, as
    for a tool Claude does not offer) and the requests the fake model got."""
    home, cwd = tmp_path / "home", tmp_path / "work"
    home.mkdir(parents=True)
    cwd.mkdir()
    env = {
        "IS_SANDBOX": "1",  # Claude refuses bypassPermissions as root otherwise
        "ENABLE_TOOL_SEARCH": "false",
        "NODE_EXTRA_CA_CERTS": str(certificate[0]),
    }
    run = run_bash(
        find_claude(),
        settings,
        [],
        home,
        cwd,
        env,
        tool=tool,
        inputs=[call],
        argv_extra=mode,
        allow_tool=False,
    )
    return run.outputs[0], run.requests


def _fetch(
    tmp_path: Path,
    settings: dict[str, Any],
    mode: list[str],
    host: HitServer,
    certificate: tuple[Path, Path],
    base: str | None = None,
) -> tuple[bool, str | None]:
    """Whether WebFetch reached ``host`` (the run's own tag among its hits), and its result;
    ``base``: another spelling of the host's URL."""
    tag = f"/{tmp_path.name}"
    call = {"url": (base or host.url) + tag, "prompt": "Repeat the page."}
    output, _requests = _call(tmp_path, settings, mode, "WebFetch", call, certificate)
    return tag in host.hits, output


def test_without_the_denies_the_yolo_file_fetches_any_host(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """The widening, and the control of the test below: bypassPermissions approves a host no
    rule names."""
    settings = _settings(_without_web_denies(generated["yolo"]))
    reached, output = _fetch(tmp_path, settings, BYPASS, host, certificate)
    assert reached, output


def test_generated_yolo_file_fetches_no_host(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    assert [r for r in generated["yolo"]["permissions"]["deny"] if r in WEB_TOOLS] == [
        "WebFetch",
        "WebSearch",
    ]
    assert not any(r.startswith("WebFetch(") for r in generated["yolo"]["permissions"]["allow"])
    reached, output = _fetch(tmp_path, _settings(generated["yolo"]), BYPASS, host, certificate)
    assert not reached and output is None, output  # a denied tool is not offered at all


def test_an_allow_rule_reaches_its_host(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """The control of the two refusals below: the full file plus an allow rule for the host,
    headless in the default mode, fetches it."""
    settings = _settings(generated["full"], allow=[HOST_RULE])
    reached, output = _fetch(tmp_path, settings, [], host, certificate)
    assert reached, output


def test_a_whole_deny_outranks_a_host_allow(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """Why the yolo file keeps no allowed host: nothing narrower than the whole deny holds."""
    settings = _settings(generated["full"], deny=["WebFetch"], allow=[HOST_RULE])
    reached, output = _fetch(tmp_path, settings, BYPASS, host, certificate)
    assert not reached and output is None, output


def test_full_file_headless_refuses_an_unlisted_host(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """The full file asks for a host no rule names; in `-p` nobody answers and nothing is
    fetched (the control is the allow rule above)."""
    reached, output = _fetch(tmp_path, _settings(generated["full"]), [], host, certificate)
    assert not reached and output is not None and NOT_GRANTED in output, output


def test_bypass_mode_with_the_full_file_fetches_any_host(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """What TWS603 reports: ``defaultMode: bypassPermissions`` beside the full file approves
    the host the full file asks for (the test above, without the key)."""
    settings = _settings(generated["full"])
    settings["permissions"]["defaultMode"] = "bypassPermissions"
    reached, output = _fetch(tmp_path, settings, [], host, certificate)
    assert reached, output


def test_an_unreachable_preflight_refuses_the_fetch(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """Without skipWebFetchPreflight the domain check cannot reach Anthropic here and the
    fetch fails closed (the control: the first test, which skips the check)."""
    settings = _settings(_without_web_denies(generated["yolo"]), preflight=True)
    reached, output = _fetch(tmp_path, settings, BYPASS, host, certificate)
    assert not reached and output is not None and "Unable to verify" in output, output


def test_the_url_forms_webfetch_fetches(
    tmp_path: Path, generated: dict[str, Any], host: HitServer, certificate: tuple[Path, Path]
) -> None:
    """Why the tests serve https on 127.0.0.1: an http URL is fetched over https (it reaches
    the HTTPS server), and a host without a dot is refused before any rule is read."""
    settings = _settings(_without_web_denies(generated["yolo"]))
    plain = f"http://127.0.0.1:{host.port}"
    reached, output = _fetch(tmp_path / "http", settings, BYPASS, host, certificate, plain)
    assert reached, output
    local = f"https://localhost:{host.port}"
    reached, output = _fetch(tmp_path / "local", settings, BYPASS, host, certificate, local)
    assert not reached and output is not None and "without a dot" in output, output


def _search(
    tmp_path: Path, settings: dict[str, Any], certificate: tuple[Path, Path]
) -> tuple[str | None, bool]:
    """One WebSearch call under bypassPermissions: its result, and whether the fake model was
    asked to run the server-side web search with the query."""
    query = f"query-{tmp_path.name}"
    output, requests = _call(tmp_path, settings, BYPASS, "WebSearch", {"query": query}, certificate)
    searched = any(
        query in json.dumps(body.get("messages"))
        and any("web_search" in str(tool.get("type", "")) for tool in body.get("tools") or [])
        for body in requests
    )
    return output, searched


def test_without_the_denies_the_yolo_file_searches_the_web(
    tmp_path: Path, generated: dict[str, Any], certificate: tuple[Path, Path]
) -> None:
    output, searched = _search(
        tmp_path, _settings(_without_web_denies(generated["yolo"])), certificate
    )
    assert searched, output


def test_generated_yolo_file_searches_nothing(
    tmp_path: Path, generated: dict[str, Any], certificate: tuple[Path, Path]
) -> None:
    output, searched = _search(tmp_path, _settings(generated["yolo"]), certificate)
    assert not searched and output is None, output
