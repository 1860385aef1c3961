"""The profile a run composed, shown in every report: check's text, JSON, GitHub, SARIF and
JUnit, generate/diff's mode line and ``twsrt test``'s reports; a run without profiles shows
nothing of it (every byte as before)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support.github import runner_commands
from support.reports import parse_junit, validate_sarif
from support.sandbox import Sandbox

from twsrt import rules
from twsrt.config import Config, Selection
from twsrt.findings import finding
from twsrt.invocation import mode_line
from twsrt.locations import Location
from twsrt.protection import protected_context
from twsrt.report import CheckedFile, CheckReport, selection_text
from twsrt.reports import REPORTERS, RenderOptions, render
from twsrt.reports.probes import junit_xml, modes_line, render_json, render_text
from twsrt.testing.model import ProbeReport

BY_FLAG = Selection("work", "--profile", Location("twsrt.toml", 7, 1, "profiles.work"))
BY_HOST = Selection(
    "laptop",
    "hosts",
    Location("twsrt.toml", 12, 10, "profiles.laptop.hosts[0]"),
    host="lap-17.example",
    pattern="lap-*",
)


def make_report(root: Path, selection: Selection | None) -> CheckReport:
    """One error, one note and two checked files; the selection as given."""
    error = finding(
        rules.DRIFT_UNAPPLIED,
        "managed entries are missing",
        Location(".claude/settings.json", 3, 7, "/permissions/deny"),
        agent="claude",
    )
    note = finding(rules.NO_NETWORK, "no network", Location("srt.json", 2, 3, "/network"))
    return CheckReport(
        findings=[error, note],
        checked=[CheckedFile("twsrt.toml", "config"), CheckedFile("srt.json", "source")],
        root=root,
        selection=selection,
    )


# --- the words every report uses ----------------------------------------------------------------


def test_selection_text_names_the_choice_and_its_line() -> None:
    assert selection_text(BY_FLAG) == "work (selected by --profile, twsrt.toml:7:1)"
    env = Selection("work", "$TWSRT_PROFILE", Location("twsrt.toml", 7, 1))
    assert selection_text(env) == "work (selected by $TWSRT_PROFILE, twsrt.toml:7:1)"
    assert selection_text(BY_HOST) == (
        'laptop (selected by hosts: host "lap-17.example" matches "lap-*", twsrt.toml:12:10)'
    )


def test_selection_text_quotes_a_long_name() -> None:
    long = Selection("p" * 500, "default", Location("twsrt.toml", 3, 1))
    assert "(500 characters)" in selection_text(long) and "p" * 121 not in selection_text(long)


# --- check's reports without a profile: nothing of it -------------------------------------------


@pytest.mark.parametrize("name", list(REPORTERS))
def test_no_profile_no_trace(tmp_path: Path, name: str) -> None:
    """Without [profiles] no report carries any of the profile's marks (the goldens and the
    report tests of main hold the rest of the bytes)."""
    text = render(name, make_report(tmp_path, None), RenderOptions(verbose=True))
    marks = ('"profile"', "profile: ", "twsrt.profile", "title=twsrt profile", "<properties")
    assert [mark for mark in marks if mark in text] == []
    assert "automationDetails" not in text


# --- check's reports with a profile ------------------------------------------------------------


def test_text_report_starts_with_the_profile(tmp_path: Path) -> None:
    report = make_report(tmp_path, BY_FLAG)
    text = render("text", report, RenderOptions())
    plain = render("text", make_report(tmp_path, None), RenderOptions())
    assert text == "profile: work (selected by --profile, twsrt.toml:7:1)\n" + plain
    coloured = render("text", report, RenderOptions(colour=True))
    assert coloured.startswith("profile: work (selected by --profile, twsrt.toml:7:1)\n")
    # -q prints only the failing findings: no header, no summary
    quiet = render("text", report, RenderOptions(quiet=True))
    assert quiet == render("text", make_report(tmp_path, None), RenderOptions(quiet=True))


def test_json_report_has_a_profile_object(tmp_path: Path) -> None:
    document = json.loads(render("json", make_report(tmp_path, BY_FLAG), RenderOptions()))
    assert list(document)[:3] == ["version", "tool", "profile"]
    assert document["profile"] == {
        "name": "work",
        "selected_by": "--profile",
        "location": {"path": "twsrt.toml", "line": 7, "column": 1, "pointer": "profiles.work"},
    }
    hosts = json.loads(render("json", make_report(tmp_path, BY_HOST), RenderOptions()))
    assert hosts["profile"]["selected_by"] == "hosts"
    assert (hosts["profile"]["host"], hosts["profile"]["pattern"]) == ("lap-17.example", "lap-*")
    assert hosts["profile"]["location"]["line"] == 12
    without = json.loads(render("json", make_report(tmp_path, None), RenderOptions()))
    assert {k: v for k, v in document.items() if k != "profile"} == without


@pytest.mark.parametrize("selection", [BY_FLAG, BY_HOST], ids=["flag", "hosts"])
def test_sarif_run_carries_the_profile(tmp_path: Path, selection: Selection) -> None:
    log = json.loads(render("sarif", make_report(tmp_path, selection), RenderOptions()))
    validate_sarif(log)
    run = log["runs"][0]
    assert run["automationDetails"] == {"id": f"twsrt/profile/{selection.name}/"}
    assert run["properties"]["profile"]["name"] == selection.name
    assert run["properties"]["profile"]["selected_by"] == selection.chosen_by
    assert run["properties"]["profile"]["location"]["line"] == selection.origin.line
    assert len(run["results"]) == 2


def test_sarif_category_keeps_a_slash_in_a_name_inside(tmp_path: Path) -> None:
    """Code scanning's category is the id up to its last slash: a profile `a/b` must not give
    the category `twsrt/profile/a/` of a profile `a`."""
    odd = Selection("a/b c", "--profile", Location("twsrt.toml", 2, 1))
    log = json.loads(render("sarif", make_report(tmp_path, odd), RenderOptions()))
    validate_sarif(log)
    assert log["runs"][0]["automationDetails"]["id"] == "twsrt/profile/a%2Fb%20c/"


@pytest.mark.parametrize("selection", [BY_FLAG, BY_HOST], ids=["flag", "hosts"])
def test_junit_suite_has_profile_properties(tmp_path: Path, selection: Selection) -> None:
    root = parse_junit(render("junit", make_report(tmp_path, selection), RenderOptions()))
    suite = root.find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    expected = {
        "twsrt.profile": selection.name,
        "twsrt.profile.selected_by": selection.chosen_by,
        "twsrt.profile.location": str(selection.origin),
    }
    if selection.host:
        expected |= {"twsrt.profile.host": selection.host, "twsrt.profile.pattern": "lap-*"}
    assert properties == expected
    assert len(suite.findall("testcase")) == 4  # the properties change no testcase


def test_github_notice_names_the_profile(tmp_path: Path) -> None:
    text = render("github", make_report(tmp_path, BY_HOST), RenderOptions())
    first = text.splitlines()[0]
    assert first == (
        "::notice title=twsrt profile::profile laptop (selected by hosts: host "
        '"lap-17.example" matches "lap-*", twsrt.toml:12:10)'
    )
    commands = runner_commands(text)
    names = [name for name, _, _ in commands]
    assert names[:4] == ["notice", "error", "notice", "stop-commands"]  # profile, findings, text
    assert "profile: laptop (selected by hosts" in text.split("::stop-commands::")[1]


def test_github_notice_cannot_be_a_second_command(tmp_path: Path) -> None:
    """A profile name is the user's text: a newline in it cannot start a command of its own."""
    hostile = Selection("x\n::error::forged", "--profile", Location("twsrt.toml", 1, 1))
    text = render("github", make_report(tmp_path, hostile), RenderOptions())
    assert [name for name, _, _ in runner_commands(text)][:2] == ["notice", "error"]
    assert "forged" not in text.splitlines()[1]


