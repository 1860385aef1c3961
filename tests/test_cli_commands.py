"""The ``twsrt`` command: every subcommand, config discovery, dry runs, drift exit codes and
file modes.

Each test runs the CLI in a temporary HOME (fixture ``sandbox``; in-process, held to the
installed script by test_console_script) and checks the exact exit code, the stdout / stderr
text and the files (with their modes) left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import stat
import sys
import textwrap
import tomllib
from pathlib import Path

import jsonschema
import pytest
from support.sandbox import DEFAULT_BASH, DEFAULT_SRT, REPO_ROOT, Run, Sandbox, tree_snapshot

import twsrt
from twsrt import templates
from twsrt.cli import cli
from twsrt.schemas import schema_url

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_FILES = {
    "srt": "srt-settings.schema.json",
    "bash": "bash-rules.schema.json",
    "config": "config.schema.json",
}
COMMANDS = ("generate", "diff", "init", "edit", "schema")

# the sandbox's twsrt.toml writes the Claude target inside the repo, under home/.claude
TARGET_REL = "home/.claude/settings.full.json"
LINK_REL = "home/.claude/settings.json"


def local(text: str, up: str = ".") -> str:
    """A starter file as init writes it: each schema URL replaced by its copy in schemas/."""
    for name, filename in SCHEMA_FILES.items():
        text = text.replace(schema_url(name), f"{up}/schemas/{filename}")
    return text


USER_CONFIG_TEXT = local(
    templates.USER_CONFIG.format(
        srt="~/.srt-settings.json",
        bash_rules="~/.config/twsrt/bash-rules.json",
        claude="~/.claude/settings.full.json",
        claude_yolo="~/.claude/settings.yolo.json",
    )
)
DIR_CONFIG_TEXT = local(  # init --dir: only the bash rules move
    templates.USER_CONFIG.format(
        srt="~/.srt-settings.json",
        bash_rules="bash-rules.json",
        claude="~/.claude/settings.full.json",
        claude_yolo="~/.claude/settings.yolo.json",
    )
)
BASH_RULES_TEXT = local(templates.BASH_RULES)
SRT_TEXT = local(templates.SRT_SETTINGS, ".config/twsrt")  # ~/.srt-settings.json


def schema_lines(directory: str, verb: str = "wrote") -> str:
    """init's stderr lines for the schemas it puts in ``directory``/schemas."""
    files = [f"{directory}/schemas/{filename}" for filename in SCHEMA_FILES.values()]
    if verb == "wrote":
        return "".join(f"twsrt: wrote {path}\n" for path in files)
    return "".join(f"twsrt: {path} exists, kept (use --force to overwrite)\n" for path in files)


# --------------------------------------------------------------------------- helpers


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode a freshly created file gets (the subprocess inherits our umask)."""
    return 0o666 & ~current_umask()


def snapshot(home: Path) -> dict[str, tuple[str, bytes | str]]:
    """``tree_snapshot`` of HOME without twsrt's validity cache (~/.cache/twsrt), which is
    not user data: "writes nothing" is about configs, sources and targets."""
    return {
        rel: entry
        for rel, entry in tree_snapshot(home).items()
        if rel != ".cache" and not rel.startswith(".cache/")
    }


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def assert_clean(result: Run) -> None:
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr


def bash_denies(stdout: str) -> list[str]:
    """The ``Bash(...)`` deny rules of a ``generate`` preview: tells which policy was used."""
    document = json.loads(stdout)
    return [rule for rule in document["permissions"]["deny"] if rule.startswith("Bash(")]


def marker_denies(marker: str) -> list[str]:
    return [f"Bash({marker})", f"Bash({marker} *)"]


DEFAULT_DENIES = [rule for command in DEFAULT_BASH["deny"] for rule in marker_denies(command)]


def write_policy(
    directory: Path,
    marker: str,
    *,
    name: str = "twsrt.toml",
    target: str = "out/settings.full.json",
) -> Path:
    """A config (with relative paths) plus sources in ``directory``; bash deny = [marker]."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / name
    config.write_text(
        textwrap.dedent(
            f"""\
            [sources]
            srt = "{marker}-srt.json"
            bash_rules = "{marker}-bash.json"

            [targets]
            claude_settings = "{target}"
            """
        ),
        encoding="utf-8",
    )
    (directory / f"{marker}-srt.json").write_text(json.dumps(DEFAULT_SRT), encoding="utf-8")
    (directory / f"{marker}-bash.json").write_text(json.dumps({"deny": [marker]}), encoding="utf-8")
    return config


def used_policy(result: Run) -> list[str]:
    assert result.returncode == 0, result.stderr
    return bash_denies(result.stdout)


FAKE_EDITOR = """\
import json
import os
import sys

with open(os.environ["FAKE_EDITOR_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
sys.exit(int(os.environ.get("FAKE_EDITOR_EXIT", "0")))
"""


@pytest.fixture
def fake_editor(tmp_path: Path) -> tuple[Path, Path]:
    """A fake editor script (outside HOME) that logs its argv; returns (script, log)."""
    directory = tmp_path / "editor"
    directory.mkdir()
    script = directory / "fake_editor.py"
    script.write_text(FAKE_EDITOR, encoding="utf-8")
    return script, directory / "calls.jsonl"


