"""Helpers for the twsrt GitHub Action (action.yml): standard library only, Python 3.11+.

Every input arrives in an environment variable, never in the command line of a step, and nothing
here evaluates it.

    validate      check the enumerated inputs before anything runs (exit 2 with ::error::)
    split-args    $ARGS -> NUL-separated words on stdout (shlex: quotes, no expansion)
    count FILE    number of active findings in a twsrt JSON report
    can-upload    upload SARIF? writes upload=true|false (and skipped=REASON), from $SARIF
                  (auto|true), the actor and the event payload
    upload-failed after a failed upload: was it code scanning being off (tolerated with
                  sarif: auto) or anything else (exit 1)? writes tolerated=true|false, reason=
    summary       Markdown job summary from the JSON report -> $GITHUB_STEP_SUMMARY; writes
                  sarif-upload=uploaded|skipped|failed|'' and sarif-upload-reason=
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
import sys
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

LEVELS = ("error", "warning", "note")
# The catalog's drift family (twsrt.rules.Family.DRIFT), kept equal to it by tests/test_rules.py:
# the action runs whatever twsrt release its `version` input names, so it does not import twsrt.
DRIFT_RULES = {"TWS301", "TWS302", "TWS303", "TWS304", "TWS305"}
# `--format` and every report file option of `twsrt check` (tests/test_action.py compares them
# with twsrt.reports.REPORTERS): the action writes each report into a directory of its own below
# $RUNNER_TEMP, never where a pull request's links could point, and a second --sarif, --json or
# --junit would silently win (click keeps the last) and starve the upload or the summary.
RESERVED = (
    "--format",
    "--json",
    "--sarif",
    "--sarif-suppressed",
    "--junit",
    "--junit-strict",
    "--gitlab",
)
SARIF_MODES = ("auto", "true", "false")
# What GitHub answers where code scanning is off for a repository (the wording has changed with
# the product's name: Advanced Security, then Code Security).
_SCANNING_OFF = re.compile(
    r"(advanced security|code security)\b.*\bmust be enabled|code scanning is not enabled", re.I
)
EXIT_MEANING = {
    0: "nothing at or above the fail-on level",
    1: "findings at or above the fail-on level",
    2: "no usable twsrt config, or bad usage",
    3: "internal error in twsrt",
}


def annotate(kind: str, message: str) -> None:
    """A workflow command (error, warning, notice) titled twsrt."""
    # escaped as the runner unescapes command data: a newline in an input starts no command
    data = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::{kind} title=twsrt::{data}", flush=True)


def error(message: str) -> None:
    annotate("error", message)


def write_output(**values: str) -> None:
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as handle:
        for name, value in values.items():
            # one line each: a line break in a value (an API message) would start an output
            handle.write(f"{name}={' '.join(value.splitlines())}\n")


def validate() -> int:
    problems = []
    if os.environ.get("ANNOTATIONS", "") not in ("true", "false"):
        problems.append(
            f"input annotations must be true or false, not {os.environ.get('ANNOTATIONS')!r}"
        )
    if os.environ.get("SARIF", "") not in SARIF_MODES:
        problems.append(f"input sarif must be auto, true or false, not {os.environ.get('SARIF')!r}")
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
            raise ValueError(
                f"input args must not contain {word}: the action sets the format and writes "
                "every report file itself (below $RUNNER_TEMP; see its outputs)"
            )
    return words


def count(path: str) -> int:
    return len(json.loads(Path(path).read_text(encoding="utf-8"))["findings"])


def event_payload() -> dict[str, Any]:
    """The webhook payload of the run ($GITHUB_EVENT_PATH), or {} when there is none."""
    try:
        event = json.loads(Path(os.environ.get("GITHUB_EVENT_PATH", "")).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return event if isinstance(event, dict) else {}


def _fork_blocker(event: dict[str, Any]) -> str:
    # pull_request_target runs with the base repository's token, so only these are limited.
    if os.environ.get("GITHUB_EVENT_NAME") not in (
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
    ):
        return ""
    if not event:
        return ""  # no payload to judge by: try, and let upload-sarif report a real failure
    pull = event.get("pull_request") or {}
    head = ((pull.get("head") or {}).get("repo") or {}).get("full_name")
    base = ((pull.get("base") or {}).get("repo") or {}).get("full_name") or (
        event.get("repository") or {}
    ).get("full_name")
    if head != base:  # head is None when the fork was deleted: still a fork
        return f"the pull request comes from the fork {head or '(deleted)'}, its token is read-only"
    return ""


def _private_blocker(event: dict[str, Any]) -> str:
    """Code scanning (GitHub Code Security) is sold to organizations only: a private repository
    of a personal account has none. An organization's private repository may have it."""
    repository = event.get("repository") or {}
    owner = repository.get("owner") or {}
    if repository.get("private") is not True or owner.get("type") != "User":
        return ""
    name = repository.get("full_name") or os.environ.get("GITHUB_REPOSITORY", "")
    return (
        f"{name} is a private repository of a personal account, where GitHub offers no code "
        'scanning (set the input sarif to "true" to upload anyway, or to "false" to skip the '
        "upload without this notice)"
    )


