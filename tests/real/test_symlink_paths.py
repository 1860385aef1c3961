"""Real Codex (0.171.0) on paths that go through a symlink: the engine behaviour that the
`symlinked-policy-path` warning (TWS220) protects against, and that the warning fires for it.

The profiles are written by hand, in the form twsrt compiles (a write root under
``workspace_roots``, a denyWrite tree as ``"P" = "read"``, a denyRead as ``"P" = "deny"``), so the
tests pin the engine and not one version of the compiler. The trees live outside /tmp: Codex's
``:workspace`` makes /tmp writable, which would blur what the write probes show.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from twsrt.hostchecks import symlink_findings
from twsrt.jsonpos import parse_json
from twsrt.sources import build_policy

from .codex_client import codex_bin, sandbox_run

pytestmark = pytest.mark.real


@pytest.fixture(scope="session")
def codex() -> str:
    return codex_bin()


@pytest.fixture
def base() -> Iterator[Path]:
    parent = "/var/tmp" if Path("/var/tmp").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="twsrt-symlink-", dir=parent) as tmp:
        yield Path(tmp)


def profile(roots: list[Path], entries: dict[Path, str]) -> str:
    lines = [
        'default_permissions = "twsrt"',
        'approval_policy = "on-request"',
        "",
        "[permissions.twsrt]",
        'extends = ":workspace"',
        "",
        "[permissions.twsrt.workspace_roots]",
        *(f'"{root}" = true' for root in roots),
        "",
        "[permissions.twsrt.filesystem]",
        *(f'"{path}" = "{access}"' for path, access in entries.items()),
    ]
    return "\n".join(lines) + "\n"


def warned(srt: dict, home: Path, cwd: Path) -> list[str]:
    """The policy pointers `twsrt check` warns about (TWS220) on this tree."""
    policy = build_policy(parse_json(json.dumps(srt)), "srt.json", parse_json("{}"), "bash.json")
    return [f.location.pointer for f in symlink_findings(policy, home, cwd)]


def test_write_root_and_deny_spelled_differently_leave_the_denied_tree_writable(
    codex: str, base: Path
) -> None:
    """A write root given through a symlink plus a denyWrite spelled by the real path (and the
    reverse) lets Codex create files inside the denied directory; spelled alike, it is denied."""
    (base / "real" / "secrets").mkdir(parents=True)
    (base / "link").symlink_to("real")
    work = base / "work"
    work.mkdir()
    real, link = base / "real", base / "link"
    cases = [
        ("link root, real deny", [link], real / "secrets", True),
        ("real root, link deny", [real], link / "secrets", True),
        ("real root, real deny (control)", [real], real / "secrets", False),
    ]
    for index, (label, roots, deny, writable) in enumerate(cases):
        target = real / "secrets" / f"new-{index}"
        rc, out = sandbox_run(
            codex, profile(roots, {deny: "read"}), f"echo x > '{target}'", work, base
        )
        assert (rc == 0 and target.exists()) is writable, (label, rc, out)
    srt = {"filesystem": {"allowWrite": [str(link)], "denyWrite": [f"{real}/secrets"]}}
    assert warned(srt, base, work) == ["/filesystem/allowWrite/0"]
    srt = {"filesystem": {"allowWrite": [str(real)], "denyWrite": [f"{link}/secrets"]}}
    assert warned(srt, base, work) == ["/filesystem/denyWrite/0"]


def test_deny_read_through_a_symlink_in_a_writable_directory_stops_every_start(
    codex: str, base: Path
) -> None:
    """A denyRead naming a symlinked directory inside the workspace (or any write root) makes
    Codex refuse to build its sandbox, so no command runs at all; the real path works."""
    (base / "store").mkdir()
    (base / "store" / "key").write_text("twsrt-secret\n")
    work = base / "work"
    work.mkdir()
    (work / "secrets").symlink_to(base / "store")
    rc, out = sandbox_run(codex, profile([], {work / "secrets": "deny"}), "true", work, base)
    assert rc != 0 and "crosses writable symlink" in out, out
    rc, out = sandbox_run(
        codex, profile([], {base / "store": "deny"}), "echo started; cat secrets/key", work, base
    )
    assert "started" in out and "twsrt-secret" not in out, out
    srt = {"filesystem": {"denyRead": ["secrets"], "allowWrite": ["."]}}
    assert warned(srt, base, work) == ["/filesystem/denyRead/0"]
