"""Anthropic: the ``anthropic_messages`` API mode and the ``anthropic`` provider.

Importing this module is cheap: the ``anthropic`` SDK is imported only when the mode first
creates a client (the profiles are data: ``profiles.toml``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import talaria

from .messages import AnthropicMessagesMode

__all__ = ["AnthropicMessagesMode", "register_api_modes", "register_providers"]


@talaria.hookimpl
def register_api_modes(register: Any) -> None:
    register(AnthropicMessagesMode)


@talaria.hookimpl
def register_providers(register: Any) -> None:
    for profile in talaria.profiles_from_toml(Path(__file__).with_name("profiles.toml")):
        register(profile)
