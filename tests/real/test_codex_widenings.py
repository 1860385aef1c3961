"""Widenings of the Codex target found with the real Codex CLI (0.171.0), each tried with the
forbidden action itself (create, append, truncate, mkdir, delete, rename, symlink, hardlink),
not only a read, and judged by what the host filesystem holds afterwards.

- A denyWrite that names a tree (``P``, ``P/``, ``P/**``) denies every change inside it and to
  P itself, also when P does not exist when the sandbox starts, and also by renaming a
  directory between the write root and P away and re-creating the path.
- Only the policy's write roots are writable: not the launch directory (unless ``.`` is an
  allowWrite root), not /tmp, not $TMPDIR; under read-only, nothing.
- A relative deny glob covers the launch directory only, as in srt: Codex does not scan the
  write roots for it when it starts.
- ``..`` folds where it has one meaning, and the profile loads.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from twsrt.agents.codex import agent as codex
from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy

from .codex_client import codex_bin, config_loads, sandbox_run

pytestmark = pytest.mark.real


@pytest.fixture(scope="session")
def codex_cli() -> str:
    return codex_bin()


def profile(srt: dict, mode: str = "workspace-write") -> str:
    policy = with_root_names(
        build_policy(parse_json(json.dumps(srt)), "srt.json", parse_json("{}"), "bash.json")
    )
    compiled, _ = codex.translate(policy, mode)
    return codex.merged_config(None, compiled)


def snapshot(root: Path) -> dict[str, str]:
    """Every path below root (symlinks as links) with its content: what an attack changed."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "-> " + str(path.readlink())
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = path.read_text(errors="replace")
    return out


# Each attack tries to change the denied tree P (= ~/proj/a/secrets) under the write root ~/proj.
TREE_ATTACKS = {
    "create": "echo x > ~/proj/a/secrets/new",
    "append": "echo x >> ~/proj/a/secrets/old",
    "truncate": ": > ~/proj/a/secrets/old",
    "mkdir": "mkdir ~/proj/a/secrets/d",
    "delete": "rm -f ~/proj/a/secrets/old",
    "rename-out": "mv ~/proj/a/secrets/old ~/proj/out",
    "rename-in": "echo x > ~/proj/in && mv ~/proj/in ~/proj/a/secrets/in",
    "rename-tree": "mv ~/proj/a/secrets ~/proj/moved",
    "delete-tree": "rm -rf ~/proj/a/secrets",
    "rename-parent": (
        "mv ~/proj/a ~/proj/z; mkdir -p ~/proj/a/secrets; echo x > ~/proj/a/secrets/new"
    ),
    "symlink": "ln -s /etc/hostname ~/proj/a/secrets/link",
    "symlink-through": "ln -s ~/proj/a/secrets ~/proj/l && echo x > ~/proj/l/new",
    "hardlink-out": "ln ~/proj/a/secrets/old ~/proj/hl && echo x >> ~/proj/hl",
    "hardlink-in": "echo x > ~/proj/f && ln ~/proj/f ~/proj/a/secrets/f",
    "chmod": "chmod 666 ~/proj/a/secrets/old",
}
MISSING_ATTACKS = {
    "mkdir-tree": "mkdir -p ~/proj/a/secrets && echo x > ~/proj/a/secrets/new",
    "file-tree": "echo x > ~/proj/a/secrets",
    "rename-parent": "mv ~/proj/a ~/proj/z; mkdir -p ~/proj/a/secrets; echo x > ~/proj/a/secrets/n",
    "symlink-tree": "ln -s ~/proj ~/proj/a/secrets",
}


@pytest.mark.parametrize(
    "spelling", ["~/proj/a/secrets", "~/proj/a/secrets/", "~/proj/a/secrets/**"]
)
def test_tree_deny_refuses_every_change(codex_cli: str, tmp_path: Path, spelling: str) -> None:
    config = profile({"filesystem": {"allowWrite": ["~/proj"], "denyWrite": [spelling]}})
    failures = []
    for name, attack in TREE_ATTACKS.items():
        home = tmp_path / name / "home"
        secrets = home / "proj" / "a" / "secrets"
        (secrets / "sub").mkdir(parents=True)
        (secrets / "old").write_text("old\n")
        before = snapshot(home / "proj" / "a")
        rc, out = sandbox_run(codex_cli, config, attack, home / "proj", home)
        if snapshot(home / "proj" / "a") != before:
            failures.append((name, rc, out))
    # the write root itself stays writable: the denies do not lock it
    rc, out = sandbox_run(codex_cli, config, "echo ok > ~/proj/a/ok", home / "proj", home)
    assert rc == 0 and (home / "proj" / "a" / "ok").read_text() == "ok\n", out
    assert not failures, failures


