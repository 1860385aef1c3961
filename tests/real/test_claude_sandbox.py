"""Real Claude Code 2.1.332: what its Bash tool may do under the settings twsrt generates.

Claude is driven headless against a local fake Messages API (tests/real/claude_client.py): the
fake model asks the Bash tool to run one probe script, and the script's own report plus the files
left on disk say which forbidden actions went through. The same script runs in srt on the
canonical policy, so "forbidden" means what srt forbids.

- Issue 12 item 1: a Claude settings file without ``sandbox.enabled`` (what twsrt wrote before)
  enforces nothing: reads of a denyRead file and create/append/rename/mkdir/delete inside a
  denyWrite directory all succeed. The generated file (``"enabled": true``) stops every one.
- Item 6: Claude anchors a relative sandbox path in user settings at ~/.claude. For the
  relative denyRead ``**/*.pem`` that is not a gap, because Claude merges the ``Read(**/*.pem)``
  rule twsrt emits beside it into its sandbox at the working directory (TWS416, note): Bash
  cannot read the project's .pem. The documented gap (TWS402, warning) is a relative
  ``credentials.files`` path: no rule carries it, and Bash reads the project's file.
- Key completeness: srt's credentials section compiled into ``sandbox.credentials`` is enforced
  (a denied file and a denied variable); srt's own shape with ``extract`` beside ``decode`` makes
  Claude drop the whole settings file, which is why twsrt rewrites it (TWS415).

Four process starts in all: one srt, three Claude (about a second each).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.sandbox import twsrt_command
from support.tools import locate_tool, require_tool

from .claude_client import find_claude, run_bash

pytestmark = pytest.mark.real

SRT_BIN = "/opt/twsrt-tools/srt/bin/srt"
TOKEN = "probe-token-value"

POLICY: dict[str, Any] = {
    "filesystem": {
        "denyRead": ["~/secret.txt", "**/*.pem"],
        "denyWrite": ["~/work/locked"],
        "allowWrite": ["~/work"],
    },
    "network": {"allowedDomains": [], "deniedDomains": []},
    "credentials": {
        "files": [{"path": "~/cred.txt", "mode": "deny"}, {"path": "rel-cred.txt", "mode": "deny"}],
        "envVars": [
            {"name": "PROBE_TOKEN", "mode": "deny"},
            # srt takes extract beside decode (and ignores it); Claude rejects the pair
            {"name": "ID_TOKEN", "mode": "mask", "decode": "jwt", "extract": "(.*)"},
        ],
        "allowPlaintextInject": True,  # srt refuses masking without TLS termination otherwise
    },
}
BASH_RULES = {"deny": [], "ask": [], "allow": []}

# Actions srt forbids under POLICY; each probe prints "<name>:ok" or "<name>:denied".
FORBIDDEN = ("read", "cred", "env", "create", "append", "rename", "mkdir", "delete", "pem-project")


def _probes(home: Path) -> list[tuple[str, str]]:
    work, locked = home / "work", home / "work" / "locked"

    def q(path: Path) -> str:
        return shlex.quote(str(path))

    return [
        ("read", f"cat {q(home / 'secret.txt')}"),
        ("cred", f"cat {q(home / 'cred.txt')}"),
        ("env", 'test -n "$PROBE_TOKEN"'),
        ("create", f"echo x > {q(locked / 'new.txt')}"),
        ("append", f"echo x >> {q(locked / 'a.txt')}"),
        ("rename", f"mv {q(locked / 'b.txt')} {q(locked / 'b2.txt')}"),
        ("mkdir", f"mkdir {q(locked / 'sub')}"),
        ("delete", f"rm {q(locked / 'c.txt')}"),
        ("pem-project", f"cat {q(work / 'key.pem')}"),
        ("pem-claude", f"cat {q(home / '.claude' / 'key.pem')}"),
        ("rel-cred-project", f"cat {q(work / 'rel-cred.txt')}"),
        ("write-work", f"echo x > {q(work / 'free.txt')}"),
    ]


def probe_script(home: Path) -> str:
    lines = [
        f'if ( {command} ) >/dev/null 2>&1; then echo "{name}:ok"; else echo "{name}:denied"; fi'
        for name, command in _probes(home)
    ]
    return "\n".join(lines)


def make_tree(root: Path) -> Path:
    """A HOME with the files the probes aim at; returns it."""
    home = root / "home"
    locked = home / "work" / "locked"
    locked.mkdir(parents=True)
    (home / ".claude").mkdir()
    (home / "secret.txt").write_text("TOPSECRET\n")
    (home / "cred.txt").write_text("password=hunter2\n")
    for name in ("a.txt", "b.txt", "c.txt"):
        (locked / name).write_text("original\n")
    (home / "work" / "key.pem").write_text("PROJECT KEY\n")
    (home / ".claude" / "key.pem").write_text("CLAUDE KEY\n")
    (home / "work" / "rel-cred.txt").write_text("token=relative\n")
    return home


def verdicts(output: str | None) -> dict[str, str]:
    assert output is not None, "the probe script never ran"
    pairs = [line.split(":", 1) for line in output.splitlines() if ":" in line]
    return {name: verdict for name, verdict in pairs if verdict in ("ok", "denied")}


def host_changes(home: Path) -> dict[str, bool]:
    """What the write probes changed on disk (the ground truth beside their own report)."""
    locked = home / "work" / "locked"
    return {
        "create": (locked / "new.txt").exists(),
        "append": (locked / "a.txt").read_text() != "original\n",
        "rename": (locked / "b2.txt").exists(),
        "mkdir": (locked / "sub").exists(),
        "delete": not (locked / "c.txt").exists(),
    }


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The Claude settings `twsrt generate claude -w` writes for POLICY."""
    repo = tmp_path_factory.mktemp("repo")
    (repo / ".srt-settings.json").write_text(json.dumps(POLICY, indent=2) + "\n")
    (repo / "bash-rules.json").write_text(json.dumps(BASH_RULES) + "\n")
    (repo / "twsrt.toml").write_text(
        '[sources]\nsrt = ".srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\nclaude_settings = "out/settings.full.json"\n'
    )
    proc = subprocess.run(
        [*twsrt_command(), "generate", "claude", "-w", "-v"],
        cwd=repo,
        env={"PATH": "/usr/bin:/bin", "HOME": str(repo), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    for rule in ("TWS402", "TWS415", "TWS416"):
        assert rule in proc.stderr, proc.stderr
    return json.loads((repo / "out" / "settings.full.json").read_text())


def _claude(tmp_path: Path, settings: dict[str, Any]) -> tuple[dict[str, str], dict[str, bool]]:
    home = make_tree(tmp_path)
    run = run_bash(
        find_claude(),
        settings,
        [probe_script(home)],
        home=home,
        cwd=home / "work",
        env={"PROBE_TOKEN": TOKEN},
    )
    return verdicts(run.outputs[0]), host_changes(home)


def test_srt_forbids_every_probe(tmp_path: Path) -> None:
    """The reference: srt on the canonical policy denies each forbidden action (the relative
    ``**/*.pem`` too, anchored at the working directory) and still lets the write root work."""
    srt = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_BIN))
    home = make_tree(tmp_path)
    settings = tmp_path / "srt.json"
    settings.write_text(json.dumps(POLICY))
    proc = subprocess.run(
        [srt, "--settings", str(settings), "-c", probe_script(home)],
        cwd=home / "work",
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "PROBE_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    got = verdicts(proc.stdout)
    assert {name: got[name] for name in FORBIDDEN} == dict.fromkeys(FORBIDDEN, "denied"), got
    assert got["rel-cred-project"] == "denied" and got["write-work"] == "ok", got
    assert not any(host_changes(home).values()), host_changes(home)


def test_without_enabled_claude_enforces_nothing(tmp_path: Path, generated: dict[str, Any]) -> None:
    """The file as twsrt wrote it before issue 12: the same sandbox section, no ``enabled``.
    Claude Code treats that as off, and every action srt forbids goes through."""
    old = json.loads(json.dumps(generated))
    del old["sandbox"]["enabled"]
    got, changed = _claude(tmp_path, old)
    assert {name: got.get(name) for name in FORBIDDEN} == dict.fromkeys(FORBIDDEN, "ok"), got
    assert all(changed.values()), changed


def test_generated_settings_stop_every_probe(tmp_path: Path, generated: dict[str, Any]) -> None:
    """The generated file: the sandbox is on and denies what srt denies, the project's .pem
    included (the Read rule carries the relative deny there). Documented gap (TWS402): the
    relative credential path protects ~/.claude/rel-cred.txt only, so Bash reads the
    project's file, which srt hides."""
    assert generated["sandbox"]["enabled"] is True
    got, changed = _claude(tmp_path, generated)
    assert {name: got.get(name) for name in FORBIDDEN} == dict.fromkeys(FORBIDDEN, "denied"), got
    assert not any(changed.values()), changed
    assert got["write-work"] == "ok", got
    assert got["pem-claude"] == "denied", got
    assert got["rel-cred-project"] == "ok", got  # the gap TWS402 reports


def test_srt_credentials_shape_makes_claude_drop_the_file(
    tmp_path: Path, generated: dict[str, Any]
) -> None:
    """Copied as srt has it (``extract`` beside ``decode``), the credentials section is invalid
    for Claude, which then ignores the whole file: even the denyRead is gone. twsrt leaves the
    ignored ``extract`` out (TWS415), as the test above runs."""
    raw = json.loads(json.dumps(generated))
    raw["sandbox"]["credentials"] = POLICY["credentials"]
    assert raw != generated
    got, _ = _claude(tmp_path, raw)
    assert got.get("read") == "ok", got
