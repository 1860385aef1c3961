"""A fake engine's answer to a batch script: each probe command of the batch answered on its
own (by the fake's rule for one command), put back between the batch's markers as a sandbox
running the script would print them. For fakes that decide by a command's text."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from twsrt.testing.batches import END, START
from twsrt.testing.commands import FETCH_SCRIPT, HELPERS, HELPERS_PRELUDE
from twsrt.testing.engines import Run

SECTION = re.compile(r"echo '(@@\w+@@)'; \( (.*?) \) 2>&1; echo \"(@@/\w+@@) \$\?\"", re.S)
FETCHES = re.compile(r"\( (\S+) -c \"\$TWSRT_FETCH\" --batch (.*?) \) 2>&1", re.S)


def answer_batch(script: str, one: Callable[[str], Run]) -> Run | None:
    """The batch's output, or None when ``script`` is not a batch (then ``one`` answers it)."""
    opening = re.search(rf"echo {START}(\w*)\n", script)
    if opening is None:
        return None
    nonce = opening.group(1)
    # an attack batch's prelude (R=ROOT) goes with each command; the helpers are put back in
    # each command below (a fake that decides by the text would find them in every one)
    prelude = script[: opening.start()]
    prelude = "" if prelude.strip() == HELPERS_PRELUDE else prelude
    out = [START + nonce]
    for head, text, tail in SECTION.findall(script):
        for name, helper in HELPERS.items():  # as a probe's own command spells it
            text = text.replace(f'"${name}"', shlex.quote(helper))
        done = one(prelude + text)
        out += [head, done.output.rstrip("\n"), f"{tail} {done.exit_code}"]
    for python, args in FETCHES.findall(script):
        nonce_arg, timeout, *pairs = shlex.split(args)
        for position, url in zip(pairs[::2], pairs[1::2], strict=True):
            done = one(shlex.join([shlex.split(python)[0], "-c", FETCH_SCRIPT, url, timeout]))
            out += [f"@@{nonce_arg}{position}@@", done.output.rstrip("\n")]
            out.append(f"@@/{nonce_arg}{position}@@ {done.exit_code}")
    out.append(END + nonce)
    return Run(0, "\n".join(out) + "\n", 0.0)
