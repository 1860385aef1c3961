"""Adversarial probes per rule, judged by their effect on the host (issue 13, item 2).

A plain probe asks the sandbox one question (can this file be read?). An attack tries what a
command that wants past the policy would try: for a denyWrite path, create, append, truncate,
delete, mkdir, rename in / out / aside, ``ln -s`` and ``ln`` tricks, and the same through
``/proc/self/root``; for a denyRead path, reading it as a file and as a directory (both when
the rule does not say which), through a symlink in the work tree and through
``/proc/self/root``; for a write root, a write inside it, through a symlinked directory, out of
it through a symlink, and in the launch directory when no rule makes it a root.

Each attack is pure data: what the host tree must hold before the run (``files``, ``dirs``,
``links``, ``absent``; ROOT-relative), the shell text (paths under ``$R``, the fixture root),
and the effect to look for afterwards *on the host* (a path exists, is gone, its content
changed, or a secret token was printed). An exit code is never the evidence: a sandbox may
fake a write into a mount that vanishes, or an error may be printed after the harm is done.

Attacks that cannot disturb each other share one sandbox start (``batches``); the same batch
runs first without a sandbox (the control), so an attack whose effect does not even show
unsandboxed proves nothing (INVALID), never PASS.
"""

from __future__ import annotations

import os
import posixpath
import shlex
import shutil
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from twsrt.policy import PathRule, Policy
from twsrt.testing.globs import Semantics, instantiate, layout_glob, layout_path
from twsrt.testing.model import Action, Observation, Outcome, Probe

START, END = "TWSRT-ATTACK-START", "TWSRT-ATTACK-END"
SECRET = "TWSRT-SECRET"
ORIGINAL = "twsrt original\n"
GLOB_CHARS = frozenset("*?[]{}")

# What each attack does, for the report ("... was allowed, as the policy says").
DOES = {
    "create": "creating {t}",
    "append": "appending to {t}",
    "truncate": "truncating {t}",
    "delete": "deleting {t}",
    "mkdir": "making the directory {t}",
    "rename-aside": "renaming {t} aside",
    "rename-out": "renaming {t} out to a write root",
    "rename-into": "renaming a file from a write root to {t}",
    "rename-dir": "renaming the directory {t}",
    "move-tree": "moving the whole tree {t} away",
    "symlink": "creating the symlink {t}",
    "symlink-replace": "replacing {t} by a symlink",
    "symlink-write": "appending to {t} through a symlink in the work tree",
    "hardlink-write": "hard-linking {t} into a write root and appending to the link",
    "proc-create": "creating {t} through /proc/self/root",
    "proc-append": "appending to {t} through /proc/self/root",
    "create-match": "creating {t}, a new path the glob matches",
    "read": "reading {t}",
    "list": "listing the directory of {t}",
    "symlink-read": "reading {t} through a symlink in the work tree",
    "proc-read": "reading {t} through /proc/self/root",
    "symlinked-dir": "creating {t} through a symlinked directory in the work tree",
    "symlink-escape": "creating {t} through a symlink inside the write root",
}


@dataclass(frozen=True)
class Attack(Probe):
    """One adversarial action against one rule, with the host state it needs and its effect."""

    attack: str = ""
    form: str = ""  # file | tree | root | launch: which shape of the rule's path is attacked
    script: str = ""  # sh text; ROOT-relative paths are written "$R"/rel
    effect: str = ""  # exists | gone | changed | printed
    subject: str = ""  # the ROOT-relative path the effect is looked for at
    files: tuple[tuple[str, str], ...] = ()  # staged (path, content)
    dirs: tuple[str, ...] = ()  # staged directories
    links: tuple[tuple[str, str], ...] = ()  # staged symlinks (path, ROOT-relative target)
    absent: tuple[str, ...] = ()  # removed before the run
    touches: tuple[str, ...] = ()  # paths the attack may change (exclusive within a batch)
    shapes: tuple[tuple[str, str], ...] = ()  # (path, "file"|"dir") it needs, shareable

    @property
    def name(self) -> str:
        return f"{self.kind} {self.rule} [{self.form} {self.attack}]"

    @property
    def does(self) -> str:
        return DOES.get(self.attack, self.attack).format(t=self.target)


def token(path: str) -> str:
    """The secret a read attack looks for: unique per path, never part of a file name."""
    return f"{SECRET}-{zlib.crc32(path.encode()):08x}"


