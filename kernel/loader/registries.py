"""Registries of named things plugins contribute, settled by tier.

Each registry maps a name to the winning :class:`Registration`; when two plugins
register the same name, the one from the higher tier wins (for equal tiers, the later
registration wins) and the loser is kept in ``shadowed`` so ``talaria plugins list``
can say who overrode whom. Registrations are validated when made: a plugin that
registers something unusable gets a load error, not a crash later.

The kinds whose items are classes instantiated later with a config section (API modes,
context engines, memory providers, channels) also accept a *reference* in entry-point
syntax, ``"NAME = package.module:Class"``: the registry holds a :class:`LazyClass` and the
module is imported only when the item is first used (see :mod:`._lazy_class`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Generic, TypeVar

from .._values import value_type
from ..errors import RegistrationError
from ..types import DoctorCheck, ProviderProfile, SlashCommand, Tool, Toolset
from ._lazy_class import LazyClass, missing_methods

__all__ = ["KINDS", "Registration", "Registries", "Registry"]

T = TypeVar("T")


@value_type(kw_only=False)
class Registration(Generic[T]):
    """One registered item with the plugin (and tier rank) that registered it."""

    name: str
    item: T
    plugin: str
    rank: int


class Registry(Generic[T]):
    """Named items of one kind; the highest-ranked registration of a name wins.

    ``shadowed`` lists ``(loser, winner)`` pairs of the collisions settled so far.
    """

    __slots__ = ("kind", "_items", "shadowed")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, Registration[T]] = {}
        self.shadowed: list[tuple[Registration[T], Registration[T]]] = []

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()!r})"

    def add(self, name: str, item: T, plugin: str, rank: int) -> None:
        new = Registration(name, item, plugin, rank)
        old = self._items.get(name)
        if old is None:
            self._items[name] = new
        elif new.rank >= old.rank:
            self._items[name] = new
            self.shadowed.append((old, new))
        else:
            self.shadowed.append((new, old))

    def get(self, name: str) -> T | None:
        reg = self._items.get(name)
        return reg.item if reg else None

    def registration(self, name: str) -> Registration[T] | None:
        return self._items.get(name)

    def names(self) -> list[str]:
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        for name in sorted(self._items):
            yield name, self._items[name].item

    def registrations(self) -> list[Registration[T]]:
        return [self._items[n] for n in sorted(self._items)]

    def remove_plugin(self, plugin: str) -> None:
        for name in [n for n, r in self._items.items() if r.plugin == plugin]:
            del self._items[name]

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __len__(self) -> int:
        return len(self._items)


def _require_name(item: Any, kind: str) -> str:
    name = getattr(item, "name", None)
    if not isinstance(name, str) or not name:
        raise RegistrationError(f"{kind}: {item!r} has no 'name' string attribute")
    return name


def _check_methods(item: Any, kind: str) -> str:
    name = _require_name(item, kind)
    missing = missing_methods(item, kind)
    if missing:
        raise RegistrationError(f"{kind} {name!r} lacks required method(s): {', '.join(missing)}")
    return name


def _class_or_reference(kind: str) -> Callable[[Any], tuple[str, str, Any]]:
    """The validator of a kind whose items are classes (or factories) or references to them."""

    def validate(item: Any) -> tuple[str, str, Any]:
        if isinstance(item, str):
            lazy = LazyClass.parse(item, kind)
            return kind, lazy.name, lazy
        return kind, _check_methods(item, kind), item

    return validate


def _check_tool(item: Any) -> tuple[str, str, Any]:
    if isinstance(item, Tool):
        params = item.parameters
        if not isinstance(params, dict) or params.get("type") != "object":
            raise RegistrationError(f"tool {item.name!r}: parameters must be a JSON Schema with type 'object'")
        if not callable(item.handler):
            raise RegistrationError(f"tool {item.name!r}: handler is not callable")
        return "tools", item.name, item
    if isinstance(item, Toolset):
        return "toolsets", item.name, item
    if callable(getattr(item, "tools", None)) and callable(getattr(item, "start", None)):
        return "tool_sources", _require_name(item, "tool source"), item
    raise RegistrationError(f"register_tools accepts Tool, Toolset or a ToolSource, got {type(item).__name__}")


def _reject(message: str) -> Any:
    raise RegistrationError(message)


#: hook name → how to validate an item: returns (registry kind, name, item to store)
KINDS: dict[str, Callable[[Any], tuple[str, str, Any]]] = {
    "register_providers": lambda item: (
        ("providers", item.name, item)
        if isinstance(item, ProviderProfile)
        else _reject(f"register_providers accepts ProviderProfile, got {type(item).__name__}")
    ),
    "register_api_modes": _class_or_reference("api_modes"),
    "register_tools": _check_tool,
    "register_context_engines": _class_or_reference("context_engines"),
    "register_memory_providers": _class_or_reference("memory_providers"),
    "register_channels": _class_or_reference("channels"),
    "register_slash_commands": lambda item: (
        ("slash_commands", item.name, item)
        if isinstance(item, SlashCommand)
        else _reject("register_slash_commands accepts SlashCommand")
    ),
    "register_doctor_checks": lambda item: (
        ("doctor_checks", item.name, item)
        if isinstance(item, DoctorCheck)
        else _reject("register_doctor_checks accepts DoctorCheck")
    ),
    "register_skill_dirs": lambda item: (
        ("skill_dirs", str(item), item)
        if isinstance(item, (str, Path))
        else _reject("register_skill_dirs accepts a path")
    ),
}


class Registries:
    """All registries of a loaded kernel, by kind."""

    def __init__(self) -> None:
        self.providers: Registry[ProviderProfile] = Registry("providers")
        self.api_modes: Registry[Any] = Registry("api_modes")
        self.tools: Registry[Tool] = Registry("tools")
        self.toolsets: Registry[Toolset] = Registry("toolsets")
        self.tool_sources: Registry[Any] = Registry("tool_sources")
        self.context_engines: Registry[Any] = Registry("context_engines")
        self.memory_providers: Registry[Any] = Registry("memory_providers")
        self.channels: Registry[Any] = Registry("channels")
        self.slash_commands: Registry[SlashCommand] = Registry("slash_commands")
        self.doctor_checks: Registry[DoctorCheck] = Registry("doctor_checks")
        self.skill_dirs: Registry[Path] = Registry("skill_dirs")

    def by_kind(self, kind: str) -> Registry[Any]:
        return getattr(self, kind)  # type: ignore[no-any-return]

    def all(self) -> list[Registry[Any]]:
        return [v for v in vars(self).values() if isinstance(v, Registry)]

    def remove_plugin(self, plugin: str) -> None:
        for registry in self.all():
            registry.remove_plugin(plugin)
