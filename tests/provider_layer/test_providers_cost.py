"""Cost of a call from its usage: profile prices first, a fallback table, None when unknown."""

from __future__ import annotations

import pytest

from talaria import ModelInfo, Usage
from talaria.providers import cost_of, resolve_model

MILLION = 1_000_000


def test_profile_prices_cover_input_output_and_cache(registry):
    model = resolve_model("anthropic/sonnet", registry)
    usage = Usage(input_tokens=MILLION, output_tokens=MILLION, cache_read_tokens=MILLION,
                  cache_write_tokens=MILLION)
    assert cost_of(usage, model.model_info) == pytest.approx(3.0 + 15.0 + 0.3 + 3.75)


def test_fallback_table_prices_well_known_models_without_profile_prices(registry):
    model = resolve_model("openai/gpt-4.1-mini", registry)
    assert model.model_info.input_price is None
    usage = Usage(input_tokens=2 * MILLION, output_tokens=MILLION // 2, cache_read_tokens=MILLION)
    assert cost_of(usage, model.model_info) == pytest.approx(2 * 0.40 + 0.5 * 1.60 + 0.10)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1-mini-2025-04-14", 0.40),  # dated snapshot
        ("claude-sonnet-4-5-20250929", 3.0),
        ("anthropic/claude-sonnet-4", 3.0),  # vendor-prefixed (openrouter style)
        ("claude-3-5-haiku-latest", 0.80),
        ("gpt-4o", 2.50),
        ("gpt-4o-mini", 0.15),  # longest match, not gpt-4o
    ],
)
def test_fallback_matching_ignores_dates_and_vendor_prefixes(model, expected):
    assert cost_of(Usage(input_tokens=MILLION), model=model) == pytest.approx(expected)


def test_unknown_model_costs_none_not_zero():
    assert cost_of(Usage(input_tokens=5), model="my-finetune-7b") is None
    assert cost_of(Usage(input_tokens=5), ModelInfo(id="qwen3")) is None
    assert cost_of(Usage(input_tokens=5), model="gpt-4.1-turbo-ultra") is None  # not a dated snapshot


def test_missing_cache_prices_bill_cache_tokens_at_input_price():
    info = ModelInfo(id="m", input_price=1.0, output_price=2.0)
    usage = Usage(cache_read_tokens=MILLION, cache_write_tokens=MILLION)
    assert cost_of(usage, info) == pytest.approx(2.0)


def test_zero_usage_costs_zero_for_a_known_model():
    assert cost_of(Usage(), model="gpt-4.1") == 0.0
