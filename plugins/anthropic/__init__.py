"""Anthropic: the ``anthropic_messages`` API mode and the ``anthropic`` provider.

Importing this module is cheap: the mode is registered by reference (:mod:`.messages` is
imported when a provider first needs it) and the ``anthropic`` SDK only when the mode first
creates a client; the profiles are data (``profiles.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import talaria

__all__ = ["AnthropicMessagesMode", "register_api_modes", "register_providers"]


@talaria.hookimpl
def register_api_modes(register: Any) -> None:
    register(f"anthropic_messages = {__name__}.messages:AnthropicMessagesMode")


@talaria.hookimpl
def register_providers(register: Any) -> None:
    for profile in talaria.profiles_from_toml(Path(__file__).with_name("profiles.toml")):
        register(profile)


def __getattr__(name: str) -> Any:
    if name == "AnthropicMessagesMode":  # imported on first access
        from .messages import AnthropicMessagesMode

        return AnthropicMessagesMode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
