"""Never widen, as a property against the real tools (issue 12, "Proof with the real tools").

Policies come from ``strategies.tree_policy``: paths with spaces and non-ASCII letters, ``~``
forms, trailing slashes, globs, ``..``, trees spelled ``P``, ``P/`` and ``P/**``, denies nested
inside write roots, domains with wildcards and ports; every path stays inside one temporary
tree (HOME, launch directory and a stand-in for ``/``), so no real path is ever touched.

(a) ``test_generated_files_load_in_the_real_agents``: twsrt (in-process) compiles every agent in
    every sandbox mode, full and yolo. A policy it refuses must be refused with a located error;
    otherwise every Codex config loads (``--strict-config``) and starts ``codex sandbox -- true``,
    every Claude file passes ``claude doctor``, every Copilot flag snippet and settings file
    passes Copilot's own check, Gemini loads every policy file with no rule dropped (all of
    an example's side by side, one headless run per settings file), and Qwen Code loads every
    settings file with nothing on stderr and without rewriting it (one headless run each);
    OpenCode and Kilo take every config (its call decided, not failed, the file left as it
    is), pi parses every sandbox file and runs its bash call in srt, and Droid runs its call
    under every settings file without the fail-closed refusal and without rewriting it.
    Identical files are checked once; Copilot checks every flag value of one example in a
    single run (it validates each value on its own).
(b) ``test_codex_never_allows_what_srt_denies``: the adversarial probes of ``adversarial.py``
    run in srt on the canonical policy and in Codex on the generated profile (workspace-write
    and read-only). An action srt denies cleanly and Codex lets through is a failure.

Sizes: TWSRT_PROPERTY_LOADS (default 20) and TWSRT_PROPERTY_PROBES (default 6) examples;
TWSRT_PROPERTY_SHRINK=0 reports the first failing example as found (shrinking a failure costs up
to five minutes, hypothesis's own limit).
The counts (examples, real-tool starts, srt gaps) are printed at the end of the session (run
with ``-s`` to see them).
"""

from __future__ import annotations

import json
import os
import posixpath
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from support.strategies import Tree, bash_rules, materialize, tree_policy
from support.tools import locate_tool, require_tool

from twsrt.agents import AGENTS
from twsrt.config import SANDBOX_MODES
from twsrt.findings import TwsrtError

from . import adversarial
from .claude_doctor import DEFAULT_BIN as CLAUDE_DEFAULT
from .claude_doctor import claude_accepts_settings
from .codex_client import codex_bin, config_loads, sandbox_run
from .copilot_client import Copilot, copilot_bin
from .droid_client import droid_bin
from .gemini_client import gemini_bin
from .pi_client import pi_bin
from .qwen_client import qwen_bin

pytestmark = pytest.mark.real

LOADS = int(os.environ.get("TWSRT_PROPERTY_LOADS", "20"))
PROBES = int(os.environ.get("TWSRT_PROPERTY_PROBES", "6"))
SRT_DEFAULT = "/opt/twsrt-tools/srt/bin/srt"
SHRINK = os.environ.get("TWSRT_PROPERTY_SHRINK", "1") != "0"
PHASES = tuple(p for p in Phase if SHRINK or p not in (Phase.shrink, Phase.explain))
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

CONFIG = """\
home = {home}

[sources]
srt = "srt.json"
bash_rules = "bash.json"

[targets]
claude_settings = "out/claude/settings.full.json"
codex_config = "out/codex/config.toml"
codex_rules = "out/codex/twsrt.rules"
copilot_output = "out/copilot/flags.txt"
copilot_settings = "out/copilot/settings.json"
deepcode_settings = "out/deepcode/settings.json"
gemini_settings = "out/gemini/settings.json"
gemini_policy = "out/gemini/policies/twsrt.toml"
qwen_settings = "out/qwen/settings.json"
opencode_config = "out/opencode/opencode.json"
kilo_config = "out/kilo/kilo.jsonc"
pi_sandbox = "out/pi/sandbox.json"
droid_settings = "out/droid/settings.json"
"""


@dataclass
class Stats:
    examples: Counter[str] = field(default_factory=Counter)
    starts: Counter[str] = field(default_factory=Counter)
    srt_gaps: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)


STATS = Stats()


