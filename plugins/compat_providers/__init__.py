"""Provider profiles for OpenAI-compatible endpoints (all use the ``chat_completions`` mode).

The data lives in ``profiles.toml`` next to this module: one table per provider with its
base URL, key variables, aliases, default model and well-known models (context window,
max output, USD prices per million tokens where they are published and stable).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import talaria


__all__ = ["register_providers"]


@talaria.hookimpl
def register_providers(register: Any) -> None:
    for profile in talaria.profiles_from_toml(Path(__file__).with_name("profiles.toml")):
        register(profile)