def _q(rel: str) -> str:
    return '"$R"/' + shlex.quote(rel)


def _proc(rel: str) -> str:
    return '/proc/self/root"$R"/' + shlex.quote(rel)


def _tag(rel: str) -> str:
    return f"{zlib.crc32(rel.encode()):08x}"


# ------------------------------------------------------------------ derivation


@dataclass(frozen=True)
class _Rule:
    kind: str
    rule: PathRule
    base: str  # ROOT-relative path the attacks aim at
    shape: str  # "file", "dir" or "both"
    glob: str = ""  # the mapped glob, for a glob that is not a P/** tree


def _target_of(kind: str, rule: PathRule) -> _Rule | None:
    path = rule.path
    tree = path.rstrip("/").removesuffix("/**") if rule.glob else path
    if rule.glob and (GLOB_CHARS & set(tree)):
        mapped = layout_glob(path)
        instance = instantiate(mapped) if mapped else None
        if instance is None:
            return None
        return _Rule(kind, rule, instance, "file", mapped)
    base = layout_path(tree or "/")
    if base is None or base in ("home", "work", "fs"):
        return None  # a rule on the whole home or work tree is probed by the plain probes
    if rule.glob or path.endswith("/"):
        return _Rule(kind, rule, base, "dir")
    return _Rule(kind, rule, base, "both")


def derive_attacks(policy: Policy) -> list[Attack]:
    """Every attack the policy's filesystem rules imply (deterministic, ROOT-relative)."""
    sem = Semantics.of(policy)
    end = _writable_end(policy, sem)
    out: list[Attack] = []
    for rule in policy.deny_write:
        target = _target_of("deny-write", rule)
        if target is None:
            continue
        if target.shape in ("dir", "both"):
            out += _deny_write_dir(target, end)
        if target.shape in ("file", "both"):
            out += _deny_write_file(target, end)
    for rule in policy.deny_read:
        target = _target_of("deny-read", rule)
        if target is None:
            continue
        probe_file = target.base if target.shape == "file" else f"{target.base}/tw-secret"
        if not sem.read_denied(probe_file):
            continue  # allowRead re-opens it entirely: nothing to attack
        if target.shape in ("file", "both"):
            out += _deny_read_file(target)
        if target.shape in ("dir", "both"):
            out += _deny_read_dir(target)
    out += _write_roots(policy, sem)
    # a write root's attacks expect what the policy says at their path (a deny inside wins)
    return [_expected(a, sem) for a in out]


def _expected(attack: Attack, sem: Semantics) -> Attack:
    from dataclasses import replace

    if attack.kind.startswith("deny-"):
        return attack  # a deny wins over every grant (srt has no allow that lifts a denyWrite)
    subject = attack.subject
    allowed = sem.write_allowed(subject) and not sem.read_denied(subject)
    return replace(attack, expect=Outcome.ALLOWED if allowed else Outcome.DENIED)


def _writable_end(policy: Policy, sem: Semantics) -> str | None:
    """A write root inside the tree, the other end of rename and hardlink tricks (without
    one they would only measure whether the other end is writable, so they are left out)."""
    for rule in policy.allow_write:
        tree = rule.path.rstrip("/").removesuffix("/**") if rule.glob else rule.path
        if GLOB_CHARS & set(tree):
            continue
        base = layout_path(tree or "/")
        if base is None:
            continue
        probe = f"{base}/tw-end-probe"
        if sem.write_allowed(probe) and not sem.read_denied(probe):
            return base
    return None


def _make(
    target: _Rule,
    attack: str,
    action: Action,
    script: str,
    effect: str,
    subject: str,
    **kw: tuple[object, ...],
) -> Attack:
    rule = target.rule
    return Attack(
        target.kind,
        rule.path,
        rule.origin,
        action,
        Outcome.DENIED,
        subject,
        glob=rule.glob,
        attack=attack,
        script=script,
        effect=effect,
        subject=subject,
        **kw,  # type: ignore[arg-type]
    )