@dataclass(frozen=True)
class Tools:
    codex: str
    claude: str
    copilot: Copilot
    srt: str
    gemini: str
    qwen: str
    pi: str
    droid: str


@pytest.fixture(scope="session")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tools]:
    claude = require_tool("claude", locate_tool("claude", "TWSRT_CLAUDE_BIN", CLAUDE_DEFAULT))
    srt = require_tool("srt", locate_tool("srt", "TWSRT_SRT_BIN", SRT_DEFAULT))
    copilot = Copilot(copilot_bin(), tmp_path_factory.mktemp("copilot-cache"))
    copilot.api_schema()  # unpack the package once, outside the timed examples
    yield Tools(codex_bin(), claude, copilot, srt, gemini_bin(), qwen_bin(), pi_bin(), droid_bin())
    print(
        f"\nnever-widen property: examples {dict(STATS.examples)}, "
        f"real-tool starts {dict(STATS.starts)} (total {sum(STATS.starts.values())})"
    )
    for gap in sorted(STATS.srt_gaps):
        print(f"  srt gap (not counted against Codex): {gap}")
    for failure in STATS.failures:
        print(f"  FAILURE: {failure}")


# ------------------------------------------------------------------ compiling


@dataclass
class Compiled:
    """The files of one (sandbox mode, approval mode) run, by role; and each agent's refusal."""

    files: dict[str, str] = field(default_factory=dict)
    refused: dict[str, TwsrtError] = field(default_factory=dict)


def compile_all(
    srt: dict[str, Any],
    bash: dict[str, Any],
    tree: Tree,
    modes: tuple[str, ...],
    yolos: tuple[bool, ...] = (False,),
    agents: tuple[str, ...] = tuple(AGENTS),
) -> dict[tuple[str, bool], Compiled]:
    """Write the sources beside the tree and compile each agent in-process (one agent's
    refusal does not hide the other agents' files)."""
    from support.cli import compiled as compile_request

    from twsrt.writes import FileWrite

    config_dir = Path(tree.root).parent / "dotfiles"
    config_dir.mkdir(exist_ok=True)
    (config_dir / "srt.json").write_text(
        json.dumps(materialize(srt, tree), indent=2, ensure_ascii=False), encoding="utf-8"
    )
    (config_dir / "bash.json").write_text(json.dumps(bash, ensure_ascii=False), encoding="utf-8")
    toml = config_dir / "twsrt.toml"
    toml.write_text(CONFIG.format(home=json.dumps(tree.home)), encoding="utf-8")
    out: dict[tuple[str, bool], Compiled] = {}
    for mode in modes:
        for yolo in yolos:
            item = out[mode, yolo] = Compiled()
            for agent in agents:
                try:
                    compiled = compile_request(str(toml), agent, yolo, sandbox=mode)
                except TwsrtError as exc:
                    item.refused[agent] = exc
                    continue
                for result in compiled.results:
                    for change in result.changes:
                        if isinstance(change, FileWrite):
                            rel = change.path.relative_to(config_dir / "out").as_posix()
                            item.files[_role(rel)] = change.text
    return out


def _role(rel: str) -> str:
    if rel.startswith("claude/"):
        return "claude"
    if rel.startswith("copilot/flags"):
        return "copilot-flags"
    return {
        "codex/config.toml": "codex",
        "codex/twsrt.rules": "codex-rules",
        "copilot/settings.json": "copilot-settings",
        "gemini/settings.json": "gemini-settings",
        "gemini/policies/twsrt.toml": "gemini-policy",
        "qwen/settings.json": "qwen",
        "opencode/opencode.json": "opencode",
        "pi/sandbox.json": "pi",
        "droid/settings.json": "droid",
        "kilo/kilo.jsonc": "kilo",
    }.get(rel, rel)


def assert_located(refused: TwsrtError) -> None:
    """A refusal is fine when it names the place in the policy (file:line:col)."""
    for item in refused.findings:
        assert item.location.path and item.location.line > 0, item.render()


# ------------------------------------------------------------------ (a) loads


Check = Callable[[], tuple[bool, str]]


