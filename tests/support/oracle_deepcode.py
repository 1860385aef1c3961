"""The DeepCode translation's pairwise searches as they were before issue 17, kept as the test
oracle for the indexed ones in ``twsrt.agents.deepcode.overlaps`` (which must answer the same)."""

from __future__ import annotations

from twsrt.domains import split_port


def inside(path: str, root: str) -> bool:
    """``twsrt.agents.abspaths.inside`` as the old search used it (pinned here)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def overlap(a: str, b: str) -> bool:
    """Whether two host patterns (ports ignored) can name the same host; ``*.x`` is taken to
    cover ``x`` too, so that a doubt counts as an overlap."""
    a, b = split_port(a)[0].lower(), split_port(b)[0].lower()
    if "*" in (a, b):
        return True

    def covers(pattern: str, host: str) -> bool:
        base = pattern.removeprefix("*.")
        return host == base or (pattern.startswith("*.") and host.endswith("." + base))

    return covers(a, b.removeprefix("*.")) or covers(b, a.removeprefix("*."))


def first_overlaps(allowed: list[str], denied: list[str]) -> list[str | None]:
    """For each denied entry, the first allowed entry that overlaps it, by trying each one."""
    return [next((a for a in allowed if overlap(a, d)), None) for d in denied]


def first_mounts(mounts: list[str], paths: list[str]) -> list[str | None]:
    """For each path, the first mount that holds it or lies inside it, by trying each one."""
    return [next((m for m in mounts if inside(p, m) or inside(m, p)), None) for p in paths]
