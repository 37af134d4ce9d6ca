"""Test kit for Talaria and its plugin authors (also a pytest plugin: ``talaria.testing.pytest_plugin``)."""

from __future__ import annotations

import types
from pathlib import Path

from ..loader._folder import folder_module_name, import_folder_plugin
from ..paths import bundled_dir

__all__ = ["load_plugin_module"]


def load_plugin_module(name_or_path: str | Path) -> types.ModuleType:
    """Import a bundled plugin by folder name (``"openai"``) or any plugin folder by path.

    Useful for unit-testing a plugin's classes directly. The module is the same object the
    plugin loader registers, so state is shared with a loaded kernel in the same process.
    """
    path = Path(name_or_path)
    if not path.is_absolute() and not path.exists():
        path = bundled_dir("plugins") / str(name_or_path)
    tier = "bundled" if path.resolve().parent == bundled_dir("plugins").resolve() else "user"
    return import_folder_plugin(path, folder_module_name(tier, path.name))
