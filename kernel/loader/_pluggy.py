"""The plugin manager: :class:`pluggy.PluginManager` with a quicker look at module plugins.

Registering a plugin makes pluggy examine every name in ``dir(plugin)`` with
:func:`inspect.getattr_static` (a quarter of a millisecond per bundled plugin module, whose
namespaces are mostly imports). For a module, most names can be ruled out from the module's
``__dict__`` alone: a value that is not a function, ``staticmethod``, ``classmethod`` or bound
method can never be a hook implementation, and neither can a plain function without the
``talaria_impl`` marker. Everything else goes to pluggy's own lookup, so what is registered
is exactly what pluggy would register.
"""

from __future__ import annotations

import types
from typing import Any

import pluggy

__all__ = ["PluginManager"]

_ABSENT = object()
_HOOKABLE = (types.FunctionType, staticmethod, classmethod, types.MethodType)


class PluginManager(pluggy.PluginManager):
    """A :class:`pluggy.PluginManager` that skips non-hooks of module plugins cheaply."""

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self._marker = project_name + "_impl"

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, types.ModuleType):
            value = plugin.__dict__.get(name, _ABSENT)
            if value is not _ABSENT:
                if type(value) is types.FunctionType:
                    if self._marker not in value.__dict__:  # where a function's attributes live
                        return None
                elif not isinstance(value, _HOOKABLE):
                    return None
        return super().parse_hookimpl_opts(plugin, name)
