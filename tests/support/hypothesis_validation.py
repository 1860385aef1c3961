"""A filtered strategy validated once, as hypothesis means it to be.

Hypothesis (6.170) calls ``validate()`` on every draw and relies on a per-strategy flag to make
the repeat calls free. ``FilteredStrategy.do_validate`` re-runs ``__init__`` on itself, which
replaces that flag with an empty one, so every later draw from a filtered strategy validates it
again: it replays each ``.filter()`` (a text strategy's parses the predicate's source with
``ast`` to look for a length bound) and recomputes ``is_empty``. In the tree properties that
was a tenth of their CPU. Keeping the flag changes no draw: a repeated validation computes the
state the first one left.
"""

from __future__ import annotations

from typing import Any


def keep_filtered_validation() -> None:
    """Patch ``FilteredStrategy.do_validate`` to keep the validated flag (idempotent)."""
    from hypothesis.strategies._internal.strategies import FilteredStrategy

    original = FilteredStrategy.do_validate
    if getattr(original, "keeps_validated_flag", False):
        return

    def do_validate(self: Any) -> None:
        flag = self.validate_called  # set to true by validate() before it calls us
        original(self)
        self.validate_called = flag

    do_validate.keeps_validated_flag = True  # type: ignore[attr-defined]
    FilteredStrategy.do_validate = do_validate  # type: ignore[method-assign]
