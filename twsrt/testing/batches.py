"""Attacks run in batches: grouped so that none can disturb another, staged on the host,
run in one script per sandbox start (the control first, without a sandbox), and judged by their
effect on the host tree (see ``twsrt.testing.attacks`` for what each attack is). The script of
sections is shared with the plain probes' batches (``twsrt.testing.plain``)."""

from __future__ import annotations

import os
import posixpath
import shlex
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Protocol

from twsrt.records import record
from twsrt.testing.globs import within
from twsrt.testing.model import ORIGINAL, Attack, Observation, Outcome, token

START, END = "TWSRT-BATCH-START", "TWSRT-BATCH-END"


# ------------------------------------------------------------------ batches


def _overlap(a: str, b: str) -> bool:
    return within(a, b) or within(b, a)


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
            if any(within(d, touched) for d in _containers(second)):
                return True
        for path, shape in first.shapes:
            for other, other_shape in second.shapes:
                if path == other and shape != other_shape:
                    return True
                if shape == "file" and other.startswith(path + "/"):
                    return True
    return False


def batches(attacks: list[Attack]) -> list[list[Attack]]:
    """Attacks grouped (first fit, in order) so that no two in a group conflict. Quadratic in
    the attacks: a run makes them once for all its engines (``within_groups``: the same
    groups kept to a subset, which is still conflict-free)."""
    out: list[list[Attack]] = []
    for attack in attacks:
        for group in out:
            if not any(conflict(attack, other) for other in group):
                group.append(attack)
                break
        else:
            out.append([attack])
    return out


def within_groups(groups: list[list[Attack]], kept: Sequence[Attack]) -> list[list[Attack]]:
    """The groups, each cut down to the attacks in ``kept`` (by identity), empty ones left out."""
    ids = {id(a) for a in kept}
    cut = [[a for a in group if id(a) in ids] for group in groups]
    return [group for group in cut if group]


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
    if attack.effect == "relinked":  # the staged symlink is gone or points elsewhere
        target = root / dict(attack.links).get(attack.subject, "")
        return not (path.is_symlink() and os.readlink(path) == str(target))
    if attack.effect == "listed":
        return posixpath.basename(attack.subject) in output
    return token(attack.subject) in output


def script(batch: list[Attack], root: Path, nonce: str = "") -> str:
    return section_script([a.script for a in batch], nonce, f"R={shlex.quote(str(root))}")


def section_script(commands: Sequence[str], nonce: str, prelude: str = "") -> str:
    """One sh script running each command in a subshell between markers, its exit status
    after the closing one. The markers carry ``nonce`` (random per batch) so that no output of
    a command, which may name the policy's paths, can pass for another command's section."""
    lines = [section_line(index, nonce, text) for index, text in enumerate(commands)]
    return framed(lines, nonce, prelude)


def section_line(index: int, nonce: str, text: str) -> str:
    head, tail = _markers(index, nonce)
    return f"echo '{head}'; ( {text} ) 2>&1; echo \"{tail} $?\""


def framed(lines: Sequence[str], nonce: str, prelude: str = "") -> str:
    """The script: ``prelude``, the opening marker, the lines, the closing marker."""
    parts = [prelude] if prelude else []
    return "\n".join([*parts, f"echo {START}{nonce}", *lines, f"echo {END}{nonce}"]) + "\n"


def _markers(index: int, nonce: str) -> tuple[str, str]:
    return f"@@{nonce}{index}@@", f"@@/{nonce}{index}@@"


@record
class Section:
    """What one command of a batch printed, and the status it exited with."""

    output: str
    status: int | None


def split_sections(output: str, count: int, nonce: str = "") -> list[Section | None]:
    """Each command's section of a batch's output, None for one that did not finish (the
    batch hung, crashed or never started before its closing marker)."""
    if f"{START}{nonce}" not in output:
        return [None] * count
    body = output.split(f"{START}{nonce}", 1)[1]
    out: list[Section | None] = []
    for index in range(count):
        head, tail = _markers(index, nonce)
        if head not in body or tail not in body:
            out.append(None)
            continue
        text, rest = body.split(head, 1)[1].split(tail, 1)
        word = rest.split("\n", 1)[0].strip()
        out.append(Section(text, int(word) if word.isdigit() else None))
    return out


def sections(output: str, count: int, nonce: str = "") -> list[str | None]:
    """Each attack's output, None for all when the script did not run to its end (an attack's
    effect is judged on the host, so a batch that stopped early proves nothing for any)."""
    if f"{END}{nonce}" not in output:
        return [None] * count
    return [s.output if s else None for s in split_sections(output, count, nonce)]


def new_nonce() -> str:
    return os.urandom(6).hex()  # not secrets: ~4 ms to import, for nothing more here


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
    nonce = new_nonce()
    done = run(script(batch, root, nonce))
    parts = sections(done.output, len(batch), nonce)
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
    control: Runner,
    sandboxed: Runner,
    attacks: list[Attack],
    root: Path,
    tick: Callable[[int], None] | None = None,
    groups: list[list[Attack]] | None = None,
) -> list[tuple[Attack, Observation, Observation | None]]:
    """Every attack's control and sandboxed observation, batch by batch (``groups``: the
    batches, when already made; ``tick``: told each batch's size when it is done). The sandbox
    runs only the attacks whose control showed the effect (the others prove nothing either
    way)."""
    out: list[tuple[Attack, Observation, Observation | None]] = []
    for batch in batches(attacks) if groups is None else groups:
        plain = run_batch(control, batch, root)
        live = [a for a, o in zip(batch, plain, strict=True) if o.outcome is Outcome.ALLOWED]
        seen = (
            dict(zip(map(id, live), run_batch(sandboxed, live, root), strict=True)) if live else {}
        )
        out += [(a, o, seen.get(id(a))) for a, o in zip(batch, plain, strict=True)]
        if tick is not None:
            tick(len(batch))
    return out
