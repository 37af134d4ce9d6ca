"""The ``nebius`` provider: a declarative profile on the ``chat_completions`` API mode.

Nebius AI Studio speaks the OpenAI Chat Completions protocol, so the profile needs no code
of its own: Talaria's bundled ``chat_completions`` API mode does the wire work. Its key,
``NEBIUS_API_KEY`` (plus ``NEBIUS_API_KEY_2``… for a pool), is only ever sent to
``api.studio.nebius.com``. Set ``NEBIUS_BASE_URL`` to point the profile at another
Nebius region endpoint.

Use it with ``talaria --model nebius/llama-3.3-70b`` (aliases below) or any model id the
endpoint serves: ``nebius/<org>/<model>``.
"""

from __future__ import annotations

import os

from talaria import ModelInfo, ProviderProfile, hookimpl

DEFAULT_BASE_URL = "https://api.studio.nebius.com/v1"

# USD per million tokens (input, output) as listed by Nebius AI Studio (base flavour), 2025.
MODELS = (
    ModelInfo(id="meta-llama/Llama-3.3-70B-Instruct", context_window=131_072, max_output=8_192,
              aliases=("llama-3.3-70b",), input_price=0.13, output_price=0.40),
    ModelInfo(id="deepseek-ai/DeepSeek-V3-0324", context_window=131_072, max_output=8_192,
              aliases=("deepseek-v3",), input_price=0.50, output_price=1.50),
    ModelInfo(id="Qwen/Qwen3-235B-A22B", context_window=40_960, max_output=8_192,
              aliases=("qwen3-235b",), input_price=0.20, output_price=0.60),
    ModelInfo(id="openai/gpt-oss-120b", context_window=131_072, max_output=32_768,
              aliases=("gpt-oss-120b",), input_price=0.15, output_price=0.60),
)


def profile() -> ProviderProfile:
    """The Nebius profile (``NEBIUS_BASE_URL`` overrides the endpoint)."""
    return ProviderProfile(
        name="nebius",
        display_name="Nebius AI Studio",
        description="Open-weight models on Nebius AI Studio (OpenAI-compatible).",
        api_mode="chat_completions",
        base_url=os.environ.get("NEBIUS_BASE_URL") or DEFAULT_BASE_URL,
        key_env=("NEBIUS_API_KEY",),
        aliases=("nebius-ai-studio",),
        default_model="meta-llama/Llama-3.3-70B-Instruct",
        models=MODELS,
        context_window=131_072,
    )


@hookimpl
def register_providers(register):
    """Register the ``nebius`` provider profile."""
    register(profile())
