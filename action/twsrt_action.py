"""Helpers for the twsrt GitHub Action (action.yml): standard library only, Python 3.11+.

Every input arrives in an environment variable, never in the command line of a step, and nothing
here evaluates it.

    validate      check the enumerated inputs before anything runs (exit 2 with ::error::)
    split-args    $ARGS -> NUL-separated words on stdout (shlex: quotes, no expansion)
    count FILE    number of active findings in a twsrt JSON report
    can-upload    may this token upload SARIF? writes upload=true|false (and skipped=REASON)
    summary       Markdown job summary from the JSON report -> $GITHUB_STEP_SUMMARY
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

LEVELS = ("error", "warning", "note")
# The catalog's drift family (twsrt.rules.Family.DRIFT), kept equal to it by tests/test_rules.py:
# the action runs whatever twsrt release its `version` input names, so it does not import twsrt.
DRIFT_RULES = {"TWS301", "TWS302", "TWS303", "TWS304", "TWS305"}
# Options whose files the action itself names; a second value would silently win (click keeps
# the last one) and starve the annotations, the upload or the summary.
RESERVED = ("--format", "--sarif", "--json", "--junit")
EXIT_MEANING = {
    0: "nothing at or above the fail-on level",
    1: "findings at or above the fail-on level",
    2: "no usable twsrt config, or bad usage",
    3: "internal error in twsrt",
}


def error(message: str) -> None:
    # escaped as the runner unescapes command data: a newline in an input starts no command
    data = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::error title=twsrt::{data}", flush=True)


def write_output(**values: str) -> None:
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as handle:
        for name, value in values.items():
            handle.write(f"{name}={value}\n")


def validate() -> int:
    problems = []
    for name, var in (("annotations", "ANNOTATIONS"), ("sarif", "SARIF")):
        if os.environ.get(var, "") not in ("true", "false"):
            problems.append(f"input {name} must be true or false, not {os.environ.get(var)!r}")
    if os.environ.get("FAIL_ON", "") not in ("", *LEVELS):
        problems.append(
            f"input fail-on must be error, warning or note, not {os.environ['FAIL_ON']!r}"
        )
    try:
        split_args()
    except ValueError as exc:
        problems.append(str(exc))
    junit = os.environ.get("JUNIT_FILE", "")
    parts = junit.split("/")
    if junit and (junit.startswith("/") or ".." in parts or not parts[-1]):
        problems.append(
            "input junit-file must be a relative file name without `..`: the action writes it "
            "below $RUNNER_TEMP (the junit-file output is its path), never into the checkout"
        )
    for problem in problems:
        error(problem)
    return 2 if problems else 0


def split_args() -> list[str]:
    try:
        words = shlex.split(os.environ.get("ARGS", ""))
    except ValueError as exc:  # an unbalanced quote
        raise ValueError(f"input args cannot be split: {exc}") from None
    for word in words:
        if word.split("=", 1)[0] in RESERVED:
            raise ValueError(f"input args must not contain {word}: the action sets it")
    return words


def count(path: str) -> int:
    return len(json.loads(Path(path).read_text(encoding="utf-8"))["findings"])


def upload_blocker() -> str:
    """Why this run's token cannot upload SARIF, or '' when it can."""
    if os.environ.get("GITHUB_ACTOR") == "dependabot[bot]":
        return "Dependabot's token is read-only"
    # pull_request_target runs with the base repository's token, so only these are limited.
    if os.environ.get("GITHUB_EVENT_NAME") not in (
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
    ):
        return ""
    event_path = os.environ.get("GITHUB_EVENT_PATH", "")
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""  # no payload to judge by: try, and let upload-sarif report a real failure
    pull = event.get("pull_request") or {}
    head = ((pull.get("head") or {}).get("repo") or {}).get("full_name")
    base = ((pull.get("base") or {}).get("repo") or {}).get("full_name") or (
        event.get("repository") or {}
    ).get("full_name")
    if head != base:  # head is None when the fork was deleted: still a fork
        return f"the pull request comes from the fork {head or '(deleted)'}, its token is read-only"
    return ""


def can_upload() -> int:
    blocker = upload_blocker()
    if blocker:
        print(f"::notice title=twsrt::SARIF upload skipped: {blocker}", flush=True)
        write_output(upload="false", skipped=blocker)
    else:
        write_output(upload="true")
    return 0


# --- summary ---------------------------------------------------------------------------------


# Every ASCII punctuation character: CommonMark lets a backslash escape each one, and each
# escaped one is literal text, so no link, image, autolink, code span, emphasis, raw HTML,
# entity, heading or table pipe can begin in it.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def cell(text: str) -> str:
    """Free text safe in Markdown, also inside a table cell: one line, nothing but text.

    GitHub links e-mail and xmpp addresses after escapes are resolved, so an invisible
    WORD JOINER follows every ``@``.
    """
    return _PUNCTUATION.sub(r"\\\1", _BREAKS.sub(" ", text)).replace("@", "@\u2060")


