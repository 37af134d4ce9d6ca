"""What a model call cost, in USD, from its :class:`talaria.Usage`.

Prices come from the model's :class:`talaria.ModelInfo` (USD per million tokens) when the
profile lists them, else from :data:`FALLBACK_PRICES` for well-known models (matched on
the model id without any ``vendor/`` prefix, ignoring a date or ``-latest`` suffix).
Unknown model → ``None`` (never a guess presented as a number).

Token accounting follows :class:`talaria.Usage`: ``input_tokens`` are fresh (uncached)
input; cache reads and writes are billed at their own prices (when a price is missing,
cache reads and writes are billed at the input price: an upper bound); reasoning tokens
are part of ``output_tokens`` and are not added again.
"""

from __future__ import annotations

import re

from talaria import ModelInfo, Usage

__all__ = ["FALLBACK_PRICES", "cost_of", "prices_for"]

# (input, output, cache read, cache write) USD per million tokens, list prices as published
# by the vendors in 2025. Profiles that carry prices take precedence.
FALLBACK_PRICES: dict[str, tuple[float, float, float | None, float | None]] = {
    "gpt-5": (1.25, 10.0, 0.125, None),
    "gpt-5-mini": (0.25, 2.0, 0.025, None),
    "gpt-5-nano": (0.05, 0.40, 0.005, None),
    "gpt-4.1": (2.0, 8.0, 0.50, None),
    "gpt-4.1-mini": (0.40, 1.60, 0.10, None),
    "gpt-4.1-nano": (0.10, 0.40, 0.025, None),
    "gpt-4o": (2.50, 10.0, 1.25, None),
    "gpt-4o-mini": (0.15, 0.60, 0.075, None),
    "o3": (2.0, 8.0, 0.50, None),
    "o3-mini": (1.10, 4.40, 0.55, None),
    "o4-mini": (1.10, 4.40, 0.275, None),
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": (15.0, 75.0, 1.50, 18.75),
    "claude-opus-4": (15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-4-5": (3.0, 15.0, 0.30, 3.75),
    "claude-sonnet-4": (3.0, 15.0, 0.30, 3.75),
    "claude-3-7-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-3-5-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": (0.80, 4.0, 0.08, 1.0),
    "gemini-2.5-pro": (1.25, 10.0, 0.31, None),
    "gemini-2.5-flash": (0.30, 2.50, 0.075, None),
    "gemini-2.5-flash-lite": (0.10, 0.40, 0.025, None),
    "deepseek-chat": (0.27, 1.10, 0.07, None),
    "deepseek-reasoner": (0.55, 2.19, 0.14, None),
    "grok-4": (3.0, 15.0, 0.75, None),
    "grok-3-mini": (0.30, 0.50, 0.075, None),
    "mistral-large": (2.0, 6.0, None, None),
    "mistral-small": (0.10, 0.30, None, None),
}

_SUFFIX = re.compile(r"^(?:-\d{4}-?\d{2}-?\d{2}|-latest|-preview|@\d+)?$")


def prices_for(
    model_info: ModelInfo | None = None, model: str = ""
) -> tuple[float, float, float | None, float | None] | None:
    """(input, output, cache read, cache write) per M tokens, or None when unknown."""
    if model_info is not None and model_info.input_price is not None and model_info.output_price is not None:
        return (model_info.input_price, model_info.output_price,
                model_info.cache_read_price, model_info.cache_write_price)
    name = (model or (model_info.id if model_info else "")).lower().rsplit("/", 1)[-1]
    if not name:
        return None
    if name in FALLBACK_PRICES:
        return FALLBACK_PRICES[name]
    for key in sorted(FALLBACK_PRICES, key=len, reverse=True):
        if name.startswith(key) and _SUFFIX.match(name[len(key):]):
            return FALLBACK_PRICES[key]
    return None


def cost_of(usage: Usage, model_info: ModelInfo | None = None, *, model: str = "") -> float | None:
    """USD cost of ``usage`` for the model, or None when its prices are unknown.

    :param model_info: the model's info (its prices win when both input and output are set).
    :param model: the model id, used for the fallback table when ``model_info`` has none.
    """
    prices = prices_for(model_info, model)
    if prices is None:
        return None
    p_in, p_out, p_read, p_write = prices
    total = (
        usage.input_tokens * p_in
        + usage.output_tokens * p_out
        + usage.cache_read_tokens * (p_in if p_read is None else p_read)
        + usage.cache_write_tokens * (p_in if p_write is None else p_write)
    )
    return total / 1_000_000