def _checks(tools: Tools, compiled: dict[tuple[str, bool], Compiled], tree: Tree, tmp: Path):
    """One real-tool check per distinct generated file (flags: one run per example)."""
    jobs: dict[str, Check] = {}
    seen: set[tuple[str, str, str | None]] = set()
    flags: dict[str, list[str]] = {}
    from twsrt.agents.copilot.agent import parse_snippet

    def once(tool: str, key: tuple[str, str | None], where: str, check: Check) -> None:
        if (tool, *key) not in seen:  # identical files are checked once
            seen.add((tool, *key))
            jobs[f"{tool} ({where})"] = check

    # the loaders that take one generated file each: (the file's key, its tool, the check)
    single: dict[str, tuple[str, Callable[[str], Check]]] = {
        "claude": ("claude doctor", lambda text: _claude(tools, text, tmp)),
        "copilot-settings": ("copilot settings", lambda text: _copilot_settings(tools, text)),
        "qwen": ("qwen", lambda text: _qwen(tools, text)),
        "opencode": ("opencode", lambda text: _opencode(text, "opencode")),
        "kilo": ("kilo", lambda text: _opencode(text, "kilo")),
        "pi": ("pi", lambda text: _pi(tools, text)),
        "droid": ("droid", lambda text: _droid(tools, text)),
    }
    for (mode, yolo), item in sorted(compiled.items()):
        where = f"{mode}{' yolo' if yolo else ''}"
        files = item.files
        if "codex" in files:
            config, rules = files["codex"], files.get("codex-rules")
            once("codex", (config, rules), where, _codex(tools, config, rules))
        for key, (tool, make) in single.items():
            if key in files:
                once(tool, (files[key], None), where, make(files[key]))
        if "copilot-flags" in files:
            flags.setdefault(files["copilot-flags"], parse_snippet(files["copilot-flags"]))
    if flags:
        everything = [value for argv in flags.values() for value in argv]
        jobs["copilot flags"] = _copilot_flags(tools, everything)
    policies = sorted(
        {item.files["gemini-policy"] for item in compiled.values() if "gemini-policy" in item.files}
    )
    settings_files = sorted(
        {
            item.files["gemini-settings"]
            for item in compiled.values()
            if "gemini-settings" in item.files
        }
    )
    if policies:
        jobs["gemini"] = _gemini(tools, policies, settings_files)
    return jobs


def _codex(tools: Tools, config: str, rules: str | None) -> Check:
    def run() -> tuple[bool, str]:
        STATS.starts["codex"] += 1
        ok, out = config_loads(tools.codex, config, rules)
        if not ok:
            return False, f"--strict-config refused it:\n{out}\n{config}"
        with tempfile.TemporaryDirectory(prefix="twsrt-prop-") as tmp:
            home, work = Path(tmp, "home"), Path(tmp, "work")
            home.mkdir()
            work.mkdir()
            STATS.starts["codex"] += 1
            code, out = sandbox_run(tools.codex, config, "true", work, home)
        return code == 0, f"`codex sandbox -- true` exited {code}:\n{out}\n{config}"

    return run


def _claude(tools: Tools, text: str, tmp: Path) -> Check:
    def run() -> tuple[bool, str]:
        path = tmp / f"claude-{abs(hash(text))}.json"
        path.write_text(text, encoding="utf-8")
        STATS.starts["claude"] += 1
        ok, out = claude_accepts_settings(tools.claude, path)
        return ok, f"claude doctor:\n{out}\n{text}"

    return run


def _copilot_settings(tools: Tools, text: str) -> Check:
    def run() -> tuple[bool, str]:
        STATS.starts["copilot"] += 1
        loaded = tools.copilot.config_list(text)
        return loaded == json.loads(text), f"Copilot loaded {loaded!r} from:\n{text}"

    return run


def _gemini(tools: Tools, policies: list[str], settings_files: list[str]) -> Check:
    """Every distinct policy file of the example side by side in one policy directory (Gemini
    loads each *.toml there and names the file of any rule it drops), under each distinct
    settings file: one headless run each, whose one shell call must run."""

    def run() -> tuple[bool, str]:
        from .gemini_client import Call, Setup, run_gemini

        for settings_text in settings_files:
            with tempfile.TemporaryDirectory(prefix="twsrt-prop-", dir="/var/tmp") as tmp:
                setup = Setup(Path(tmp), settings=json.loads(settings_text), policy=policies[0])
                setup.write()
                for index, text in enumerate(policies[1:], 1):
                    (setup.home / ".gemini" / "policies" / f"p{index}.toml").write_text(text)
                STATS.starts["gemini"] += 1
                ran = run_gemini(tools.gemini, setup, [Call("true")])
                # the CLI reached the call (any verdict: the policy may deny it) and dropped no rule
                if "Policy file error" in ran.stderr or ran.results[0].status is None:
                    return False, f"gemini:\n{ran.stderr[-3000:]}\n{settings_text}\n{policies}"
        return True, ""

    return run


