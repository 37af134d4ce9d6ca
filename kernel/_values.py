"""``value_type``: the kernel's frozen, slotted, keyword-only dataclasses, built cheaply.

On Python 3.11 ``@dataclass(frozen=True, slots=True, kw_only=True)`` compiles six methods per
class from generated source (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__``, ``__delattr__``), about 1.4 ms a class; the kernel defines dozens of them on
the way to every command. :func:`value_type` gives each class shared ``__repr__``, ``__eq__``
and ``__hash__`` that read the field list once per class, and lets :mod:`dataclasses` generate
only the rest — half the compile work, the same behaviour:

- the result is a real dataclass (``fields``, ``replace``, ``asdict``, ``is_dataclass``,
  ``__match_args__``, pickling, :class:`dataclasses.FrozenInstanceError` on assignment);
- ``repr`` shows the fields declared with ``repr=True``, as ``Name(a=1, b='x')``;
- ``==`` compares the fields declared with ``compare=True`` and only between instances of the
  same class (anything else: ``NotImplemented``); ``hash`` hashes the fields that take part in
  it under the dataclass rules (``hash=None`` follows ``compare``);
- a class that defines its own ``__repr__``, ``__eq__`` or ``__hash__`` keeps it.

Python 3.13 builds dataclasses in one pass and would not need this; it stays correct there.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, Callable, TypeVar

__all__ = ["value_type"]

T = TypeVar("T", bound=type)


def value_type(cls: T | None = None, /, *, slots: bool = True, kw_only: bool = True) -> Any:
    """Make ``cls`` a frozen dataclass, slotted and keyword-only unless told otherwise.

    Usable bare (``@value_type``) or with options: ``slots=False`` for a class that needs a
    ``__dict__`` (e.g. for ``functools.cached_property``), ``kw_only=False`` for positional
    construction.
    """

    def wrap(klass: T) -> T:
        own = klass.__dict__
        if "__repr__" not in own:
            klass.__repr__ = _repr  # type: ignore[assignment]
        if "__eq__" not in own:
            klass.__eq__ = _eq  # type: ignore[assignment]
        if "__hash__" not in own or (own["__hash__"] is None and "__eq__" in own):
            klass.__hash__ = _hash  # type: ignore[assignment]  # the dataclass rule for frozen + eq
        made = dataclass(frozen=True, slots=slots, kw_only=kw_only, repr=False, eq=False)(klass)
        described = fields(made)
        made._value_repr = tuple(f.name for f in described if f.repr)  # type: ignore[attr-defined]
        made._value_compare = _getter([f.name for f in described if f.compare])  # type: ignore[attr-defined]
        made._value_hash = _getter([  # type: ignore[attr-defined]
            f.name for f in described if (f.compare if f.hash is None else f.hash)])
        return made

    return wrap if cls is None else wrap(cls)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """A function returning the named attributes of an object as a tuple."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        single = attrgetter(names[0])
        return lambda obj: (single(obj),)
    return attrgetter(*names)


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    body = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self)._value_repr)
    return f"{type(self).__qualname__}({body})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    compare = type(self)._value_compare
    return compare(self) == compare(other)


def _hash(self: Any) -> int:
    return hash(type(self)._value_hash(self))
