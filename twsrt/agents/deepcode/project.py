"""DeepCode's project file: ``.deepcode/settings.json`` under the project root (project scope,
see ``twsrt.scopes``).

DeepCode reads it after the user's file and deep-merges objects, but every list of the project
file replaces the user's list whole; in a directory it does not trust it resets the project
layer's ``permissions`` and ``sandbox`` to the user's. So the project file carries the whole
policy (the user translation, full mode: the file applies in every approval mode), and the
note TWS447 says when it binds. DeepCode takes paths verbatim (``~`` expanded by twsrt with the
pinned home, as in the user file), so a relative policy path is not anchored at the project
root: it is left out and reported as in the user file (TWS421, TWS441).
"""

from __future__ import annotations

from twsrt.agents.base import Context, Result
from twsrt.agents.deepcode.declaration import PROJECT_KEY, _lossy
from twsrt.agents.deepcode.layer import compile_file
from twsrt.agents.deepcode.rules import DEEPCODE_PROJECT_LAYER


def compile_project(ctx: Context) -> Result:
    path = ctx.config.targets.get(PROJECT_KEY)
    located = None if path is None else (PROJECT_KEY, path)
    layer = _lossy(
        DEEPCODE_PROJECT_LAYER,
        f"DeepCode applies {ctx.config.display_path(path) if path else PROJECT_KEY} only in a "
        "directory it trusts (elsewhere the user's permissions and sandbox stay), and its "
        "lists replace the user's: twsrt writes the whole policy into it",
        ctx.config.location(f"/targets/{PROJECT_KEY}"),
    )
    return compile_file(ctx, located, PROJECT_KEY, [layer])