def _deny_write_dir(t: _Rule, end: str | None) -> list[Attack]:
    b = t.base
    shape = ((b, "dir"),)

    def inside(name: str) -> str:
        return f"{b}/tw-{name}"

    def attack(name: str, script: str, effect: str, subject: str, **kw: object) -> Attack:
        kw.setdefault("touches", (subject,))
        return _make(
            t, name, Action.CREATE, script, effect, subject, shapes=shape, form="tree", **kw
        )  # type: ignore[arg-type]

    p = inside
    out = [
        attack(
            "create", f"printf x > {_q(p('create'))}", "exists", p("create"), absent=(p("create"),)
        ),
        attack(
            "append",
            f"printf x >> {_q(p('append'))}",
            "changed",
            p("append"),
            files=((p("append"), ORIGINAL),),
        ),
        attack(
            "truncate",
            f": > {_q(p('truncate'))}",
            "changed",
            p("truncate"),
            files=((p("truncate"), ORIGINAL),),
        ),
        attack(
            "delete",
            f"rm -f -- {_q(p('delete'))}",
            "gone",
            p("delete"),
            files=((p("delete"), ORIGINAL),),
        ),
        attack("mkdir", f"mkdir -- {_q(p('mkdir'))}", "exists", p("mkdir"), absent=(p("mkdir"),)),
        attack(
            "rename-aside",
            f"mv -- {_q(p('aside'))} {_q(p('aside') + '.moved')}",
            "gone",
            p("aside"),
            files=((p("aside"), ORIGINAL),),
            absent=(p("aside") + ".moved",),
            touches=(p("aside"), p("aside") + ".moved"),
        ),
        attack(
            "rename-dir",
            f"mv -- {_q(p('subdir'))} {_q(p('subdir') + '.moved')}",
            "gone",
            p("subdir"),
            dirs=(p("subdir"),),
            files=((p("subdir") + "/file", ORIGINAL),),
            absent=(p("subdir") + ".moved",),
            touches=(p("subdir"), p("subdir") + ".moved"),
        ),
        attack(
            "symlink",
            f"ln -s /nonexistent {_q(p('symlink'))}",
            "exists",
            p("symlink"),
            absent=(p("symlink"),),
        ),
        attack(
            "symlink-write",
            f"printf x >> {_q('work/tw-via-' + _tag(p('via')))}",
            "changed",
            p("via"),
            files=((p("via"), ORIGINAL),),
            links=(("work/tw-via-" + _tag(p("via")), p("via")),),
            touches=(p("via"), "work/tw-via-" + _tag(p("via"))),
        ),
        attack(
            "proc-create",
            f"printf x > {_proc(p('proc-create'))}",
            "exists",
            p("proc-create"),
            absent=(p("proc-create"),),
        ),
        attack(
            "proc-append",
            f"printf x >> {_proc(p('proc-append'))}",
            "changed",
            p("proc-append"),
            files=((p("proc-append"), ORIGINAL),),
        ),
        attack(
            "move-tree",
            f"mv -- {_q(b)} {_q(b + '.tw-moved')}",
            "gone",
            b,
            dirs=(b,),
            absent=(b + ".tw-moved",),
            touches=(b, b + ".tw-moved"),
        ),
    ]
    if end is not None and not _under(end, b) and not _under(b, end + "/tw-x"):
        other = f"{end}/tw-{_tag(b)}"
        out += [
            attack(
                "rename-out",
                f"mv -- {_q(p('out'))} {_q(other + '-out')}",
                "gone",
                p("out"),
                files=((p("out"), ORIGINAL),),
                absent=(other + "-out",),
                touches=(p("out"), other + "-out"),
            ),
            attack(
                "rename-into",
                f"mv -- {_q(other + '-in')} {_q(p('in'))}",
                "exists",
                p("in"),
                files=((other + "-in", ORIGINAL),),
                absent=(p("in"),),
                touches=(p("in"), other + "-in"),
            ),
            attack(
                "hardlink-write",
                f"ln -- {_q(p('hard'))} {_q(other + '-hard')} && printf x >> {_q(other + '-hard')}",
                "changed",
                p("hard"),
                files=((p("hard"), ORIGINAL),),
                absent=(other + "-hard",),
                touches=(p("hard"), other + "-hard"),
            ),
        ]
    return out


