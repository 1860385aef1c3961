"""Other spellings of a denied path re-open it in real srt 0.0.83, so the narrowing check
compares one spelling per path: with ``denyRead: ["~/.ssh"]`` a command cannot read
``~/.ssh/id`` (the control), and an allowRead of ``~//.ssh``, ``~/x/../.ssh``, the home's
absolute spelling or ``/proc/self/root/...`` of it lets it read the file, exactly as
``~/.ssh`` does. Each of those in a project policy is TWS225 against a user policy that denies
``~/.ssh`` (Claude Code concatenates the lists, so the project's allowRead re-opens it)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.policies import make_policy

from twsrt.narrowing import narrowing_findings
from twsrt.regions import Anchors

pytestmark = pytest.mark.real

SECRET = "twsrt-secret-key"


def reads_secret(srt: str, home: Path, allow_read: list[str]) -> bool:
    document = {
        "network": {"allowedDomains": [], "deniedDomains": []},
        "filesystem": {
            "denyRead": ["~/.ssh"],
            "allowRead": allow_read,
            "allowWrite": [],
            "denyWrite": [],
        },
    }
    settings = home / "srt-settings.json"
    settings.write_text(json.dumps(document), encoding="utf-8")
    proc = subprocess.run(
        [srt, "--settings", str(settings), "-c", "cat ~/.ssh/id"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=home,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
    )
    return SECRET in proc.stdout


def test_every_spelling_of_a_denied_path_reopens_it_in_srt_and_is_caught(
    srt: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id").write_text(SECRET, encoding="utf-8")
    assert not reads_secret(srt, home, [])  # the control: the deny holds
    spellings = ["~/.ssh", "~//.ssh", "~/x/../.ssh", f"{home}/.ssh", f"/proc/self/root{home}/.ssh"]
    user = make_policy({"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."]}})
    anchors = Anchors(home=str(home), root=str(home / "app"))
    for spelled in spellings:
        assert reads_secret(srt, home, [spelled]), spelled
        project = make_policy(
            {"filesystem": {"denyRead": [], "allowRead": [spelled], "allowWrite": ["."]}}
        )
        found = narrowing_findings(project, user, anchors=anchors, replacing=())
        assert [f.rule_id for f in found] == ["TWS225"], spelled
        assert "re-opens reads the user policy denies: '~/.ssh'" in found[0].message
