"""Which mount holds a denied path and which allowed host admits a denied one, for DeepCode's
lossy-translation findings: each answer is the first match in list order, the same as trying
every pair, found by looking a path's or host's own prefixes and suffixes up in indexes instead,
so the cost grows with the number of entries, not with their product.

Pure functions on strings; a long entry costs at most its own length times the number of its
separators, and only separators at which some index key could end are sliced.
"""

from __future__ import annotations

from twsrt.domains import split_port


def first_mounts(mounts: list[str], paths: list[str]) -> list[str | None]:
    """For each path, the first of ``mounts`` that holds it or lies inside it (``inside`` either
    way), found by looking up the path's own prefixes in indexes of the mounts rather than by
    trying every mount: linear in the number of paths and mounts."""
    first: dict[str, int] = {}  # a mount as written -> its first index
    above: dict[str, int] = {}  # a mount without trailing slashes, which holds what is below
    for index, mount in reversed(list(enumerate(mounts))):
        first[mount] = index
        above[mount.rstrip("/")] = index
    stems = [path.rstrip("/") for path in paths]
    # a mount inside a path: the mount's prefixes before a slash that some path's stem equals
    below = _prefix_index(mounts, "/", {len(stem) for stem in stems})
    above_lengths = _Lengths({len(stem) for stem in above})
    none = len(mounts)
    out: list[str | None] = []
    for path, stem in zip(paths, stems, strict=True):
        best = min(first.get(path, none), below.get(stem, none))
        best = above_lengths.first(path, "/", above, best)
        out.append(mounts[best] if best < none else None)
    return out


def first_overlaps(allowed: list[str], denied: list[str]) -> list[str | None]:
    """For each denied entry, the first allowed entry that can name the same host (ports
    ignored; ``*.x`` is taken to cover ``x`` too, so that a doubt counts as an overlap), found
    through indexes of the allowed hosts instead of a comparison with each of them.

    The suffix tests (``a.b.x`` under ``*.x``) run on reversed hosts, where a suffix after a
    dot is a prefix before one."""
    none = len(allowed)
    star = none  # the first allowed ``*``
    base: dict[str, int] = {}  # host without ``*.`` -> first allowed index
    wild: dict[str, int] = {}  # reversed, for the allowed ``*.x`` patterns only
    reversed_bases: list[str] = []
    for index, entry in reversed(list(enumerate(allowed))):
        host = split_port(entry)[0].lower()
        stripped = host.removeprefix("*.")
        reversed_bases.append(stripped[::-1])
        if host == "*":
            star = index
        base[stripped] = index
        if host.startswith("*."):
            wild[stripped[::-1]] = index
    reversed_bases.reverse()
    hosts = [split_port(entry)[0].lower() for entry in denied]
    # an allowed host under a denied ``*.x``
    under = _prefix_index(reversed_bases, ".", {len(h) - 2 for h in hosts if h.startswith("*.")})
    wild_lengths = _Lengths({len(key) for key in wild})
    out: list[str | None] = []
    for host in hosts:
        stripped = host.removeprefix("*.")
        hits = [star, base.get(stripped, none)]
        if host == "*" and allowed:
            hits.append(0)
        if host.startswith("*."):
            hits.append(under.get(stripped[::-1], none))
        # a denied host under an allowed ``*.x``
        best = wild_lengths.first(stripped[::-1], ".", wild, min(hits))
        out.append(allowed[best] if best < none else None)
    return out


class _Lengths:
    """The lengths an index's keys have: only prefixes of those lengths are cut from a text, so
    a long text costs its length and not its length times its separators."""

    def __init__(self, lengths: set[int]) -> None:
        self.lengths = lengths
        self.longest = max(lengths, default=-1)

    def prefixes(self, text: str, separator: str) -> list[str]:
        """The prefixes of ``text`` that ``separator`` follows, of the indexed lengths."""
        out = []
        cut = text.find(separator)
        while cut != -1 and cut <= self.longest:
            if cut in self.lengths:
                out.append(text[:cut])
            cut = text.find(separator, cut + 1)
        return out

    def first(self, text: str, separator: str, index: dict[str, int], best: int) -> int:
        """The least of ``best`` and what ``index`` holds for ``text``'s prefixes."""
        cut = text.find(separator)
        while cut != -1 and cut <= self.longest:
            if cut in self.lengths:
                best = min(best, index.get(text[:cut], best))
            cut = text.find(separator, cut + 1)
        return best


def _prefix_index(texts: list[str], separator: str, lengths: set[int]) -> dict[str, int]:
    """Each prefix (of the given lengths) of each text that ``separator`` follows -> the index
    of the first text that has it."""
    cuts = _Lengths(lengths)
    out: dict[str, int] = {}
    for index, text in reversed(list(enumerate(texts))):
        for prefix in cuts.prefixes(text, separator):
            out[prefix] = index
    return out