def upload_blocker(mode: str = "true") -> str:
    """Why this run does not upload SARIF, or '' when it does. Every mode skips where the token
    cannot upload; "auto" also skips where the repository has no code scanning."""
    if os.environ.get("GITHUB_ACTOR") == "dependabot[bot]":
        return "Dependabot's token is read-only"
    event = event_payload()
    blocker = _fork_blocker(event)
    if not blocker and mode == "auto":
        blocker = _private_blocker(event)
    return blocker


def can_upload() -> int:
    blocker = upload_blocker(os.environ.get("SARIF", "auto"))
    if blocker:
        annotate("notice", f"SARIF upload skipped: {blocker}")
        write_output(upload="false", skipped=blocker)
    else:
        write_output(upload="true")
    return 0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The token goes to $GITHUB_API_URL only: a redirect is an answer, not followed."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def scanning_answer() -> tuple[bool, str]:
    """Ask the code scanning API of this repository what it makes of this token.

    (True, GitHub's message) when it says code scanning is off here; (False, what it said or
    why it could not be asked) for anything else: a missing permission, a rate limit, an outage.
    """
    api = os.environ.get("GITHUB_API_URL", "") or "https://api.github.com"
    repo = quote(os.environ.get("GITHUB_REPOSITORY", ""), safe="/")
    request = urllib.request.Request(
        f"{api.rstrip('/')}/repos/{repo}/code-scanning/analyses?per_page=1",
        headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {os.environ.get('GITHUB_TOKEN', '')}",
            "User-Agent": "twsrt-action",
            "X-GitHub-Api-Version": "2022-11-28",
        },
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            return False, f"the code scanning API answers HTTP {response.status} to this token"
    except urllib.error.HTTPError as exc:
        try:
            message = str(json.loads(exc.read(65536)).get("message", ""))
        except (ValueError, AttributeError, OSError):
            message = ""
        said = f"the code scanning API answers HTTP {exc.code}" + (
            f": {message}" if message else ""
        )
        return exc.code in (403, 404) and bool(_SCANNING_OFF.search(message)), said
    except (OSError, ValueError) as exc:  # URLError, a timeout, a malformed URL
        return False, f"the code scanning API could not be asked ({exc})"


def upload_failed() -> int:
    """After upload-sarif failed (its step continues on error): exit 0 only where code scanning
    is off for the repository and the sarif input is "auto"; every other failure fails the job."""
    mode = os.environ.get("SARIF", "auto")
    repo = os.environ.get("GITHUB_REPOSITORY", "") or "this repository"
    off, said = scanning_answer()
    if off and mode == "auto":
        reason = (
            f"code scanning is not enabled for {repo} ({said}); the job goes on without it "
            '(enable GitHub Code Security, or set the input sarif to "false" to skip the upload)'
        )
        annotate("warning", f"SARIF upload failed: {reason}")
        write_output(tolerated="true", reason=reason)
        return 0
    if off:
        reason = (
            f'code scanning is not enabled for {repo} ({said}), and the input sarif is "true" '
            '(enable GitHub Code Security, or set sarif to "auto" or "false")'
        )
    else:
        reason = f"see the log of the upload step; {said}"
    error(f"SARIF upload failed: {reason}")
    write_output(tolerated="false", reason=reason)
    return 1


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


def upload_state() -> tuple[str, str]:
    """(uploaded | skipped | failed | '', why) from the gate, the upload and its explanation."""
    if os.environ.get("UPLOAD", "") != "true":
        skipped = os.environ.get("UPLOAD_SKIPPED", "")
        return ("skipped", skipped) if skipped else ("", "")
    if os.environ.get("UPLOAD_OUTCOME", "") == "failure":
        reason = os.environ.get("UPLOAD_FAILURE", "") or "see the log of the upload step"
        return "failed", reason
    return "uploaded", ""


def _upload_lines(report: dict[str, Any]) -> list[str]:
    state, reason = upload_state()
    if state == "uploaded":
        category = os.environ.get("CATEGORY", "")
        if report.get("profile"):  # the SARIF run names its own category (automationDetails)
            category = f"twsrt/profile/{quote(str(report['profile']['name']), safe='')}/"
        return [f"SARIF sent to code scanning (category {code(category)}).", ""]
    if state == "skipped":
        return [f"SARIF not uploaded: {cell(reason)}.", ""]
    if state == "failed":
        fails = os.environ.get("UPLOAD_TOLERATED", "") != "true"
        return [
            f"SARIF upload failed{' (this fails the job)' if fails else ''}: {cell(reason)}.",
            "",
        ]
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
    if os.environ.get("GITHUB_OUTPUT"):
        state, reason = upload_state()
        write_output(**{"sarif-upload": state, "sarif-upload-reason": reason})
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
    if command == "upload-failed":
        return upload_failed()
    if command == "summary":
        return summary()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
