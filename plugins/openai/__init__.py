"""OpenAI: the ``chat_completions`` and ``responses`` API modes and the ``openai`` provider.

Importing this module is cheap: the ``openai`` SDK is imported only when a mode first
creates a client (the profiles are data: ``profiles.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import talaria

from .chat import ChatCompletionsMode
from .responses import ResponsesMode

__all__ = ["ChatCompletionsMode", "ResponsesMode", "register_api_modes", "register_providers"]


@talaria.hookimpl
def register_api_modes(register: Any) -> None:
    register(ChatCompletionsMode)
    register(ResponsesMode)


@talaria.hookimpl
def register_providers(register: Any) -> None:
    for profile in talaria.profiles_from_toml(Path(__file__).with_name("profiles.toml")):
        register(profile)
