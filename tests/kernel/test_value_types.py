"""``talaria._values.value_type`` behaves like ``@dataclass(frozen=True, slots=True, kw_only=True)``.

The kernel's value types (``Message``, ``ToolCall``, store rows …) are built with it; what a
plugin author observes — construction, equality, hashing, repr, ``replace``, pickling,
frozenness — must be exactly what the stdlib decorator gives.
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from talaria import Message, ToolCall, Usage
from talaria._values import value_type


def _pair(**options: Any) -> tuple[type, type]:
    """The same class body under the stdlib decorator and under ``value_type``."""

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"name": "str", "size": "int", "tags": "tuple[str, ...]", "note": "str",
                                "cache": "dict[str, int]"},
            "size": 0,
            "tags": (),
            "note": field(default="", compare=False, repr=False),
            "cache": field(default_factory=dict, compare=False, hash=False),
            "__module__": __name__,
        }

    std = dataclass(frozen=True, slots=options.get("slots", True), kw_only=options.get("kw_only", True))(
        type("Thing", (), body()))
    ours = value_type(type("Thing", (), body()), **options)
    return std, ours


@pytest.mark.parametrize("options", [{}, {"slots": False}, {"kw_only": False}])
def test_value_type_matches_the_stdlib_frozen_dataclass(options: dict[str, Any]) -> None:
    std, ours = _pair(**options)
    args = {"name": "a", "size": 2, "tags": ("x",), "note": "ignored in eq", "cache": {"k": 1}}
    a_std, b_std = std(**args), std(**{**args, "note": "other", "cache": {}})
    a, b = ours(**args), ours(**{**args, "note": "other", "cache": {}})

    assert repr(a) == repr(a_std)
    assert (a == b) is (a_std == b_std) is True  # fields with compare=False do not count
    assert (a == ours(**{**args, "size": 3})) is False
    assert hash(a) == hash(b) == hash(a_std)
    assert a != a_std  # another class: never equal, like two dataclasses
    assert a.__eq__(object()) is NotImplemented
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(a_std)]
    assert dataclasses.replace(a, size=5).size == 5
    assert dataclasses.asdict(a) == dataclasses.asdict(a_std)
    assert ours.__match_args__ == std.__match_args__
    assert hasattr(a, "__dict__") is hasattr(a_std, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.size = 9  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.size  # type: ignore[misc]


def test_keyword_only_unless_asked() -> None:
    std, ours = _pair()
    with pytest.raises(TypeError):
        ours("a")
    _, positional = _pair(kw_only=False)
    assert positional("a", 1).size == 1


def test_a_class_keeps_its_own_dunder_methods() -> None:
    @value_type
    class Loud:
        word: str

        def __repr__(self) -> str:
            return self.word.upper()

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Loud) and other.word.lower() == self.word.lower()

    assert repr(Loud(word="hi")) == "HI"
    assert Loud(word="Hi") == Loud(word="hI")
    assert hash(Loud(word="hi")) == hash(Loud(word="hi"))  # eq without hash: hashed by fields, as dataclass does


def test_unhashable_fields_make_the_value_unhashable_as_in_a_dataclass() -> None:
    call = ToolCall(id="c1", name="read_file", arguments={"path": "a"})
    with pytest.raises(TypeError):
        hash(call)
    assert call == ToolCall(id="c1", name="read_file", arguments={"path": "a"})


def test_public_value_types_compare_repr_and_replace_like_dataclasses() -> None:
    message = Message(role="user", content="hi")
    assert message == Message(role="user", content="hi", uid=message.uid)
    assert message != Message(role="user", content="hi")  # another uid
    assert repr(message).startswith("Message(role='user', content='hi'")
    assert dataclasses.replace(message, content="bye").content == "bye"
    assert hash(Usage(input_tokens=3)) == hash(Usage(input_tokens=3))
    assert pickle.loads(pickle.dumps(message)) == message
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = "changed"  # type: ignore[misc]


def test_recursive_values_do_not_recurse_forever_in_repr() -> None:
    @value_type
    class Box:
        items: list[Any]

    box = Box(items=[])
    box.items.append(box)
    assert repr(box).endswith(".Box(items=[...])")  # the qualified name, as a dataclass shows it


def test_every_public_value_type_resolves_its_annotations() -> None:
    """Tools that introspect dataclasses (``typing.get_type_hints``, pydantic, cattrs) can
    resolve every field annotation of every public value type."""
    import typing

    import talaria.types

    exported = [getattr(talaria.types, name) for name in talaria.types.__all__]
    classes = [obj for obj in exported if isinstance(obj, type) and dataclasses.is_dataclass(obj)]
    assert len(classes) >= 28
    for cls in classes:
        hints = typing.get_type_hints(cls)
        assert set(hints) >= {f.name for f in dataclasses.fields(cls)}, cls