def code(text: str, table: bool = True) -> str:
    """A code span holding ``text`` literally: its fence is longer than any backtick run
    inside, so no backtick can close it early (a pipe is escaped where a table splits cells)."""
    text = _BREAKS.sub(" ", text)
    if not text:
        return ""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    if text[0] in "` " or text[-1] in "` ":
        text = f" {text} "  # the parser strips one space on each side
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{text}{fence}"


def repo_path(path: str) -> str:
    """twsrt's paths are relative to the git root; fold `a/../b` so links and text agree."""
    return posixpath.normpath(path) if path else path


def link(path: str, line: int | None, table: bool = True) -> str:
    """`path:line` linked to the checked commit, or plain when outside the repository."""
    path = repo_path(path)
    label = f"{path}:{line}" if line else path
    server, repo, sha = (
        os.environ.get(k, "") for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA")
    )
    if not (server and repo and sha and path) or path.startswith("../") or path.startswith("/"):
        return code(label, table)
    # quote() leaves no character that could end the destination: ( ) < > and spaces are escaped
    url = f"{server}/{repo}/blob/{sha}/{quote(path)}" + (f"#L{line}" if line else "")
    return f"[{code(label, table)}]({url})"


def drifted_file(item: dict[str, Any]) -> tuple[str, str]:
    """The drifted file of a TWS301-305 finding and its linked location.

    A missing target (TWS301) is located at the config line that names it; the file itself is
    only in the message, "<path> does not exist; ...".
    """
    location = item["location"]
    where = link(location["path"], location["line"], table=False)
    if item["rule_id"] == "TWS301" and " does not exist" in item["message"]:
        path = repo_path(item["message"].split(" does not exist", 1)[0])
        return path, f"{code(path, table=False)} (missing, named at {where})"
    return repo_path(location["path"]), where


def fix_command() -> str:
    parts = []
    workdir = os.environ.get("WORKING_DIRECTORY", ".") or "."
    if posixpath.normpath(workdir) != ".":
        parts.append(f"cd {shlex.quote(workdir)}")
    config = os.environ.get("CONFIG", "")
    suffix = f" -c {shlex.quote(config)}" if config else ""
    profile = os.environ.get("PROFILE", "")
    suffix += f" --profile {shlex.quote(profile)}" if profile else ""
    parts.append(f"twsrt generate -w{suffix}")
    parts.append(
        "# a drifted *_yolo target needs the yolo pass first "
        "(then settings.json points at the full settings again):"
    )
    parts.append(f"# twsrt generate -w --yolo{suffix} && twsrt generate -w{suffix}")
    return "\n".join(parts)


def fenced(text: str, info: str) -> list[str]:
    """A fenced code block no line of ``text`` can close (its fence is the longest run + 1)."""
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return [fence + info, text, fence]


def summary_limit() -> int:
    raw = os.environ.get("SUMMARY_FINDINGS", "20")
    try:
        return max(int(raw), 0)
    except ValueError:
        print(f"::warning title=twsrt::input summary-findings is not a number: {raw!r}; using 20")
        return 20


def _outcome_lines(report: dict[str, Any], exit_code: int) -> list[str]:
    """What the exit code means for this run: stopped at the config (2), or checked."""
    meaning = EXIT_MEANING.get(exit_code, "unexpected exit code")
    info = report["summary"]
    version = cell(str(report["tool"]["version"]))
    if exit_code != 2:
        return [
            f"`twsrt check` exited **{exit_code}**: {meaning} ({code(str(info['fail_on']))}). "
            f"twsrt {version}, {cell(str(info['files']))} files checked"
            + (
                f", sandbox mode {code(str(info['sandbox_mode']))}"
                if "sandbox_mode" in info
                else ""
            )
            + _profile_words(report.get("profile"))
            + ".",
            "",
        ]
    # twsrt could not use its config: the findings say why
    lines = [
        f"`twsrt check` exited **2**: {meaning}. twsrt {version} stopped before checking "
        "the policy: fix the error below and run it again.",
        "",
    ]
    if any(item["rule_id"] == "TWS013" for item in report["findings"]):
        workdir = os.environ.get("WORKING_DIRECTORY", ".") or "."
        lines += [
            f"No twsrt config was found from {code(workdir)} up to the repository root: point "
            "the action's `working-directory` or `config` input at your `twsrt.toml`, or "
            "create one with `twsrt init --repo`.",
            "",
        ]
    return lines


def _profile_words(profile: dict[str, Any] | None) -> str:
    """``, profile `work` (selected by `--profile`)`` for a run that composed a profile."""
    if not profile:
        return ""
    where = profile["location"]
    line = f":{where['line']}" if where.get("line") else ""
    return (
        f", profile {code(str(profile['name']))} (selected by "
        f"{code(str(profile['selected_by']))}, {code(str(where['path']) + line)})"
    )