def _deny_write_file(t: _Rule, end: str | None) -> list[Attack]:
    f = t.base
    shape = ((f, "file"),)
    staged = ((f, ORIGINAL),)
    via = "work/tw-via-" + _tag(f)

    def attack(name: str, script: str, effect: str, **kw: object) -> Attack:
        kw.setdefault("files", staged)
        kw.setdefault("touches", (f,))
        kw.setdefault("shapes", shape)
        return _make(t, name, Action.APPEND, script, effect, f, form="file", **kw)  # type: ignore[arg-type]

    out = [
        attack("append", f"printf x >> {_q(f)}", "changed"),
        attack("truncate", f": > {_q(f)}", "changed"),
        attack("delete", f"rm -f -- {_q(f)}", "gone"),
        attack(
            "rename-aside",
            f"mv -- {_q(f)} {_q(f + '.tw-moved')}",
            "gone",
            absent=(f + ".tw-moved",),
            touches=(f, f + ".tw-moved"),
        ),
        attack("symlink-replace", f"ln -sf /nonexistent {_q(f)}", "changed"),
        attack(
            "symlink-write",
            f"printf x >> {_q(via)}",
            "changed",
            links=((via, f),),
            touches=(f, via),
        ),
        attack("proc-append", f"printf x >> {_proc(f)}", "changed"),
        # the rule names a file that does not exist yet: creating it is the attack
        attack("create", f"printf x > {_q(f)}", "exists", files=(), absent=(f,), shapes=()),
    ]
    if t.glob:
        fresh = instantiate(t.glob, tag="tw-new")
        if fresh and fresh != f:
            out.append(
                attack(
                    "create",
                    f"mkdir -p -- {_q(posixpath.dirname(fresh))} && printf x > {_q(fresh)}",
                    "exists",
                    files=(),
                    absent=(fresh,),
                    touches=(fresh,),
                    shapes=(),
                )
            )
            # the report needs one name per attack: the fresh-instance one is "create-match"
            out[-1] = _rename(out[-1], "create-match", fresh)
    if end is not None and not _under(end, f) and not _under(f, end + "/tw-x"):
        other = f"{end}/tw-{_tag(f)}"
        out += [
            attack(
                "rename-out",
                f"mv -- {_q(f)} {_q(other + '-out')}",
                "gone",
                absent=(other + "-out",),
                touches=(f, other + "-out"),
            ),
            attack(
                "rename-into",
                f"mv -- {_q(other + '-in')} {_q(f)}",
                "changed",
                files=((f, ORIGINAL), (other + "-in", "replaced\n")),
                touches=(f, other + "-in"),
            ),
            attack(
                "hardlink-write",
                f"ln -- {_q(f)} {_q(other + '-hard')} && printf x >> {_q(other + '-hard')}",
                "changed",
                absent=(other + "-hard",),
                touches=(f, other + "-hard"),
            ),
        ]
    return out


def _rename(attack: Attack, name: str, subject: str) -> Attack:
    from dataclasses import replace

    return replace(attack, attack=name, subject=subject, target=subject)


def _deny_read_file(t: _Rule) -> list[Attack]:
    f = t.base
    secret = token(f)
    link = "work/tw-read-" + _tag(f)
    shape = ((f, "file"),)
    staged = ((f, secret + "\n"),)

    def attack(name: str, script: str, **kw: object) -> Attack:
        return _make(
            t,
            name,
            Action.READ,
            script,
            "printed",
            f,
            files=staged,
            shapes=shape,
            form="file",
            **kw,
        )  # type: ignore[arg-type]

    return [
        attack("read", f"head -c 200 -- {_q(f)}"),
        attack("symlink-read", f"head -c 200 -- {_q(link)}", links=((link, f),), touches=(link,)),
        attack("proc-read", f"head -c 200 -- {_proc(f)}"),
    ]


def _deny_read_dir(t: _Rule) -> list[Attack]:
    d = t.base
    f = f"{d}/tw-secret"
    secret = token(f)
    link = "work/tw-readdir-" + _tag(d)
    shape = ((d, "dir"), (f, "file"))
    staged = ((f, secret + "\n"),)

    def attack(name: str, script: str, effect: str = "printed", **kw: object) -> Attack:
        kw.setdefault("dirs", (d,))
        return _make(
            t, name, Action.READ, script, effect, f, files=staged, shapes=shape, form="tree", **kw
        )  # type: ignore[arg-type]

    return [
        attack("read", f"head -c 200 -- {_q(f)}"),
        # the listing shows the secret's name; an error message names only the directory
        attack("list", f"ls -a -- {_q(d)}", "listed"),
        attack(
            "symlink-read",
            f"head -c 200 -- {_q(link)}/tw-secret",
            links=((link, d),),
            touches=(link,),
        ),
        attack("proc-read", f"head -c 200 -- {_proc(f)}"),
    ]


