"""One spelling per path (twsrt/regions.py): the spellings of one path compare as that path in
the narrowing check (TWS225), process links are decided or count against the project, and the
lookups answer as the pairwise tests do."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from support.policies import make_policy
from support.strategies import tree_path, tree_policy, tree_segments

from twsrt.narrowing import narrowing_findings
from twsrt.policy import normalize_path
from twsrt.regions import Anchors, Holders, Meeting, canonical, region, regions

USER = {
    "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["~/dev", "/tmp"], "denyWrite": []},
    "network": {"allowedDomains": ["github.com"], "deniedDomains": []},
}
PINNED = Anchors(home="/home/user", root="/home/user/dev/app")


def reads(*paths: str) -> object:
    return make_policy({**USER, "filesystem": {**USER["filesystem"], "allowRead": list(paths)}})


def widenings(project: object, anchors: Anchors = PINNED) -> list[str]:
    return [f.message for f in narrowing_findings(project, make_policy(USER), anchors=anchors)]


def test_every_spelling_of_a_denied_path_is_caught() -> None:
    for spelled in (
        "~/.ssh",
        "~//.ssh",
        "~/./.ssh",
        "~/.ssh/",
        "~/x/../.ssh",
        "/home/user/.ssh",  # the pinned home's absolute spelling
        "/home//user/.ssh/",
        "/proc/self/root/home/user/.ssh",
        "/proc/thread-self/root/home/user/.ssh",
        "/proc/self/task/7/root/home/user/.ssh",
        "/proc/self/root/proc/self/root/home/user/.ssh",
        "~//.ssh//id_ed25519",
    ):
        found = widenings(reads(spelled))
        assert len(found) == 1, spelled
        written = normalize_path(spelled)  # as the policy holds it (fold_dots)
        assert found[0].startswith(f"project allowRead '{written}' re-opens reads the user policy")
        assert "'~/.ssh' (srt.json:4:7)" in found[0]


def test_without_a_pinned_home_an_absolute_spelling_counts_against_the_project() -> None:
    """``~`` may be any home: an absolute path may be the denied one, and is no user root."""
    unpinned = Anchors(root="~/dev/app")
    assert len(widenings(reads("/home/user/.ssh"), unpinned)) == 1
    assert len(widenings(reads("/srv/data"), unpinned)) == 1
    assert widenings(reads("~/dev/app/docs"), unpinned) == []
    write = make_policy({**USER, "filesystem": {**USER["filesystem"], "allowWrite": ["build"]}})
    assert widenings(write, unpinned) == []  # the root is below ~/dev either way
    outside = make_policy(
        {**USER, "filesystem": {**USER["filesystem"], "allowWrite": ["/home/user/dev/x"]}}
    )
    assert widenings(outside, PINNED) == []
    assert len(widenings(outside, unpinned)) == 1


def test_process_links_are_decided_or_count_against_the_project() -> None:
    """``/proc/self/root`` is the sandbox's own ``/``; another process's root, a working
    directory or an open descriptor can be anything: they re-open every deny and no user root
    holds them."""
    for spelled in ("/proc/1/root/tmp", "/proc/self/cwd/x", "/dev/fd/3/x", "/proc/self/fd/4"):
        assert canonical(spelled) is None
        assert len(widenings(reads(spelled))) == 1, spelled
        write = make_policy({**USER, "filesystem": {**USER["filesystem"], "allowWrite": [spelled]}})
        assert any("is not granted by the user policy" in m for m in widenings(write)), spelled
    granted = make_policy(
        {**USER, "filesystem": {**USER["filesystem"], "allowWrite": ["/proc/self/root/tmp/x"]}}
    )
    assert widenings(granted) == []
    assert canonical("/proc/self/environ") == "/proc/self/environ"  # a file, not a link
    assert canonical("/proc/selfish/root") == "/proc/selfish/root"


def test_symlink_spellings_come_from_the_caller() -> None:
    """``links`` is the host fact (hostchecks.HostSpellings): a grant through a link that
    really is a denied path re-opens it, and the finding says so."""
    links = {"/home/user/dev/app/docs": "/home/user/.ssh"}.get
    anchors = Anchors(home="/home/user", root="/home/user/dev/app", links=links)
    found = widenings(reads("docs"), anchors)
    assert found == [
        "project allowRead 'docs' re-opens reads the user policy denies: '~/.ssh' "
        "(srt.json:4:7), which the user policy does not re-open ('docs' is '/home/user/.ssh' "
        "through a symlink on this host)"
    ]
    assert widenings(reads("docs")) == []


# ------------------------------------------------------------------------------- properties

respell = st.sampled_from(["//", "/./", "/q/../"])


@st.composite
def spellings(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A plain path and other spellings of it: doubled or ``.`` separators, a ``q/..`` detour,
    a trailing slash, the pinned home's absolute spelling, a ``/proc/self/root`` prefix."""
    anchor = draw(st.sampled_from(["~/", "/", "/home/user/", ""]))
    path = anchor + draw(tree_segments)
    out = []
    for _ in range(draw(st.integers(1, 3))):
        parts = path.split("/")
        at = draw(st.integers(1, max(1, len(parts) - 1)))
        text = "/".join(parts[:at]) + draw(respell) + "/".join(parts[at:])
        if draw(st.booleans()):
            text += "/"
        if path.startswith("~/") and draw(st.booleans()):
            text = "/home/user" + text[1:]
        if text.startswith("/") and draw(st.booleans()):
            text = draw(st.sampled_from(["/proc/self/root", "/proc/thread-self/root/"])) + text
        out.append(text)
    return path, out