def editor_calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def editor_env(script: Path, *args: str) -> str:
    return shlex.join([sys.executable, str(script), *args])


# --------------------------------------------------------------------------- init


def test_init_creates_user_files_in_home(sandbox: Sandbox) -> None:
    home = sandbox.home
    result = sandbox.run("init")
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert result.stdout == ""
    assert result.stderr == (
        "twsrt: wrote ~/.config/twsrt/config.toml\n"
        "twsrt: wrote ~/.config/twsrt/bash-rules.json\n"
        "twsrt: wrote ~/.srt-settings.json\n"
    ) + schema_lines("~/.config/twsrt")
    config = home / ".config" / "twsrt" / "config.toml"
    bash = home / ".config" / "twsrt" / "bash-rules.json"
    srt = home / ".srt-settings.json"
    assert config.read_text(encoding="utf-8") == USER_CONFIG_TEXT
    assert bash.read_text(encoding="utf-8") == BASH_RULES_TEXT
    assert srt.read_text(encoding="utf-8") == SRT_TEXT
    schemas = home / ".config" / "twsrt" / "schemas"
    assert sorted(p.name for p in schemas.iterdir()) == sorted(SCHEMA_FILES.values())
    for path in (config, bash, srt, *schemas.iterdir()):
        assert path.is_file() and not path.is_symlink()
        assert mode_of(path) == new_file_mode(), path
    assert not list((home / ".config" / "twsrt").glob(".*.tmp"))
    assert not list(home.glob(".*.tmp"))


def test_init_config_loads_from_a_non_repo_directory(sandbox: Sandbox) -> None:
    assert sandbox.run("init").returncode == 0
    elsewhere = sandbox.home / "elsewhere"
    elsewhere.mkdir()
    result = sandbox.run("generate", "claude", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    document = json.loads(result.stdout)
    assert "permissions" in document and "sandbox" in document
    starter_bash = json.loads(templates.BASH_RULES)
    expected = [rule for command in starter_bash["deny"] for rule in marker_denies(command)]
    assert sorted(bash_denies(result.stdout)) == sorted(expected)
    assert document["permissions"]["ask"] == [
        rule for command in starter_bash["ask"] for rule in marker_denies(command)
    ]
    # the user config names ~/.claude/settings.full.json: -w writes into the temp HOME
    written = sandbox.run("generate", "claude", "-w", cwd=elsewhere)
    assert written.returncode == 0, written.stderr
    target = sandbox.home / ".claude" / "settings.full.json"
    assert json.loads(target.read_text(encoding="utf-8")) == document
    assert os.readlink(sandbox.home / ".claude" / "settings.json") == "settings.full.json"


def test_init_twice_keeps_every_file(sandbox: Sandbox) -> None:
    assert sandbox.run("init").returncode == 0
    before = snapshot(sandbox.home)
    result = sandbox.run("init")
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert snapshot(sandbox.home) == before
    assert result.stdout == ""
    assert result.stderr == (
        "twsrt: ~/.config/twsrt/config.toml exists, kept (use --force to overwrite)\n"
        "twsrt: ~/.config/twsrt/bash-rules.json exists, kept (use --force to overwrite)\n"
        "twsrt: ~/.srt-settings.json exists, kept (use --force to overwrite)\n"
    ) + schema_lines("~/.config/twsrt", "kept")


def test_init_creates_only_the_missing_files(sandbox: Sandbox) -> None:
    assert sandbox.run("init").returncode == 0
    bash = sandbox.home / ".config" / "twsrt" / "bash-rules.json"
    srt = sandbox.home / ".srt-settings.json"
    srt.write_text('{"network": {}}\n', encoding="utf-8")
    bash.unlink()
    result = sandbox.run("init")
    assert result.returncode == 0, result.stderr
    assert (
        result.stderr
        == (
            "twsrt: ~/.config/twsrt/config.toml exists, kept (use --force to overwrite)\n"
            "twsrt: ~/.srt-settings.json exists, kept (use --force to overwrite)\n"
        )
        + schema_lines("~/.config/twsrt", "kept")
        + "twsrt: wrote ~/.config/twsrt/bash-rules.json\n"
    )
    assert bash.read_text(encoding="utf-8") == BASH_RULES_TEXT
    assert srt.read_text(encoding="utf-8") == '{"network": {}}\n'


def test_init_force_restores_the_templates(sandbox: Sandbox) -> None:
    assert sandbox.run("init").returncode == 0
    bash = sandbox.home / ".config" / "twsrt" / "bash-rules.json"
    config = sandbox.home / ".config" / "twsrt" / "config.toml"
    bash.write_text('{"deny": ["modified"]}\n', encoding="utf-8")
    config.write_text("# modified\n", encoding="utf-8")
    bash.chmod(0o600)
    result = sandbox.run("init", "--force")
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert "exists, kept" not in result.stderr
    assert result.stderr == (
        "twsrt: wrote ~/.config/twsrt/config.toml\n"
        "twsrt: wrote ~/.config/twsrt/bash-rules.json\n"
        "twsrt: wrote ~/.srt-settings.json\n"
    ) + schema_lines("~/.config/twsrt")
    assert bash.read_text(encoding="utf-8") == BASH_RULES_TEXT
    assert config.read_text(encoding="utf-8") == USER_CONFIG_TEXT
    assert mode_of(bash) == 0o600  # an overwritten file keeps its mode


def test_init_dir_writes_config_toml_and_bash_rules(sandbox: Sandbox) -> None:
    """The seed's contract: `init --dir DIR` is `init` with DIR in place of ~/.config/twsrt:
    config.toml and bash-rules.json there (no twsrt.toml, no srt file in DIR), the srt source at
    ~/.srt-settings.json, and on stdout how to name a config twsrt does not look for."""
    directory = sandbox.home / "dots"  # does not exist yet
    result = sandbox.run("init", "--dir", str(directory))
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "twsrt: wrote ~/dots/config.toml\n"
        "twsrt: wrote ~/dots/bash-rules.json\n"
        "twsrt: wrote ~/.srt-settings.json\n"
    ) + schema_lines("~/dots")
    config = directory / "config.toml"
    assert result.stdout == (
        f"twsrt finds {config} only when named: pass it with -c, e.g.\n"
        f"  twsrt generate -c {config}\n"
        "or name it once for every command:\n"
        f"  export TWSRT_CONFIG={config}\n"
    )
    assert sorted(p.name for p in directory.iterdir()) == [
        "bash-rules.json",
        "config.toml",
        "schemas",
    ]
    config_text = config.read_text(encoding="utf-8")
    assert config_text == DIR_CONFIG_TEXT
    parsed = tomllib.loads(config_text)
    assert parsed["sources"] == {"srt": "~/.srt-settings.json", "bash_rules": "bash-rules.json"}
    assert parsed["targets"] == {"claude_settings": "~/.claude/settings.full.json"}
    assert (directory / "bash-rules.json").read_text(encoding="utf-8") == BASH_RULES_TEXT
    srt = sandbox.home / ".srt-settings.json"
    assert srt.read_text(encoding="utf-8") == local(templates.SRT_SETTINGS, "dots")
    assert not (sandbox.home / ".config").exists()  # the default place is left alone

    # the printed lines work from anywhere: -c, and $TWSRT_CONFIG
    written = sandbox.run("generate", "claude", "-w", "-c", str(config))
    assert written.returncode == 0, written.stderr
    assert written.stderr == (
        "twsrt: wrote ~/.claude/settings.full.json\n"
        "twsrt: wrote ~/.claude/settings.json -> settings.full.json\n"
    )
    target = sandbox.home / ".claude" / "settings.full.json"
    assert "Bash(rm)" in json.loads(target.read_text(encoding="utf-8"))["permissions"]["deny"]
    drift = sandbox.run("diff", "claude", TWSRT_CONFIG=str(config))
    assert drift.returncode == 0, drift.stderr
    assert drift.stdout == "claude: ~/.claude/settings.full.json: no drift\n"


