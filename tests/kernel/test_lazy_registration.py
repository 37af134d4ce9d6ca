"""Classes registered by reference (``"NAME = module:Class"``): known by name at load, imported
on first use, and a broken reference is an error naming it — at load when malformed, at first
use when the module or class is unusable — never a crash."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import talaria
from talaria import ConfigError, ModelInfo, ProviderProfile, RegistrationError, hookimpl
from talaria.kernel import load_kernel
from talaria.turn.runtime import Runtime, TurnOptions

ENGINE_MODULE = '''
import talaria

class ProbeEngine:
    name = "probe-engine"

    def __init__(self, config):
        self.config = dict(config)

    def should_compress(self, tokens, window):
        return False

    async def compress(self, messages, request):
        return messages

class Nameless:
    def __init__(self, config):
        pass

class Misnamed(ProbeEngine):
    name = "other-name"
'''


@pytest.fixture()
def probe_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An importable module (not yet imported) holding engine classes; returns its name."""
    name = f"lazy_probe_{tmp_path.name.replace('-', '_')}"
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{name}.py").write_text(textwrap.dedent(ENGINE_MODULE))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def _plugin(*items: Any, hook: str = "register_context_engines") -> tuple[str, object]:
    class Plugin:
        pass

    def register(self: Any, register: Any) -> None:
        for item in items:
            register(item)

    register.__name__ = hook
    setattr(Plugin, hook, hookimpl(register))
    return "lazy_probe", Plugin()


def _load(home: Path, *plugins: tuple[str, object], config: dict | None = None) -> talaria.Kernel:
    return load_kernel(home=home, workspace=home, config=config or {}, explicit=plugins, entry_points=[])


def test_a_reference_is_registered_by_name_and_imported_only_when_first_used(tmp_path: Path, probe_module: str) -> None:
    kernel = _load(tmp_path, _plugin(f"probe-engine = {probe_module}:ProbeEngine"))
    record = kernel.plugins.records["lazy_probe"]
    assert record.status == "loaded" and "context_engine:probe-engine" in record.registered
    assert "probe-engine" in kernel.registries.context_engines.names()
    assert probe_module not in sys.modules  # loading the kernel did not import it
    factory = kernel.registries.context_engines.get("probe-engine")
    assert factory.name == "probe-engine" and "not imported yet" in repr(factory)
    engine = factory({"keep": 3})
    assert type(engine).__name__ == "ProbeEngine" and engine.config == {"keep": 3}
    assert probe_module in sys.modules
    assert isinstance(engine, talaria.ContextEngine)


def test_a_referenced_class_without_the_required_methods_fails_on_first_use(tmp_path: Path, probe_module: str) -> None:
    kernel = _load(tmp_path, _plugin(f"nameless = {probe_module}:Nameless"))
    with pytest.raises(RegistrationError, match="lacks required method.*should_compress, compress"):
        kernel.registries.context_engines.get("nameless")({})


@pytest.mark.parametrize("reference", ["probe-engine", "= mod:Class", "probe-engine = mod", "probe-engine = :Class",
                                       "probe-engine = mod:"])
def test_a_malformed_reference_is_a_load_error_of_its_plugin(tmp_path: Path, reference: str) -> None:
    kernel = _load(tmp_path, _plugin(reference))
    record = kernel.plugins.records["lazy_probe"]
    assert record.status == "failed"
    assert "NAME = package.module:Class" in record.errors[0].line()
    assert "probe-engine" not in kernel.registries.context_engines


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("lazy_probe_missing_module:ProbeEngine", "cannot be imported: ModuleNotFoundError"),
        ("{module}:NoSuchClass", "cannot be imported: AttributeError"),
        ("{module}:Misnamed", "is named 'other-name'"),
    ],
)
def test_an_unusable_reference_fails_on_first_use_with_a_message_naming_it(
    tmp_path: Path, probe_module: str, target: str, needle: str
) -> None:
    reference = target.format(module=probe_module)
    kernel = _load(tmp_path, _plugin(f"probe-engine = {reference}"))
    assert kernel.plugins.records["lazy_probe"].status == "loaded"
    factory = kernel.registries.context_engines.get("probe-engine")
    with pytest.raises(RegistrationError, match=needle) as caught:
        factory({})
    assert isinstance(caught.value, ConfigError)  # a turn ends with it instead of crashing
    assert reference in str(caught.value)


def test_a_higher_tier_reference_overrides_a_bundled_class(tmp_path: Path, probe_module: str) -> None:
    kernel = _load(tmp_path, _plugin(f"compressor = {probe_module}:ProbeEngine"))
    registration = kernel.registries.context_engines.registration("compressor")
    assert registration.plugin == "lazy_probe"
    assert "context_engines compressor (from compressor)" in kernel.plugins.records["lazy_probe"].shadows


def test_bundled_engines_are_registered_by_reference_and_resolve_on_first_use(tmp_path: Path) -> None:
    kernel = _load(tmp_path)
    for name in ("compressor", "sliding-window"):
        factory = kernel.registries.context_engines.get(name)
        assert "not imported yet" in repr(factory)
        engine = factory({})
        assert engine.name == name and isinstance(engine, talaria.ContextEngine)
        assert "(imported)" in repr(factory)


async def test_a_turn_whose_api_mode_cannot_be_imported_ends_with_an_error(tmp_path: Path) -> None:
    class Provider:
        @hookimpl
        def register_providers(self, register: Any) -> None:
            register(ProviderProfile(name="lazyprov", api_mode="lazy-broken", keyless=True, default_model="m",
                                     base_url="http://127.0.0.1:9/v1",
                                     models=(ModelInfo(id="m", context_window=8192, max_output=512),)))

    kernel = _load(tmp_path, ("lazy_provider", Provider()),
                   _plugin("lazy-broken = lazy_probe_missing_module:Mode", hook="register_api_modes"),
                   config={"model": "lazyprov/m"})
    async with Runtime(kernel, options=TurnOptions(channel="test")) as runtime:
        turn = await runtime.run_turn("hi", session_key="lazy")
    assert turn.end_reason == "provider_error"
    assert "lazy_probe_missing_module:Mode" in (turn.error or "")
