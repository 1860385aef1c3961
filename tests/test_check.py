"""`twsrt check`: findings, locations, exit codes, formats, suppressions, docs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support.sandbox import Sandbox, tree_snapshot

from twsrt.docs import render_rules_markdown
from twsrt.rules import CATALOG

REPO = Path(__file__).resolve().parent.parent
FORMATS = (["--format", "text"], ["--format", "json"], ["--format", "github"])


@pytest.fixture
def dotfiles(sandbox: Sandbox) -> Sandbox:
    """The bundled example, copied into a git repo inside the temporary HOME."""
    return sandbox.use_example()


def check(box: Sandbox, *args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    result = box.run("check", *args, cwd=cwd)
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def findings_json(box: Sandbox, *args: str) -> list[dict]:
    code, out, _ = check(box, "--format", "json", "-v", *args)
    return json.loads(out)["findings"]


def test_docs_rules_md_is_generated_from_the_catalog() -> None:
    assert (REPO / "docs" / "rules.md").read_text() == render_rules_markdown(), (
        "docs/rules.md is stale: python -m twsrt.docs > docs/rules.md"
    )


def test_every_rule_has_help_and_unique_name() -> None:
    names = [rule.name for rule in CATALOG.values()]
    assert len(names) == len(set(names))
    for rule in CATALOG.values():
        assert rule.help and rule.short.endswith(".")


def test_explain(sandbox: Sandbox) -> None:
    result = sandbox.run("explain", "TWS101")
    assert result.returncode == 0
    assert result.stdout.startswith("TWS101 schema-unknown-key (error)\n\n")
    assert "denyRaed" in result.stdout
    assert sandbox.run("explain", "drift-unapplied").stdout.startswith("TWS302 ")
    assert sandbox.run("explain", "TWS999").returncode == 2


def test_example_is_clean_in_every_format(dotfiles: Sandbox) -> None:
    for fmt in FORMATS:
        code, out, _ = check(dotfiles, *fmt)
        assert code == 0, out
    data = json.loads(check(dotfiles, "--format", "json")[1])
    assert data["version"] == 1 and data["summary"]["error"] == 0
    assert {f["kind"] for f in data["checked"]} == {"config", "source", "target"}


# ------------------------------------------------------------------ exit codes


def _schema_error(box: Sandbox) -> None:
    box.write("policy/srt-settings.json", '{"filesystem": {"denyRaed": []}}')


def _drift(box: Sandbox) -> None:
    path = box.repo / "home/.claude/settings.full.json"
    path.write_text(path.read_text().replace('"Bash(sudo)",', '"Bash(sudo)", "Bash(x)",'))


def _warning_only(box: Sandbox) -> None:
    """The example without its explained ignore of DeepCode's macOS gap: one warning (TWS434),
    no error."""
    config = (box.repo / "twsrt.toml").read_text()
    head, sep, tail = config.rpartition("\n# DeepCode filters hosts")
    block, _, rest = tail.partition("\n\n")
    assert sep and "lossy-macos-network" in block
    box.write("twsrt.toml", head + "\n" + (f"\n{rest}" if rest else ""))


def _bad_config(box: Sandbox) -> None:
    box.write("twsrt.toml", "[sources]\nsrt = 1\n")


def _unparsable_source(box: Sandbox) -> None:
    box.write("policy/bash-rules.json", '{"deny": [}')


@pytest.mark.parametrize(
    ("setup", "args", "code"),
    [
        (_warning_only, [], 0),
        (_warning_only, ["--fail-on", "warning"], 1),
        (_warning_only, ["--fail-on", "note"], 1),
        (_schema_error, [], 1),
        (_unparsable_source, [], 1),
        (_drift, [], 1),
        (_drift, ["--agent", "codex"], 0),
        (_bad_config, [], 2),
        (_warning_only, ["-c", "nope.toml"], 2),
        (_warning_only, ["--format", "yaml"], 2),
        (_warning_only, ["--agent", "nobody"], 2),
    ],
    ids=[
        "warnings-pass",
        "fail-on-warning",
        "fail-on-note",
        "schema-error",
        "unparsable-source",
        "drift",
        "drift-other-agent",
        "bad-config",
        "missing-config",
        "bad-format",
        "bad-agent",
    ],
)
def test_exit_codes_never_depend_on_format(dotfiles: Sandbox, setup, args, code) -> None:
    setup(dotfiles)
    before = tree_snapshot(dotfiles.repo)
    for fmt in FORMATS:
        got, out, err = check(dotfiles, *fmt, *args)
        assert got == code, (fmt, out, err)
    assert tree_snapshot(dotfiles.repo) == before  # check is read-only


def test_sarif_and_junit_do_not_change_the_exit_code(dotfiles: Sandbox, tmp_path: Path) -> None:
    _drift(dotfiles)
    code, _, _ = check(
        dotfiles, "--sarif", str(tmp_path / "r.sarif"), "--junit", str(tmp_path / "r.xml")
    )
    assert code == 1
    sarif = json.loads((tmp_path / "r.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "TWS303"


# ------------------------------------------------------------------ locations


LOCATION_CASES = [
    # (file, text, rule, line, column, pointer)
    (
        "policy/srt-settings.json",
        '{\n  "filesystem": {\n    "denyRaed": []\n  }\n}\n',
        "TWS101",
        3,
        5,
        "/filesystem/denyRaed",
    ),
    (
        "policy/srt-settings.json",
        '{\n  "network": {"allowedDomains": "x.com"}\n}\n',
        "TWS102",
        2,
        33,
        "/network/allowedDomains",
    ),
    (
        "policy/srt-settings.json",
        '{\n  "enabled": true,\n  "enabled": false\n}\n',
        "TWS103",
        3,
        3,
        "/enabled",
    ),
    (
        "policy/bash-rules.json",
        '{\n  "deny": [\n    "rm",\n  ]\n}\n',
        "TWS003",
        3,
        9,
        "",
    ),  # at the trailing comma (JSONC reader)
    (
        "policy/bash-rules.json",
        '{"deny": ["rm", "sudo"],\n "ask": ["git", "rm"]}\n',
        "TWS203",
        2,
        17,
        "/ask/1",
    ),
    ("policy/bash-rules.json", '{"deny": ["rm",\n  "rm"]}\n', "TWS208", 2, 3, "/deny/1"),
    (
        "policy/srt-settings.json",
        '{"filesystem": {"denyRead": ["~/.aws"],\n "allowWrite": ["~/.aws/x"]}}\n',
        "TWS204",
        2,
        17,
        "/filesystem/allowWrite/0",
    ),
    (
        "policy/srt-settings.json",
        '{"filesystem": {"denyWrite": ["/srv"],\n "allowWrite": ["/srv"]}}\n',
        "TWS205",
        2,
        17,
        "/filesystem/allowWrite/0",
    ),
    (
        "policy/srt-settings.json",
        '{"network": {\n  "allowedDomains": ["*.x.org"]}}\n',
        "TWS206",
        2,
        22,
        "/network/allowedDomains/0",
    ),
    (
        "policy/srt-settings.json",
        '{"filesystem": {\n  "denyRead": ["**/.env"]}}\n',
        "TWS207",
        2,
        16,
        "/filesystem/denyRead/0",
    ),
    ("policy/srt-settings.json", '{\n  "enabled": false}\n', "TWS209", 2, 14, "/enabled"),
    (
        "policy/srt-settings.json",
        '{"network": {\n  "allowedDomains": []}}\n',
        "TWS210",
        2,
        21,
        "/network/allowedDomains",
    ),
    (
        "policy/srt-settings.json",
        '{"network": {"allowedDomains": ["a.com"],\n  "requireHostMatch": true}}\n',
        "TWS405",
        2,
        3,
        "/network/requireHostMatch",
    ),
]


@pytest.mark.parametrize(
    ("path", "text", "rule", "line", "column", "pointer"),
    LOCATION_CASES,
    ids=[f"{c[2]}-{i}" for i, c in enumerate(LOCATION_CASES)],
)
def test_finding_points_at_the_offending_value(
    dotfiles: Sandbox, path: str, text: str, rule: str, line: int, column: int, pointer: str
) -> None:
    dotfiles.write(path, text)
    found = [f for f in findings_json(dotfiles) if f["rule_id"] == rule]
    assert found, findings_json(dotfiles)
    loc = found[0]["location"]
    assert (loc["path"], loc["line"], loc["column"], loc["pointer"]) == (
        path,
        line,
        column,
        pointer,
    )


def test_drift_points_at_first_differing_line_with_related_rule(dotfiles: Sandbox) -> None:
    dotfiles.write(
        "policy/bash-rules.json",
        '{"deny": ["rm -rf", "sudo", "git push --force",'
        ' "curl", "wget", "nc"],\n "ask": ["git push", "git commit", "pip install",'
        ' "npm install"], "allow": ["gh pr view", "git status"]}\n',
    )
    code, out, _ = check(dotfiles)
    assert code == 1
    drift = [f for f in findings_json(dotfiles) if f["rule_id"] == "TWS302"]
    claude = next(f for f in drift if f["location"]["path"] == "home/.claude/settings.full.json")
    target = (dotfiles.repo / "home/.claude/settings.full.json").read_text().splitlines()
    # the new rule goes in after the policy's last deny, before twsrt's protected names
    assert target[claude["location"]["line"] - 1].strip() == '"Edit(.gitconfig)",'
    assert claude["related"][0]["path"] == "policy/bash-rules.json"
    assert claude["related"][0]["pointer"] == "/deny/5"
    assert '+      "Bash(nc)",' in claude["diff"]
    assert "+++ b/home/.claude/settings.full.json" in out  # text output shows the diff


def test_out_of_band_edit_and_missing_target_and_broken_symlink(dotfiles: Sandbox) -> None:
    _drift(dotfiles)
    (dotfiles.repo / "home/.codex/rules/twsrt.rules").unlink()
    link = dotfiles.repo / "home/.claude/settings.json"
    link.unlink()
    link.symlink_to("settings.gone.json")
    rules = {f["rule_id"]: f for f in findings_json(dotfiles)}
    assert rules["TWS303"]["location"]["path"] == "home/.claude/settings.full.json"
    assert rules["TWS301"]["location"] == {
        "path": "twsrt.toml",
        "line": 13,
        "column": 15,
        "pointer": "/targets/codex_rules",
    }
    assert rules["TWS305"]["location"]["path"] == "home/.claude/settings.json"


def test_paths_are_repo_relative_from_a_subdirectory(dotfiles: Sandbox) -> None:
    _schema_error(dotfiles)
    code, out, _ = check(dotfiles, "--format", "github", cwd=dotfiles.repo / "policy")
    assert code == 1
    assert "::error file=policy/srt-settings.json,line=1,col=17,title=TWS101" in out


def test_suppressions(dotfiles: Sandbox, tmp_path: Path) -> None:
    config = (dotfiles.repo / "twsrt.toml").read_text()
    dotfiles.write(
        "twsrt.toml",
        config + '\n[[check.ignore]]\nrule = "lossy-bash-rule"\nagent = "codex"\n'
        'reason = "Codex asks anyway"\n\n[[check.ignore]]\nrule = "TWS444"\n'
        'path = "policy/*.json"\npointer = "/filesystem/denyWrite/*"\n'
        'reason = "DeepCode is never started in the home directory"\n'
        '\n[[check.ignore]]\nrule = "lossy-ask-as-deny"\nagent = "copilot"\n'
        'reason = "no ask tier"\n\n[[check.ignore]]\nrule = "TWS440"\nagent = "deepcode"\n'
        'reason = "the allow-list blocks it"\n',
    )
    data = json.loads(
        check(
            dotfiles,
            "--format",
            "json",
            "--fail-on",
            "warning",
            "--sarif-suppressed",
            str(tmp_path / "s.sarif"),
        )[1]
    )
    suppressed_rules = {"TWS409", "TWS420", "TWS440"}
    suppressed_rules.add("TWS434")  # DeepCode on macOS, accepted in the example config
    suppressed_rules.add("TWS601")  # docker in excludedCommands, accepted in the example config
    # TWS444 only for the denyWrite entries: the pointer glob leaves the denyRead ones shown
    # (the protected set's entries stand at the config: not matched by the path glob)
    assert {
        f["location"]["pointer"]
        for f in data["findings"]
        if f["rule_id"] == "TWS444" and f["location"]["path"].startswith("policy/")
    } == {f"/filesystem/denyRead/{i}" for i in range(5)}
    suppressed_rules.add("TWS444")
    # the between-launch gaps accepted in the example config: Claude's planted layers and
    # nested repositories, Codex's nested protections, Copilot's and DeepCode's mandatory set
    suppressed_rules |= {"TWS628", "TWS629", "TWS465", "TWS471", "TWS472"}
    assert data["summary"]["suppressed"] == 27
    assert {f["rule_id"] for f in data["suppressed"]} == suppressed_rules
    assert all(f["rule_id"] not in suppressed_rules - {"TWS444"} for f in data["findings"])
    assert data["summary"]["exit_code"] == 0
    sarif = json.loads((tmp_path / "s.sarif").read_text())
    marked = [r for r in sarif["runs"][0]["results"] if "suppressions" in r]
    # the between-launch gaps accepted in the example config: Claude's planted layers and
    # nested repositories, Codex's nested protections, Copilot's and DeepCode's mandatory set
    suppressed_rules |= {"TWS628", "TWS629", "TWS465", "TWS471", "TWS472"}
    assert data["summary"]["suppressed"] == 27
    assert {r["suppressions"][0]["justification"] for r in marked if r["ruleId"] == "TWS409"} == {
        "Codex asks anyway"
    }
    assert all(r["suppressions"][0]["kind"] == "external" for r in marked)
    text = check(dotfiles)[1]
    assert "27 suppressed" in text
    shown = json.loads(check(dotfiles, "--format", "json", "--no-ignores")[1])
    assert shown["summary"]["suppressed"] == 0
    assert any(f["rule_id"] == "TWS409" for f in shown["findings"])


def test_ignore_needs_a_reason(dotfiles: Sandbox) -> None:
    config = (dotfiles.repo / "twsrt.toml").read_text()
    dotfiles.write("twsrt.toml", config + '\n[[check.ignore]]\nrule = "TWS409"\n')
    code, out, err = check(dotfiles)
    assert code == 2 and err == ""
    assert "'reason' is a required property" in out  # in the report, as CI reads it


@pytest.mark.parametrize("rule", ["TWS101", "schema-unknown-key", "TWS003", "TWS102"])
def test_schema_and_parse_errors_cannot_be_suppressed(dotfiles: Sandbox, rule: str) -> None:
    _schema_error(dotfiles)
    config = (dotfiles.repo / "twsrt.toml").read_text()
    lines, index = config.count("\n"), config.count("[[check.ignore]]")
    dotfiles.write(
        "twsrt.toml",
        config + f'\n[[check.ignore]]\nrule = "{rule}"\nreason = "the key is for a newer srt"\n',
    )
    data = json.loads(check(dotfiles, "--format", "json")[1])
    assert data["summary"]["suppressed"] == 0 and data["summary"]["exit_code"] == 1
    by_rule = {f["rule_id"]: f for f in data["findings"]}
    assert by_rule["TWS101"]["location"]["path"] == "policy/srt-settings.json"
    assert by_rule["TWS008"]["location"] == {
        "path": "twsrt.toml",
        "line": lines + 3,
        "column": 8,
        "pointer": f"/check/ignore/{index}/rule",
    }
    assert "cannot be suppressed" in by_rule["TWS008"]["message"]


def test_a_domain_srt_refuses_stops_the_check(dotfiles: Sandbox) -> None:
    srt = json.loads((dotfiles.repo / "policy/srt-settings.json").read_text())
    srt["network"]["allowedDomains"] += ["*", "*.com"]
    dotfiles.write("policy/srt-settings.json", srt)
    config = (dotfiles.repo / "twsrt.toml").read_text()
    dotfiles.write(
        "twsrt.toml",
        config + '\n[[check.ignore]]\nrule = "refused-domain"\nreason = "we need every host"\n',
    )
    data = json.loads(check(dotfiles, "--format", "json", "-v")[1])
    assert data["summary"]["exit_code"] == 1 and data["summary"]["suppressed"] == 0
    refused = [f for f in data["findings"] if f["rule_id"] == "TWS215"]
    count = len(srt["network"]["allowedDomains"])
    assert [f["location"]["pointer"] for f in refused] == [
        f"/network/allowedDomains/{count - 2}",
        f"/network/allowedDomains/{count - 1}",
    ]
    assert all(f["location"]["path"] == "policy/srt-settings.json" for f in refused)
    # nothing was compiled from the policy: no agent, drift or translation finding
    assert {f["rule_id"][:4] for f in data["findings"]} <= {"TWS0", "TWS1", "TWS2"}
    assert not any(f["agent"] for f in data["findings"])
    assert "TWS008" in {f["rule_id"] for f in data["findings"]}


def test_an_ignore_of_an_unknown_rule_is_reported(dotfiles: Sandbox) -> None:
    config = (dotfiles.repo / "twsrt.toml").read_text()
    dotfiles.write(
        "twsrt.toml", config + '\n[[check.ignore]]\nrule = "TWS999"\nreason = "typo in the id"\n'
    )
    code, out, _ = check(dotfiles)
    assert code == 1
    assert "error[TWS008] ignore entry 'TWS999': no rule has this id or name" in out


def test_text_output_has_no_colour_without_tty_and_with_no_color(dotfiles: Sandbox) -> None:
    _drift(dotfiles)
    _, out, _ = check(dotfiles)
    assert "\x1b[" not in out
    script = shutil.which("script")
    assert script, "util-linux `script` provides a pseudo-terminal"
    env = {k: v for k, v in dotfiles.env().items() if k != "NO_COLOR"}
    command = "twsrt check"
    tty = subprocess.run(
        [script, "-qec", command, "/dev/null"],
        cwd=dotfiles.repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "\x1b[31m" in tty.stdout
    plain = subprocess.run(
        [script, "-qec", command, "/dev/null"],
        cwd=dotfiles.repo,
        env={**env, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
    )
    assert "\x1b[" not in plain.stdout


def test_quiet_and_verbose(dotfiles: Sandbox) -> None:
    _drift(dotfiles)
    quiet = check(dotfiles, "-q")[1]
    assert quiet.splitlines()[0].startswith("home/.claude/settings.full.json:")
    assert "twsrt check:" not in quiet and "warning[" not in quiet
    verbose = check(dotfiles, "-v")[1]
    assert "note[" in verbose
    assert "note[" not in check(dotfiles)[1]


def test_home_unpinned_note(dotfiles: Sandbox) -> None:
    config = (dotfiles.repo / "twsrt.toml").read_text()
    assert 'deepcode_settings = "home/.deepcode/settings.json"' in config
    unpinned = "\n".join(line for line in config.splitlines() if not line.startswith("home ="))
    dotfiles.write("twsrt.toml", unpinned + "\n")
    notes = [f for f in findings_json(dotfiles) if f["rule_id"] == "TWS211"]
    pointers = sorted(f["location"]["pointer"] for f in notes)
    assert pointers == ["/targets/copilot_settings", "/targets/deepcode_settings"]
    assert all(f["location"]["path"] == "twsrt.toml" and f["location"]["line"] for f in notes)
