"""Resolving "provider/model" strings, config-defined providers, overrides, the first run."""

from __future__ import annotations

import pytest

from talaria import ConfigError
from talaria.providers import default_model_chain, effective_profiles, resolve_model


def test_provider_slash_model_resolves_known_model(registry):
    r = resolve_model("openai/gpt-4.1", registry)
    assert (r.provider, r.model_id, r.api_mode) == ("openai", "gpt-4.1", "responses")
    assert r.context_window == 1_047_576 and r.max_output == 32_768
    assert r.spec == "openai/gpt-4.1" and r.base_url == "https://api.openai.com/v1"


def test_aliases_of_providers_and_models_resolve_to_canonical_ids(registry):
    assert resolve_model("claude/sonnet", registry).spec == "anthropic/claude-sonnet-4-5"
    assert resolve_model("openai/mini", registry).spec == "openai/gpt-4.1-mini"
    assert resolve_model("claude-sonnet", registry).spec == "anthropic/claude-sonnet-4-5"


def test_bare_provider_means_its_default_model(registry):
    assert resolve_model("anthropic", registry).spec == "anthropic/claude-sonnet-4-5"
    assert resolve_model("openai/", registry).spec == "openai/gpt-4.1-mini"


def test_model_ids_containing_slashes_split_on_the_first_only(registry):
    r = resolve_model("openrouter/anthropic/claude-sonnet-4.5", registry)
    assert (r.provider, r.model_id, r.context_window) == ("openrouter", "anthropic/claude-sonnet-4.5", 1_000_000)


def test_unknown_model_of_known_provider_is_allowed_with_provider_defaults(registry):
    r = resolve_model("openrouter/some/new-model", registry)
    assert r.model_info is None and r.context_window == 200_000  # the profile's window
    r = resolve_model("ollama/qwen3", registry)
    assert r.context_window == 128_000 and r.max_output is None  # documented default


def test_bare_model_known_to_several_providers_prefers_one_with_a_key(registry):
    from dataclasses import replace

    from talaria import ModelInfo

    registry["openrouter"] = replace(registry["openrouter"], models=(ModelInfo(id="gpt-4.1"),))
    assert resolve_model("gpt-4.1", registry, env={}).provider == "openai"  # registry order
    assert resolve_model("gpt-4.1", registry, env={"OPENROUTER_API_KEY": "k"}).provider == "openrouter"


def test_unknown_provider_error_lists_known_providers(registry):
    with pytest.raises(ConfigError) as info:
        resolve_model("nosuch/model-x", registry, where="fallback[0]")
    msg = str(info.value)
    assert msg.startswith("fallback[0]:") and "nosuch" in msg
    assert "anthropic, ollama, openai, openrouter" in msg and "[providers.nosuch]" in msg


def test_unknown_bare_model_says_how_to_write_it(registry):
    with pytest.raises(ConfigError, match=r"write it as provider/model"):
        resolve_model("frobnicate-7b", registry)


def test_config_defined_provider_needs_no_code(registry):
    config = {
        "model": "local/qwen3",
        "fallback": ["openai/gpt-4.1-mini"],
        "providers": {"local": {"api_mode": "chat_completions", "base_url": "http://127.0.0.1:11434/v1",
                                "key_env": "LOCAL_API_KEY", "context_window": 32768,
                                "headers": {"X-Team": "a"}, "aliases": ["lm"],
                                "models": ["qwen3", {"id": "llama3", "context_window": 8192, "aliases": ["ll"]}]}},
    }
    chain = default_model_chain(config, {}, registry)
    assert [r.spec for r in chain] == ["local/qwen3", "openai/gpt-4.1-mini"]
    local = chain[0]
    assert local.profile.key_env == ("LOCAL_API_KEY",) and not local.profile.keyless
    assert local.profile.default_headers == {"X-Team": "a"}
    assert local.context_window == 32768  # provider window: qwen3 lists none of its own
    assert resolve_model("lm/ll", registry, config).context_window == 8192