def test_init_dir_keeps_an_existing_srt_file(sandbox: Sandbox) -> None:
    srt = sandbox.home / ".srt-settings.json"
    srt.write_text('{"network": {}}\n', encoding="utf-8")
    result = sandbox.run("init", "--dir", str(sandbox.home / "dots"))
    assert result.returncode == 0, result.stderr
    assert "twsrt: ~/.srt-settings.json exists, kept (use --force to overwrite)\n" in result.stderr
    assert srt.read_text(encoding="utf-8") == '{"network": {}}\n'


def test_init_dir_at_the_default_place_prints_no_hint(sandbox: Sandbox) -> None:
    result = sandbox.run("init", "--dir", str(sandbox.home / ".config" / "twsrt"))
    assert (result.returncode, result.stdout) == (0, "")
    default = sandbox.home / ".config" / "twsrt" / "config.toml"
    assert default.read_text(encoding="utf-8") == DIR_CONFIG_TEXT


def test_init_dir_relative_to_the_working_directory(sandbox: Sandbox) -> None:
    result = sandbox.run("init", "--dir", "sub/dots", cwd=sandbox.home)
    assert result.returncode == 0, result.stderr
    directory = sandbox.home / "sub" / "dots"
    assert result.stderr == (
        "twsrt: wrote sub/dots/config.toml\n"
        "twsrt: wrote sub/dots/bash-rules.json\n"
        "twsrt: wrote .srt-settings.json\n"  # named from the working directory, ~ itself
    ) + schema_lines("sub/dots")
    assert f"export TWSRT_CONFIG={directory / 'config.toml'}\n" in result.stdout
    assert (directory / "config.toml").read_text(encoding="utf-8") == DIR_CONFIG_TEXT
    again = sandbox.run("init", "--dir", str(directory))
    assert again.returncode == 0
    assert again.stderr.count("exists, kept") == 3 + len(SCHEMA_FILES)


