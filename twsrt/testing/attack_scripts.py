"""The attacks on one rule's target: for each, the host state it is staged with, its shell text
(paths under ``$R``, the fixture root) and the effect that shows it worked (``attacks`` picks
the targets; see there for the whole idea)."""

from __future__ import annotations

import posixpath
import shlex
import zlib
from collections.abc import Callable
from typing import Any

from twsrt.policy import GLOB_CHARS, PathRule, Policy  # srt's glob characters: a brace is literal
from twsrt.records import record
from twsrt.testing.globs import Semantics, instantiate, layout_path, within
from twsrt.testing.model import ORIGINAL, Action, Attack, Outcome, token


@record
class Target:
    kind: str
    rule: PathRule
    base: str  # ROOT-relative path the attacks aim at
    shape: str  # "file", "dir" or "both"
    glob: str = ""  # the mapped glob, for a glob that is not a P/** tree


def _q(rel: str) -> str:
    return '"$R"/' + shlex.quote(rel)


def _proc(rel: str) -> str:
    return '/proc/self/root"$R"/' + shlex.quote(rel)


def _tag(rel: str) -> str:
    return f"{zlib.crc32(rel.encode()):08x}"


def _make(
    target: Target,
    attack: str,
    action: Action,
    script: str,
    effect: str,
    subject: str,
    **kw: Any,  # Attack's staging fields (tuples), passed through by name
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
        **kw,
    )


def deny_write_dir(t: Target, end: str | None) -> list[Attack]:
    b = t.base
    shape = ((b, "dir"),)

    def inside(name: str) -> str:
        return f"{b}/tw-{name}"

    def attack(name: str, script: str, effect: str, subject: str, **kw: object) -> Attack:
        kw.setdefault("touches", (subject,))
        return _make(
            t, name, Action.CREATE, script, effect, subject, shapes=shape, form="tree", **kw
        )

    p = inside
    out = [*_tree_writes(attack, p), *_tree_moves(attack, p), *_tree_detours(attack, p, b)]
    if end is not None and not within(end, b) and not within(b, end + "/tw-x"):
        out += _tree_across(attack, p, f"{end}/tw-{_tag(b)}")
    return out


# an attack maker bound to one target (``deny_write_dir``'s ``attack``) and the path maker ``p``
_Maker = Callable[..., Attack]
_Inside = Callable[[str], str]
_Quote = Callable[[str], str]  # _q or _proc: how a script names a path


def _fresh(attack: _Maker, p: _Inside, name: str, command: str, quote: _Quote = _q) -> Attack:
    """An entry that must not come to exist in the tree: ``command`` on the new path."""
    return attack(name, f"{command} {quote(p(name))}", "exists", p(name), absent=(p(name),))


def _kept(
    attack: _Maker, p: _Inside, name: str, command: str, effect: str, quote: _Quote = _q
) -> Attack:
    """A file of the tree that must stay as it is: ``command`` on it."""
    staged = ((p(name), ORIGINAL),)
    return attack(name, f"{command} {quote(p(name))}", effect, p(name), files=staged)


def _tree_writes(attack: _Maker, p: _Inside) -> list[Attack]:
    """New, changed and removed entries inside a denied tree."""
    return [
        _fresh(attack, p, "create", "printf x >"),
        _kept(attack, p, "append", "printf x >>", "changed"),
        _kept(attack, p, "truncate", ": >", "changed"),
        _kept(attack, p, "delete", "rm -f --", "gone"),
        _fresh(attack, p, "mkdir", "mkdir --"),
    ]


def _tree_moves(attack: _Maker, p: _Inside) -> list[Attack]:
    """Renames and links inside a denied tree."""
    via = "work/tw-via-" + _tag(p("via"))
    return [
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
        _fresh(attack, p, "symlink", "ln -s /nonexistent"),
        attack(
            "symlink-write",
            f"printf x >> {_q(via)}",
            "changed",
            p("via"),
            files=((p("via"), ORIGINAL),),
            links=((via, p("via")),),
            touches=(p("via"), via),
        ),
    ]


