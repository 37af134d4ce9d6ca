"""Classes registered by reference (``"NAME = package.module:Class"``), imported on first use.

A plugin registering an API mode, context engine, memory provider or channel may give the
class's location instead of the class: the name is known at once (``talaria plugins list``,
name resolution, collisions), and the module is imported only when the kernel first
instantiates it, so a start that never uses it does not pay for the import. The checks made
at registration for a class (required methods) are made on first use instead.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError, RegistrationError
from ..protocols import REQUIRED_METHODS

__all__ = ["LazyClass", "LazyImportError", "missing_methods"]


def missing_methods(item: Any, kind: str) -> list[str]:
    """The methods registry ``kind`` requires that ``item`` lacks."""
    return [m for m in REQUIRED_METHODS.get(kind, ()) if not callable(getattr(item, m, None))]


class LazyImportError(RegistrationError, ConfigError):
    """A class registered by reference could not be imported or is unusable (found on first use).

    Also a :class:`talaria.ConfigError`, so a turn that needs it ends with this message
    instead of crashing.
    """


class LazyClass:
    """A class registered as ``"NAME = package.module:Class"``, imported when first used.

    ``name`` and ``reference`` are known without importing anything. Calling it (the kernel
    does ``factory(section)``) imports the class, checks it, and calls it; reading any other
    attribute imports it too. The class must have the registry's required methods and, if it
    has a ``name`` attribute, the registered name; otherwise first use raises
    :class:`LazyImportError` naming the reference and what to do.
    """

    __slots__ = ("name", "reference", "kind", "_target")

    def __init__(self, name: str, reference: str, kind: str) -> None:
        self.name = name
        self.reference = reference
        self.kind = kind
        self._target: Any = None

    @classmethod
    def parse(cls, text: str, kind: str) -> LazyClass:
        """``"NAME = module:Class"`` → a :class:`LazyClass`; a malformed reference raises
        :class:`RegistrationError` (at registration, so it is a load error)."""
        name, equals, reference = (part.strip() for part in text.partition("="))
        module, colon, attr = reference.partition(":")
        if not equals or not name or not colon or not module.strip() or not attr.strip():
            raise RegistrationError(
                f"{kind}: {text!r} is not a reference; register a class, or a string "
                f"'NAME = package.module:Class' to import the class when it is first used")
        return cls(name, reference, kind)

    def load(self) -> Any:
        """The registered class, imported and checked on the first call."""
        if self._target is None:
            from ._entry_points import load_value

            where = f"{self.kind} {self.name!r} (registered as {self.reference})"
            try:
                target = load_value(self.reference)
            except Exception as exc:
                raise LazyImportError(f"{where} cannot be imported: {type(exc).__name__}: {exc}; "
                                      "reinstall or disable the plugin that registers it") from exc
            missing = missing_methods(target, self.kind)
            if missing:
                raise LazyImportError(f"{where} lacks required method(s): {', '.join(missing)}")
            named = getattr(target, "name", self.name)
            if named != self.name:
                raise LazyImportError(f"{where} is named {named!r}; register it under that name")
            self._target = target
        return self._target

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # copy, pickle and friends probe dunders: no import for them
            raise AttributeError(attr)
        return getattr(self.load(), attr)

    def __repr__(self) -> str:
        state = "imported" if self._target is not None else "not imported yet"
        return f"<{self.kind} {self.name!r} = {self.reference} ({state})>"