def _qwen(tools: Tools, text: str) -> Check:
    """One headless run on the settings file as ~/.qwen/settings.json (beside the login keys):
    its one shell call reaches a verdict, stderr stays empty, and Qwen leaves the file as it
    is (it rewrites one whose "$version" it does not take)."""

    def run() -> tuple[bool, str]:
        from support.fake_chat import FakeChat

        from .qwen_client import Call, Setup, run_qwen

        with (
            tempfile.TemporaryDirectory(prefix="twsrt-prop-", dir="/var/tmp") as tmp,
            FakeChat().serving() as fake,
        ):
            setup = Setup(Path(tmp), settings=json.loads(text))
            setup.write()
            before = setup.user_settings.read_bytes()
            STATS.starts["qwen"] += 1
            ran = run_qwen(tools.qwen, fake, "prop", setup, [Call("true")])
            ok = ran.results[0].status is not None and not ran.stderr.strip()
            ok = ok and setup.user_settings.read_bytes() == before
            return ok, f"qwen:\n{ran.stderr[-3000:]}\n{text}"

    return run


def _opencode(text: str, name: str = "opencode") -> Check:
    """One headless run on the config as ~/.config/opencode/opencode.json (beside the fake
    model's provider keys): the CLI takes the config (exit 0; an invalid one stops it at
    start), its one shell call reaches a verdict, and it leaves the file as it is (it adds a
    "$schema" to a file without one)."""

    def run() -> tuple[bool, str]:
        from support.fake_chat import FakeChat

        from .opencode_client import KILO, OPENCODE, Setup, bash, run_agent

        agent = KILO if name == "kilo" else OPENCODE

        with (
            tempfile.TemporaryDirectory(prefix="twsrt-prop-", dir="/var/tmp") as tmp,
            FakeChat().serving() as fake,
        ):
            setup = Setup(Path(tmp), agent, user=json.loads(text))
            setup.write(fake.base_url("prop"))
            before = setup.user_path.read_bytes()
            STATS.starts[name] += 1
            ran = run_agent(agent.binary(), fake, "prop", setup, [bash("true")])
            # Kilo exits 1 after a rejected ask (the catch-all asks for `true`, row 24)
            verdict = ran.results[0].verdict
            ok = ran.returncode in ((0, 1) if name == "kilo" else (0,)) and verdict is not None
            ok = ok and verdict != "error"  # a sandbox that cannot start fails every call
            ok = ok and setup.user_path.read_bytes() == before
            return ok, f"{name}:\n{ran.results[0].output[:500]}\n{ran.stderr[-3000:]}\n{text}"

    return run


def _pi(tools: Tools, text: str) -> Check:
    """One headless run with the file as the sandbox extension's global file: pi parses it
    (no "Could not parse" on stderr) and its two bash calls run in srt (no bwrap error)."""

    def run() -> tuple[bool, str]:
        from support.fake_chat import FakeChat

        from .pi_client import GLOBAL_FILE, Call, Setup, run_pi

        with (
            tempfile.TemporaryDirectory(prefix="twsrt-prop-", dir="/var/tmp") as tmp,
            FakeChat().serving() as fake,
        ):
            setup = Setup(Path(tmp))
            setup.write()
            for directory in (".claude", ".git"):  # srt 0.0.26's stubs land inside (row 14)
                (setup.workspace / directory).mkdir()
            (setup.agent_dir / GLOBAL_FILE).parent.mkdir(parents=True, exist_ok=True)
            (setup.agent_dir / GLOBAL_FILE).write_text(text, encoding="utf-8")
            STATS.starts["pi"] += 1
            # two calls: srt 0.0.26's stubs of the first can fail the second (row 14)
            calls = [Call("echo ran"), Call("echo again")]
            ran = run_pi(tools.pi, fake, "prop", setup, calls)
            told = "\n".join(result or "" for result in ran.results)
            ok = "ran" in told and "again" in told and "bwrap" not in told
            ok = ok and "Could not parse" not in ran.finished.stderr
            return ok, f"pi:\n{told}\n{ran.finished.stderr[-3000:]}\n{text}"

    return run