def _tree_detours(attack: _Maker, p: _Inside, b: str) -> list[Attack]:
    """Writes through /proc/self/root, and the whole tree moved aside."""
    return [
        _fresh(attack, p, "proc-create", "printf x >", _proc),
        _kept(attack, p, "proc-append", "printf x >>", "changed", _proc),
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


def _tree_across(attack: _Maker, p: _Inside, other: str) -> list[Attack]:
    """Moves and hard links between a denied tree and a writable place beside it."""
    into = attack(
        "rename-into",
        f"mv -- {_q(other + '-in')} {_q(p('in'))}",
        "exists",
        p("in"),
        files=((other + "-in", ORIGINAL),),
        absent=(p("in"),),
        touches=(p("in"), other + "-in"),
    )
    return _across(attack, p, other, into)


def _across(attack: _Maker, at: _Inside, other: str, into: Attack) -> list[Attack]:
    """Moves and hard links between a denied entry (``at(name)``: a name in a tree, or the
    file) and a writable place beside it (``other``); ``into``, the rename into the denied
    place, is the file's or the tree's own."""

    def leaving(name: str, tag: str, script: Callable[[str, str], str], effect: str) -> Attack:
        """An attack on the staged entry ``at(tag)`` that ends at ``other-tag`` beside it."""
        entry, there = at(tag), f"{other}-{tag}"
        return attack(
            name,
            script(_q(entry), _q(there)),
            effect,
            entry,
            files=((entry, ORIGINAL),),
            absent=(there,),
            touches=(entry, there),
        )

    return [
        leaving("rename-out", "out", lambda a, b: f"mv -- {a} {b}", "gone"),
        into,
        leaving(
            "hardlink-write", "hard", lambda a, b: f"ln -- {a} {b} && printf x >> {b}", "changed"
        ),
    ]


def deny_write_file(t: Target, end: str | None) -> list[Attack]:
    f = t.base
    shape = ((f, "file"),)
    staged = ((f, ORIGINAL),)
    via = "work/tw-via-" + _tag(f)

    def attack(name: str, script: str, effect: str, subject: str = f, **kw: object) -> Attack:
        kw.setdefault("files", staged)
        kw.setdefault("touches", (f,))
        kw.setdefault("shapes", shape)
        return _make(t, name, Action.APPEND, script, effect, subject, form="file", **kw)

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
        out += _fresh_match(attack, t.glob, f)
    if end is not None and not within(end, f) and not within(f, end + "/tw-x"):
        out += _file_across(attack, f, f"{end}/tw-{_tag(f)}")
    return out


def _fresh_match(attack: _Maker, glob: str, f: str) -> list[Attack]:
    """Creating a new file the glob matches (the rule's glob mapped into the fixture tree)."""
    fresh = instantiate(glob, tag="tw-new")
    if not fresh or fresh == f:
        return []
    created = attack(
        "create",
        f"mkdir -p -- {_q(posixpath.dirname(fresh))} && printf x > {_q(fresh)}",
        "exists",
        files=(),
        absent=(fresh,),
        touches=(fresh,),
        shapes=(),
    )
    # the report needs one name per attack: the fresh-instance one is "create-match"
    return [_rename(created, "create-match", fresh)]


def _file_across(attack: _Maker, f: str, other: str) -> list[Attack]:
    """Moves and hard links between a denied file and a writable place beside it."""
    into = attack(
        "rename-into",
        f"mv -- {_q(other + '-in')} {_q(f)}",
        "changed",
        f,
        files=((f, ORIGINAL), (other + "-in", "replaced\n")),
        touches=(f, other + "-in"),
    )
    return _across(attack, lambda _name: f, other, into)


def _rename(attack: Attack, name: str, subject: str) -> Attack:
    from dataclasses import replace

    return replace(attack, attack=name, subject=subject, target=subject)


def deny_read_file(t: Target) -> list[Attack]:
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
        )

    return [
        attack("read", f"head -c 200 -- {_q(f)}"),
        attack("symlink-read", f"head -c 200 -- {_q(link)}", links=((link, f),), touches=(link,)),
        attack("proc-read", f"head -c 200 -- {_proc(f)}"),
    ]


def deny_read_dir(t: Target) -> list[Attack]:
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
        )

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


def write_roots(policy: Policy, sem: Semantics) -> list[Attack]:
    out: list[Attack] = []
    for rule in policy.allow_write:
        tree = rule.path.rstrip("/").removesuffix("/**") if rule.glob else rule.path
        if GLOB_CHARS & set(tree):
            continue
        base = layout_path(tree or "/")
        if base is None or base == "fs":
            continue
        out += _root_attacks(Target("allow-write", rule, base, "dir"))
    if not sem.write_allowed("work/tw-launch"):
        origin_rule = PathRule(".", policy.srt_location("/filesystem/allowWrite"), False)
        t = Target("launch-dir", origin_rule, "work", "dir")
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


def _root_attacks(t: Target) -> list[Attack]:
    """A write into the root, through a symlinked directory into it, and through a symlink
    out of it (which must not carry the grant along)."""
    base = t.base
    new = f"{base}/tw-write-{_tag(base)}"
    linked = "work/tw-root-" + _tag(base) if base != "work" else "outside/tw-root-work"
    through = f"{base}/tw-linked-{_tag(base)}"
    escape = f"{base}/tw-escape-{_tag(base)}"
    return [
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
