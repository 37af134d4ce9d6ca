"""The kernel's plugin manager finds exactly the hook implementations pluggy itself finds,
for module plugins (whose non-hook names it rules out quickly) and for object plugins."""

from __future__ import annotations

import functools
import types
from typing import Any

import pluggy

import talaria
from talaria import hookspecs
from talaria.loader._pluggy import PluginManager

SOURCE = '''
import functools
import os
from pathlib import Path
import talaria

CONSTANT = 3
NAMES = ["on_turn_end"]

@talaria.hookimpl
def on_turn_end(turn):
    pass

def helper():
    pass

@talaria.hookimpl(specname="on_session_start")
def started(session):
    pass

def _wrapped(session):
    pass

@talaria.hookimpl
@functools.wraps(_wrapped)
def on_session_end(session):
    pass

class Helper:
    @talaria.hookimpl
    def on_turn_end(self, turn):
        pass

later = on_turn_end  # a marked function under another name: an implementation of hook 'later'
on_session_end_alias = talaria.hookimpl(specname="on_session_end")(lambda session: None)
pre_llm_call = staticmethod(talaria.hookimpl(lambda request: None))
'''


def _module() -> types.ModuleType:
    module = types.ModuleType("lookup_probe_plugin")
    exec(compile(SOURCE, "lookup_probe_plugin.py", "exec"), module.__dict__)
    return module


def _impls(pm: pluggy.PluginManager) -> list[tuple[str, str, str]]:
    return sorted(
        (name, impl.plugin_name, getattr(impl.function, "__name__", "?"))
        for name in dir(pm.hook)
        if not name.startswith("_")
        for impl in getattr(pm.hook, name).get_hookimpls()
    )


def _both(*plugins: tuple[str, Any]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    ours, reference = PluginManager(hookspecs.PROJECT), pluggy.PluginManager(hookspecs.PROJECT)
    for pm in (ours, reference):
        pm.add_hookspecs(hookspecs)
        for name, plugin in plugins:
            pm.register(plugin, name=name)
    return _impls(ours), _impls(reference)


def test_module_plugins_register_what_pluggy_registers() -> None:
    module = _module()
    ours, reference = _both(("probe", module))
    assert ours == reference
    hooks = [hook for hook, _, _ in ours]
    assert hooks.count("on_turn_end") == 1 and "later" in hooks
    assert "on_session_start" in hooks and "pre_llm_call" in hooks
    assert "helper" not in hooks and "Helper" not in hooks
    assert hooks.count("on_session_end") == 2


def test_object_and_class_plugins_register_what_pluggy_registers() -> None:
    class Plugin:
        marker = "not a hook"

        @talaria.hookimpl
        def on_turn_end(self, turn: Any) -> None:
            pass

        @functools.cached_property
        def expensive(self) -> int:
            raise AssertionError("a property must never be evaluated while looking for hooks")

    ours, reference = _both(("instance", Plugin()), ("module-class", _module().Helper))
    assert ours == reference
    assert ("on_turn_end", "instance", "on_turn_end") in ours


def test_bundled_plugins_register_the_same_hooks_as_with_pluggy(tmp_path: Any) -> None:
    from talaria.kernel import load_kernel

    kernel = load_kernel(home=tmp_path, workspace=tmp_path, config={})
    plugins = [(name, kernel.plugins.pm.get_plugin(name)) for name, record in kernel.plugins.records.items()
               if record.status == "loaded"]
    ours, reference = _both(*plugins)
    assert ours == reference
    assert len({plugin for _, plugin, _ in ours}) == len(plugins)