def test_init_starter_sources_validate_against_the_printed_schemas(sandbox: Sandbox) -> None:
    assert sandbox.run("init").returncode == 0
    directory = sandbox.home / "dots"
    assert sandbox.run("init", "--dir", str(directory)).returncode == 0
    schemas = {}
    for name in ("srt", "bash", "config"):
        printed = sandbox.run("schema", name)
        assert printed.returncode == 0, printed.stderr
        schemas[name] = json.loads(printed.stdout)
        jsonschema.Draft202012Validator.check_schema(schemas[name])

    def check(name: str, instance: object) -> None:
        validator = jsonschema.Draft202012Validator(schemas[name])
        errors = [error.message for error in validator.iter_errors(instance)]
        assert errors == [], (name, errors)

    check("srt", json.loads((sandbox.home / ".srt-settings.json").read_text(encoding="utf-8")))
    for bash in (
        sandbox.home / ".config" / "twsrt" / "bash-rules.json",
        directory / "bash-rules.json",
    ):
        check("bash", json.loads(bash.read_text(encoding="utf-8")))
    for config in (sandbox.home / ".config" / "twsrt" / "config.toml", directory / "config.toml"):
        check("config", tomllib.loads(config.read_text(encoding="utf-8")))
    # the commented-out examples in the config template are valid too once uncommented
    uncommented = "\n".join(
        line[2:] if line.startswith("# ") and ("=" in line or line.startswith("# [")) else line
        for line in USER_CONFIG_TEXT.splitlines()
    )
    config = tomllib.loads(uncommented)
    assert config["sandbox_overrides"]["yolo"]["allowUnsandboxedCommands"] is False
    check("config", config)


# --------------------------------------------------------------------------- edit


def test_edit_lists_the_sources(sandbox: Sandbox) -> None:
    result = sandbox.run("edit")
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert result.stdout == "srt   .srt-settings.json\nbash  bash-rules.json\n"
    (sandbox.repo / "bash-rules.json").unlink()
    result = sandbox.run("edit")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "srt   .srt-settings.json\nbash  bash-rules.json  (missing)\n"


def test_edit_lists_paths_outside_the_working_directory(sandbox: Sandbox) -> None:
    (sandbox.repo / ".srt-settings.json").unlink()
    sub = sandbox.repo / "sub"
    sub.mkdir()
    result = sandbox.run("edit", cwd=sub)
    assert result.returncode == 0, result.stderr
    # relative to the repository root, as check names them (not to the working directory)
    assert result.stdout == "srt   .srt-settings.json  (missing)\nbash  bash-rules.json\n"


def test_edit_runs_editor_split_like_a_shell(
    sandbox: Sandbox, fake_editor: tuple[Path, Path]
) -> None:
    script, log = fake_editor
    editor = editor_env(script, "--flag")
    before = snapshot(sandbox.home)
    result = sandbox.run("edit", "srt", EDITOR=editor, FAKE_EDITOR_LOG=str(log))
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert (result.stdout, result.stderr) == ("", "")
    assert editor_calls(log) == [["--flag", str(sandbox.repo.resolve() / ".srt-settings.json")]]
    assert snapshot(sandbox.home) == before

    sub = sandbox.repo / "a" / "b"
    sub.mkdir(parents=True)
    result = sandbox.run("edit", "bash", cwd=sub, EDITOR=editor, FAKE_EDITOR_LOG=str(log))
    assert result.returncode == 0, result.stderr
    assert editor_calls(log)[1] == ["--flag", str(sandbox.repo.resolve() / "bash-rules.json")]


def test_edit_quoted_editor_arguments(sandbox: Sandbox, fake_editor: tuple[Path, Path]) -> None:
    script, log = fake_editor
    editor = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} 'two words' -x\\ y"
    result = sandbox.run("edit", "srt", EDITOR=editor, FAKE_EDITOR_LOG=str(log))
    assert result.returncode == 0, result.stderr
    srt = str(sandbox.repo.resolve() / ".srt-settings.json")
    assert editor_calls(log) == [["two words", "-x y", srt]]


def test_edit_visual_wins_over_editor(sandbox: Sandbox, fake_editor: tuple[Path, Path]) -> None:
    script, log = fake_editor
    result = sandbox.run(
        "edit",
        "srt",
        VISUAL=editor_env(script, "--visual"),
        EDITOR=editor_env(script, "--editor"),
        FAKE_EDITOR_LOG=str(log),
    )
    assert result.returncode == 0, result.stderr
    assert editor_calls(log) == [["--visual", str(sandbox.repo.resolve() / ".srt-settings.json")]]


def test_edit_passes_the_editor_exit_code_through(
    sandbox: Sandbox, fake_editor: tuple[Path, Path]
) -> None:
    script, log = fake_editor
    result = sandbox.run(
        "edit",
        "bash",
        EDITOR=editor_env(script),
        FAKE_EDITOR_LOG=str(log),
        FAKE_EDITOR_EXIT="5",
    )
    assert result.returncode == 5
    assert_clean(result)
    assert editor_calls(log) == [[str(sandbox.repo.resolve() / "bash-rules.json")]]


