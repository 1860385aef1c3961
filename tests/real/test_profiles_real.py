"""A composed profile against the real sandbox runtime: `twsrt test --engine srt` runs srt with
the profile's composed settings, so a deny written in a later fragment is enforced, and each
probe names the fragment line behind it.

Needs srt 0.0.83 on bubblewrap (.ci/install-srt.sh); skips without it, fails under
TWSRT_REQUIRE_REAL_TOOLS=1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.cli import run_cli
from support.sandbox import REPO_ROOT
from support.tools import locate_tool, require_tool

pytestmark = pytest.mark.real

SRT_DEFAULT = "/opt/twsrt-tools/srt/bin/srt"


@pytest.fixture(scope="module")
def srt() -> str:
    return require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_DEFAULT))


def probe(repo: Path, srt: str, profile: str, keyword: str) -> dict:
    env = {"TWSRT_SRT_BIN": srt, "HOME": str(repo.parent / "home"), "NO_COLOR": "1"}
    (repo.parent / "home").mkdir(exist_ok=True)
    args = ["test", "--engine", "srt", "--profile", profile, "-k", keyword, "--json"]
    result = run_cli(args, cwd=repo, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    if not result.stdout:  # no probe matched: a usage error, said on stderr
        return {"exit": result.returncode, "stderr": result.stderr, "results": []}
    return json.loads(result.stdout) | {"exit": result.returncode}


def test_a_later_fragments_deny_is_enforced_by_srt(tmp_path: Path, srt: str) -> None:
    """work extends base, python, corp-network: srt denies ~/.kube (corp-network's only deny)
    on every read attack, the unsandboxed control reads it, and each probe stands at the
    corp-network fragment's line."""
    repo = tmp_path / "profiles"
    shutil.copytree(REPO_ROOT / "examples" / "profiles", repo, symlinks=True)
    (repo / ".git").mkdir()
    report = probe(repo, srt, "work", "kube")
    assert report["exit"] == 0
    assert report["profile"]["name"] == "work"
    assert report["inputs"]["srt"] == ["policy/base.srt.json", "policy/corp-network.srt.json"]
    results = report["results"]
    assert len(results) >= 4
    for result in results:
        assert result["verdict"] == "PASS", result
        assert result["control"]["outcome"] == "allowed"  # the probe discriminates
        assert result["sandboxed"]["outcome"] == "denied"
        where = result["location"]
        assert (where["path"], where["line"], where["column"]) == (
            "policy/corp-network.srt.json",
            4,
            18,
        )
    # base's own deny is still enforced in the same composed run
    base = probe(repo, srt, "work", "deny-read ~/.ssh")
    assert base["exit"] == 0 and base["results"]
    assert {r["location"]["path"] for r in base["results"]} == {"policy/base.srt.json"}
    # home composes base only: nothing about ~/.kube is probed (nor denied)
    home = probe(repo, srt, "home", "kube")
    assert (home["exit"], home["results"]) == (2, [])
    assert "no probe matches -k 'kube'" in home["stderr"]