def _write_roots(policy: Policy, sem: Semantics) -> list[Attack]:
    out: list[Attack] = []
    for rule in policy.allow_write:
        tree = rule.path.rstrip("/").removesuffix("/**") if rule.glob else rule.path
        if GLOB_CHARS & set(tree):
            continue
        base = layout_path(tree or "/")
        if base is None or base == "fs":
            continue
        t = _Rule("allow-write", rule, base, "dir")
        new = f"{base}/tw-write-{_tag(base)}"
        linked = "work/tw-root-" + _tag(base) if base != "work" else "outside/tw-root-work"
        through = f"{base}/tw-linked-{_tag(base)}"
        escape = f"{base}/tw-escape-{_tag(base)}"
        out += [
            _make(
                t,
                "create",
                Action.CREATE,
                f"printf x > {_q(new)}",
                "exists",
                new,
                dirs=(base,),
                absent=(new,),
                form="root",
                touches=(new,),
            ),
            # a symlinked directory that leads into the root: the real path decides
            _make(
                t,
                "symlinked-dir",
                Action.CREATE,
                f"printf x > {_q(linked)}/{shlex.quote(posixpath.basename(through))}",
                "exists",
                through,
                dirs=(base,),
                links=((linked, base),),
                form="root",
                absent=(through,),
                touches=(through, linked),
            ),
            # a symlink inside the root that leads out of it must not carry the grant along
            _make(
                t,
                "symlink-escape",
                Action.CREATE,
                f"printf x > {_q(escape)}/tw-escaped",
                "exists",
                f"outside/tw-escape-{_tag(base)}/tw-escaped",
                dirs=(base, f"outside/tw-escape-{_tag(base)}"),
                links=((escape, f"outside/tw-escape-{_tag(base)}"),),
                form="root",
                absent=(f"outside/tw-escape-{_tag(base)}/tw-escaped",),
                touches=(escape, f"outside/tw-escape-{_tag(base)}"),
            ),
        ]
    if not sem.write_allowed("work/tw-launch"):
        origin_rule = PathRule(".", policy.srt_location("/filesystem/allowWrite"), False)
        t = _Rule("launch-dir", origin_rule, "work", "dir")
        out.append(
            _make(
                t,
                "create",
                Action.CREATE,
                f"printf x > {_q('work/tw-launch')}",
                "exists",
                "work/tw-launch",
                absent=("work/tw-launch",),
                form="launch",
                touches=("work/tw-launch",),
            )
        )
    return out


# ------------------------------------------------------------------ batches


