"""Frozen records: what ``@dataclass(frozen=True)`` gives, for a tenth of its cost per class.

Python 3.11's ``dataclass`` compiles up to seven methods per frozen class with ``exec`` (about
0.4 ms a class); the ~50 classes on ``check``'s import path made that a sixth of its start-up
(issue 28). A record asks ``dataclasses`` for its fields alone, so ``fields``, ``replace`` and
``is_dataclass`` keep working; it shares one ``__setattr__``, ``__repr__``, ``__eq__`` and
``__hash__`` among all records (their field tuple taken by one ``operator.attrgetter``, in C),
and compiles a class's ``__init__`` when its first instance is made: a class no run instantiates
costs no compile, and every later instance runs the same compiled ``__init__`` a dataclass has.

The semantics are the frozen dataclass's: fields in order with their defaults and default
factories, ``init=False``, ``compare=False`` (left out of ``==``, ``hash`` and ordering),
``repr=False``, ``__post_init__``, ``eq=False`` (identity), ``order=True``; assigning or deleting
an attribute raises ``FrozenInstanceError``. A method the class defines itself is kept.
``frozen=False`` is the plain ``@dataclass``: assignable, and unhashable unless ``eq=False``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, field
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")

# a default factory's argument default: the factory is called for it in __init__
_FACTORY = object()


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(
    *, eq: bool = True, order: bool = False, frozen: bool = True
) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(
    cls: type[T] | None = None, /, *, eq: bool = True, order: bool = False, frozen: bool = True
) -> type[T] | Callable[[type[T]], type[T]]:
    """``@record`` / ``@record(eq=False)`` / ``@record(order=True)`` over a class body with
    annotated fields, as ``@dataclass(frozen=True, ...)`` would take it; ``@record(frozen=False)``
    as ``@dataclass`` would (assignable, and unhashable when it compares)."""

    def wrap(klass: type[T]) -> type[T]:
        return _make(klass, eq, order, frozen)

    return wrap if cls is None else wrap(cls)


def _make(cls: type[T], eq: bool, order: bool, frozen: bool) -> type[T]:
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if not cls.__dict__.get("__doc__"):
        # dataclass would build one from inspect.signature, the dearest step it has left
        cls.__doc__ = cls.__name__
    dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    own = cls.__dict__
    compared = tuple(f.name for f in fields if f.compare)
    klass: Any = cls  # the attributes a record gains, which mypy cannot see on type[T]
    klass.__record_repr__ = tuple(f.name for f in fields if f.repr)
    klass.__record_key__ = attrgetter(*compared) if compared else _no_fields
    if "__init__" not in own:
        klass.__init__ = _lazy_init(cls)
    shared: dict[str, Any] = {"__repr__": _repr}
    if frozen:
        shared |= {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
    if eq:
        shared |= {"__eq__": _eq, "__hash__": _hash if frozen else None}
    if order:
        shared |= {"__lt__": _lt, "__le__": _le, "__gt__": _gt, "__ge__": _ge}
    for name, method in shared.items():
        if name not in own or (name == "__hash__" and own[name] is None):
            setattr(cls, name, method)
    return cls


def _no_fields(_: object) -> tuple[()]:
    return ()


def _lazy_init(cls: type) -> Callable[..., None]:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        compiled = _compile_init(cls)
        type.__setattr__(cls, "__init__", compiled)
        compiled(self, *args, **kwargs)

    return __init__


def _compile_init(cls: type) -> Callable[..., None]:
    """The ``__init__`` a frozen dataclass has: one parameter per init field, defaults bound by
    name in the function's globals, never by text, so no value is ever parsed."""
    names: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _FACTORY}
    params, body = ["self"], []
    for index, item in enumerate(dataclasses.fields(cls)):
        default, factory = f"_d{index}", f"_f{index}"
        names[default], names[factory] = item.default, item.default_factory
        has_default = item.default is not MISSING
        has_factory = item.default_factory is not MISSING
        if item.init:
            if has_factory:
                params.append(f"{item.name}=_FACTORY")
                value = f"{factory}() if {item.name} is _FACTORY else {item.name}"
            else:
                params.append(f"{item.name}={default}" if has_default else item.name)
                value = item.name
        elif has_factory:
            value = f"{factory}()"
        elif has_default:
            value = default
        else:
            continue
        body.append(f"    _set(self, {item.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), names)  # noqa: S102
    compiled: Callable[..., None] = names["__init__"]
    compiled.__qualname__ = f"{cls.__qualname__}.__init__"
    return compiled


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(self.__record_key__(self) == self.__record_key__(other))


def _hash(self: Any) -> int:
    return hash(self.__record_key__(self))


def _lt(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(self.__record_key__(self) < self.__record_key__(other))


def _le(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(self.__record_key__(self) <= self.__record_key__(other))


def _gt(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(self.__record_key__(self) > self.__record_key__(other))


def _ge(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(self.__record_key__(self) >= self.__record_key__(other))
