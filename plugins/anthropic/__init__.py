"""Anthropic: the ``anthropic_messages`` API mode and the ``anthropic`` provider.

Importing this module is cheap: the ``anthropic`` SDK (and ``httpx2``) are imported only
when the mode first creates a client.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import talaria

from ._profiles import load_profiles
from .messages import AnthropicMessagesMode

__all__ = ["AnthropicMessagesMode", "register_api_modes", "register_providers"]


@talaria.hookimpl
def register_api_modes(register: Any) -> None:
    register(AnthropicMessagesMode)


@talaria.hookimpl
def register_providers(register: Any) -> None:
    for profile in load_profiles(Path(__file__).with_name("profiles.toml")):
        register(profile)