@pytest.mark.parametrize("spelling", ["~/proj/a/secrets", "~/proj/a/secrets/**"])
def test_tree_deny_holds_when_the_tree_is_missing(
    codex_cli: str, tmp_path: Path, spelling: str
) -> None:
    """Codex puts a placeholder where a missing deny target would be, so the sandboxed command
    cannot create it, and renaming its parent away does not help either."""
    config = profile({"filesystem": {"allowWrite": ["~/proj"], "denyWrite": [spelling]}})
    failures = []
    for name, attack in MISSING_ATTACKS.items():
        home = tmp_path / name / "home"
        (home / "proj" / "a").mkdir(parents=True)
        rc, out = sandbox_run(codex_cli, config, attack, home / "proj", home)
        if snapshot(home / "proj") != {"a": "dir"}:
            failures.append((name, rc, out, snapshot(home / "proj")))
    assert not failures, failures


def test_tree_deny_read_hides_new_files_too(codex_cli: str, tmp_path: Path) -> None:
    config = profile({"filesystem": {"allowWrite": ["~/proj"], "denyRead": ["~/proj/keys/**"]}})
    home = tmp_path / "home"
    (home / "proj" / "keys").mkdir(parents=True)
    (home / "proj" / "keys" / "a.pem").write_text("MARK-OLD\n")
    attack = "echo MARK-NEW > ~/proj/keys/b.pem; cat ~/proj/keys/a.pem ~/proj/keys/b.pem"
    rc, out = sandbox_run(codex_cli, config, attack, home / "proj", home)
    assert "MARK-OLD\n" not in out and "MARK-NEW\n" not in out, out
    assert sorted(p.name for p in (home / "proj" / "keys").iterdir()) == ["a.pem"]


def _write_probe(codex_cli: str, config: str, target: str, cwd: Path, home: Path) -> bool:
    rc, _ = sandbox_run(codex_cli, config, f'echo x > "{target}" && rm "{target}"', cwd, home)
    return rc == 0


@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
@pytest.mark.parametrize("dot", [False, True])
def test_only_the_policy_write_roots_are_writable(
    codex_cli: str, tmp_path: Path, mode: str, dot: bool
) -> None:
    """The launch directory is writable only when `.` is an allowWrite root, /tmp and $TMPDIR
    never unless named, and read-only writes nowhere."""
    home, work = tmp_path / "home", tmp_path / "home" / "work"
    (home / "proj").mkdir(parents=True)
    work.mkdir()
    roots = ["~/proj", *(["."] if dot else [])]
    config = profile({"filesystem": {"allowWrite": roots}}, mode)
    name = f"twsrt-widening-{uuid.uuid4().hex}"
    observed = {
        "launch directory": _write_probe(codex_cli, config, "made", work, home),
        "root": _write_probe(codex_cli, config, f"{home}/proj/made", work, home),
        "/tmp": _write_probe(codex_cli, config, f"/tmp/{name}", work, home),
        "$TMPDIR": _write_probe(codex_cli, config, "$TMPDIR/made", work, home),
    }
    writable = mode == "workspace-write"
    assert observed == {
        "launch directory": writable and dot,
        "root": writable,
        "/tmp": False,
        "$TMPDIR": False,
    }
    assert not Path("/tmp", name).exists()


def test_relative_deny_glob_covers_the_launch_directory_only(
    codex_cli: str, tmp_path: Path
) -> None:
    """`**/.env` anchors at the launch directory, as in srt: Codex does not scan the write root
    /srv-like `data` for it at start (a scan of a busy /tmp made Codex starts fail)."""
    home, work, data = tmp_path / "home", tmp_path / "home" / "work", tmp_path / "data"
    for directory in (work / "sub", data / "x"):
        directory.mkdir(parents=True)
        (directory / ".env").write_text("env-secret\n")
    config = profile({"filesystem": {"allowWrite": [".", str(data)], "denyRead": ["**/.env"]}})
    rc, out = sandbox_run(codex_cli, config, "cat sub/.env", work, home)
    assert rc != 0 and "env-secret" not in out, out
    rc, out = sandbox_run(codex_cli, config, f"cat {data}/x/.env", work, home)
    assert rc == 0 and "env-secret" in out, out


def test_dot_components_fold_and_load(codex_cli: str, tmp_path: Path) -> None:
    config = profile(
        {"filesystem": {"allowWrite": ["~/proj/./a/.."], "denyWrite": ["~/proj/x/../secrets"]}}
    )
    assert '"~/proj/secrets" = "read"' in config and "/.." not in config
    ok, output = config_loads(codex_cli, config)
    assert ok, output
    home = tmp_path / "home"
    (home / "proj" / "secrets").mkdir(parents=True)
    rc, out = sandbox_run(codex_cli, config, "echo x > ~/proj/secrets/new", home / "proj", home)
    assert rc != 0 and not (home / "proj" / "secrets" / "new").exists(), out