@settings(max_examples=300, deadline=None)
@given(tree_policy(), spellings(), st.sampled_from(["allowRead", "allowWrite"]))
@example(
    {"filesystem": {"denyRead": ["~/.ssh"], "allowWrite": []}, "network": {}},
    ("~/.ssh", ["~//.ssh", "/home/user/./.ssh/", "/proc/self/root/home/user/.ssh"]),
    "allowRead",
)
def test_drawn_spellings_of_one_path_are_all_caught_or_all_allowed(
    srt: dict, drawn: tuple[str, list[str]], key: str
) -> None:
    path, spelled = drawn
    assume(all(canonical(s) is not None for s in spelled))
    user = make_policy(srt)
    verdicts = set()
    for text in [path, *spelled]:
        filesystem = {**srt["filesystem"], key: [*srt["filesystem"].get(key, []), text]}
        project = make_policy({**srt, "filesystem": filesystem})
        found = narrowing_findings(project, user, anchors=PINNED, replacing=())
        verdicts.add(bool(found))
    assert len(verdicts) == 1


@given(spellings())
def test_canonical_gives_spellings_of_one_path_one_placed_form(
    drawn: tuple[str, list[str]],
) -> None:
    path, spelled = drawn
    assert canonical(canonical(path) or "") == canonical(path)
    placed = {PINNED.resolve(text) for text in [path, *spelled]}
    assert len(placed) == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(tree_path(), min_size=1, max_size=6), st.data())
def test_the_lookups_answer_as_every_region_asked_in_turn(
    paths: list[str], data: st.DataObject
) -> None:
    """``Holders.holding`` and ``Meeting.meeting`` list exactly the regions ``Region.holds`` and
    ``Region.meets`` name, in order; ``~`` stays unplaced half of the time (undecidable)."""
    base = data.draw(st.sampled_from(paths)).removesuffix("/**").rstrip("/") or "/"
    other = data.draw(st.sampled_from([base, base + "/**", base + "/x", "/", "~"]) | tree_path())
    policy = make_policy({"filesystem": {"denyRead": paths, "allowRead": [other]}})
    anchors = data.draw(st.sampled_from([Anchors(home="/h", root="/h/app"), Anchors()]))
    items = [r for rule in policy.deny_read for r in regions(rule, anchors)]
    asked = regions(policy.allow_read[0], anchors)[0]
    assert Holders(items).holding(asked) == [r for r in items if r.holds(asked)]
    assert Holders(items).hold(asked) == any(r.holds(asked) for r in items)
    assert Meeting(items).meeting(asked) == [r for r in items if r.meets(asked)]
    assert Meeting(items).any(asked) == any(r.meets(asked) for r in items)
    assume(region(policy.allow_read[0], anchors) is not None)
