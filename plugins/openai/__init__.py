"""OpenAI: the ``chat_completions`` and ``responses`` API modes and the ``openai`` provider.

Importing this module is cheap: the modes are registered by reference (their modules are
imported when a provider first needs them) and the ``openai`` SDK only when a mode first
creates a client; the profiles are data (``profiles.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import talaria

#: attribute → module of this package that defines it (imported on first access)
_LAZY = {"ChatCompletionsMode": "chat", "ResponsesMode": "responses"}

__all__ = ["ChatCompletionsMode", "ResponsesMode", "register_api_modes", "register_providers"]


@talaria.hookimpl
def register_api_modes(register: Any) -> None:
    register(f"chat_completions = {__name__}.chat:ChatCompletionsMode")
    register(f"responses = {__name__}.responses:ResponsesMode")


@talaria.hookimpl
def register_providers(register: Any) -> None:
    for profile in talaria.profiles_from_toml(Path(__file__).with_name("profiles.toml")):
        register(profile)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
