"""What a provider is: its profile, its models, its keys.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._values import value_type


__all__ = ["ModelInfo", "ProviderProfile", "Credential"]


@value_type
class ModelInfo:
    """What is known about one model of a provider. Prices are USD per million tokens."""

    id: str
    context_window: int | None = None
    max_output: int | None = None
    capabilities: frozenset[str] = frozenset({"tools"})
    aliases: tuple[str, ...] = ()
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None


@value_type
class ProviderProfile:
    """A declarative description of a model provider (no code, no client).

    :param name: the ``provider`` part of ``provider/model``.
    :param api_mode: name of the registered API mode that speaks its wire protocol.
    :param base_url: endpoint root, e.g. ``https://api.openai.com/v1``.
    :param key_env: environment variables holding an API key, first found wins;
        ``NAME_2``, ``NAME_3``… add keys to the credential pool.
    :param keyless: True when the endpoint needs no key (local servers).
    :param models: known models; unknown model ids are still allowed.
    :param context_window: window assumed for models not listed in ``models``.
    """

    name: str
    api_mode: str = "chat_completions"
    base_url: str | None = None
    key_env: tuple[str, ...] = ()
    keyless: bool = False
    aliases: tuple[str, ...] = ()
    display_name: str | None = None
    description: str = ""
    default_model: str | None = None
    models: tuple[ModelInfo, ...] = ()
    context_window: int | None = None
    max_output: int | None = None
    default_headers: Mapping[str, str] = field(default_factory=dict)
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def model_info(self, model_id: str) -> ModelInfo | None:
        """Return the :class:`ModelInfo` for ``model_id`` or one of its aliases."""
        for info in self.models:
            if info.id == model_id or model_id in info.aliases:
                return info
        return None


@value_type
class Credential:
    """One API key of a provider's pool. ``key`` is never stored or logged."""

    provider: str
    key: str | None
    id: str = ""  # stable, non-secret identifier (e.g. env var name or a hash prefix)
    label: str = ""

    def __repr__(self) -> str:  # never leak the key through logs or tracebacks
        return f"Credential(provider={self.provider!r}, id={self.id!r})"
