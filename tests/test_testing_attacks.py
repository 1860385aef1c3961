"""The adversarial probes ``twsrt test`` derives per rule (``twsrt.testing.attacks``): exact
attack lists for small policies, the batching that shares one sandbox start, and the host-side
judging (staging, effects) with a plain shell standing in for the sandbox."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from twsrt.jsonpos import parse_json
from twsrt.protection import with_root_names
from twsrt.sources import build_policy
from twsrt.testing.attacks import derive_attacks
from twsrt.testing.batches import batches, conflict, observe_all, run_batch
from twsrt.testing.model import Attack, Outcome, Verdict, token
from twsrt.testing.verdicts import judge


def policy_of(filesystem: dict) -> object:
    srt = {"filesystem": filesystem, "network": {"allowedDomains": [], "deniedDomains": []}}
    return with_root_names(
        build_policy(
            parse_json(json.dumps(srt, indent=2)),
            "srt.json",
            parse_json('{"allow": [], "deny": [], "ask": []}'),
            "bash.json",
        )
    )


def names(attacks: list[Attack]) -> list[str]:
    return [a.name for a in attacks]


# ------------------------------------------------------------------ derivation


def test_deny_read_without_a_trailing_slash_is_probed_as_file_and_as_tree():
    attacks = derive_attacks(policy_of({"denyRead": ["~/.netrc"], "allowWrite": ["."]}))
    reads = [a for a in attacks if a.kind == "deny-read"]
    assert names(reads) == [
        "deny-read ~/.netrc [file read]",
        "deny-read ~/.netrc [file symlink-read]",
        "deny-read ~/.netrc [file proc-read]",
        "deny-read ~/.netrc [tree read]",
        "deny-read ~/.netrc [tree list]",
        "deny-read ~/.netrc [tree symlink-read]",
        "deny-read ~/.netrc [tree proc-read]",
    ]
    assert [a.subject for a in reads[:3]] == ["home/.netrc"] * 3
    assert {a.subject for a in reads[3:]} == {"home/.netrc/tw-secret"}
    assert all(a.expect is Outcome.DENIED for a in reads)
    # the file form reads the path itself, through /proc/self/root and a work-tree symlink
    assert reads[0].script == 'head -c 200 -- "$R"/home/.netrc'
    assert reads[2].script == 'head -c 200 -- /proc/self/root"$R"/home/.netrc'
    assert reads[1].links == (("work/tw-read-" + reads[1].links[0][0][-8:], "home/.netrc"),)


def test_deny_read_of_a_tree_glob_is_a_tree_only():
    # (a trailing slash does not survive the policy's path normalisation: "~/.ssh/" is
    # probed in both shapes, which is more attacks, never fewer)
    attacks = derive_attacks(policy_of({"denyRead": ["~/.ssh/**"]}))
    assert names(attacks) == [
        "deny-read ~/.ssh/** [tree read]",
        "deny-read ~/.ssh/** [tree list]",
        "deny-read ~/.ssh/** [tree symlink-read]",
        "deny-read ~/.ssh/** [tree proc-read]",
        "launch-dir . [launch create]",
    ]


def test_deny_read_that_allow_read_reopens_is_not_attacked():
    attacks = derive_attacks(policy_of({"denyRead": ["~/d"], "allowRead": ["~/d"]}))
    assert [a for a in attacks if a.kind == "deny-read"] == []


def test_deny_write_tree_inside_a_write_root_gets_every_write_attack():
    attacks = derive_attacks(policy_of({"allowWrite": ["."], "denyWrite": [".git/**"]}))
    deny = [a for a in attacks if a.kind == "deny-write"]
    assert [a.attack for a in deny] == [
        "create",
        "append",
        "truncate",
        "delete",
        "mkdir",
        "rename-aside",
        "rename-dir",
        "symlink",
        "symlink-write",
        "proc-create",
        "proc-append",
        "move-tree",
        "rename-out",
        "rename-into",
        "hardlink-write",
    ]
    assert all(a.form == "tree" and a.expect is Outcome.DENIED for a in deny)
    # tricks reach the other end through the write root ".", outside the denied tree
    rename_out = deny[-3]
    assert rename_out.script.startswith('mv -- "$R"/work/.git/tw-out "$R"/work/tw-')


def test_deny_write_file_attacks_and_a_fresh_glob_match():
    attacks = derive_attacks(policy_of({"allowWrite": ["."], "denyWrite": ["**/.env"]}))
    deny = [a for a in attacks if a.kind == "deny-write"]
    assert [a.attack for a in deny] == [
        "append",
        "truncate",
        "delete",
        "rename-aside",
        "symlink-replace",
        "symlink-write",
        "proc-append",
        "create",
        "create-match",
        "rename-out",
        "rename-into",
        "hardlink-write",
    ]
    assert deny[0].subject == "work/twsrt-probe/.env"
    assert deny[8].subject == "work/tw-new/.env"
    assert all(a.form == "file" and a.glob for a in deny)


def test_without_a_write_root_the_cross_directory_tricks_are_left_out():
    attacks = derive_attacks(policy_of({"denyWrite": ["~/.bashrc"]}))
    assert not {"rename-out", "rename-into", "hardlink-write"} & {a.attack for a in attacks}
    # and the launch directory, a root of nothing, must refuse a write
    assert names(attacks)[-1] == "launch-dir . [launch create]"
    assert attacks[-1].expect is Outcome.DENIED


def test_write_roots_inside_through_a_symlinked_dir_and_an_escaping_symlink():
    attacks = derive_attacks(policy_of({"allowWrite": ["~/out"]}))
    roots = [a for a in attacks if a.kind == "allow-write"]
    assert [(a.attack, a.expect) for a in roots] == [
        ("create", Outcome.ALLOWED),
        ("symlinked-dir", Outcome.ALLOWED),
        ("symlink-escape", Outcome.DENIED),
    ]
    assert roots[1].links[0][1] == "home/out"
    assert roots[2].subject.startswith("outside/")
    assert names(attacks)[-1] == "launch-dir . [launch create]"


def test_names_are_unique_and_derivation_is_deterministic():
    rules = {
        "denyRead": ["~/.ssh", "~/.netrc"],
        "denyWrite": ["~/.bashrc", "**/*.pem", ".git/**"],
        "allowWrite": [".", "~/.cache"],
    }
    first = derive_attacks(policy_of(rules))
    assert len(set(names(first))) == len(first)
    assert first == derive_attacks(policy_of(rules))


# ------------------------------------------------------------------ batches


def test_batches_keep_conflicting_attacks_apart_and_share_the_rest():
    attacks = derive_attacks(policy_of({"allowWrite": ["."], "denyWrite": ["~/.bashrc"]}))
    groups = batches(attacks)
    for group in groups:
        for i, first in enumerate(group):
            assert not any(conflict(first, other) for other in group[i + 1 :])
    by_name = {a.name: a for a in attacks}
    file_append = by_name["deny-write ~/.bashrc [file append]"]
    file_truncate = by_name["deny-write ~/.bashrc [file truncate]"]
    tree_create = by_name["deny-write ~/.bashrc [tree create]"]
    tree_mkdir = by_name["deny-write ~/.bashrc [tree mkdir]"]
    assert conflict(file_append, file_truncate)  # one file, two changes
    assert conflict(file_append, tree_create)  # a file cannot be a directory at once
    assert not conflict(tree_create, tree_mkdir)  # two paths inside one tree
    # far fewer sandbox starts than attacks
    assert len(groups) < len(attacks) / 2


# ------------------------------------------------------------------ judging on the host


class _Done:
    def __init__(self, code: int, output: str) -> None:
        self.exit_code, self.output, self.seconds = code, output, 0.0


def _shell(root: Path, prefix: str = ""):
    def run(script: str) -> _Done:
        proc = subprocess.run(
            ["sh", "-c", prefix + script],
            cwd=root / "work",
            capture_output=True,
            text=True,
            check=False,
        )
        return _Done(proc.returncode, proc.stdout + proc.stderr)

    return run


def _root(tmp_path: Path) -> Path:
    for name in ("home", "work", "fs", "outside"):
        (tmp_path / name).mkdir()
    return tmp_path


def test_every_attack_shows_its_effect_without_a_sandbox(tmp_path):
    root = _root(tmp_path)
    rules = {
        "denyRead": ["~/.ssh", "~/.netrc"],
        "denyWrite": ["~/.bashrc", "**/*.pem", ".git/**"],
        "allowWrite": [".", "~/.cache"],
    }
    attacks = derive_attacks(policy_of(rules))
    for attack, control, sandboxed in observe_all(_shell(root), _shell(root), attacks, root):
        assert control.outcome is Outcome.ALLOWED, (attack.name, control.output)
        assert sandboxed is not None and sandboxed.outcome is Outcome.ALLOWED
        verdict, _ = judge(attack, control, sandboxed)
        assert verdict is (Verdict.PASS if attack.expect is Outcome.ALLOWED else Verdict.FAIL)


def test_a_refused_attack_is_judged_by_the_host_not_the_exit_code(tmp_path):
    root = _root(tmp_path)
    attacks = derive_attacks(policy_of({"denyWrite": ["~/.bashrc"], "allowWrite": ["."]}))
    append = next(a for a in attacks if a.name == "deny-write ~/.bashrc [file append]")
    # a "sandbox" that reports success but leaves the host file alone
    fake = _shell(root, "true || ")
    [observed] = run_batch(fake, [append], root)
    assert observed.ran and observed.outcome is Outcome.DENIED
    assert (root / "home/.bashrc").read_text() == "twsrt original\n"


def test_a_read_counts_only_when_the_secret_is_printed(tmp_path):
    root = _root(tmp_path)
    attacks = derive_attacks(policy_of({"denyRead": ["~/.netrc"]}))
    read = next(a for a in attacks if a.name == "deny-read ~/.netrc [file read]")
    [seen] = run_batch(_shell(root), [read], root)
    assert seen.outcome is Outcome.ALLOWED and token("home/.netrc") in seen.output
    # an error message that names the path is not a read
    fake = 'head() { echo "head: cannot open $R/home/.netrc"; return 1; }\n'
    [refused] = run_batch(_shell(root, fake), [read], root)
    assert refused.outcome is Outcome.DENIED


def test_a_batch_that_did_not_run_to_its_end_is_no_result(tmp_path):
    root = _root(tmp_path)
    attacks = derive_attacks(policy_of({"denyRead": ["~/.netrc"]}))[:2]
    seen = run_batch(
        lambda _script: _Done(1, "bwrap: setting up uid map: Permission denied"), attacks, root
    )
    assert all(not o.ran and o.outcome is None for o in seen)
    verdict, _ = judge(attacks[0], seen[0], None)
    assert verdict is Verdict.INVALID


def test_a_shape_left_by_another_batch_is_restaged(tmp_path):
    root = _root(tmp_path)
    attacks = derive_attacks(policy_of({"denyRead": ["~/.netrc"]}))
    as_file = next(a for a in attacks if a.name == "deny-read ~/.netrc [file read]")
    as_tree = next(a for a in attacks if a.name == "deny-read ~/.netrc [tree read]")
    for attack in (as_file, as_tree, as_file):
        [seen] = run_batch(_shell(root), [attack], root)
        assert seen.outcome is Outcome.ALLOWED, seen.output
