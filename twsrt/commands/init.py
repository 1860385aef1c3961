"""``twsrt init``: plan the starter files, never overwriting without --force."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from twsrt import templates
from twsrt.journal import on_disk
from twsrt.locations import display_path, home_dir
from twsrt.outcome import Outcome, Refused
from twsrt.writes import Change, FileWrite, SymlinkWrite


def default_repo_agents() -> list[str]:
    """Agents a dotfiles repository manages unless --agents says otherwise: those whose
    declaration says so (``init_default``: Claude and Codex, whose files keep ~ as written). An
    agent that takes absolute paths only (Copilot, DeepCode) pins `home` to this user's home
    directory, so it is added only when its file already exists under home/ (that file then
    gets the policy instead of being left behind)."""
    from twsrt.agents import specs

    return [spec.name for spec in specs() if spec.init_default]


def parse_agents(value: str) -> list[str]:
    """``--agents``: comma-separated agent names, or ``all``; a ValueError names the unknown."""
    from twsrt.agents import AGENTS

    names = [name.strip() for name in value.split(",") if name.strip()]
    if names == ["all"]:
        return list(AGENTS)
    unknown = [name for name in names if name not in AGENTS]
    if unknown or not names:
        import difflib  # only for a wrong name

        close = difflib.get_close_matches(unknown[0], list(AGENTS), n=1) if unknown else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"unknown agent {', '.join(map(repr, unknown)) or '(none)'}; choose from "
            f"{', '.join(AGENTS)} or all{hint}"
        )
    return names


def expand_home(path: Path) -> Path:
    """A quoted `--dir '~/x'` reaches us unexpanded: expand it as the shell would have,
    never create a directory named `~`."""
    text = str(path)
    if text == "~" or text.startswith("~/"):
        return home_dir() / text[2:]
    return Path(os.path.expanduser(text))  # ~user/x


def run(
    directory: Path | None, repo: Path | None, force: bool, agents: Sequence[str] | None
) -> Outcome:
    """``twsrt init``: the starter files in ``directory`` (None: ~/.config/twsrt), or with
    ``repo`` a scaffolded dotfiles repository and its generated agent files; each file kept
    or written named on stderr, and after a scaffold the next steps on stdout. ``--dir`` with
    ``--repo``, or ``--agents`` without it, is refused."""
    outcome = Outcome()
    if repo is not None and directory is not None:
        outcome.error = Refused("--dir and --repo exclude each other", usage=True)
        return outcome
    if agents is not None and repo is None:
        outcome.error = Refused("--agents needs --repo", usage=True)
        return outcome
    with outcome.stopping() as out:
        if repo is None:
            writes, kept = plan_init(directory, force)
        else:
            agents = repo_agents(repo, agents)
            writes, kept = plan_repo(repo, force, agents)
        for display in kept:
            out.err(f"twsrt: {display} exists, kept (use --force to overwrite)")
        if repo is None:
            from twsrt.writes import apply

            apply(writes)
        written = [w.display for w in writes] if repo is None else scaffold(repo, writes)
        for display in written:
            out.err(f"twsrt: wrote {display}")
        if repo is not None:
            out.out(next_steps(repo, agents or []))
        elif directory is not None:
            out.out(config_hint(directory))
    return outcome


def scaffold(repo: Path, writes: list[Change]) -> list[str]:
    """Write the scaffold, then generate every agent file from it in one run (the full mode
    with its companion, so a user's existing settings.json reaches both the full and the yolo
    file); if generating fails, the scaffold is taken back, so a refused init writes nothing.
    Returns what was written, for the report."""
    from twsrt import run
    from twsrt.invocation import open_invocation
    from twsrt.request import Request
    from twsrt.writes import apply

    created = missing_directories(writes)
    apply(writes)
    try:
        request = Request(str(repo / "twsrt.toml"), repo_names=False)
        compiled = run.compile_invocation(open_invocation(request), companions=True)
        results = run.require_targets(compiled, None)
        generated = run.write(run.write_plan(results, compiled.companions))
    except BaseException:
        undo(writes, created)
        raise
    return [w.display for w in writes] + [run.change_display(c) for c in generated]


def repo_agents(directory: Path, requested: Sequence[str] | None) -> list[str]:
    """The agents ``init --repo`` configures: the requested ones, else the defaults plus every
    agent whose file already lives in the repository's home tree."""
    from twsrt.agents import AGENTS

    if requested is not None:
        return [name for name in AGENTS if name in requested]
    base = directory.resolve()
    present = {
        name
        for name, targets in templates.repo_targets().items()
        if any((base / path).exists() or (base / path).is_symlink() for _, path in targets)
    }
    defaults = default_repo_agents()
    return [name for name in AGENTS if name in defaults or name in present]


def plan_repo(
    directory: Path, force: bool, agents: Sequence[str]
) -> tuple[list[Change], list[str]]:
    """A dotfiles repository: config, sources under policy/, and a pre-commit config."""
    base = directory.resolve()
    files = {
        base / "twsrt.toml": local_schemas(templates.repo_config(agents, home_dir(), base), "."),
        base / "policy" / "srt-settings.json": local_schemas(templates.SRT_SETTINGS, ".."),
        base / "policy" / "bash-rules.json": local_schemas(templates.BASH_RULES, ".."),
        base / ".pre-commit-config.yaml": templates.pre_commit_config(),
        base / ".gitignore": templates.gitignore(),
        **schema_files(base / SCHEMA_DIR),
    }
    writes, kept = _plan(files, force)
    link = _srt_link(base)
    if link is None:
        kept.append(display_path(base / templates.SRT_LINK[0]))
    else:
        writes.append(link)
    return writes, kept


# where init --repo puts the shipped schemas, which its sources and config name relatively
SCHEMA_DIR = "schemas"


