"""A seeded fuzzer of twsrt's inputs: what a hostile pull request can put in a checkout.

``plan(rng)`` draws one run: a config (targets, scopes, profiles, ignores, odd values), an srt
policy and bash rules (wrong types, odd strings, control characters), target files (junk,
wrong types, duplicate keys), links (out of the repository, loops, dangling, into ``.git``,
onto a source), byte-level damage to one file, and a command (``check`` in each format,
``diff``, ``show``, ``generate``, ``generate -n``, ``generate -w``). ``apply`` builds it in a
sandbox; ``judge`` runs it in-process under a timer and lists what went wrong: exit 3, a
traceback, a run over the time limit, a changed file on a read-only command, a write outside
the repository or through a link the run found.

Everything comes from one ``random.Random(seed)``: a failure names its seed and run number,
and ``plan`` of that pair rebuilds it exactly.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from support.sandbox import ACCEPT_PLANTED_LAYERS, Sandbox, make_sandbox, tree_snapshot

TIME_LIMIT = 10.0  # seconds per run

# Characters an attacker puts in names and values: terminal escapes, a forged line, bidi.
CONTROL = ["\x1b[31m", "\x1b]52;c;eA==\x07", "\n::error::forged", "\r", "\t", "\x7f", "\u202e"]
# Names no file may have: a NUL, a component over NAME_MAX.
HOSTILE = ["\x00", "n" * 300]

TARGET_KEYS = [
    "claude_settings_yolo",
    "codex_config",
    "codex_rules",
    "copilot_output",
    "copilot_settings",
    "deepcode_settings",
]
# Paths a target, source or link may name (repo-relative unless absolute).
PATHS = [
    "home/.claude/settings.full.json",
    "home/.claude/settings.yolo.json",
    "home/.codex/config.toml",
    "home/.codex/rules/twsrt.rules",
    "home/.copilot/settings.json",
    "home/.deepcode/settings.json",
    "flags.sh",
    "twsrt.toml",
    "bash-rules.json",
    ".srt-settings.json",
    "../outside.json",
    "../../x.json",
    "/etc/passwd",
    "/proc/self/environ",
    "~/.bashrc",
    "sub/dir/../t.json",
    "home/.claude",
    "",
    ".",
]
GIT_PATHS = [".git/config", ".git/hooks/commit-msg", ".git/hooks/pre-commit"]
# Where a planted link points: outside the repository, a loop, nowhere, a source, .git.
LINK_DESTINATIONS = [
    "{outside}/secret",
    "{outside}",
    "{home}/.bashrc",
    "{repo}/.git/config",
    "{repo}/.git/hooks",
    "{repo}/bash-rules.json",
    "{repo}/twsrt.toml",
    "gone.json",
    "{self}",
    "/dev/null",
    "/dev/zero",
]
LINK_PLACES = [
    "home/.claude/settings.full.json",
    "home/.claude/settings.json",
    "home/.claude/settings.yolo.json",
    "home/.claude",
    "home/.codex/config.toml",
    "home/.codex",
    ".srt-settings.json",
    "bash-rules.json",
    "twsrt.toml",
    "flags.sh",
]

COMMANDS = [
    ("check",),
    ("check", "--format", "json"),
    ("check", "--format", "github"),
    ("check", "--format", "sarif"),
    ("check", "--format", "junit"),
    ("diff",),
    ("show",),
    ("generate",),
    ("generate", "-n"),
    ("generate", "--yolo"),
    ("generate", "-w"),
    ("generate", "-w", "--yolo"),
    ("generate", "-n", "-w"),
]


@dataclass
class Plan:
    """One fuzz run: files to write, links to plant, damage, and the command."""

    files: dict[str, bytes] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    args: tuple[str, ...] = ()

    @property
    def writes(self) -> bool:
        return "-w" in self.args and "-n" not in self.args


# ------------------------------------------------------------------ drawing values


def _word(rng: random.Random) -> str:
    base = rng.choice(["x", "a*b", "git push", "rm -rf", "*", "**", "~", "é", "$(id)", ")", "'"])
    roll = rng.random()
    if roll < 0.2:
        return base + rng.choice(CONTROL)
    if roll < 0.3:
        return base + rng.choice(HOSTILE)
    return base


def _path(rng: random.Random) -> str:
    pool = PATHS + GIT_PATHS
    path = rng.choice(pool)
    roll = rng.random()
    if roll < 0.15:
        head, _, tail = path.rpartition("/")
        path = f"{head}/{rng.choice(CONTROL)}{tail}" if head else rng.choice(CONTROL) + tail
    elif roll < 0.3:
        path += rng.choice(HOSTILE)
    return path


def _toml_string(text: str, rng: random.Random) -> str:
    """A TOML basic string of ``text``: escaped (valid), or now and then raw (maybe invalid)."""
    if rng.random() < 0.05:
        return '"' + text + '"'
    return json.dumps(text)  # JSON's escapes are TOML's for these characters


def _json_value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 2 or roll < 0.35:
        return rng.choice([_word(rng), _path(rng)])
    if roll < 0.5:
        return rng.choice([True, False, None, 0, -1, 65536, 1.5, 10**30])
    if roll < 0.8:
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["denyRead", "allowWrite", "enabled", "network", _word(rng)]
    return {rng.choice(keys): _json_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def _odd(rng: random.Random, usual: list[str], odd: object, chance: float = 0.15) -> object:
    """Mostly a usual value (so runs get past the schema), now and then an odd one."""
    return odd if rng.random() < chance else rng.choice(usual)


SRT_PATHS = ["~/.aws", "~/.ssh", "**/.env", ".", "/tmp", "secrets", "~/.config/gh", "build"]
DOMAINS = ["github.com", "*.github.com", "pypi.org", "*.npmjs.org", "localhost"]
ODD_DOMAINS = ["*", "x", "a b", "é.example", "*.com", "github.com\n"]
COMMANDS_OF_RULES = ["git push", "rm", "sudo", "gh pr view", "npm *", "curl", "git commit *"]


def _srt(rng: random.Random) -> dict:
    filesystem = {
        key: [_odd(rng, SRT_PATHS, _path(rng)) for _ in range(rng.randint(0, 3))]
        for key in rng.sample(
            ["denyRead", "allowRead", "allowWrite", "denyWrite"], rng.randint(0, 4)
        )
    }
    network: dict = {
        key: [_odd(rng, DOMAINS, rng.choice(ODD_DOMAINS)) for _ in range(rng.randint(0, 3))]
        for key in rng.sample(["allowedDomains", "deniedDomains"], rng.randint(0, 2))
    }
    if rng.random() < 0.1:
        network[rng.choice(["httpProxyPort", "allowLocalBinding"])] = _json_value(rng)
    doc: dict = {"filesystem": filesystem, "network": network}
    if rng.random() < 0.15:
        doc[rng.choice(["enabled", "proxy", "filesystem", "ripgrep"])] = _json_value(rng)
    return doc


def _bash(rng: random.Random) -> dict:
    keys = ["allow", "deny", "ask"] if rng.random() < 0.9 else ["allow", "deny", "alow"]
    return {
        key: [_odd(rng, COMMANDS_OF_RULES, _word(rng)) for _ in range(rng.randint(0, 4))]
        for key in rng.sample(keys, rng.randint(0, 3))
    }


# The usual place of each target key (an odd path now and then).
TARGET_PLACES = {
    "claude_settings_yolo": "home/.claude/settings.yolo.json",
    "codex_config": "home/.codex/config.toml",
    "codex_rules": "home/.codex/rules/twsrt.rules",
    "copilot_output": "home/.config/twsrt/copilot-flags.txt",
    "copilot_settings": "home/.copilot/settings.json",
    "deepcode_settings": "home/.deepcode/settings.json",
}


SOURCES = """\
checkout = "~/dotfiles"