# --- generate and diff: the mode line ------------------------------------------------------------


def _ctx(selection: Selection | None) -> Any:
    config = SimpleNamespace(selection=selection, scope="user", scope_root=None)
    return SimpleNamespace(config=config, mode="full", sandbox_mode="read-only")


def test_mode_line_names_the_profile() -> None:
    assert mode_line(_ctx(None)) == "twsrt: approval mode full, sandbox mode read-only"
    assert mode_line(_ctx(BY_FLAG)) == (
        "twsrt: approval mode full, sandbox mode read-only, "
        "profile work (selected by --profile, twsrt.toml:7:1)"
    )


def test_project_scope_mode_line_names_the_profile() -> None:
    """A project run names its scope and root instead of the approval mode, and the profile."""
    ctx = _ctx(BY_FLAG)
    ctx.config.scope, ctx.config.scope_root = "project", Path("/r/app")
    ctx.config.display_path = lambda path: "app"
    assert mode_line(ctx) == (
        "twsrt: project scope app, sandbox mode read-only, "
        "profile work (selected by --profile, twsrt.toml:7:1)"
    )


# --- twsrt test's reports -----------------------------------------------------------------------


def _probes(selection: Selection | None) -> ProbeReport:
    return ProbeReport(engines=["srt"], inputs={"srt": ["srt.json"]}, selection=selection)