def schema_files(directory: Path) -> dict[Path, str]:
    """Every shipped schema as a file of ``directory``, as ``twsrt schema --write`` writes it."""
    from twsrt.schemas import SCHEMA_FILES, schema_text

    return {directory / filename: schema_text(name) for name, filename in SCHEMA_FILES.items()}


def local_schemas(text: str, up: str) -> str:
    """A scaffold file's text naming each schema by its path in the repository (``up``: from
    the file's directory to the repository root) instead of its ``$id`` URL, which serves
    nothing: VS Code and taplo resolve a relative ``$schema``/``#:schema`` against the file
    itself, so the editor validates offline."""
    from twsrt.schemas import SCHEMA_FILES, schema_url

    for name, filename in SCHEMA_FILES.items():
        text = text.replace(schema_url(name), f"{up}/{SCHEMA_DIR}/{filename}")
    return text


def _srt_link(base: Path) -> SymlinkWrite | None:
    """``home/.srt-settings.json`` -> the policy's srt source, so that stow links it to
    ``~/.srt-settings.json``, the file a plain ``srt CMD`` reads; None when something is
    already there (kept, even with --force: it may be the user's own settings)."""
    relative, target = templates.SRT_LINK
    link = base / relative
    if link.exists() or link.is_symlink():
        return None
    return SymlinkWrite(link, display_path(link), target)


def _plan(files: dict[Path, str], force: bool) -> tuple[list[Change], list[str]]:
    writes: list[Change] = []
    kept: list[str] = []
    for path, text in files.items():
        exists = path.exists() or path.is_symlink()
        if exists and not force:
            kept.append(display_path(path))
            continue
        display = display_path(path)
        if path.is_symlink():
            path = path.resolve()  # a symlinked file (a dotfiles tree) is written through
        current = on_disk(path)
        old = current.value if current.kind == "file" else None
        writes.append(FileWrite(path, display, text, old))
    return writes, kept


def missing_directories(writes: Sequence[Change]) -> list[Path]:
    """The directories that writing ``writes`` creates, deepest first (to undo them)."""
    missing: set[Path] = set()
    for change in writes:
        parent = _where(change).parent
        while not parent.exists():
            missing.add(parent)
            parent = parent.parent
    return sorted(missing, key=lambda p: len(p.parts), reverse=True)


def _where(change: Change) -> Path:
    return change.link if isinstance(change, SymlinkWrite) else change.path


def undo(writes: Sequence[Change], directories: Sequence[Path]) -> None:
    """Put the files of an applied scaffold back as they were: created files, links and
    directories go, overwritten files (--force) get their old text back."""
    from twsrt.writes import apply

    restore: list[Change] = []
    for change in writes:
        if isinstance(change, SymlinkWrite):
            change.link.unlink(missing_ok=True)  # made only where nothing was
        elif change.old is None:
            change.path.unlink(missing_ok=True)
        else:
            restore.append(FileWrite(change.path, change.display, change.old, change.text))
    apply(restore)
    for directory in directories:
        with contextlib.suppress(OSError):  # something else lives there now: leave it
            directory.rmdir()


def next_steps(directory: Path, agents: Sequence[str]) -> str:
    """What a newcomer does after ``init --repo``, with the repository's own paths."""
    repo = display_path(directory.resolve())
    targets = templates.repo_targets()
    homes = {f"~/{path.split('/')[1]}" for a in agents for _, path in targets[a]}
    homes.add("~/" + templates.SRT_LINK[0].split("/")[1])
    return templates.NEXT_STEPS.format(repo=repo, homes=" ".join(sorted(homes)))


def plan_init(directory: Path | None, force: bool) -> tuple[list[Change], list[str]]:
    """The starter files: ``config.toml`` and ``bash-rules.json`` in ``directory`` (None:
    ~/.config/twsrt) with the shipped schemas beside them in ``schemas/``, and a starter srt
    file at ~/.srt-settings.json, the file a plain ``srt`` reads, where none is. Each file
    names its schema by a relative path, so an editor validates offline. Targets are the
    agents' files under ~ either way; with ``directory`` the config names its bash rules
    relatively, so the directory can move."""
    home = home_dir()
    if directory is None:
        base, bash_rules = home / ".config" / "twsrt", "~/.config/twsrt/bash-rules.json"
    else:
        base, bash_rules = directory.resolve(), "bash-rules.json"  # config-relative
    config = templates.USER_CONFIG.format(
        srt="~/.srt-settings.json",
        bash_rules=bash_rules,
        claude="~/.claude/settings.full.json",
        claude_yolo="~/.claude/settings.yolo.json",
    )
    from_home = Path(os.path.relpath(base, home)).as_posix()  # the srt file's way to schemas/
    files = {
        base / "config.toml": local_schemas(config, "."),
        base / "bash-rules.json": local_schemas(templates.BASH_RULES, "."),
        home / ".srt-settings.json": local_schemas(templates.SRT_SETTINGS, from_home),
        **schema_files(base / SCHEMA_DIR),
    }
    return _plan(files, force)


def config_hint(directory: Path) -> str:
    """How to use a config ``init --dir`` put where twsrt does not look by itself; '' for the
    default place. The path is absolute and shell-quoted, so the lines work from anywhere."""
    import shlex

    from twsrt.configload import user_config_path

    config = directory.resolve() / "config.toml"
    if config == user_config_path(home_dir()):
        return ""
    quoted = shlex.quote(str(config))
    return (
        f"twsrt finds {quoted} only when named: pass it with -c, e.g.\n"
        f"  twsrt generate -c {quoted}\n"
        f"or name it once for every command:\n"
        f"  export TWSRT_CONFIG={quoted}\n"
    )