def test_a_busy_write_root_does_not_stop_codex_starting(codex_cli: str, tmp_path: Path) -> None:
    """A relative `**` deny glob with a write root that other processes change: Codex walked
    every workspace root for the glob at start and aborted when an entry vanished mid-walk
    (12 of 20 starts failed under the old `workspace_roots` compile). The write root is now a
    plain entry, so only the launch directory is walked."""
    import shutil
    import threading

    home, busy = tmp_path / "home", tmp_path / "busy"
    (home / "work").mkdir(parents=True)
    for index in range(100):
        (busy / f"d{index}").mkdir(parents=True)
        for name in range(10):
            (busy / f"d{index}" / f"f{name}").write_text("x")
    config = profile({"filesystem": {"allowWrite": [".", str(busy)], "denyWrite": ["**/.env"]}})
    stop = threading.Event()

    def churn() -> None:
        count = 0
        while not stop.is_set():
            directory = busy / f"churn{count % 20}"
            try:
                (directory / "sub").mkdir(parents=True)
                (directory / "f").write_text("y")
                shutil.rmtree(directory)
            except OSError:
                pass
            count += 1

    threads = [threading.Thread(target=churn) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        failed = []
        for _ in range(10):
            rc, out = sandbox_run(codex_cli, config, "true", home / "work", home)
            if rc != 0:
                failed.append(out)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert not failed, failed


def test_credential_files_are_denied(codex_cli: str, tmp_path: Path) -> None:
    """srt adds `credentials.files` entries with mode deny to its read denies; Codex gets them
    as denies, and a file srt would mask is denied too (Codex cannot mask)."""
    srt = {
        "filesystem": {"allowWrite": ["~/proj"]},
        "credentials": {
            "files": [
                {"path": "~/proj/cfg/token", "mode": "deny"},
                {"path": "~/.npmrc", "mode": "mask", "extract": "_authToken=(.*)"},
            ]
        },
    }
    config = profile(srt)
    home = tmp_path / "home"
    (home / "proj" / "cfg").mkdir(parents=True)
    (home / "proj" / "cfg" / "token").write_text("MARK-TOKEN\n")
    (home / ".npmrc").write_text("_authToken=MARK-NPM\n")
    for attack in (
        "cat ~/proj/cfg/token",
        "cat ~/.npmrc",
        "mv ~/proj/cfg ~/proj/c2; cat ~/proj/c2/token",
        "echo x > ~/proj/cfg/token",
    ):
        rc, out = sandbox_run(codex_cli, config, attack, home / "proj", home)
        assert "MARK-" not in out, (attack, out)
    assert (home / "proj" / "cfg" / "token").read_text() == "MARK-TOKEN\n"


RENAME_PARENT = "mv ~/proj/a ~/proj/z; mkdir -p ~/proj/a/secrets; echo x > ~/proj/a/secrets/new"


@pytest.mark.parametrize("root_spelling", ["tilde", "absolute"])
def test_mixed_spelling_leaves_the_parent_renamable(
    codex_cli: str, tmp_path: Path, root_spelling: str
) -> None:
    """The gap TWS418 reports: pins are found by comparing spellings, so a root written
    absolutely and a deny written with ~/ leave the directory between them renamable in real
    Codex, and the denied path comes back writable. The same spelling keeps it denied."""
    home = tmp_path / "home"
    (home / "proj" / "a" / "secrets").mkdir(parents=True)
    root = "~/proj" if root_spelling == "tilde" else str(home / "proj")
    srt = {"filesystem": {"allowWrite": [root], "denyWrite": ["~/proj/a/secrets"]}}
    policy = with_root_names(
        build_policy(parse_json(json.dumps(srt)), "srt.json", parse_json("{}"), "bash.json")
    )
    compiled, findings = codex.translate(policy, "workspace-write", str(home))
    reported = any(f.rule_id == "TWS418" for f in findings)
    sandbox_run(codex_cli, codex.merged_config(None, compiled), RENAME_PARENT, home / "proj", home)
    reopened = (home / "proj" / "a" / "secrets" / "new").exists()
    assert (reopened, reported) == ((True, True) if root_spelling == "absolute" else (False, False))


def test_file_write_root_stops_every_start(codex_cli: str, tmp_path: Path) -> None:
    """The availability gap TWS221 reports (`twsrt check` looks at the host): Codex mounts
    protected entries inside each write root, so a root that is a file fails every start,
    while the same policy with the file's directory as the root starts."""
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    (home / "notes.txt").write_text("n\n")
    bad = profile({"filesystem": {"allowWrite": ["~/notes.txt"]}})
    rc, out = sandbox_run(codex_cli, bad, "true", home / "work", home)
    assert rc != 0 and "Not a directory" in out, out
    good = profile({"filesystem": {"allowWrite": ["~/work"]}})
    rc, out = sandbox_run(codex_cli, good, "true", home / "work", home)
    assert rc == 0, out