def _under(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def _overlap(a: str, b: str) -> bool:
    return _under(a, b) or _under(b, a)


def _looked_at(attack: Attack) -> Iterable[str]:
    """Paths whose state the attack stages or judges (a change anywhere under them counts)."""
    yield from attack.touches
    yield from (p for p, _ in attack.files)
    yield from (p for p, _ in attack.links)
    yield from attack.absent
    yield attack.subject


def _containers(attack: Attack) -> Iterable[str]:
    """Directories it only needs to exist (a change inside them does not matter)."""
    yield from attack.dirs
    yield from (p for p, shape in attack.shapes if shape == "dir")


def conflict(a: Attack, b: Attack) -> bool:
    """True when one attack could change what the other stages or looks at."""
    for first, second in ((a, b), (b, a)):
        for touched in first.touches:
            if any(_overlap(touched, p) for p in _looked_at(second)):
                return True
            if any(_under(d, touched) for d in _containers(second)):
                return True
        for path, shape in first.shapes:
            for other, other_shape in second.shapes:
                if path == other and shape != other_shape:
                    return True
                if shape == "file" and other.startswith(path + "/"):
                    return True
    return False


def batches(attacks: list[Attack]) -> list[list[Attack]]:
    """Attacks grouped (first fit, in order) so that no two in a group conflict."""
    out: list[list[Attack]] = []
    for attack in attacks:
        for group in out:
            if not any(conflict(attack, other) for other in group):
                group.append(attack)
                break
        else:
            out.append([attack])
    return out


# ------------------------------------------------------------------ running one batch


def stage(attack: Attack, root: Path) -> None:
    """Put the host tree in the state the attack starts from (idempotent)."""
    for rel in attack.absent:
        _remove(root / rel)
    for rel in (*attack.dirs, *(p for p, shape in attack.shapes if shape == "dir")):
        _ensure_dir(root, rel)
    for rel, content in attack.files:
        path = root / rel
        _ensure_dir(root, posixpath.dirname(rel))
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink():
            path.unlink()
        path.write_text(content, encoding="utf-8")
    for rel, target in attack.links:
        path = root / rel
        _ensure_dir(root, posixpath.dirname(rel))
        _remove(path)
        path.symlink_to(root / target)


def _ensure_dir(root: Path, rel: str) -> None:
    """ROOT/rel as a real directory; a file or symlink in its way (left by another batch's
    shape) is removed. Nothing above ROOT is looked at."""
    node = root
    for part in PurePosixPath(rel).parts:
        node = node / part
        if node.is_symlink() or (node.exists() and not node.is_dir()):
            node.unlink()
        node.mkdir(exist_ok=True)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def effect_seen(attack: Attack, root: Path, output: str) -> bool:
    """Did the attack take effect on the host (or print the secret)?"""
    path = root / attack.subject
    if attack.effect == "exists":
        return os.path.lexists(path)
    if attack.effect == "gone":
        return not os.path.lexists(path)
    if attack.effect == "changed":
        if path.is_symlink() or not path.is_file():
            return True
        original = dict(attack.files).get(attack.subject, ORIGINAL)
        return path.read_text(encoding="utf-8", errors="replace") != original
    if attack.effect == "listed":
        return posixpath.basename(attack.subject) in output
    return token(attack.subject) in output


def script(batch: list[Attack], root: Path) -> str:
    parts = [f"R={shlex.quote(str(root))}", f"echo {START}"]
    for index, attack in enumerate(batch):
        parts.append(f"echo '@@{index}@@'; ( {attack.script} ) 2>&1; echo '@@/{index}@@'")
    parts.append(f"echo {END}")
    return "\n".join(parts) + "\n"


def sections(output: str, count: int) -> list[str | None]:
    """Each attack's output, None for all when the script did not run to its end."""
    if START not in output or END not in output:
        return [None] * count
    body = output.split(START, 1)[1]
    out: list[str | None] = []
    for index in range(count):
        head, tail = f"@@{index}@@", f"@@/{index}@@"
        out.append(
            body.split(head, 1)[1].split(tail, 1)[0] if head in body and tail in body else None
        )
    return out


class _Run(Protocol):
    exit_code: int | None
    output: str
    seconds: float


def run_batch(run: Callable[[str], _Run], batch: list[Attack], root: Path) -> list[Observation]:
    """Stage every attack of the batch, run them in one script (``run`` is the control or the
    sandbox), and observe each one's effect on the host."""
    problems: dict[int, str] = {}
    for index, attack in enumerate(batch):
        try:
            stage(attack, root)
        except OSError as exc:  # its control shows no effect: INVALID, never PASS
            problems[index] = f"cannot stage {attack.subject}: {exc.strerror or exc}"
    done = run(script(batch, root))
    parts = sections(done.output, len(batch))
    out = []
    for index, (attack, text) in enumerate(zip(batch, parts, strict=True)):
        if text is None or index in problems:
            why = problems.get(index) or done.output.strip()[-500:]
            out.append(Observation(False, None, done.exit_code, why, done.seconds))
            continue
        seen = effect_seen(attack, root, text)
        outcome = Outcome.ALLOWED if seen else Outcome.DENIED
        out.append(Observation(True, outcome, done.exit_code, text.strip()[-500:], done.seconds))
    return out


Runner = Callable[[str], _Run]


def observe_all(
    control: Runner, sandboxed: Runner, attacks: list[Attack], root: Path
) -> list[tuple[Attack, Observation, Observation | None]]:
    """Every attack's control and sandboxed observation, batch by batch. The sandbox runs only
    the attacks whose control showed the effect (the others prove nothing either way)."""
    out: list[tuple[Attack, Observation, Observation | None]] = []
    for batch in batches(attacks):
        plain = run_batch(control, batch, root)
        live = [a for a, o in zip(batch, plain, strict=True) if o.outcome is Outcome.ALLOWED]
        seen = (
            dict(zip(map(id, live), run_batch(sandboxed, live, root), strict=True)) if live else {}
        )
        out += [(a, o, seen.get(id(a))) for a, o in zip(batch, plain, strict=True)]
    return out