def test_config_provider_without_key_env_is_keyless(registry):
    pset = effective_profiles(registry, {"providers": {"box": {"base_url": "http://10.0.0.2:8000/v1"}}})
    assert pset["box"].keyless and pset["box"].key_env == () and pset.origins["box"] == "config"


def test_config_table_overrides_registered_profile_fields(registry):
    config = {"providers": {"openai": {"base_url": "https://proxy.example.com/v1", "key_env": "PROXY_KEY",
                                       "headers": {"X-Proxy": "1"}, "max_output": 4096}}}
    r = resolve_model("openai/gpt-4.1-mini", registry, config)
    assert r.base_url == "https://proxy.example.com/v1" and r.profile.key_env == ("PROXY_KEY",)
    assert r.profile.default_headers == {"X-Proxy": "1"}
    assert r.max_output == 32_768  # the model's own limit still wins over the provider's


def test_moving_a_registered_provider_to_another_host_withholds_its_keys(registry):
    pset = effective_profiles(registry, {"providers": {"openai": {"base_url": "http://127.0.0.1:9/v1"}}})
    assert pset["openai"].key_env == ()
    assert pset.withheld["openai"] == ("OPENAI_API_KEY",)
    same_host = effective_profiles(registry, {"providers": {"openai": {"base_url": "https://api.openai.com/v2"}}})
    assert same_host["openai"].key_env == ("OPENAI_API_KEY",)


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ({"local": {"api_mode": "chat", "base_url": "http://x"}}, "providers.local.api_mode: unknown API mode 'chat'"),
        ({"local": {"api_mode": "chat_completions"}}, "providers.local.base_url: required"),
        ({"local": {"base_url": "http://x", "baseurl": "y"}}, "providers.local.baseurl: unknown key"),
        ({"local": {"base_url": "http://x", "api_key": "sk-1"}}, "API keys do not belong in config.toml"),
        ({"local": {"base_url": "http://x", "context_window": "big"}}, "providers.local.context_window"),
    ],
)
def test_bad_provider_tables_name_the_key(registry, table, needle):
    with pytest.raises(ConfigError) as info:
        effective_profiles(registry, {"providers": table})
    assert needle in str(info.value)


def test_unknown_api_mode_checked_against_registered_modes(registry):
    with pytest.raises(ConfigError, match="known: chat_completions"):
        effective_profiles(registry, {"providers": {"x": {"base_url": "http://x", "api_mode": "responses"}}},
                           api_modes={"chat_completions"})


def test_no_model_detects_a_key_in_the_environment(registry):
    assert default_model_chain({}, {"ANTHROPIC_API_KEY": "k"}, registry)[0].spec == "anthropic/claude-sonnet-4-5"
    both = {"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    assert default_model_chain({}, both, registry)[0].spec == "openai/gpt-4.1-mini"
    assert default_model_chain({}, {"OPENROUTER_API_KEY_2": "k"}, registry)[0].provider == "openrouter"


def test_no_model_uses_a_provider_with_a_stored_key(registry):
    assert default_model_chain({}, {}, registry, stored={"anthropic"})[0].provider == "anthropic"


def test_first_run_message_says_exactly_what_to_set(registry):
    with pytest.raises(ConfigError) as info:
        default_model_chain({}, {}, registry)
    msg = str(info.value)
    assert "No model is configured and no API key was found" in msg
    assert "export OPENAI_API_KEY=" in msg and "export ANTHROPIC_API_KEY=" in msg
    assert 'model = "local/qwen3"' in msg and "[providers.local]" in msg and "base_url = " in msg
    assert "talaria auth add" in msg
    assert msg.index("OPENAI_API_KEY") < msg.index("OPENROUTER_API_KEY")  # well-known first


def test_fallback_list_is_validated_and_deduplicated(registry):
    config = {"model": "openai/gpt-4.1-mini", "fallback": ["openai/mini", "anthropic"]}
    assert [r.spec for r in default_model_chain(config, {}, registry)] == [
        "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"]
    with pytest.raises(ConfigError, match=r"fallback\[1\]: unknown provider"):
        default_model_chain({"model": "openai", "fallback": ["anthropic", "nope/x"]}, {}, registry)
