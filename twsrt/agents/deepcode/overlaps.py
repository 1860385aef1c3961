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
    # a mount inside a path: the mount's prefixes that end before a slash, only as long as a
    # path can be (so one long mount costs no more than its length)
    stems = [path.rstrip("/") for path in paths]
    below = _slash_prefixes(mounts, {len(stem) for stem in stems})
    above_lengths = {len(stem) for stem in above}
    longest = max(above_lengths, default=-1)
    none = len(mounts)
    out: list[str | None] = []
    for path, stem in zip(paths, stems, strict=True):
        hits = [first.get(path, none), below.get(stem, none)]
        hits += (above.get(prefix, none) for prefix in _prefixes(path, above_lengths, longest))
        best = min(hits)
        out.append(mounts[best] if best < none else None)
    return out


def _prefixes(text: str, lengths: set[int], longest: int) -> list[str]:
    """The prefixes of ``text`` that a slash follows, of the given lengths (at most
    ``longest``) only."""
    out = []
    cut = text.find("/")
    while cut != -1 and cut <= longest:
        if cut in lengths:
            out.append(text[:cut])
        cut = text.find("/", cut + 1)
    return out


def _slash_prefixes(texts: list[str], lengths: set[int]) -> dict[str, int]:
    """Each prefix (of the given lengths) of each text that a slash follows -> the first text's
    index."""
    out: dict[str, int] = {}
    longest = max(lengths, default=-1)
    for index, text in reversed(list(enumerate(texts))):
        for prefix in _prefixes(text, lengths, longest):
            out[prefix] = index
    return out


def first_overlaps(allowed: list[str], denied: list[str]) -> list[str | None]:
    """For each denied entry, the first allowed entry that can name the same host (ports
    ignored; ``*.x`` is taken to cover ``x`` too, so that a doubt counts as an overlap), found
    through indexes of the allowed hosts instead of a comparison with each of them."""
    none = len(allowed)
    star = none  # the first allowed ``*``
    base: dict[str, int] = {}  # host without ``*.`` -> first allowed index
    wild: dict[str, int] = {}  # the same, for the allowed ``*.x`` patterns only
    allowed_bases: list[str] = []
    for index, entry in reversed(list(enumerate(allowed))):
        host = split_port(entry)[0].lower()
        stripped = host.removeprefix("*.")
        allowed_bases.append(stripped)
        if host == "*":
            star = index
        base[stripped] = index
        if host.startswith("*."):
            wild[stripped] = index
    allowed_bases.reverse()
    hosts = [split_port(entry)[0].lower() for entry in denied]
    # an allowed host under a denied ``*.x``: the allowed hosts' suffixes after a dot, only of
    # the lengths a denied ``x`` has
    wild_denied = {len(h) - 2 for h in hosts if h.startswith("*.")}
    under = _dot_suffixes(allowed_bases, wild_denied)
    wild_lengths = {len(stripped) for stripped in wild}
    longest = max(wild_lengths, default=-1)
    out: list[str | None] = []
    for host in hosts:
        stripped = host.removeprefix("*.")
        hits = [star, base.get(stripped, none)]
        if host == "*" and allowed:
            hits.append(0)
        if host.startswith("*."):
            hits.append(under.get(stripped, none))
        # a denied host under an allowed ``*.x``
        hits += (wild.get(s, none) for s in _suffixes(stripped, wild_lengths, longest))
        best = min(hits)
        out.append(allowed[best] if best < none else None)
    return out


def _suffixes(text: str, lengths: set[int], longest: int) -> list[str]:
    """The suffixes of ``text`` that a dot precedes, of the given lengths (at most ``longest``)
    only."""
    out = []
    cut = text.rfind(".")
    while cut != -1 and len(text) - cut - 1 <= longest:
        if len(text) - cut - 1 in lengths:
            out.append(text[cut + 1 :])
        cut = text.rfind(".", 0, cut)
    return out


def _dot_suffixes(texts: list[str], lengths: set[int]) -> dict[str, int]:
    """Each suffix (of the given lengths) of each text that a dot precedes -> the first text's
    index."""
    out: dict[str, int] = {}
    longest = max(lengths, default=-1)
    for index, text in reversed(list(enumerate(texts))):
        for suffix in _suffixes(text, lengths, longest):
            out[suffix] = index
    return out