def test_edit_missing_editor_is_a_clear_error(sandbox: Sandbox, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-editor"
    result = sandbox.run("edit", "srt", EDITOR=f"{missing} --wait")
    assert result.returncode == 2
    assert_clean(result)
    assert result.stdout == ""
    assert result.stderr == f"Error: cannot start editor '{missing}': No such file or directory\n"


def test_edit_unbalanced_quotes_in_editor_is_a_clear_error(sandbox: Sandbox) -> None:
    result = sandbox.run("edit", "srt", EDITOR="vim 'unterminated")
    assert result.returncode == 2, result.stderr
    assert_clean(result)
    assert "EDITOR" in result.stderr


def test_edit_without_config_suggests_init(sandbox: Sandbox) -> None:
    (sandbox.repo / "twsrt.toml").unlink()
    result = sandbox.run("edit", "srt", EDITOR="false")
    assert result.returncode == 2
    assert_clean(result)
    assert "twsrt init" in result.stderr


# --------------------------------------------------------------------------- schema


@pytest.mark.parametrize("name", sorted(SCHEMA_FILES))
def test_schema_prints_the_shipped_file(sandbox: Sandbox, name: str) -> None:
    result = sandbox.run("schema", name)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    shipped = (REPO_ROOT / "schemas" / SCHEMA_FILES[name]).read_text(encoding="utf-8")
    assert result.stdout == shipped
    schema = json.loads(result.stdout)
    assert schema["$schema"] == DRAFT_2020_12
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_without_name_lists_the_schemas(sandbox: Sandbox) -> None:
    result = sandbox.run("schema")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows == [[name, SCHEMA_FILES[name]] for name in ("srt", "bash", "config")]


def test_schema_unknown_name_is_a_usage_error(sandbox: Sandbox) -> None:
    result = sandbox.run("schema", "codex")
    assert result.returncode == 2
    assert_clean(result)
    assert "'codex'" in result.stderr


def test_schema_works_without_any_config(sandbox: Sandbox) -> None:
    (sandbox.repo / "twsrt.toml").unlink()
    result = sandbox.run("schema", "bash")
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------------- config discovery


def test_config_option_before_and_after_the_subcommand(sandbox: Sandbox) -> None:
    alt = write_policy(sandbox.home / "alt", "alt-marker", name="alt.toml")
    assert used_policy(sandbox.run("generate", "claude")) == DEFAULT_DENIES
    before = sandbox.run("-c", str(alt), "generate", "claude")
    after = sandbox.run("generate", "claude", "-c", str(alt))
    long_form = sandbox.run("generate", "claude", "--config", str(alt))
    for result in (before, after, long_form):
        assert used_policy(result) == marker_denies("alt-marker")
    # the subcommand's option wins over the group's
    other = write_policy(sandbox.home / "other", "other-marker")
    both = sandbox.run("-c", str(alt), "generate", "claude", "-c", str(other))
    assert used_policy(both) == marker_denies("other-marker")


def test_config_option_applies_to_diff_and_edit(sandbox: Sandbox) -> None:
    alt = write_policy(sandbox.home / "alt", "alt-marker")
    result = sandbox.run("diff", "claude", "-c", str(alt))
    assert result.returncode == 2
    assert result.stdout == "claude: ~/alt/out/settings.full.json: missing " + (
        "(run `twsrt generate -w` to create it)\n"
    )
    result = sandbox.run("-c", str(alt), "edit")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "srt   ~/alt/alt-marker-srt.json\nbash  ~/alt/alt-marker-bash.json\n"


def test_relative_config_option_resolves_against_the_working_directory(sandbox: Sandbox) -> None:
    write_policy(sandbox.home / "alt", "alt-marker")
    result = sandbox.run("generate", "claude", "-w", "-c", "../alt/twsrt.toml")
    assert result.returncode == 0, result.stderr
    # the target is relative to the config file's directory, not to the working directory
    assert (sandbox.home / "alt" / "out" / "settings.full.json").is_file()
    assert not (sandbox.repo / "out").exists()
    assert not (sandbox.repo / "home").exists()


def test_twsrt_config_environment_variable(sandbox: Sandbox) -> None:
    alt = write_policy(sandbox.home / "alt", "env-marker")
    result = sandbox.run("generate", "claude", TWSRT_CONFIG=str(alt))
    assert used_policy(result) == marker_denies("env-marker")
    # -c wins over $TWSRT_CONFIG, which wins over the nearby twsrt.toml
    other = write_policy(sandbox.home / "other", "option-marker")
    result = sandbox.run("generate", "claude", "-c", str(other), TWSRT_CONFIG=str(alt))
    assert used_policy(result) == marker_denies("option-marker")
    # an empty $TWSRT_CONFIG is ignored
    assert used_policy(sandbox.run("generate", "claude", TWSRT_CONFIG="")) == DEFAULT_DENIES


def test_nearest_config_from_a_nested_directory(sandbox: Sandbox) -> None:
    nested = sandbox.repo / "a" / "b" / "c"
    nested.mkdir(parents=True)
    assert used_policy(sandbox.run("generate", "claude", cwd=nested)) == DEFAULT_DENIES
    # a nearer config wins; the dot-name is found as well
    write_policy(sandbox.repo / "a", "nearer-marker", name=".twsrt.toml")
    assert used_policy(sandbox.run("generate", "claude", cwd=nested)) == marker_denies(
        "nearer-marker"
    )
    # outside "a" the repo root config is still the one used
    assert used_policy(sandbox.run("generate", "claude", cwd=sandbox.repo)) == DEFAULT_DENIES


def test_dot_twsrt_toml_at_the_repo_root(sandbox: Sandbox) -> None:
    (sandbox.repo / "twsrt.toml").rename(sandbox.repo / ".twsrt.toml")
    nested = sandbox.repo / "x"
    nested.mkdir()
    assert used_policy(sandbox.run("generate", "claude", cwd=nested)) == DEFAULT_DENIES


def test_search_stops_at_the_git_root(sandbox: Sandbox) -> None:
    (sandbox.repo / "twsrt.toml").unlink()
    write_policy(sandbox.home, "above-marker")  # ~/twsrt.toml, above the repo root
    nested = sandbox.repo / "sub"
    nested.mkdir()
    before = snapshot(sandbox.home)
    for cwd in (sandbox.repo, nested):
        result = sandbox.run("generate", "claude", "-w", cwd=cwd)
        assert result.returncode == 2, result.stdout
        assert_clean(result)
        assert result.stdout == ""
        assert "no twsrt config found" in result.stderr
        assert "~/.config/twsrt/config.toml" in result.stderr
        assert "run `twsrt init`" in result.stderr
    assert snapshot(sandbox.home) == before
    # with a user config, that one is the fallback (not the twsrt.toml above the repo)
    write_policy(sandbox.home / ".config" / "twsrt", "user-marker", name="config.toml")
    for cwd in (sandbox.repo, nested):
        assert used_policy(sandbox.run("generate", "claude", cwd=cwd)) == marker_denies(
            "user-marker"
        )


def test_git_file_marks_the_repo_root(sandbox: Sandbox) -> None:
    """A worktree or submodule has a ``.git`` file, not a directory: still a repo root."""
    (sandbox.repo / ".git").rmdir()
    (sandbox.repo / ".git").write_text("gitdir: /elsewhere\n", encoding="utf-8")
    nested = sandbox.repo / "sub"
    nested.mkdir()
    assert used_policy(sandbox.run("generate", "claude", cwd=nested)) == DEFAULT_DENIES


def test_outside_a_repo_only_the_working_directory_is_searched(sandbox: Sandbox) -> None:
    plain = sandbox.home / "plain"
    write_policy(plain, "plain-marker")
    child = plain / "child"
    child.mkdir()
    assert used_policy(sandbox.run("generate", "claude", cwd=plain)) == marker_denies(
        "plain-marker"
    )
    result = sandbox.run("generate", "claude", cwd=child)
    assert result.returncode == 2
    assert "run `twsrt init`" in result.stderr
    write_policy(sandbox.home / ".config" / "twsrt", "user-marker", name="config.toml")
    assert used_policy(sandbox.run("generate", "claude", cwd=child)) == marker_denies("user-marker")


def test_nearby_config_wins_over_the_user_config(sandbox: Sandbox) -> None:
    write_policy(sandbox.home / ".config" / "twsrt", "user-marker", name="config.toml")
    assert used_policy(sandbox.run("generate", "claude")) == DEFAULT_DENIES


def test_relative_paths_resolve_against_the_config_directory(sandbox: Sandbox) -> None:
    nested = sandbox.repo / "sub" / "dir"
    nested.mkdir(parents=True)
    result = sandbox.run("generate", "claude", "-w", cwd=nested)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (  # named from the repository root, as check names them
        "twsrt: wrote home/.claude/settings.full.json\n"
        "twsrt: wrote home/.claude/settings.json -> settings.full.json\n"
    )
    assert (sandbox.repo / TARGET_REL).is_file()
    assert os.readlink(sandbox.repo / LINK_REL) == "settings.full.json"
    assert not (nested / "home").exists()
    assert sorted(p.name for p in nested.iterdir()) == []


def test_tilde_paths_resolve_against_home(sandbox: Sandbox) -> None:
    # outside repo mode: inside a repository, targets in ~ are refused (tests/test_placement.py)
    (sandbox.repo / ".git").rmdir()
    sandbox.write(
        "twsrt.toml",
        '[sources]\nsrt = "~/dotfiles/.srt-settings.json"\nbash_rules = "bash-rules.json"\n\n'
        '[targets]\nclaude_settings = "~/.claude/settings.full.json"\n',
    )
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0, result.stderr
    assert (sandbox.home / ".claude" / "settings.full.json").is_file()
    assert os.readlink(sandbox.home / ".claude" / "settings.json") == "settings.full.json"


def path_forms(path: Path, home: Path, cwd: Path) -> set[str]:
    """The ways a message may name ``path``: absolute, ``~/``-relative or cwd-relative."""
    forms = {str(path)}
    for base, prefix in ((home, "~/"), (cwd, "")):
        with contextlib.suppress(ValueError):
            forms.add(prefix + path.relative_to(base).as_posix())
    return forms


def config_error_path(stderr: str, message: str) -> str:
    """The file named by a one-line ``FILE: error[TWS001] MESSAGE`` report."""
    suffix = f": error[TWS001] {message}\n"
    assert stderr.endswith(suffix) and stderr.count("\n") == 1, stderr
    return stderr[: -len(suffix)]


@pytest.mark.parametrize("where", ["before", "after", "env"])
def test_named_config_that_does_not_exist(sandbox: Sandbox, tmp_path: Path, where: str) -> None:
    outside = tmp_path / "outside" / "nope.toml"  # outside HOME and cwd: named absolutely
    inside = sandbox.home / "nope" / "twsrt.toml"
    origin = "$TWSRT_CONFIG" if where == "env" else "-c/--config"
    for missing in (outside, inside):
        args = {
            "before": (["-c", str(missing), "generate", "claude"], {}),
            "after": (["generate", "claude", "-c", str(missing)], {}),
            "env": (["generate", "claude"], {"TWSRT_CONFIG": str(missing)}),
        }
        argv, env = args[where]
        before = snapshot(sandbox.home)
        result = sandbox.run(*argv, **env)
        assert result.returncode == 2
        assert_clean(result)
        assert result.stdout == ""
        named = config_error_path(result.stderr, f"config file named by {origin} does not exist")
        if missing == outside:
            assert named == str(outside)
        else:
            assert named in path_forms(inside, sandbox.home, sandbox.repo)
        assert snapshot(sandbox.home) == before


def test_named_config_that_is_a_directory(sandbox: Sandbox, tmp_path: Path) -> None:
    directory = tmp_path / "a-directory"
    directory.mkdir()
    result = sandbox.run("generate", "claude", "-c", str(directory))
    assert result.returncode == 2
    assert_clean(result)
    message = "config file named by -c/--config is a directory"
    assert config_error_path(result.stderr, message) == str(directory)


def test_relative_missing_config_is_named(sandbox: Sandbox) -> None:
    result = sandbox.run("diff", "-c", "missing.toml")
    assert result.returncode == 2
    assert_clean(result)
    named = config_error_path(result.stderr, "config file named by -c/--config does not exist")
    assert named in path_forms(sandbox.repo / "missing.toml", sandbox.home, sandbox.repo)


# --------------------------------------------------------------------------- version, help, usage


def test_version(sandbox: Sandbox) -> None:
    for flag in ("--version", "-V"):
        result = sandbox.run(flag)
        assert result.returncode == 0, result.stderr
        assert result.stdout == f"twsrt, version {twsrt.__version__}\n"


def test_command_list_is_complete() -> None:
    from twsrt.agents import AGENTS

    assert set(COMMANDS) <= set(cli.commands)
    (agent,) = [p for p in cli.commands["diff"].params if p.name == "agent"]
    assert agent.type.choices == tuple(AGENTS)


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_on_the_group(sandbox: Sandbox, flag: str) -> None:
    result = sandbox.run(flag)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: twsrt [OPTIONS] COMMAND [ARGS]...")
    for command in cli.commands:
        assert f"\n  {command} " in result.stdout


@pytest.mark.parametrize("command", sorted(cli.commands))
def test_help_on_every_command(sandbox: Sandbox, command: str) -> None:
    (sandbox.repo / "twsrt.toml").unlink()  # help needs no config
    result = sandbox.run(command, "-h")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith(f"Usage: twsrt {command} [OPTIONS]")
    assert "-h, --help" in result.stdout


@pytest.mark.parametrize("command", ["generate", "diff"])
def test_unknown_agent_is_a_usage_error(sandbox: Sandbox, command: str) -> None:
    before = snapshot(sandbox.home)
    result = sandbox.run(command, "bogus")
    assert result.returncode == 2
    assert_clean(result)
    assert result.stdout == ""
    assert f"Usage: twsrt {command}" in result.stderr
    assert "Error: Invalid value" in result.stderr
    assert "'bogus'" in result.stderr
    assert snapshot(sandbox.home) == before


def test_unknown_command_and_option(sandbox: Sandbox) -> None:
    for argv in (("frobnicate",), ("generate", "--bogus")):
        result = sandbox.run(*argv)
        assert result.returncode == 2
        assert_clean(result)
        assert "Error:" in result.stderr


# --------------------------------------------------------------------------- dry run


def test_dry_run_shows_a_diff_and_writes_nothing(sandbox: Sandbox) -> None:
    before = snapshot(sandbox.home)
    result = sandbox.run("generate", "claude", "-n", "-w")
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert snapshot(sandbox.home) == before
    assert "wrote" not in result.stderr
    preview = sandbox.run("generate", "claude").stdout
    lines = result.stdout.splitlines(keepends=True)
    header = [
        f"would create {TARGET_REL}\n",
        "--- /dev/null\n",
        f"+++ b/{TARGET_REL}\n",
    ]
    assert lines[:3] == header
    assert lines[3].startswith("@@ -0,0 +1,")
    body = lines[4:-1]
    assert "".join(line[1:] for line in body) == preview
    assert all(line.startswith("+") for line in body)
    assert lines[-1] == f"would symlink {LINK_REL} -> settings.full.json\n"

    written = sandbox.run("generate", "claude", "-w")
    assert written.returncode == 0, written.stderr
    assert (sandbox.repo / TARGET_REL).read_text(encoding="utf-8") == preview
    after_write = snapshot(sandbox.home)
    again = sandbox.run("generate", "claude", "-n", "-w")
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"unchanged {TARGET_REL}\nunchanged {LINK_REL}\n"
    assert snapshot(sandbox.home) == after_write


def test_dry_run_of_an_update(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    sandbox.write("bash-rules.json", {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]})
    before = snapshot(sandbox.home)
    result = sandbox.run("generate", "claude", "--dry-run", "--write")
    assert result.returncode == 0, result.stderr
    assert snapshot(sandbox.home) == before
    lines = result.stdout.splitlines()
    assert lines[:3] == [f"would update {TARGET_REL}", f"--- a/{TARGET_REL}", f"+++ b/{TARGET_REL}"]
    added = [line for line in lines if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in lines if line.startswith("-") and not line.startswith("---")]
    # the two curl rules follow the policy's last deny entry, before twsrt's protected names
    assert removed == []
    assert added == ['+      "Bash(curl)",', '+      "Bash(curl *)",']
    assert lines[-1] == f"unchanged {LINK_REL}"


def test_dry_run_without_write_is_a_preview(sandbox: Sandbox) -> None:
    before = snapshot(sandbox.home)
    result = sandbox.run("generate", "claude", "-n")
    assert result.returncode == 0, result.stderr
    assert snapshot(sandbox.home) == before
    assert "permissions" in json.loads(result.stdout)


# --------------------------------------------------------------------------- diff


def test_diff_exit_codes(sandbox: Sandbox) -> None:
    missing = sandbox.run("diff", "claude")
    assert missing.returncode == 2
    assert_clean(missing)
    assert missing.stdout == (
        f"claude: {TARGET_REL}: missing (run `twsrt generate -w` to create it)\n"
    )
    assert sandbox.run("diff").returncode == 2  # all agents

    assert sandbox.run("generate", "claude", "-w").returncode == 0
    clean = sandbox.run("diff", "claude")
    assert (clean.returncode, clean.stdout) == (0, f"claude: {TARGET_REL}: no drift\n")
    assert sandbox.run("diff").returncode == 0

    before = snapshot(sandbox.home)
    sandbox.write("bash-rules.json", {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]})
    drifted = sandbox.run("diff", "claude")
    assert drifted.returncode == 1
    assert_clean(drifted)
    assert drifted.stdout == (
        f"claude: {TARGET_REL}: drift detected\n"
        "  missing (in the policy, not on disk):\n"
        "    + permissions.deny: Bash(curl)\n"
        "    + permissions.deny: Bash(curl *)\n"
    )
    # diff never writes
    after = snapshot(sandbox.home)
    before.pop("dotfiles/bash-rules.json")
    after.pop("dotfiles/bash-rules.json")
    assert after == before


