"""Hypothesis strategies for canonical policies, shared by the property tests.

``srt_settings`` / ``bash_rules`` draw any policy (the fast in-process properties of
``test_properties.py``); ``compilable_srt_settings`` / ``compilable_bash_rules`` draw only
policies that every agent compiles, so a property over compiled output checks every example
instead of skipping the refused ones (``test_sandbox_modes.py``). ``tree_policy`` draws a
policy whose every path stays inside one temporary tree, so the real sandboxes can run it
(``tests/real/test_never_widen_property.py``): ``~`` is the tree's HOME, a relative path is
anchored at its launch directory, and an absolute path is written as ``/x`` here and re-rooted
into the tree by ``materialize``.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

GLOB_CHARS = set("*?[]")  # srt's glob characters: a brace is literal (issue 29, item 13)
PATH_KEYS = ("denyRead", "denyWrite", "allowWrite", "allowRead")

# ---------------------------------------------------------------- any policy

segment = st.text(alphabet="abcdefgxyzAB019._-é", min_size=1, max_size=6).filter(
    lambda s: s not in (".", "..")
)
segments = st.lists(segment, min_size=1, max_size=3).map("/".join)
glob_tail = st.sampled_from(["*", "**", "*.pem", "id_?", "[ab]c", "{x,y}.key", "**/*.pem"])

plain_path = st.one_of(
    segments.map(lambda s: "~/" + s),
    segments.map(lambda s: "/" + s),
    segments,  # relative to the working directory
    st.sampled_from(["~", "/", ".", "~/", "./x"]),
)
glob_path = st.one_of(
    st.sampled_from(["**/*.pem", "**/.env", "**/secrets/**", "*.key"]),
    st.tuples(plain_path, glob_tail).map(lambda t: t[0].rstrip("/") + "/" + t[1]),
)
raw_path = st.tuples(st.one_of(plain_path, glob_path), st.sampled_from(["", "", "/", "//"])).map(
    lambda t: t[0] + t[1]
)
path_item = st.one_of(
    raw_path,
    raw_path.map(lambda p: {"path": p, "literal": True}),
)

label = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
hostname = st.lists(label, min_size=1, max_size=3).map(lambda parts: ".".join(parts) + ".com")
domain = st.one_of(
    hostname,
    hostname.map(lambda h: "*." + h),
    st.tuples(hostname, st.integers(1, 65535)).map(lambda t: f"{t[0]}:{t[1]}"),
    st.sampled_from(["localhost", "[::1]", "[::1]:8443", "127.0.0.1:443"]),
)

COMMAND_RE = re.compile(r"\S(.*\S)?")
command = st.text(
    alphabet=st.characters(
        categories=("L", "N", "P", "S", "Zs"), exclude_characters=")", max_codepoint=0x2FFF
    ),
    min_size=1,
    max_size=20,
).filter(lambda s: COMMAND_RE.fullmatch(s) is not None)


@st.composite
def srt_settings(draw: st.DrawFn) -> dict[str, Any]:
    filesystem = {
        key: draw(st.lists(path_item, max_size=5)) for key in PATH_KEYS if draw(st.booleans())
    }
    network = {
        key: draw(st.lists(domain, max_size=5))
        for key in ("allowedDomains", "deniedDomains")
        if draw(st.booleans())
    }
    srt: dict[str, Any] = {}
    if filesystem or draw(st.booleans()):
        srt["filesystem"] = filesystem
    if network or draw(st.booleans()):
        srt["network"] = network
    return srt


@st.composite
def bash_rules(draw: st.DrawFn, commands: st.SearchStrategy[str] = command) -> dict[str, list[str]]:
    return {
        key: draw(st.lists(commands, max_size=5))
        for key in ("allow", "deny", "ask")
        if draw(st.booleans())
    }


# ---------------------------------------------------------------- policies every agent compiles

# Codex refuses a deny it cannot name (TWS411): the whole home directory, a glob anchored at the
# filesystem root, a literal path with glob characters under a parent too broad to deny instead.
# Deny paths are therefore anchored at least one directory below ~ and /.
deny_base = st.one_of(segments.map(lambda s: "~/" + s), segments.map(lambda s: "/" + s), segments)
one_segment_glob = st.sampled_from(["*.pem", "id_?", "[ab]c", "{x,y}.key", "*"])
deny_raw_path = st.tuples(
    st.one_of(
        deny_base,
        st.sampled_from([".", "./x", "/"]),
        st.sampled_from(["**/*.pem", "**/.env", "**/secrets/**"]),
        st.tuples(deny_base, glob_tail).map(lambda t: t[0] + "/" + t[1]),
    ),
    st.sampled_from(["", "", "/", "//"]),
).map(lambda t: t[0] + t[1])
deny_path_item = st.one_of(
    deny_raw_path,
    # literal: a concrete path, or one glob-like name right under a concrete directory
    st.one_of(deny_base, st.tuples(deny_base, one_segment_glob).map("/".join)).map(
        lambda p: {"path": p, "literal": True}
    ),
)
DENY_KEYS = ("denyRead", "denyWrite")


def _splits(text: str) -> bool:
    try:
        shlex.split(text)
    except ValueError:  # an unbalanced quote: Codex's rules cannot split it (TWS406)
        return False
    # Droid's command lists take a rule by its leading words, so one whose first word holds a
    # wildcard has none to keep (TWS406)
    words = text.split()
    return bool(words) and "*" not in words[0]


compilable_command = command.filter(_splits)


@st.composite
def compilable_srt_settings(draw: st.DrawFn) -> dict[str, Any]:
    """Like ``srt_settings``, with deny paths every agent can express."""
    srt = draw(srt_settings())
    for key in DENY_KEYS:
        if key in srt.get("filesystem", {}):
            srt["filesystem"][key] = draw(st.lists(deny_path_item, max_size=5))
    return srt


def compilable_bash_rules() -> st.SearchStrategy[dict[str, list[str]]]:
    """Like ``bash_rules``, with commands every agent can split into words."""
    return bash_rules(compilable_command)


# ---------------------------------------------------------------- policies inside one tree

# Names the sandboxes protect on their own (srt's mandatory denies, Codex's .git/.codex): a
# probe there would measure the sandbox's extra rule, not the policy.
RESERVED_NAMES = frozenset(
    {
        ".git",
        ".codex",
        ".agents",
        ".claude",
        ".vscode",
        ".idea",
        ".bashrc",
        ".bash_profile",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".gitconfig",
        ".gitmodules",
        ".mcp.json",
        ".ripgreprc",
    }
)
# Spaces, non-ASCII letters and a leading dot, the spellings that trip up quoting and TOML keys.
tree_segment = st.one_of(
    st.text(alphabet="abcxyz09._- éü日", min_size=1, max_size=5).filter(
        lambda s: s.strip() == s and s not in (".", "..") and s not in RESERVED_NAMES
    ),
    st.sampled_from(["secrets", "proj", "a b", "größe", "日本", ".env", ".ssh", "cache"]),
)
tree_segments = st.lists(tree_segment, min_size=1, max_size=3).map("/".join)
# A ``..`` step that stays inside the tree: the tree's root sits one level above HOME and the
# launch directory, and the re-rooted ``/`` lies two levels below it.
dotdot_prefix = st.sampled_from(["", "", "", "../", "x/../"])


tree_anchor = st.sampled_from(["~/", "", "/", "./"])


@st.composite
def tree_base(draw: st.DrawFn) -> str:
    """A plain path anchored at HOME, the launch directory or the re-rooted ``/``."""
    anchor = draw(tree_anchor)
    body = draw(dotdot_prefix) + draw(tree_segments)
    return anchor + body


# Strategies built once: a strategy made anew inside a draw is validated anew on every example,
# which cost the tree properties more than drawing from it (same draws either way).
_tree_base = tree_base()


tree_glob_tail = st.sampled_from(["*.pem", "id_?", "[ab]c", "{x,y}.key", "**/*.pem", "*"])
tree_spelling = st.sampled_from(["P", "P/", "P/**"])  # the three ways to name a tree


tree_path_kind = st.sampled_from(["plain", "plain", "slash", "glob", "home"])
tree_home = st.sampled_from(["~", "~/", "."])


@st.composite
def _tree_path(draw: st.DrawFn, tree: bool) -> str:
    base = draw(_tree_base)
    if tree:
        return draw(tree_spelling).replace("P", base, 1)
    kind = draw(tree_path_kind)
    if kind == "slash":
        return base + "/"
    if kind == "glob":
        return base + "/" + draw(tree_glob_tail)
    if kind == "home":
        return draw(tree_home)
    return base


_tree_paths = {tree: _tree_path(tree) for tree in (False, True)}


def tree_path(tree: bool = False) -> st.SearchStrategy[str]:
    """A path of the tree (``tree``: one naming a whole tree, spelled ``P``, ``P/`` or
    ``P/**``); the same strategy object on every call."""
    return _tree_paths[tree]


tree_domain = st.one_of(
    hostname,
    hostname.map(lambda h: "*." + h),
    st.tuples(st.one_of(hostname, hostname.map(lambda h: "*." + h)), st.integers(1, 65535)).map(
        lambda t: f"{t[0]}:{t[1]}"
    ),
    st.sampled_from(["localhost", "127.0.0.1", "*.github.com", "github.com"]),
)


_tree_roots = st.lists(tree_path(), min_size=0, max_size=3, unique=True)
_tree_denies = st.lists(tree_path(tree=True) | tree_path(), max_size=2)
_tree_allowed_domains = st.lists(tree_domain, max_size=3, unique=True)
_tree_denied_domains = st.lists(tree_domain, max_size=2, unique=True)


@st.composite
def tree_policy(draw: st.DrawFn) -> dict[str, Any]:
    """An srt settings object for the fixture tree: write roots with denies nested inside them
    (tree denies spelled ``P``, ``P/`` and ``P/**``), free-standing denies, re-allowed reads."""
    roots = draw(_tree_roots)
    deny_write: list[str] = []
    deny_read: list[str] = []
    for root in roots:
        if GLOB_CHARS & set(root) or draw(st.booleans()):
            continue
        inner = draw(tree_segments)
        spelled = draw(tree_spelling).replace("P", root.rstrip("/") + "/" + inner, 1)
        (deny_write if draw(st.booleans()) else deny_read).append(spelled)
    deny_write += draw(_tree_denies)
    deny_read += draw(_tree_denies)
    filesystem: dict[str, Any] = {"allowWrite": roots, "denyWrite": deny_write}
    filesystem["denyRead"] = deny_read
    if deny_read and draw(st.booleans()):
        inside = draw(st.sampled_from(deny_read)).removesuffix("/**").rstrip("/")
        if not GLOB_CHARS & set(inside):
            filesystem["allowRead"] = [inside + "/" + draw(tree_segment)]
    network = {
        "allowedDomains": draw(_tree_allowed_domains),
        "deniedDomains": draw(_tree_denied_domains),
    }
    return {"filesystem": filesystem, "network": network}


@dataclass(frozen=True)
class Tree:
    """Where a tree policy lives on this machine: ``root/home`` is HOME, ``root/work`` the
    launch directory, and ``root/fs`` stands for ``/``."""

    root: str

    @property
    def home(self) -> str:
        return posixpath.join(self.root, "home")

    @property
    def work(self) -> str:
        return posixpath.join(self.root, "work")

    def reroot(self, path: str) -> str:
        """A policy path with ``/`` moved to ``root/fs``; ``~`` and relative paths unchanged."""
        if path.startswith("/"):
            return self.root + "/fs" + path
        return path

    def host(self, path: str) -> str:
        """The absolute host path a (rerooted or not) policy path names, ``..`` folded."""
        if path == "~" or path.startswith("~/"):
            full = self.home + path[1:]
        elif path.startswith(self.root):
            full = path
        elif path.startswith("/"):
            full = posixpath.join(self.root, "fs") + path
        else:
            full = posixpath.join(self.work, path)
        return posixpath.normpath(full)


def materialize(srt: dict[str, Any], tree: Tree) -> dict[str, Any]:
    """The policy as written for this tree: every absolute path re-rooted into it."""
    filesystem = {
        key: [tree.reroot(p) if isinstance(p, str) else p for p in value]
        for key, value in srt.get("filesystem", {}).items()
    }
    return {**srt, "filesystem": filesystem}
