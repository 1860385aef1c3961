"""The one registry of ``twsrt test`` engines (import-free: the CLI reads it for ``--engine``).

Engine name -> the module that defines ``ENGINE`` (see ``twsrt.testing.engines.Engine``). The
order is the run order and the order of the report. A new engine is a new module plus one line.
"""

ENGINES: dict[str, str] = {
    "srt": "twsrt.testing.engine_srt",
    "codex": "twsrt.agents.codex.engine",
    "claude": "twsrt.agents.claude.engine",
    "deepcode": "twsrt.agents.deepcode.engine",
}