def test_diff_reports_a_hand_edited_target(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    target = sandbox.repo / TARGET_REL
    document = json.loads(target.read_text(encoding="utf-8"))
    document["permissions"]["deny"].append("Bash(extra-by-hand)")
    target.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    result = sandbox.run("diff", "claude")
    assert result.returncode == 1
    assert result.stdout == (
        f"claude: {TARGET_REL}: drift detected\n"
        "  extra (on disk, not in the policy):\n"
        "    - permissions.deny: Bash(extra-by-hand)\n"
    )
    # both directions at once
    sandbox.write("bash-rules.json", {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]})
    result = sandbox.run("diff")
    assert result.returncode == 1
    assert "    + permissions.deny: Bash(curl)\n" in result.stdout
    assert "    - permissions.deny: Bash(extra-by-hand)\n" in result.stdout
    # generate -w repairs the drift
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    assert sandbox.run("diff", "claude").returncode == 0


# --------------------------------------------------------------------------- file modes


def test_new_settings_target_is_private(sandbox: Sandbox) -> None:
    # a settings file can hold hooks and apiKeyHelper: new ones are 0600, whatever the umask
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0, result.stderr
    assert mode_of(sandbox.repo / TARGET_REL) == 0o600


def test_rewritten_target_keeps_its_mode_and_leaves_no_temp_files(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    target = sandbox.repo / TARGET_REL
    target.chmod(0o600)
    first = target.read_text(encoding="utf-8")
    sandbox.write("bash-rules.json", {**DEFAULT_BASH, "deny": [*DEFAULT_BASH["deny"], "curl"]})
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"twsrt: wrote {TARGET_REL}\ntwsrt: unchanged {LINK_REL} -> settings.full.json\n"
    )
    assert target.read_text(encoding="utf-8") != first
    assert "Bash(curl)" in json.loads(target.read_text(encoding="utf-8"))["permissions"]["deny"]
    assert mode_of(target) == 0o600
    assert not target.is_symlink()
    assert list(target.parent.glob(".*.tmp")) == []
    assert sorted(p.name for p in target.parent.iterdir()) == [
        "settings.full.json",
        "settings.json",
    ]