[sources]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"
"""
PROFILES = """\
checkout = "~/dotfiles"
profile = "home"

[fragments.base]
srt = ".srt-settings.json"
bash_rules = "bash-rules.json"

[profiles.home]
extends = ["base"]
"""


def _config(rng: random.Random) -> str:
    """A config near the template's: its targets, now and then odd, plus a table or two."""
    lines = [SOURCES if rng.random() < 0.85 else PROFILES, "\n[targets]\n"]
    lines.append('claude_settings = "home/.claude/settings.full.json"\n')
    for key in TARGET_KEYS:
        if rng.random() < 0.7:
            place = _odd(rng, [TARGET_PLACES[key]], _path(rng), 0.15)
            lines.append(f"{key} = {_toml_string(str(place), rng)}\n")
    extras = [
        '\n[check]\nfail_on = "note"\n',
        f'\n[[check.ignore]]\nrule = {_toml_string(_word(rng), rng)}\nreason = "a '
        'reason that is long enough"\n',
        f"\n[sandbox]\nmode = {_toml_string(_word(rng), rng)}\n",
        '\n[sandbox]\nmode = "read-only"\n',
        '\n[project]\nroot = "."\n',
        f"\n[project]\nroot = {_toml_string(_path(rng), rng)}\n",
        f"\n[managed]\nroot = {_toml_string(_path(rng), rng)}\n",
        '\n[managed]\nroot = "managed"\n',
        f"\n[fragments.{rng.choice(['base', 'a-b', 'x'])}]\nsrt = "
        f"{_toml_string(_path(rng), rng)}\n",
        f"\n[sandbox_overrides.yolo]\nenabled = {rng.choice(['true', 'false', '1', '{}'])}\n",
    ]
    lines.extend(rng.sample(extras, rng.choice([0, 0, 1, 1, 2])))
    lines.append(ACCEPT_PLANTED_LAYERS)
    text = "".join(lines)
    if rng.random() < 0.3:
        home = _odd(rng, ["/home/user"], rng.choice(["~", "", "rel", _word(rng)]), 0.3)
        text = f"home = {_toml_string(str(home), rng)}\n" + text
    return text


