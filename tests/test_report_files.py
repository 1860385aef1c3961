"""Report files (`--json`, `--sarif`, `--junit`, `twsrt test --junit`) are never written through a
link: an existing link at the report path (dangling too), a non-regular file there, or a link
inside the repository on the way to it is refused with a located TWS023 (exit 2, nothing
written); a report is a fresh temp file renamed into place, mode 0644 minus the umask. `-`,
`/dev/stdout` and `/dev/stderr` are the streams themselves (issue 26, items 1 and 10)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from support.sandbox import Sandbox, tree_snapshot

REPORTS = ("--json", "--sarif", "--junit")
# a TOML key holding newlines: its name reaches every report, one line of it a `.pth` import
PAYLOAD = "import os; os.mkdir(os.environ['TWSRT_PWNED'])"


@pytest.fixture
def dotfiles(sandbox: Sandbox) -> Sandbox:
    return sandbox.use_example()


def venv_like(root: Path) -> Path:
    """The site-packages directory of a venv-like tree (the Action's own venv in CI)."""
    site = root / "twsrt-venv" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (site / "keep.pth").write_text("# the venv's own\n", encoding="utf-8")
    return site


def plant_payload(box: Sandbox) -> None:
    config = box.repo / "twsrt.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text + f'\n[check]\n"\\n{PAYLOAD}\\n" = 1\n', encoding="utf-8")


def runs_pth(site: Path, marker: Path) -> bool:
    """Does Python run the `.pth` files of ``site`` (as the next step of the job would)?"""
    code = f"import site; site.addsitedir({str(site)!r})"
    env = {**os.environ, "TWSRT_PWNED": str(marker)}
    subprocess.run([sys.executable, "-S", "-c", code], env=env, check=True, timeout=60)
    return marker.exists()


@pytest.mark.parametrize("option", REPORTS)
@pytest.mark.parametrize("dangling", [False, True], ids=["link", "dangling-link"])
def test_a_committed_link_at_the_report_path_is_refused(
    dotfiles: Sandbox, tmp_path: Path, option: str, dangling: bool
) -> None:
    site = venv_like(tmp_path / "runner-temp")
    evil = site / "twsrt-evil.pth"
    if not dangling:
        evil.write_text("# present\n", encoding="utf-8")
    plant_payload(dotfiles)
    (dotfiles.repo / "twsrt-junit.xml").symlink_to(os.path.relpath(evil, dotfiles.repo))
    before = tree_snapshot(site.parent.parent.parent)
    result = dotfiles.run("check", option, "twsrt-junit.xml")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "twsrt-junit.xml: error[TWS023] is a symlink" in result.stderr
    assert tree_snapshot(site.parent.parent.parent) == before
    assert (dotfiles.repo / "twsrt-junit.xml").is_symlink()
    assert not runs_pth(site, tmp_path / "PWNED")


def test_the_payload_would_run_if_written(tmp_path: Path) -> None:
    """The control: the report text, written as a `.pth`, runs the TOML key's line."""
    site = venv_like(tmp_path)
    (site / "twsrt-evil.pth").write_text(f"<failure message='\n{PAYLOAD}\n'>\n", "utf-8")
    assert runs_pth(site, tmp_path / "PWNED")


def test_a_linked_directory_in_the_repository_is_refused(dotfiles: Sandbox, tmp_path: Path) -> None:
    site = venv_like(tmp_path / "runner-temp")
    (dotfiles.repo / "reports").symlink_to(site)
    before = tree_snapshot(site)
    for option in REPORTS:
        result = dotfiles.run("check", option, "reports/twsrt.pth")
        assert result.returncode == 2, result.stderr
        assert "reports/twsrt.pth: error[TWS023] " in result.stderr
        assert "'reports' is a symlink inside the repository" in result.stderr
        # `..` below the link is the link's: refused too
        result = dotfiles.run("check", option, "reports/../twsrt-venv.pth")
        assert result.returncode == 2, result.stderr
    assert tree_snapshot(site) == before
    assert not (site.parent / "twsrt-venv.pth").exists()


def test_one_refused_report_writes_none(dotfiles: Sandbox, tmp_path: Path) -> None:
    (dotfiles.repo / "bad.xml").symlink_to("nowhere.xml")
    out = tmp_path / "out"
    result = dotfiles.run("check", "--json", str(out / "r.json"), "--junit", "bad.xml")
    assert result.returncode == 2
    assert not out.exists()
    assert not (dotfiles.repo / "nowhere.xml").exists()


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_non_regular_file_is_refused(dotfiles: Sandbox, kind: str) -> None:
    path = dotfiles.repo / "report.json"
    if kind == "directory":
        path.mkdir()
        reason = "is a directory"
    else:
        os.mkfifo(path)
        reason = "is a FIFO, not a regular file"
    result = dotfiles.run("check", "--json", "report.json")
    assert result.returncode == 2
    assert f"report.json: error[TWS023] {reason}" in result.stderr


def test_a_report_is_a_fresh_file_never_executable(dotfiles: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text("old\n", encoding="utf-8")
    path.chmod(0o755)
    hard = tmp_path / "hard.xml"
    os.link(path, hard)
    old = os.umask(0o022)
    try:
        assert dotfiles.run("check", "--junit", str(path)).returncode == 0
        assert dotfiles.run("check", "--json", str(tmp_path / "new" / "r.json")).returncode == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert path.read_text(encoding="utf-8").startswith("<?xml")
    assert hard.read_text(encoding="utf-8") == "old\n"  # replaced by a rename, not written into
    assert (
        parsed((tmp_path / "new" / "r.json").read_text(encoding="utf-8"))["summary"]["error"] == 0
    )
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".twsrt.")]


def test_a_link_outside_the_repository_on_the_way_is_followed(
    dotfiles: Sandbox, tmp_path: Path
) -> None:
    """A system link above the repository (macOS: /var -> private/var) is not the checkout's."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real)
    assert dotfiles.run("check", "--sarif", str(tmp_path / "via" / "r.sarif")).returncode == 0
    assert json.loads((real / "r.sarif").read_text(encoding="utf-8"))["version"] == "2.1.0"


def parsed(text: str) -> dict:
    report = json.loads(text)
    assert isinstance(report, dict)
    return report


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_stdout_is_written_directly(dotfiles: Sandbox, name: str) -> None:
    result = dotfiles.run("check", "-q", "--json", name)
    assert result.returncode == 0, result.stderr
    assert "pipe:[" not in result.stdout + result.stderr
    assert parsed(result.stdout)["summary"]["error"] == 0


def test_stderr_and_the_console_script(dotfiles: Sandbox) -> None:
    result = dotfiles.run_script("check", "-q", "--sarif", "/dev/stderr", "--json", "/dev/stdout")
    assert result.returncode == 0, result.stderr
    assert "pipe:[" not in result.stdout + result.stderr
    assert parsed(result.stdout)["summary"]["error"] == 0
    assert parsed(result.stderr)["version"] == "2.1.0"
    piped = subprocess.run(
        "twsrt check -q --junit /dev/stdout | cat",
        shell=True,
        cwd=dotfiles.repo,
        env=dotfiles.env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("<?xml"), piped.stderr
