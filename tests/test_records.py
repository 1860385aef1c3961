"""``twsrt.records.record`` behaves as ``@dataclass(frozen=True)`` does (issue 28): the same
class body under both, compared on construction, defaults and factories, equality, hashing,
ordering, repr, ``replace``, ``fields``, ``__post_init__`` and the frozen refusals; and the
package makes no frozen dataclass any more (a new one would bring its cost back)."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import FrozenInstanceError, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.sandbox import REPO_ROOT

from twsrt.records import record


def _body() -> dict[str, Any]:
    """One class body (fresh each time: a decorator changes the class it gets)."""

    def __post_init__(self: Any) -> None:
        object.__setattr__(self, "derived", len(self.name) + self.count)

    return {
        "__annotations__": {
            "name": "str",
            "count": "int",
            "tags": "tuple[str, ...]",
            "extra": "tuple[int, ...]",
            "note": "str",
            "derived": "int",
        },
        "count": 0,
        "tags": (),
        "extra": field(default_factory=tuple),
        "note": field(default="", compare=False, repr=False),
        "derived": field(init=False, compare=False, repr=False),
        "__post_init__": __post_init__,
    }


def _pair(**options: bool) -> tuple[Any, Any]:
    made = (
        record(**options)(type("Value", (), _body()))
        if options
        else record(type("Value", (), _body()))
    )
    oracle = dataclasses.dataclass(**{"frozen": True, **options})(type("Value", (), _body()))
    return made, oracle


values = st.tuples(
    st.text(max_size=3),
    st.integers(-3, 3),
    st.lists(st.sampled_from("ab"), max_size=2).map(tuple),
    st.text(max_size=2),
)


def _build(cls: Any, value: tuple[str, int, tuple[str, ...], str], positional: bool) -> Any:
    name, count, tags, note = value
    if positional:
        return cls(name, count, tags, (count,), note)
    return cls(name=name, count=count, tags=tags, note=note)


def _view(item: Any) -> tuple[Any, ...]:
    return (item.name, item.count, item.tags, item.extra, item.note, item.derived)


@given(values, values, st.booleans())
def test_a_record_is_a_frozen_dataclass(left: Any, right: Any, positional: bool) -> None:
    made, oracle = _pair()
    a, b = _build(made, left, positional), _build(made, right, positional)
    x, y = _build(oracle, left, positional), _build(oracle, right, positional)
    assert _view(a) == _view(x) and _view(b) == _view(y)
    assert (a == b) == (x == y)
    assert a == _build(made, left, positional) and hash(a) == hash(_build(made, left, positional))
    assert repr(a) == repr(x)
    assert [f.name for f in dataclasses.fields(made)] == [
        f.name for f in dataclasses.fields(oracle)
    ]
    assert _view(dataclasses.replace(a, count=9)) == _view(dataclasses.replace(x, count=9))
    assert (a == x) is False  # another class, as two dataclasses are


@given(values, values)
def test_order_and_identity_follow_the_dataclass(left: Any, right: Any) -> None:
    made, oracle = _pair(order=True)
    a, b, x, y = (
        _build(made, left, True),
        _build(made, right, True),
        _build(oracle, left, True),
        _build(oracle, right, True),
    )
    assert (a < b, a <= b, a > b, a >= b) == (x < y, x <= y, x > y, x >= y)
    plain, _ = _pair(eq=False)
    p, q = _build(plain, left, True), _build(plain, left, True)
    assert p != q and p == p and hash(p) == object.__hash__(p)


def test_the_frozen_refusals_and_the_defaults() -> None:
    made, _ = _pair()
    item = made("n")
    with pytest.raises(FrozenInstanceError):
        item.name = "m"
    with pytest.raises(FrozenInstanceError):
        del item.count
    assert (item.count, item.tags, item.note, item.derived) == (0, (), "", 1)
    assert item.extra == ()
    with pytest.raises(TypeError):
        made()
    with pytest.raises(TypeError):
        made("n", unknown=1)
    with pytest.raises(TypeError):
        made("n", 1, (), (), "", "too many")


@given(values, values)
def test_a_mutable_record_is_a_dataclass(left: Any, right: Any) -> None:
    made, oracle = _pair(frozen=False)
    a, x = _build(made, left, True), _build(oracle, left, True)
    assert _view(a) == _view(x) and repr(a) == repr(x)
    assert (a == _build(made, right, True)) == (x == _build(oracle, right, True))
    a.count, x.count = 7, 7
    assert _view(a) == _view(x)
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(TypeError):
        hash(x)


def test_the_package_makes_no_dataclass() -> None:
    """Every value class is a record: a dataclass would bring its cost per class back."""
    frozen = re.compile(r"@(?:dataclasses\.)?dataclass\b")
    found = [
        str(path.relative_to(REPO_ROOT))
        for path in sorted((REPO_ROOT / "twsrt").rglob("*.py"))
        if path.name != "records.py" and frozen.search(path.read_text("utf-8"))
    ]
    assert found == [], f"use twsrt.records.record for a value class: {found}"


def test_a_default_factory_gives_each_instance_its_own_value() -> None:
    made = record(
        type(
            "Bag",
            (),
            {"__annotations__": {"items": "list[int]"}, "items": field(default_factory=list)},
        )
    )
    first, second = made(), made()
    assert first.items == [] and first.items is not second.items
    assert made([1]).items == [1]
