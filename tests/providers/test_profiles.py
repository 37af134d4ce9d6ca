"""Provider profiles: the declarative tables every plugin registers."""

from __future__ import annotations

import importlib
from urllib.parse import urlparse

import pytest

from talaria import ProviderProfile
from talaria.testing import load_plugin_module

EXPECTED = {"openai", "anthropic", "openrouter", "groq", "deepseek", "mistral", "together", "fireworks",
            "xai", "gemini", "ollama", "lmstudio", "vllm"}
LOCAL = {"ollama": 11434, "lmstudio": 1234, "vllm": 8000}


def _profiles() -> dict[str, ProviderProfile]:
    items: list[ProviderProfile] = []
    for plugin in ("openai", "anthropic", "compat_providers"):
        load_plugin_module(plugin).register_providers(items.append)
    names = [p.name for p in items]
    assert len(names) == len(set(names)), f"duplicate provider names: {names}"
    return {p.name: p for p in items}


def _api_modes() -> dict[str, type]:
    """name → class, following a by-reference registration (``"NAME = module:Class"``)."""
    registered: list = []
    for plugin in ("openai", "anthropic"):
        load_plugin_module(plugin).register_api_modes(registered.append)
    modes = {}
    for item in registered:
        if isinstance(item, str):
            name, _, target = (part.strip() for part in item.partition("="))
            module, _, attr = target.partition(":")
            modes[name] = getattr(importlib.import_module(module), attr)
        else:
            modes[item.name] = item
    return modes


def test_every_expected_provider_is_registered() -> None:
    assert set(_profiles()) == EXPECTED


def test_api_modes_are_registered_as_classes_named_as_registered() -> None:
    modes = _api_modes()
    assert set(modes) == {"chat_completions", "responses", "anthropic_messages"}
    assert all(isinstance(cls, type) and cls.name == name for name, cls in modes.items())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_profile_is_usable(name) -> None:
    profile = _profiles()[name]
    assert profile.api_mode in _api_modes()
    url = urlparse(profile.base_url or "")
    assert url.scheme in ("http", "https") and url.hostname
    assert profile.key_env and all(v.isupper() and v.endswith("_API_KEY") for v in profile.key_env)
    assert profile.context_window and profile.context_window >= 8192
    if profile.default_model and profile.models:
        assert profile.model_info(profile.default_model) is not None
    for model in profile.models:
        assert model.context_window is None or model.context_window >= 8192
        assert model.max_output is None or model.max_output <= (model.context_window or model.max_output)
        for price in (model.input_price, model.output_price, model.cache_read_price):
            assert price is None or 0 <= price < 200
        if model.cache_read_price is not None and model.input_price is not None:
            assert model.cache_read_price < model.input_price


@pytest.mark.parametrize("name,port", sorted(LOCAL.items()))
def test_local_servers_are_keyless_loopback(name, port) -> None:
    profile = _profiles()[name]
    assert profile.keyless
    url = urlparse(profile.base_url)
    assert (url.hostname, url.port, url.path) == ("127.0.0.1", port, "/v1")


def test_remote_providers_need_a_key_and_use_https() -> None:
    for name, profile in _profiles().items():
        if name not in LOCAL:
            assert not profile.keyless and profile.base_url.startswith("https://"), name


def test_model_aliases_resolve() -> None:
    profiles = _profiles()
    assert profiles["anthropic"].model_info("claude-sonnet-4-5-20250929").id == "claude-sonnet-4-5"
    assert profiles["openai"].api_mode == "responses"
    assert profiles["gemini"].base_url == "https://generativelanguage.googleapis.com/v1beta/openai/"
    assert "GEMINI_API_KEY" in profiles["gemini"].key_env


def test_bad_profile_table_is_reported(tmp_path) -> None:
    from talaria import RegistrationError, profiles_from_toml

    table = tmp_path / "profiles.toml"
    table.write_text('[acme]\nbase_url = "https://acme.test/v1"\nbase_ulr = "typo"\n')
    with pytest.raises(RegistrationError, match="base_ulr"):
        profiles_from_toml(table)
