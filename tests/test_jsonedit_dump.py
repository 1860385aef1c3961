"""``jsonedit.dump`` writes what ``json.dumps(indent=..., ensure_ascii=False)`` writes, byte for
byte: it replaces the pure-Python encoder on the generated settings' path (issue 17)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from twsrt.jsonedit import dump

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
# keys json.dumps turns into strings (numbers, booleans, null) take the fallback path
KEYS = st.text() | st.integers() | st.booleans() | st.none()
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS, inner, max_size=4)
        | st.lists(st.text(), max_size=6)
    ),
    max_leaves=25,
)
INDENTS = st.sampled_from(["  ", "    ", "\t", " \t", ""])


@given(VALUES, INDENTS, st.integers(min_value=0, max_value=3))
def test_dump_equals_json_dumps(value: Any, indent: str, depth: int) -> None:
    expected = json.dumps(value, indent=indent, ensure_ascii=False)
    expected = expected.replace("\n", "\n" + indent * depth) if depth else expected
    assert dump(value, indent, depth) == expected


def test_dump_of_settings_shapes() -> None:
    value = {"permissions": {"deny": ["Read(~/.ssh/**)", 'é\u2028"x\\'], "allow": []}, "n": {}}
    assert dump(value, "  ", 1) == (
        '{\n    "permissions": {\n      "deny": [\n        "Read(~/.ssh/**)",\n'
        '        "é\u2028\\"x\\\\"\n      ],\n      "allow": []\n    },\n    "n": {}\n  }'
    )
