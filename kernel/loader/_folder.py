"""Import a plugin that lives in a folder (bundled ``plugins/<name>/`` or a user's
``$TALARIA_HOME/plugins/<name>/``) as a package under a private module name."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

__all__ = ["folder_module_name", "import_folder_plugin"]

_NAMESPACES = {"bundled": "_talaria_bundled", "user": "_talaria_user"}


def folder_module_name(tier: str, name: str) -> str:
    """The ``sys.modules`` name a folder plugin is imported under."""
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return f"{_NAMESPACES.get(tier, '_talaria_' + tier)}.{safe}"


def import_folder_plugin(path: Path, module_name: str) -> types.ModuleType:
    """Import ``path/__init__.py`` as package ``module_name`` (relative imports work).

    Re-importing the same name returns the module already loaded.
    """
    if module_name in sys.modules:
        return sys.modules[module_name]
    parent, _, _ = module_name.rpartition(".")
    if parent and parent not in sys.modules:
        namespace = types.ModuleType(parent)
        namespace.__path__ = []  # a namespace-like parent; children are added by name
        sys.modules[parent] = namespace
    init = path / "__init__.py"
    if not init.is_file():
        raise ImportError(f"plugin folder {path} has no __init__.py")
    spec = importlib.util.spec_from_file_location(
        module_name, init, submodule_search_locations=[str(path)]
    )
    if spec is None or spec.loader is None:  # pragma: no cover - importlib contract
        raise ImportError(f"cannot import plugin folder {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module
