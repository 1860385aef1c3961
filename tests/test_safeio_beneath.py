"""Confined reads open the file in the same step as the confinement check (issue 26 item 11):
the real path, once checked, is walked from a descriptor of the repository without following
a link, so a directory swapped for a link between the check and the open is refused as the
check refuses it, and never read out of the repository. The messages stay those of the check."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from twsrt import safeio
from twsrt.safeio import FileProblem, read_bytes


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "policy").mkdir(parents=True)
    (root / "policy" / "srt.json").write_text("{}\n", encoding="utf-8")
    (root / "inner").symlink_to("policy")  # a link that stays inside: read as today
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "srt.json").write_text('{"token": "secret"}\n', encoding="utf-8")
    return root.resolve()


def swap_after_the_check(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    """``policy/`` becomes a link to the directory outside just after the real path is
    computed: what a concurrent process (an agent, a second job) can do between two calls."""
    resolve = safeio.real
    swapped = []

    def real(path: Path) -> Path:
        answer = resolve(path)
        if not swapped:
            swapped.append(True)
            shutil.move(repo / "policy", repo / "policy.old")
            (repo / "policy").symlink_to(repo.parent / "outside")
        return answer

    monkeypatch.setattr(safeio, "real", real)


def test_a_directory_swapped_for_a_link_after_the_check_is_refused(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    swap_after_the_check(monkeypatch, repo)
    with pytest.raises(FileProblem) as caught:
        read_bytes(repo / "policy" / "srt.json", confine=repo)
    assert caught.value.kind == "outside"
    assert caught.value.reason == (
        f"resolves to {repo.parent / 'outside' / 'srt.json'}, outside the repository"
    )


def test_the_file_swapped_for_a_link_after_the_check_is_refused(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolve = safeio.real

    def real(path: Path) -> Path:
        answer = resolve(path)
        target = repo / "policy" / "srt.json"
        if not target.is_symlink():
            target.unlink()
            target.symlink_to(repo.parent / "outside" / "srt.json")
        return answer

    monkeypatch.setattr(safeio, "real", real)
    with pytest.raises(FileProblem) as caught:
        read_bytes(repo / "policy" / "srt.json", confine=repo)
    assert caught.value.kind == "outside"


def test_the_control_without_confinement_reads_through_the_swap(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``confine`` (a user config outside any repository) a path is read as named,
    so the swap is followed: the race the confined walk closes is real."""
    swap_after_the_check(monkeypatch, repo)
    safeio.real(repo)
    assert read_bytes(repo / "policy" / "srt.json") == b'{"token": "secret"}\n'


def test_links_inside_and_the_messages_of_the_check_are_unchanged(repo: Path) -> None:
    assert read_bytes(repo / "inner" / "srt.json", confine=repo) == b"{}\n"
    (repo / "out").symlink_to(repo.parent / "outside")
    (repo / "gone").symlink_to("policy/nothing.json")
    (repo / "loop").symlink_to("loop")
    outside = repo.parent / "outside" / "srt.json"
    cases = {
        "out/srt.json": f"resolves to {outside}, outside the repository",
        "gone": "dangling symlink (points to policy/nothing.json)",
        "missing.json": "does not exist",
        "policy": "is a directory",
        "policy/srt.json/x": "does not exist",
        "loop": "symlink loop (too many levels of symbolic links)",
    }
    for name, reason in cases.items():
        with pytest.raises(FileProblem) as caught:
            read_bytes(repo / name, confine=repo)
        assert caught.value.reason == reason, name
    os.mkfifo(repo / "fifo")
    with pytest.raises(FileProblem) as caught:
        read_bytes(repo / "fifo", confine=repo)
    assert caught.value.reason == "is a FIFO, not a regular file"
