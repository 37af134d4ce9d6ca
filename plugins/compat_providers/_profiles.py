"""Read declarative provider profiles from a TOML table shipped next to this module."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from talaria import ModelInfo, ProviderProfile, RegistrationError

__all__ = ["load_profiles"]

_PROFILE_KEYS = {"api_mode", "base_url", "key_env", "keyless", "aliases", "display_name", "description",
                 "default_model", "context_window", "max_output", "default_headers", "extra_body", "models"}
_MODEL_KEYS = {"id", "context_window", "max_output", "capabilities", "aliases", "input_price",
               "output_price", "cache_read_price", "cache_write_price"}


def _model(provider: str, data: dict[str, Any]) -> ModelInfo:
    unknown = set(data) - _MODEL_KEYS
    if unknown or "id" not in data:
        raise RegistrationError(f"provider {provider!r}: bad model entry {data!r} "
                                f"(unknown keys {sorted(unknown)}; 'id' is required)")
    kwargs = dict(data)
    if "capabilities" in kwargs:
        kwargs["capabilities"] = frozenset(kwargs["capabilities"])
    kwargs["aliases"] = tuple(kwargs.get("aliases", ()))
    return ModelInfo(**kwargs)


def load_profiles(path: Path) -> list[ProviderProfile]:
    """One :class:`ProviderProfile` per top-level table of ``path``, in file order."""
    with path.open("rb") as handle:
        table = tomllib.load(handle)
    profiles = []
    for name, data in table.items():
        unknown = set(data) - _PROFILE_KEYS
        if unknown:
            raise RegistrationError(f"{path.name}: provider {name!r} has unknown keys {sorted(unknown)}")
        kwargs = dict(data)
        kwargs["key_env"] = tuple(kwargs.get("key_env", ()))
        kwargs["aliases"] = tuple(kwargs.get("aliases", ()))
        kwargs["models"] = tuple(_model(name, m) for m in kwargs.get("models", ()))
        profiles.append(ProviderProfile(name=name, **kwargs))
    return profiles