def _droid(tools: Tools, text: str) -> Check:
    """One headless ``droid exec`` on the settings file as ~/.factory/settings.json (beside the
    fake model's entry): its Execute call gets a result that is no fail-closed refusal (a
    sandbox block Droid cannot start says "refusing ... without sandbox protection"), a write
    outside every write root lands only when the block is off, the exec ends with status 0, and
    Droid leaves the file as it is."""

    def run() -> tuple[bool, str]:
        from support.fake_chat import FakeChat

        from .droid_client import Call, Setup, run_droid

        with (
            tempfile.TemporaryDirectory(prefix="twsrt-prop-", dir="/var/tmp") as tmp,
            FakeChat().serving() as fake,
        ):
            setup = Setup(Path(tmp), settings=json.loads(text))
            # a write beside the workspace, which no generated policy grants: refused when the
            # block is on, so Droid took it (a block it rejected would leave commands unconfined)
            outside = Path(tmp) / "outside-probe"
            calls = [Call("echo reached"), Call(f"touch {outside}")]
            STATS.starts["droid"] += 1
            ran = run_droid(tools.droid, fake, "prop", setup, calls)
            told = ran.results[0] or ""
            loaded = json.loads(setup.user_settings.read_text())
            ok = ran.returncode == 0 and "reached" in told and "refusing" not in told
            # four known ways Droid runs no command at all, which widen nothing: a read-only
            # file (no write root) its srt cannot mount (write roots below non-ASCII directories
            # left out; noted for a future issue); a denyRead over ~/.factory, where its seccomp
            # helper lives (TWS424); a denyWrite of the launch directory, where its srt cannot
            # then create the masks of its own protected files (TWS425); and two denies below
            # one directory missing inside a write root (its srt masks the first with a file
            # there, and the second cannot be made: "Can't mkdir ...: Not a directory", as
            # Codex's TWS618). Accepted only when no command ran and nothing was written outside
            nothing_ran = "reached" not in told and not outside.exists()
            not_found = "Command not found" in told
            denied = setup.settings.get("sandbox", {}).get("filesystem", {}).get("denyWrite", [])
            known = (
                (not_found and '"allowWrite": []' in text)
                or (not_found and "/sandbox-runtime/seccomp/apply-seccomp" in told)
                or ("bwrap: Can't mkdir" in told and ": Not a directory" in told)
                or (
                    bool({".", "./"} & set(denied))
                    and f"bwrap: Can't create file at {setup.workspace}/" in told
                    and ": Read-only file system" in told
                )
            )
            ok = ok or (nothing_ran and known)
            ok = ok and {k: v for k, v in loaded.items() if k != "customModels"} == setup.settings
            confined = setup.settings.get("sandbox", {}).get("enabled") is True
            ok = ok and outside.exists() is not confined
            return ok, f"droid:\n{told[-3000:]}\n{ran.results[1]}\n{text}"

    return run


def _copilot_flags(tools: Tools, argv: list[str]) -> Check:
    def run() -> tuple[bool, str]:
        STATS.starts["copilot"] += 1
        ok, out = tools.copilot.flags_verdict(argv)
        return ok and "Invalid" not in out, f"copilot {argv}:\n{out}"

    return run


