"""Adversarial probes for the never-widen property: the same actions in srt and in Codex.

A probe is one action (read, create, append, truncate, rename into/out of, delete, mkdir,
symlink and hardlink tricks, access through ``/proc/self/root``) at a path that a policy rule
names, judged by its *effect on the host* after the run (the token was printed, the file
exists, the content changed, the path is gone), never by an exit code. Every run starts from a
freshly built fixture tree, so one probe's effect cannot leak into another's verdict.

Probes that do not disturb each other run together in one script (one sandbox start per
engine); probes that move or remove a policy path run in rounds of disjoint trees. Each batch
runs first without a sandbox (the control: a probe whose effect does not show there proves
nothing and is dropped), then in srt on the canonical policy, then in Codex on the profile twsrt
generated. ``compare`` keeps the honest cases only: srt ran, and denied cleanly.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import shlex
import shutil
import subprocess
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twsrt.testing.globs import Semantics, glob_regex, instantiate
from twsrt.testing.model import SRT_REQUIRED

from .codex_client import sandbox_run

READ_FILE = "tw-read-file"
START, END = "TWSRT-ADV-START", "TWSRT-ADV-END"
TIMEOUT_S = 60
GLOB_CHARS = set("*?[]{}")

READS = ("read", "proc-read", "list", "symlink-read", "hardlink-read")
WRITES = (
    "create",
    "append",
    "mkdir",
    "delete",
    "truncate",
    "rename-inside",
    "rename-out",
    "rename-into",
    "symlink",
    "symlink-write",
    "hardlink-write",
    "proc-append",
)
FILE_KINDS = ("read", "proc-read", "symlink-read", "hardlink-read", "append", "symlink-write")
FILE_KINDS += ("hardlink-write", "proc-append")
TRICKS = ("symlink-read", "hardlink-read", "rename-out", "rename-into", "symlink-write")
TRICKS += ("hardlink-write",)
MOVES = ("move-away", "remove-tree", "move-parent")
FILE_MOVES = ("truncate-file", "delete-file", "move-away")


@dataclass(frozen=True)
class Target:
    """A host path that a policy rule names (or one of the tree's standard directories)."""

    path: str
    rule: str  # "denyWrite '~/p/**'" or "launch directory"
    is_dir: bool
    glob: str = ""  # the host-mapped glob when the rule is one


@dataclass
class Probe:
    index: int
    kind: str
    target: Target
    script: str
    effect: Callable[[str], bool]  # section output -> did the action take effect on the host?
    prepare: Callable[[], None] = lambda: None
    expect_denied: bool | None = None  # what the canonical policy says (None: not modelled)
    touches: str = ""  # the tree a moving probe disturbs (for grouping rounds)

    @property
    def name(self) -> str:
        return f"{self.kind} {self.target.path}"


@dataclass
class Verdict:
    probe: Probe
    control: bool | None = None  # effect observed; None: the batch gave no result
    engines: dict[str, bool | None] = field(default_factory=dict)


# ------------------------------------------------------------------ fixture tree


def _write(path: str, text: str) -> None:
    os.makedirs(posixpath.dirname(path), exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _token(path: str) -> str:
    return f"TWSRT-SECRET-{zlib.crc32(path.encode()):08x}"


def _q(path: str) -> str:
    return shlex.quote(path)


def build_tree(root: str, targets: list[Target]) -> None:
    """Create the standard directories and every target with its read file."""
    for name in ("home", "work", "outside", "fs"):
        os.makedirs(posixpath.join(root, name), exist_ok=True)
    # directories first: a target that another one lies under must be a directory
    for target in sorted(targets, key=lambda t: (not t.is_dir, t.path)):
        try:
            if target.is_dir:
                os.makedirs(target.path, exist_ok=True)
                _write(posixpath.join(target.path, READ_FILE), _token(target.path) + "\n")
            elif not os.path.isdir(target.path):
                _write(target.path, _token(target.path) + "\n")
        except OSError:
            pass  # the controls of its probes fail, so they are dropped, never counted


def reset_tree(root: str) -> None:
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)


# ------------------------------------------------------------------ targets and probes


def targets_of(abstract: dict[str, Any], host: Callable[[str], str], root: str) -> list[Target]:
    """One target per policy path (globs at one instance), plus the standard directories."""
    found: dict[str, Target] = {}
    for key in ("denyRead", "denyWrite", "allowWrite", "allowRead"):
        for raw in abstract.get("filesystem", {}).get(key, []):
            path = raw["path"] if isinstance(raw, dict) else raw
            rule = f"{key} {path!r}"
            tree = path.rstrip("/").removesuffix("/**")
            if tree != path.rstrip("/") or not GLOB_CHARS & set(path):
                hosted = host(tree or "/")
                last = posixpath.basename(hosted)
                # a write root is a directory; a deny naming "x.key" is taken as a file
                is_dir = (
                    key == "allowWrite"
                    or path.endswith("/")
                    or tree != path.rstrip("/")
                    or "." not in last[1:]
                )
                found.setdefault(hosted, Target(hosted, rule, is_dir))
                continue
            pattern = host(path)
            instance = instantiate(pattern)
            if instance is not None:
                found.setdefault(instance, Target(instance, rule, False, pattern))
    for name, what in (("work", "launch directory"), ("home", "HOME"), ("outside", "outside")):
        path = posixpath.join(root, name)
        found.setdefault(path, Target(path, what, True))
    # a file target with another target under it is a directory after all
    out = []
    for path, target in found.items():
        if not target.is_dir and any(p.startswith(path + "/") for p in found):
            target = Target(target.path, target.rule, True, target.glob)
        if path == root or not path.startswith(root + "/"):
            continue  # a rule that names the tree's root or leaves it is not probed
        out.append(target)
    return sorted(out, key=lambda t: t.path)


def _changed(path: str, original: str) -> Callable[[str], bool]:
    return lambda _out: (_read(path) or original) != original


def _exists(path: str) -> Callable[[str], bool]:
    return lambda _out: os.path.lexists(path)


def _gone(path: str) -> Callable[[str], bool]:
    return lambda _out: not os.path.lexists(path)


def _printed(token: str) -> Callable[[str], bool]:
    return lambda out: token in out


def probes_for(targets: list[Target], writable: str | None) -> tuple[list[Probe], list[Probe]]:
    """(batch probes, moving probes) for every target; ``writable`` is the policy's write root
    that the cross-directory tricks (rename out/into, links) use as the other end. Without one
    they are left out: they would only measure whether that other end is writable."""
    batch: list[Probe] = []
    moving: list[Probe] = []

    def add(into: list[Probe], kind: str, target: Target, script: str, effect: Any, **kw: Any):
        if writable is None and kind in TRICKS:
            return
        into.append(Probe(len(batch) + len(moving), kind, target, script, effect, **kw))

    for target in targets:
        i = len(batch) + len(moving)
        w = posixpath.join(writable or "/nonexistent", f"tw-{i}")
        if target.is_dir:
            d = target.path
            secret = posixpath.join(d, READ_FILE)
            token = _token(d)
        else:
            d = posixpath.dirname(target.path)
            secret = target.path
            token = _token(target.path)
        # reads
        add(batch, "read", target, f"head -c 200 -- {_q(secret)}", _printed(token))
        proc = "/proc/self/root" + secret
        add(batch, "proc-read", target, f"head -c 200 -- {_q(proc)}", _printed(token))
        if target.is_dir:
            add(batch, "list", target, f"ls -a -- {_q(d)}", _printed(READ_FILE))
        sl, hl = w + "-sl", w + "-hl"
        add(
            batch,
            "symlink-read",
            target,
            f"ln -s -- {_q(secret)} {_q(sl)} && head -c 200 -- {_q(sl)}",
            _printed(token),
        )
        add(
            batch,
            "hardlink-read",
            target,
            f"ln -- {_q(secret)} {_q(hl)} && head -c 200 -- {_q(hl)}",
            _printed(token),
        )
        if target.is_dir:
            _dir_writes(add, batch, target, d, w, i)
            for kind in MOVES:
                _move(add, moving, kind, target, i)
        else:
            _file_writes(add, batch, moving, target, w, i)
        if target.glob:
            fresh = instantiate(target.glob, tag="tw-new")
            if fresh and glob_regex(target.glob).match(fresh):
                script = f"mkdir -p -- {_q(posixpath.dirname(fresh))} && printf x > {_q(fresh)}"
                add(batch, "create-matching", target, script, _exists(fresh))
    return batch, moving


def _dir_writes(add: Any, batch: list[Probe], target: Target, d: str, w: str, i: int) -> None:
    def p(name: str) -> str:
        return posixpath.join(d, f"tw-{name}-{i}")

    def prepared(*paths: str) -> Callable[[], None]:
        def make() -> None:
            for path in paths:
                _write(path, "0")

        return make

    add(batch, "create", target, f"printf x > {_q(p('new'))}", _exists(p("new")))
    add(
        batch,
        "append",
        target,
        f"printf x >> {_q(p('app'))}",
        _changed(p("app"), "0"),
        prepare=prepared(p("app")),
    )
    add(
        batch,
        "truncate",
        target,
        f"true > {_q(p('trunc'))}",
        _changed(p("trunc"), "0"),
        prepare=prepared(p("trunc")),
    )
    add(batch, "mkdir", target, f"mkdir -- {_q(p('dir'))}", _exists(p("dir")))
    add(
        batch,
        "delete",
        target,
        f"rm -f -- {_q(p('del'))}",
        _gone(p("del")),
        prepare=prepared(p("del")),
    )
    add(
        batch,
        "rename-inside",
        target,
        f"mv -- {_q(p('mv'))} {_q(p('mv') + '.moved')}",
        _gone(p("mv")),
        prepare=prepared(p("mv")),
    )
    add(
        batch,
        "rename-out",
        target,
        f"mv -- {_q(p('out'))} {_q(w + '-out')}",
        _gone(p("out")),
        prepare=prepared(p("out")),
    )
    add(
        batch,
        "rename-into",
        target,
        f"mv -- {_q(w + '-in')} {_q(p('in'))}",
        _exists(p("in")),
        prepare=prepared(w + "-in"),
    )
    add(batch, "symlink", target, f"ln -s /nonexistent {_q(p('ln'))}", _exists(p("ln")))

    def via() -> None:
        _write(p("via"), "0")
        os.makedirs(posixpath.dirname(w), exist_ok=True)
        os.symlink(p("via"), w + "-via")

    add(
        batch,
        "symlink-write",
        target,
        f"printf x >> {_q(w + '-via')}",
        _changed(p("via"), "0"),
        prepare=via,
    )
    add(
        batch,
        "hardlink-write",
        target,
        f"ln -- {_q(p('hw'))} {_q(w + '-hw')} && printf x >> {_q(w + '-hw')}",
        _changed(p("hw"), "0"),
        prepare=prepared(p("hw")),
    )
    proc = "/proc/self/root" + p("pa")
    add(
        batch,
        "proc-append",
        target,
        f"printf x >> {_q(proc)}",
        _changed(p("pa"), "0"),
        prepare=prepared(p("pa")),
    )


def _file_writes(
    add: Any, batch: list[Probe], moving: list[Probe], target: Target, w: str, i: int
) -> None:
    f = target.path
    original = _token(f) + "\n"
    add(batch, "append", target, f"printf x >> {_q(f)}", _changed(f, original))
    proc = "/proc/self/root" + f

    def via() -> None:
        os.makedirs(posixpath.dirname(w), exist_ok=True)
        os.symlink(f, w + "-via")

    add(
        batch,
        "symlink-write",
        target,
        f"printf x >> {_q(w + '-via')}",
        _changed(f, original),
        prepare=via,
    )
    add(
        batch,
        "hardlink-write",
        target,
        f"ln -- {_q(f)} {_q(w + '-hw')} && printf x >> {_q(w + '-hw')}",
        _changed(f, original),
    )
    add(batch, "proc-append", target, f"printf x >> {_q(proc)}", _changed(f, original))
    add(moving, "truncate-file", target, f"true > {_q(f)}", _changed(f, original), touches=f)
    add(moving, "delete-file", target, f"rm -f -- {_q(f)}", _gone(f), touches=f)
    add(moving, "move-away", target, f"mv -- {_q(f)} {_q(f + '.moved')}", _gone(f), touches=f)


def _move(add: Any, moving: list[Probe], kind: str, target: Target, i: int) -> None:
    d = target.path
    if kind == "move-away":
        add(moving, kind, target, f"mv -- {_q(d)} {_q(d + '.moved')}", _gone(d), touches=d)
    elif kind == "remove-tree":
        add(moving, kind, target, f"rm -rf -- {_q(d)}", _gone(d), touches=d)
    else:
        parent = posixpath.dirname(d)
        script = f"mv -- {_q(parent)} {_q(parent + '.moved')}"
        add(moving, kind, target, script, _gone(d), touches=parent)


def rounds(moving: list[Probe], root: str) -> list[list[Probe]]:
    """Moving probes grouped so that no two in a round disturb overlapping trees."""
    out: list[list[Probe]] = []
    for probe in moving:
        tree = probe.touches
        if tree == root or not tree.startswith(root + "/"):
            continue  # moving the tree's root (or beyond) is not a probe of the policy
        for group in out:
            if all(not _overlap(tree, other.touches) for other in group):
                group.append(probe)
                break
        else:
            out.append([probe])
    return out


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def expectations(probes: list[Probe], abstract_policy: Any, root: str) -> None:
    """What the canonical policy says about each probe's direct action (twsrt's srt model)."""
    sem = Semantics.of(abstract_policy)

    def rel(path: str) -> str:
        return posixpath.relpath(path, root)

    for probe in probes:
        target = probe.target
        file = posixpath.join(target.path, READ_FILE) if target.is_dir else target.path
        if probe.kind in ("read", "proc-read", "list"):
            probe.expect_denied = sem.read_denied(rel(file))
        elif probe.kind in ("create", "mkdir", "append", "truncate", "delete", "symlink"):
            probe.expect_denied = not sem.write_allowed(rel(posixpath.join(target.path, "x")))
        elif probe.kind in ("truncate-file", "delete-file", "proc-append"):
            probe.expect_denied = not sem.write_allowed(rel(file))


# ------------------------------------------------------------------ runs


def batch_script(probes: list[Probe]) -> str:
    parts = [f"echo {START}"]
    for probe in probes:
        parts.append(
            f"echo '@@{probe.index}@@'; ( {probe.script} ) 2>&1; echo '@@/{probe.index}@@'"
        )
    parts.append(f"echo {END}")
    return "\n".join(parts) + "\n"


def sections(output: str, probes: list[Probe]) -> dict[int, str] | None:
    """Each probe's output, or None when the script did not run to its end."""
    if START not in output or END not in output:
        return None
    out = {}
    for probe in probes:
        head, tail = f"@@{probe.index}@@", f"@@/{probe.index}@@"
        if head in output and tail in output:
            out[probe.index] = output.split(head, 1)[1].split(tail, 1)[0]
    return out


Runner = Callable[[str], tuple[int | None, str]]


def plain_runner(root: str) -> Runner:
    def run(script: str) -> tuple[int | None, str]:
        proc = subprocess.run(
            ["sh", "-c", script],
            cwd=posixpath.join(root, "work"),
            env=_env(root),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=TIMEOUT_S,
            check=False,
        )
        return proc.returncode, proc.stdout

    return run


def srt_runner(srt_bin: str, root: str, canonical: dict[str, Any], scratch: str) -> Runner:
    """srt on the canonical settings as written (it anchors ``~`` and relative paths itself);
    only the lists srt insists on are added, empty."""
    settings = json.loads(json.dumps(canonical))
    for section, keys in SRT_REQUIRED.items():
        for key in keys:
            settings.setdefault(section, {}).setdefault(key, [])
    path = posixpath.join(scratch, "srt-settings.json")
    Path(path).write_text(json.dumps(settings, indent=2, ensure_ascii=False), encoding="utf-8")

    def run(script: str) -> tuple[int | None, str]:
        try:
            proc = subprocess.run(
                [srt_bin, "--settings", path, "-c", script],
                cwd=posixpath.join(root, "work"),
                env=_env(root),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                timeout=TIMEOUT_S,
                check=False,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return None, "timed out"
        return proc.returncode, proc.stdout

    return run


def codex_runner(codex_bin: str, root: str, config_text: str) -> Runner:
    def run(script: str) -> tuple[int | None, str]:
        home, work = posixpath.join(root, "home"), posixpath.join(root, "work")
        return sandbox_run(codex_bin, config_text, script, work, home, timeout=TIMEOUT_S)

    return run


def _env(root: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": posixpath.join(root, "home"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


@dataclass
class Session:
    """One policy's probes, run batch by batch in every engine from a fresh tree each time."""

    root: str
    targets: list[Target]
    batches: list[list[Probe]]
    starts: int = 0
    notes: list[str] = field(default_factory=list)

    def run(self, engine: str, runner: Runner) -> dict[int, bool | None]:
        """Per probe index: effect observed (True), not observed (False), no result (None)."""
        seen: dict[int, bool | None] = {}
        for batch in self.batches:
            reset_tree(self.root)
            build_tree(self.root, self.targets)
            for probe in batch:
                with contextlib.suppress(OSError):  # its control fails then
                    probe.prepare()
            code, output = runner(batch_script(batch))
            if engine != "control":
                self.starts += 1
            parts = sections(output, batch)
            if parts is None:
                self.notes.append(f"{engine}: no result (exit {code}): {output.strip()[-300:]}")
            for probe in batch:
                text = None if parts is None else parts.get(probe.index)
                seen[probe.index] = None if text is None else probe.effect(text)
        return seen


def make_session(
    root: str, abstract_srt: dict[str, Any], abstract_policy: Any, host: Callable[[str], str]
) -> tuple[Session, list[Probe]]:
    targets = targets_of(abstract_srt, host, root)
    writable = _writable_end(abstract_srt, host, root, targets)
    batch, moving = probes_for(targets, writable)
    probes = batch + moving
    expectations(probes, abstract_policy, root)
    batches = [batch, *rounds(moving, root)]
    return Session(root, targets, [b for b in batches if b]), probes


def _writable_end(
    abstract_srt: dict[str, Any], host: Callable[[str], str], root: str, targets: list[Target]
) -> str | None:
    """The first plain allowWrite root inside the tree, if there is one."""
    paths = {t.path for t in targets if t.is_dir}
    for raw in abstract_srt.get("filesystem", {}).get("allowWrite", []):
        path = raw["path"] if isinstance(raw, dict) else raw
        if GLOB_CHARS & set(path):
            continue
        hosted = host(path.rstrip("/").removesuffix("/**") or "/")
        if hosted in paths and hosted.startswith(root + "/"):
            return hosted
    return None


@dataclass
class Comparison:
    failures: list[str] = field(default_factory=list)  # srt denied cleanly, Codex allowed
    srt_gaps: list[str] = field(default_factory=list)  # the policy denies, srt allowed
    compared: int = 0  # probes where srt's verdict was a clean deny


def compare(
    probes: list[Probe],
    control: dict[int, bool | None],
    srt: dict[int, bool | None],
    codex: dict[str, dict[int, bool | None]],
) -> Comparison:
    result = Comparison()
    for probe in probes:
        if control.get(probe.index) is not True:
            continue  # the action does not work unsandboxed here: it proves nothing
        srt_seen = srt.get(probe.index)
        if srt_seen is True and probe.expect_denied:
            result.srt_gaps.append(f"{probe.name} ({probe.target.rule})")
        if srt_seen is not False:
            continue
        result.compared += 1
        for mode, seen in codex.items():
            if seen.get(probe.index) is True:
                result.failures.append(
                    f"{probe.name} ({probe.target.rule}): srt denies, Codex [{mode}] allows"
                )
    return result


def scratch_dir() -> str:
    return tempfile.mkdtemp(prefix="twsrt-adv-scratch-")