def test_preexisting_private_target_keeps_its_mode(sandbox: Sandbox) -> None:
    target = sandbox.repo / TARGET_REL
    target.parent.mkdir(parents=True)
    target.write_text('{\n  "model": "opus"\n}\n', encoding="utf-8")
    target.chmod(0o600)
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0, result.stderr
    assert mode_of(target) == 0o600
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["model"] == "opus"
    assert "Bash(rm)" in document["permissions"]["deny"]
    assert list(target.parent.glob(".*.tmp")) == []


def test_unchanged_target_is_not_rewritten(sandbox: Sandbox) -> None:
    assert sandbox.run("generate", "claude", "-w").returncode == 0
    target = sandbox.repo / TARGET_REL
    target.chmod(0o640)
    inode = target.stat().st_ino
    result = sandbox.run("generate", "claude", "-w")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        f"twsrt: unchanged {TARGET_REL}\ntwsrt: unchanged {LINK_REL} -> settings.full.json\n"
    )
    assert target.stat().st_ino == inode
    assert mode_of(target) == 0o640


def test_git_ceiling_directories_stop_the_repo_search(tmp_path: Path) -> None:
    from twsrt.configload import discover

    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    (outer / "twsrt.toml").write_text("")
    plain = outer / "inner" / "plain"
    plain.mkdir(parents=True)
    home = tmp_path / "nohome"
    assert discover(None, plain, home) == outer / "twsrt.toml"
    import os

    os.environ["GIT_CEILING_DIRECTORIES"] = str(outer)
    try:
        assert discover(None, plain, home) is None
    finally:
        del os.environ["GIT_CEILING_DIRECTORIES"]