# one test per agent CLI, so that xdist runs the three loaders side by side (each draws the same
# derandomized examples)
@pytest.mark.long
@pytest.mark.parametrize(
    "agent", ["claude", "codex", "copilot", "gemini", "qwen", "opencode", "kilo", "pi", "droid"]
)
@settings(
    derandomize=True,
    max_examples=LOADS,
    deadline=None,
    database=None,
    suppress_health_check=HEALTH,
    phases=PHASES,
)
@given(srt=tree_policy(), bash=bash_rules())
def test_generated_files_load_in_the_real_agents(
    tools: Tools, agent: str, srt: dict[str, Any], bash: dict[str, Any]
) -> None:
    STATS.examples[f"loads ({agent})"] += 1
    with tempfile.TemporaryDirectory(prefix="twsrt-prop-") as tmp:
        tree = Tree(posixpath.join(tmp, "tree"))
        os.makedirs(tree.home)
        os.makedirs(tree.work)
        compiled = compile_all(srt, bash, tree, SANDBOX_MODES, (False, True))
        for item in compiled.values():
            for refusal in item.refused.values():
                STATS.examples["loads: refusals"] += 1
                assert_located(refusal)
        checks = _checks(tools, compiled, tree, Path(tmp))
        jobs = {name: check for name, check in checks.items() if name.startswith(agent)}
        with ThreadPoolExecutor(max_workers=3) as pool:
            results = dict(zip(jobs, pool.map(lambda job: job(), jobs.values()), strict=True))
    bad = [f"{name}: {out}" for name, (ok, out) in results.items() if not ok]
    if bad:
        STATS.failures.append(f"loads: {srt} -> {bad[0][:300]}")
    assert not bad, "\n\n".join(bad)


# ------------------------------------------------------------------ (b) probes

CODEX_MODES = ("workspace-write", "read-only")


@pytest.mark.long
@settings(
    derandomize=True,
    max_examples=PROBES,
    deadline=None,
    database=None,
    suppress_health_check=HEALTH,
    phases=PHASES,
)
@given(srt=tree_policy())
# the widenings issue 12 names, always run: the launch directory, a tree deny spelled P/**
@example(srt={"filesystem": {}, "network": {}})
@example(
    srt={
        "filesystem": {
            "allowWrite": ["~/proj", "."],
            "denyWrite": ["~/proj/secrets/**", "build/"],
            "denyRead": ["~/proj/keys"],
        },
        "network": {},
    }
)
# srt on Linux skips glob denyWrite entries (TWS501): listed as an srt gap, never compared
@example(srt={"filesystem": {"allowWrite": ["."], "denyWrite": ["*.pem"]}, "network": {}})
def test_codex_never_allows_what_srt_denies(tools: Tools, srt: dict[str, Any]) -> None:
    from twsrt.jsonpos import parse_json
    from twsrt.sources import build_policy
    from twsrt.testing.engines import root_base

    STATS.examples["probes"] += 1
    base = tempfile.mkdtemp(prefix="twsrt-prop-", dir=root_base())
    try:
        tree = Tree(posixpath.join(base, "tree"))
        os.makedirs(tree.home)
        os.makedirs(tree.work)
        compiled = compile_all(srt, {}, tree, CODEX_MODES, agents=("codex",))
        refused = [r for c in compiled.values() for r in c.refused.values()]
        for item in refused:
            assert_located(item)
        assume(not refused)  # nothing to run: a located refusal is a correct answer
        configs = {mode: compiled[mode, False].files["codex"] for mode in CODEX_MODES}
        loads = {mode: config_loads(tools.codex, text)[0] for mode, text in configs.items()}
        STATS.starts["codex"] += len(loads)
        assume(all(loads.values()))  # test (a) reports a profile Codex cannot load
        abstract = build_policy(
            parse_json(json.dumps(srt)), "srt.json", parse_json("{}"), "bash.json"
        )
        canonical = materialize(srt, tree)
        session, probes = adversarial.make_session(tree.root, srt, abstract, tree.host)
        control = session.run("control", adversarial.plain_runner(tree.root))
        srt_seen = session.run("srt", adversarial.srt_runner(tools.srt, tree.root, canonical, base))
        starts = session.starts
        codex_seen = {
            mode: session.run(f"codex {mode}", adversarial.codex_runner(tools.codex, tree.root, t))
            for mode, t in configs.items()
        }
        STATS.starts["srt"] += starts
        STATS.starts["codex"] += session.starts - starts
        result = adversarial.compare(probes, control, srt_seen, codex_seen)
        STATS.examples["probes: actions compared"] += result.compared
        STATS.examples["probes: actions"] += len(probes)
        STATS.srt_gaps.update(result.srt_gaps)
        codex_notes = [n for n in session.notes if n.startswith("codex")]
        assert not codex_notes, codex_notes  # the profile loaded, so every run must start
    finally:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
    if result.failures:
        STATS.failures.append(f"probes: {srt} -> {result.failures}")
    assert not result.failures, (
        "\n".join(result.failures) + "\n\n" + json.dumps(canonical, indent=2, ensure_ascii=False)
    )