def _upload_lines(report: dict[str, Any]) -> list[str]:
    upload, skipped = os.environ.get("UPLOAD", ""), os.environ.get("UPLOAD_SKIPPED", "")
    if upload == "true":
        category = os.environ.get("CATEGORY", "")
        if report.get("profile"):  # the SARIF run names its own category (automationDetails)
            category = f"twsrt/profile/{quote(str(report['profile']['name']), safe='')}/"
        return [f"SARIF sent to code scanning (category {code(category)}).", ""]
    if skipped:
        return [f"SARIF not uploaded: {cell(skipped)}.", ""]
    return []


def _count_lines(report: dict[str, Any]) -> list[str]:
    """Findings per level, then (when there are any) per agent and level."""
    info, findings = report["summary"], report["findings"]
    lines = ["| level | findings |", "|---|---:|"]
    lines += [f"| {level} | {info[level]} |" for level in LEVELS]
    lines += [f"| suppressed | {info['suppressed']} |", ""]
    if not findings:
        return lines
    per_agent: dict[str, Counter[str]] = {}
    for item in findings:
        per_agent.setdefault(item["agent"] or "(policy)", Counter())[item["level"]] += 1
    lines += ["| agent | error | warning | note |", "|---|---:|---:|---:|"]
    for agent in sorted(per_agent, key=lambda a: (a == "(policy)", a)):
        counts = per_agent[agent]
        lines.append(f"| {cell(agent)} | " + " | ".join(str(counts[lv]) for lv in LEVELS) + " |")
    return [*lines, ""]


def _drift_lines(findings: list[dict[str, Any]]) -> list[str]:
    """Each drifted file once, with the command that regenerates it."""
    drifted: dict[str, list[str]] = {}
    for item in findings:
        if item["rule_id"] in DRIFT_RULES:
            path, where = drifted_file(item)
            agent = f" ({cell(item['agent'])})" if item["agent"] else ""
            drifted.setdefault(path, []).append(
                f"{where}: {item['rule_id']} {item['rule_name']}{agent}"  # catalog values
            )
    if not drifted:
        return []
    return [
        "### Drifted files",
        "",
        *(f"- {entries[0]}" for entries in drifted.values()),
        "",
        "Regenerate the targets locally and commit the result:",
        "",
        *fenced(fix_command(), "sh"),
        "",
    ]


def _findings_lines(findings: list[dict[str, Any]], limit: int) -> list[str]:
    """The first ``limit`` findings as a table, errors first."""
    if not findings or not limit:
        return []
    order = {level: index for index, level in enumerate(LEVELS)}
    shown = sorted(findings, key=lambda f: order[f["level"]])[:limit]
    title = "### Findings" + (
        f" (first {len(shown)} of {len(findings)}, errors first)"
        if len(shown) < len(findings)
        else ""
    )
    lines = [title, "", "| level | rule | location | agent | message |", "|---|---|---|---|---|"]
    for item in shown:
        location = link(item["location"]["path"], item["location"]["line"])
        lines.append(
            f"| {item['level']} | {item['rule_id']} {item['rule_name']} | {location} "
            f"| {cell(item['agent'])} | {cell(item['message'])} |"
        )
    return [*lines, ""]


def render_summary(report: dict[str, Any] | None, exit_code: int) -> str:
    ok = exit_code == 0
    lines = [f"## twsrt check: {'passed' if ok else 'failed'} {'✅' if ok else '❌'}", ""]
    if report is None:
        meaning = EXIT_MEANING.get(exit_code, "unexpected exit code")
        lines += [
            f"`twsrt check` exited **{exit_code}**: {meaning}. No report was written; see the "
            "log of the twsrt check step.",
            "",
        ]
        return "\n".join(lines)
    lines += _outcome_lines(report, exit_code)
    lines += _upload_lines(report)
    lines += _count_lines(report)
    lines += _drift_lines(report["findings"])
    lines += _findings_lines(report["findings"], summary_limit())
    return "\n".join(lines)


def summary() -> int:
    exit_code = int(os.environ.get("EXIT_CODE", "3") or "3")
    json_file = os.environ.get("JSON_FILE", "")
    report = json.loads(Path(json_file).read_text(encoding="utf-8")) if json_file else None
    if report is None and exit_code != 0:
        # a usage error or a crash: no finding to annotate, so the reason's pointer is one
        error(
            f"twsrt check exited {exit_code} ({EXIT_MEANING.get(exit_code, 'unexpected')}) "
            "without a report; see the log of the twsrt check step"
        )
    text = render_summary(report, exit_code)
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    else:
        print(text)
    return 0


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "validate":
        return validate()
    if command == "split-args":
        try:
            words = split_args()
        except ValueError as exc:
            error(str(exc))
            return 2
        sys.stdout.write("".join(word + "\0" for word in words))
        return 0
    if command == "count" and len(argv) == 3:
        print(count(argv[2]))
        return 0
    if command == "can-upload":
        return can_upload()
    if command == "summary":
        return summary()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