def template_config() -> str:
    """The template's config: every target at its usual place."""
    keys = "".join(f'{key} = "{place}"\n' for key, place in TARGET_PLACES.items())
    return (
        SOURCES
        + '\n[targets]\nclaude_settings = "home/.claude/settings.full.json"\n'
        + keys
        + ACCEPT_PLANTED_LAYERS
    )


def _target_content(rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.3:
        return json.dumps({"permissions": _json_value(rng), "model": "opus"}).encode()
    if roll < 0.5:
        return b'{"sandbox": {}, "sandbox": {"enabled": true}}\n'
    if roll < 0.7:
        return json.dumps(_json_value(rng)).encode()
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))


def _damage(data: bytes, rng: random.Random) -> bytes:
    """Flip, insert or delete a few bytes, or cut the file short."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if not out:
            break
        at = rng.randrange(len(out))
        action = rng.random()
        if action < 0.4:
            out[at] = rng.randrange(256)
        elif action < 0.7:
            out.insert(at, rng.choice(b'\x00\x1b\n"{}[],:\\'))
        elif action < 0.9:
            del out[at]
        else:
            del out[at:]
    return bytes(out)


def plan(seed: int, run: int) -> Plan:
    """The run ``run`` of the fuzzer seeded with ``seed`` (the same pair, the same run)."""
    rng = random.Random(f"{seed}:{run}")
    out = Plan(args=rng.choice(COMMANDS))
    if rng.random() < 0.7:
        out.files["twsrt.toml"] = _config(rng).encode("utf-8", "surrogateescape")
    if rng.random() < 0.5:
        out.files[".srt-settings.json"] = json.dumps(_srt(rng), indent=2).encode()
    if rng.random() < 0.4:
        out.files["bash-rules.json"] = json.dumps(_bash(rng), indent=2).encode()
    if rng.random() < 0.4:
        place = rng.choice(["home/.claude/settings.full.json", "home/.claude/settings.json"])
        out.files[place] = _target_content(rng)
    if rng.random() < 0.35:
        for _ in range(rng.randint(1, 2)):
            place, destination = rng.choice(LINK_PLACES), rng.choice(LINK_DESTINATIONS)
            out.links[place] = destination
    if rng.random() < 0.15 and out.files:
        name = rng.choice(sorted(out.files))
        out.files[name] = _damage(out.files[name], rng)
    if rng.random() < 0.2:  # an executable target: no generated file may copy it
        out.files["home/.claude/settings.full.json"] = b'{"model": "opus"}\n'
        out.modes["home/.claude/settings.full.json"] = 0o755
    return out


# ------------------------------------------------------------------ building and judging


def make_template(root: Path) -> Sandbox:
    """A sandbox with every target generated (user and yolo files), which each run copies: so
    ``diff`` and ``check`` meet real targets, and the runs pay for one generation only."""
    box = make_sandbox(root)
    box.write("twsrt.toml", template_config())
    for args in (("generate", "-w"), ("generate", "-w", "--yolo")):
        result = box.run(*args)
        assert result.returncode == 0, result
    return box


def copy_of(template: Sandbox, root: Path) -> Sandbox:
    """A fresh copy of the template under ``root`` (links copied as links)."""
    home = root / "home"
    shutil.copytree(template.home, home, symlinks=True)
    return Sandbox(home, home / template.repo.relative_to(template.home))


def outside_tree(sandbox: Sandbox) -> Path:
    """A directory beside HOME, with a secret, that no run may touch."""
    outside = sandbox.home.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret").write_text("TOKEN=outside-secret\n", encoding="utf-8")
    return outside


def apply(sandbox: Sandbox, run: Plan) -> dict[str, Path]:
    """Build the run's tree; return each planted link's path and where it points (resolved)."""
    outside = outside_tree(sandbox)
    (sandbox.home / ".bashrc").write_text("export TOKEN=bashrc-secret\n", encoding="utf-8")
    (sandbox.repo / ".git" / "hooks").mkdir(parents=True, exist_ok=True)
    (sandbox.repo / ".git" / "config").write_text(
        '[http]\n\textraheader = "AUTHORIZATION: basic c2VjcmV0"\n', encoding="utf-8"
    )
    for relative, data in run.files.items():
        path = sandbox.repo / relative
        with contextlib.suppress(OSError):  # a parent that an earlier step made a file
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.is_file():
                path.unlink()
            path.write_bytes(data)
    for relative, mode in run.modes.items():
        with contextlib.suppress(OSError):
            (sandbox.repo / relative).chmod(mode)
    planted = {}
    for relative, destination in run.links.items():
        path = sandbox.repo / relative
        target = destination.format(
            outside=outside, home=sandbox.home, repo=sandbox.repo, self=path.name
        )
        try:  # a link below a link planted before it is not planted (the plan stays the same)
            if sandbox.repo.resolve() not in path.parent.resolve().parents and (
                path.parent.resolve() != sandbox.repo.resolve()
            ):
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.is_file():
                path.unlink()
            elif path.is_dir():
                continue  # a directory the plan made stays a directory
            path.symlink_to(target)
        except (OSError, RuntimeError):
            continue
        planted[relative] = path
    return planted


class _Timer:
    """SIGALRM after the time limit: the run is interrupted and reported as a hang."""

    def __init__(self, limit: float) -> None:
        self.limit, self.fired = limit, False

    def _alarm(self, signum: int, frame: object) -> None:
        self.fired = True
        raise KeyboardInterrupt  # click turns it into exit 1; ``fired`` says why

    def __enter__(self) -> _Timer:
        self.previous = signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, self.limit)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)


def _without_cache(tree: dict) -> dict:
    return {k: v for k, v in tree.items() if k != ".cache" and not k.startswith(".cache/")}


def _link_ends(sandbox: Sandbox, planted: dict[str, Path]) -> dict[str, object]:
    """What each planted link points at, as bytes (or absent): a write through it changes it."""
    out: dict[str, object] = {}
    for relative, path in planted.items():
        try:
            end = path.resolve()
        except (OSError, RuntimeError):  # a loop
            out[relative] = "loop"
            continue
        if end.is_file() and end.stat().st_size < 1 << 20 and not str(end).startswith("/proc"):
            out[relative] = (str(end), end.read_bytes(), end.stat().st_mode)
        else:
            out[relative] = (str(end), end.exists() or end.is_symlink())
    return out


def judge(sandbox: Sandbox, run: Plan) -> list[str]:
    """Build and run ``run``; each violation as one line (empty: the run was fine)."""
    planted = apply(sandbox, run)
    outside = sandbox.home.parent / "outside"
    before_home, before_out = _without_cache(tree_snapshot(sandbox.home)), tree_snapshot(outside)
    before_links = _link_ends(sandbox, planted)
    timer = _Timer(TIME_LIMIT)
    started = time.monotonic()
    with timer:
        result = sandbox.run(*run.args, EDITOR="true")
    elapsed = time.monotonic() - started
    after_home, after_out = _without_cache(tree_snapshot(sandbox.home)), tree_snapshot(outside)
    problems = []
    if timer.fired or elapsed > TIME_LIMIT:
        problems.append(f"hang: {elapsed:.1f} s")
    if result.returncode == 3 or "internal error" in result.stderr:
        problems.append(f"exit 3: {result.stderr.strip()[:300]}")
    if "Traceback" in result.stderr + result.stdout:
        problems.append(f"traceback: {result.stderr[-300:]}")
    if after_out != before_out:
        problems.append("wrote outside HOME")
    repo = sandbox.repo.relative_to(sandbox.home).as_posix() + "/"
    changed = sorted(
        k for k in before_home.keys() | after_home.keys() if before_home.get(k) != after_home.get(k)
    )
    if not run.writes and changed:
        problems.append(f"read-only command changed {changed}")
    elif outside_repo := [k for k in changed if not k.startswith(repo)]:
        problems.append(f"wrote outside the repository: {outside_repo}")
    if into_git := [k for k in changed if k.startswith(repo + ".git/")]:
        problems.append(f"wrote into .git: {into_git}")
    if "c2VjcmV0" in result.stdout + result.stderr:
        problems.append("printed the token of .git/config")
    after_links = _link_ends(sandbox, planted)
    for relative, end in before_links.items():
        link = planted[relative]
        if link.is_symlink() and after_links.get(relative) != end:
            problems.append(f"wrote through the link {relative} -> {os.readlink(link)}")
    return problems
