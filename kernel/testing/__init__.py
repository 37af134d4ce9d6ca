"""Test kit for Talaria and its plugin authors (also a pytest plugin: ``talaria.testing.pytest_plugin``)."""

from __future__ import annotations

import types
from pathlib import Path

from ..loader._folder import folder_module_name, import_folder_plugin
from ..paths import bundled_dir

__all__ = ["ScriptedModel", "load_plugin_module", "make_kernel", "reply", "run_turn", "tool_call"]

from .scripted import ScriptedModel, reply, tool_call  # noqa: E402


def load_plugin_module(name_or_path: str | Path) -> types.ModuleType:
    """Import a bundled plugin by folder name (``"openai"``) or any plugin folder by path.

    Useful for unit-testing a plugin's classes directly. The module is the same object the
    plugin loader registers, so state is shared with a loaded kernel in the same process.
    """
    path = Path(name_or_path)
    bundled = bundled_dir("plugins") / str(name_or_path)
    if isinstance(name_or_path, str) and "/" not in name_or_path and bundled.is_dir():
        path = bundled  # a bare name means the bundled plugin, even if ./NAME exists
    tier = "bundled" if path.resolve().parent == bundled_dir("plugins").resolve() else "user"
    return import_folder_plugin(path, folder_module_name(tier, path.name))


def make_kernel(
    home: Path,
    *plugins: object,
    bundled: tuple[str, ...] | None = (),
    config: dict | None = None,
    workspace: Path | None = None,
):
    """A loaded kernel for tests.

    :param plugins: explicit-tier plugins, e.g. ``ScriptedModel().plugin()``.
    :param bundled: bundled plugin names to load (``()`` = none but the essential ones,
        None = all of them).
    :param config: the configuration (defaults to ``model = "scripted/test"``).
    """
    from ..kernel import load_kernel

    env = {} if bundled is None else {"TALARIA_PLUGINS": ",".join(bundled)}
    cfg = {"model": "scripted/test"} if config is None else config
    return load_kernel(home=home, workspace=workspace or home, config=cfg, explicit=plugins, env=env, entry_points=[])


async def run_turn(kernel, text: str, *, session_key: str = "test:session", **runtime_kw):
    """Run one turn in a fresh runtime; returns ``(record, messages of its session)``."""
    from ..turn.runtime import Runtime, TurnOptions

    options = runtime_kw.pop("options", None) or TurnOptions(channel="test")
    async with Runtime(kernel, options=options, **runtime_kw) as runtime:
        record = await runtime.run_turn(text, session_key=session_key)
        messages = await runtime.store.get_messages(record.session_id) if record.session_id else []
    return record, messages
