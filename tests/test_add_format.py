"""The add-an-output-format checklist (docs/architecture.md, "How to add an output format"),
followed for a toy format: step 1 a module with ``render(report, options)``, step 2 one
``Reporter`` line, and ``check --format toy`` and ``check --toy FILE`` work with no other edit;
step 3 (the synopses) is what the docs test then asks for. The CLI builds its options from the
registry when it is imported, so the toy runs in its own interpreter."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# What a contributor writes: the module (step 1) and its registry line (step 2), both made
# before twsrt.cli is imported; then the command runs as the console script would.
TOY = """
import json, sys, types
from twsrt import reports

module = types.ModuleType("twsrt.reports.toy")
def render(report, options):
    return json.dumps(sorted({f.rule.id for f in report.findings})) + "\\n"
module.render = render
sys.modules["twsrt.reports.toy"] = module
reports.REPORTERS["toy"] = reports.Reporter("toy", "toy", file_help="Also write a toy report.")

from twsrt.cli import cli
if sys.argv[1] == "--options":
    check = cli.commands["check"]
    print(json.dumps([p.opts for p in check.params if p.name and p.name.endswith("_file")]))
    print(json.dumps(list(next(p for p in check.params if p.name == "output_format").type.choices)))
else:
    from twsrt.cli import main
    sys.argv = ["twsrt", *sys.argv[1:]]
    main()
"""


@pytest.fixture
def example(tmp_path: Path) -> Path:
    repo = tmp_path / "dotfiles"
    shutil.copytree(REPO_ROOT / "examples" / "dotfiles", repo, symlinks=True)
    (repo / ".git").mkdir()
    return repo


def toy(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", TOY, *args],
        cwd=repo,
        env={"HOME": str(repo.parent), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_registered_format_is_a_check_format_and_a_file_option(example: Path) -> None:
    listed = toy(example, "--options")
    assert listed.returncode == 0, listed.stderr
    file_options, choices = (json.loads(line) for line in listed.stdout.splitlines())
    assert choices[-1] == "toy" and file_options[-1] == ["--toy"]

    on_stdout = toy(example, "check", "--format", "toy", "--toy", "report.toy")
    as_json = toy(example, "check", "--format", "json")
    assert on_stdout.returncode == as_json.returncode == 0, on_stdout.stderr
    expected = sorted({f["rule_id"] for f in json.loads(as_json.stdout)["findings"]})
    assert expected and json.loads(on_stdout.stdout) == expected  # the same findings
    assert (example / "report.toy").read_text("utf-8") == on_stdout.stdout


def test_the_synopses_name_every_check_option() -> None:
    """Step 3: the README's and docs/check.md's `twsrt check` synopses list each option and
    ``--format`` choice of the command, so a format added without them fails
    tests/test_docs.py::test_check_synopsis_matches_the_command; here, that its choices are the
    registry's (the toy is not in the docs, which is why it runs apart)."""
    from twsrt.reports import REPORTERS

    for doc in (REPO_ROOT / "README.md", REPO_ROOT / "docs" / "check.md"):
        text = doc.read_text("utf-8")
        assert "--format " + "|".join(REPORTERS) in text, doc.name
        assert "--toy" not in text