def test_probe_reports_name_the_profile() -> None:
    assert modes_line(_probes(BY_FLAG)) == (
        "twsrt test: sandbox mode workspace-write, approval mode full, "
        "profile work (selected by --profile, twsrt.toml:7:1); srt reads srt.json"
    )
    assert render_text(_probes(BY_FLAG)).startswith(modes_line(_probes(BY_FLAG)) + "\n")
    document = json.loads(render_json(_probes(BY_HOST)))
    assert document["profile"]["name"] == "laptop" and document["profile"]["host"]
    root = parse_junit(junit_xml(_probes(BY_FLAG)))
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties["twsrt.profile"] == "work"


def test_probe_reports_without_a_profile_are_unchanged() -> None:
    report = _probes(None)
    assert modes_line(report) == (
        "twsrt test: sandbox mode workspace-write, approval mode full; srt reads srt.json"
    )
    assert "profile" not in render_json(report) and "<properties" not in junit_xml(report)


# --- the action's job summary ---------------------------------------------------------------------


def _action() -> Any:
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "action" / "twsrt_action.py"
    spec = importlib.util.spec_from_file_location("twsrt_action_profile", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _summary_report(profile: dict | None) -> dict:
    report = {
        "tool": {"version": "0.1.0"},
        "summary": {"error": 0, "warning": 0, "note": 0, "suppressed": 0, "files": 3}
        | {"fail_on": "error", "exit_code": 0, "sandbox_mode": "workspace-write"},
        "findings": [],
    }
    return report | ({"profile": profile} if profile else {})


def test_job_summary_names_the_profile_and_its_category(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPLOAD", "true")
    monkeypatch.setenv("CATEGORY", "twsrt")
    action = _action()
    plain = action.render_summary(_summary_report(None), 0)
    assert "profile" not in plain and "(category `twsrt`)" in plain
    profile = json.loads(render("json", make_report(Path("/r"), BY_FLAG), RenderOptions()))
    text = action.render_summary(_summary_report(profile["profile"]), 0)
    assert (
        "sandbox mode `workspace-write`, profile `work` (selected by `--profile`, "
        "`twsrt.toml:7`)." in text
    )
    assert "(category `twsrt/profile/work/`)" in text


def test_job_summary_profile_name_is_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """A profile name is the config's text: in the summary it stays inside its code span."""
    cmarkgfm = pytest.importorskip("cmarkgfm")
    monkeypatch.setenv("UPLOAD", "")
    evil = "w`[x](https://evil.example)`<b>"
    profile = {"name": evil, "selected_by": "hosts"} | {
        "location": {"path": "twsrt.toml", "line": 3, "column": 1, "pointer": ""}
    }
    text = _action().render_summary(_summary_report(profile), 0)
    html = cmarkgfm.github_flavored_markdown_to_html(text)
    assert "evil.example" not in html.replace("[x](https://evil.example)", "")
    assert "<b>" not in html and "href" not in html


class _IdleEngine:
    """An engine that reads the srt file and is never run (danger-full-access runs nothing)."""

    hint = ""
    agent = None

    def reads(self, ctx: Any) -> list[Path]:
        return [ctx.config.srt]

    def check_available(self, ctx: Any) -> None:
        raise AssertionError("nothing is run under danger-full-access")


def test_probe_run_carries_the_config_selection(tmp_path: Path) -> None:
    """run_tests puts the run's selection into its report, for every renderer to show."""
    from support.policies import make_policy

    from twsrt.testing.run import run_tests

    config = Config(
        path=tmp_path / "twsrt.toml",
        display="twsrt.toml",
        home=tmp_path,
        srt=tmp_path / "srt.json",
        bash_rules=tmp_path / "bash.json",
        selection=BY_HOST,
    )
    policy = make_policy({"filesystem": {"denyRead": ["~/.aws"], "allowWrite": ["."]}})
    ctx = protected_context(config, policy, sandbox_mode="danger-full-access")
    report = run_tests(ctx, "srt", factory=lambda _name: _IdleEngine(), attacks=False)
    assert report.results and report.selection == BY_HOST
    assert ", profile laptop (selected by hosts: " in render_text(report).splitlines()[0]


# --- end to end: --profile on the bundled two-profile example ------------------------------------

WORK = "work (selected by --profile, twsrt.toml:17:2)"


@pytest.fixture
def profiles(sandbox: Sandbox) -> Sandbox:
    return sandbox.use_example("profiles")


def test_check_with_profile_in_every_format(profiles: Sandbox) -> None:
    reports = profiles.home / "reports"
    reports.mkdir()
    files = ("--json", f"{reports}/r.json", "--sarif", f"{reports}/r.sarif")
    result = profiles.run("check", "--profile", "work", *files, "--junit", f"{reports}/r.xml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"profile: {WORK}\n")
    document = json.loads((reports / "r.json").read_text(encoding="utf-8"))
    assert document["profile"]["name"] == "work"
    assert document["profile"]["location"] == {
        "path": "twsrt.toml",
        "line": 17,
        "column": 2,
        "pointer": "/profiles/work",
    }
    log = json.loads((reports / "r.sarif").read_text(encoding="utf-8"))
    validate_sarif(log)
    assert log["runs"][0]["automationDetails"] == {"id": "twsrt/profile/work/"}
    assert log["runs"][0]["properties"]["profile"] == document["profile"]
    suite = parse_junit((reports / "r.xml").read_text(encoding="utf-8")).find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert properties["twsrt.profile.location"] == "twsrt.toml:17:2"
    github = profiles.run("check", "--profile", "work", "--format", "github")
    assert github.stdout.startswith(f"::notice title=twsrt profile::profile {WORK}\n")


def test_check_by_env_and_default(profiles: Sandbox) -> None:
    by_env = json.loads(profiles.run("check", "--format", "json", TWSRT_PROFILE="work").stdout)
    assert (by_env["profile"]["name"], by_env["profile"]["selected_by"]) == (
        "work",
        "$TWSRT_PROFILE",
    )
    default = json.loads(profiles.run("check", "--format", "json").stdout)
    assert (default["profile"]["name"], default["profile"]["selected_by"]) == ("home", "default")
    assert default["profile"]["location"]["pointer"] == "/profile"


def test_generate_and_diff_with_profile(profiles: Sandbox) -> None:
    mode = f"twsrt: approval mode full, sandbox mode workspace-write, profile {WORK}\n"
    preview = profiles.run("generate", "claude", "--profile", "work")
    assert preview.returncode == 0, preview.stderr
    assert preview.stderr.startswith(mode)
    written = profiles.run("generate", "-w", "--profile", "work")
    assert written.returncode == 0, written.stderr
    assert written.stderr.startswith(mode)  # which profile's files were written
    diffed = profiles.run("diff", "--profile", "work")
    assert diffed.returncode == 0, diffed.stdout + diffed.stderr
    assert diffed.stderr.startswith(mode)


def test_check_by_hosts_names_host_and_pattern(
    profiles: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("twsrt.profiles.host_names", lambda: ["build7.corp.example.com", "build7"])
    result = profiles.run("check")
    assert result.stdout.startswith(
        'profile: work (selected by hosts: host "build7.corp.example.com" matches '
        '"*.corp.example.com", twsrt.toml:19:'
    ), result.stdout
    document = json.loads(profiles.run("check", "--format", "json").stdout)["profile"]
    assert (document["host"], document["pattern"]) == (
        "build7.corp.example.com",
        "*.corp.example.com",
    )
    assert document["location"]["pointer"] == "/profiles/work/hosts/1"
