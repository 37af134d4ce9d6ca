"""call_with_policy: what happens for each error kind (retry, rotate, fall back, fail)."""

from __future__ import annotations

import asyncio
import random

import pytest
from provider_stubs import ScriptedApiMode, err, ok

from talaria import ConfigError, ErrorKind, Message, ModelRequest, ProviderError, Usage
from talaria.providers import CredentialPool, RetrySettings, call_with_policy, resolve_model

TWO_KEYS = {"OPENAI_API_KEY": "sk-a", "OPENAI_API_KEY_2": "sk-b", "ANTHROPIC_API_KEY": "sk-ant"}
ONE_KEY = {"OPENAI_API_KEY": "sk-a", "ANTHROPIC_API_KEY": "sk-ant"}


class Harness:
    """Runs the policy over stub API modes and records what the engine would observe."""

    def __init__(self, home, registry, clock, env=ONE_KEY, config=None):
        self.registry, self.clock = registry, clock
        self.pool = CredentialPool(home, config or {}, env, clock=clock)
        self.modes: dict[str, ScriptedApiMode] = {}
        self.built: list[str] = []
        self.events = []
        self.deltas = []

    def chain(self, *specs):
        return [resolve_model(s, self.registry) for s in specs]

    def mode(self, name, *steps):
        self.modes[name] = ScriptedApiMode(name, steps)
        return self.modes[name]

    async def build_request(self, resolved):
        self.built.append(resolved.spec)
        shape = f"{resolved.api_mode}-shaped history #{len(self.built)}"
        return ModelRequest(provider=resolved.provider, model=resolved.model_id, base_url=resolved.base_url,
                            messages=(Message(role="user", content=shape),))

    async def run(self, chain, *, on_overflow=None, settings=None):
        return await call_with_policy(
            chain, build_request=self.build_request, get_api_mode=self.modes.__getitem__, pool=self.pool,
            on_delta=self.deltas.append, emit=self.events.append, on_overflow=on_overflow,
            settings=settings or RetrySettings(), sleep=self.clock.sleep, rng=random.Random(1))

    def kinds(self):
        return [e.kind for e in self.events]


@pytest.fixture
def h(home, registry, clock):
    return Harness(home, registry, clock)


async def test_success_on_first_try_reports_who_served(h):
    h.mode("responses", ok("hi"))
    out = await h.run(h.chain("openai/gpt-4.1-mini"))
    assert out.response.text == "hi" and out.served_by.spec == "openai/gpt-4.1-mini"
    assert out.attempts == 1 and h.events == [] and h.clock.sleeps == []
    assert h.modes["responses"].calls[0][1].key == "sk-a"


async def test_429_retry_after_is_honoured_on_the_last_model(h):
    h.mode("responses", err("rate_limit", status=429, retry_after=2.5), ok())
    out = await h.run(h.chain("openai/gpt-4.1-mini"))
    assert out.attempts == 2 and h.clock.sleeps == [2.5]
    retry = h.events[0]
    assert retry.kind == "retry" and retry.data["delay"] == 2.5 and retry.data["error_kind"] == "rate_limit"


async def test_429_retry_after_is_capped(h):
    h.mode("responses", err("rate_limit", retry_after=9999), ok())
    await h.run(h.chain("openai"), settings=RetrySettings(max_retry_after=42))
    assert h.clock.sleeps == [42]


async def test_first_429_fails_over_at_once_when_a_fallback_exists(h):
    h.mode("responses", err("rate_limit", status=429, retry_after=30))
    h.mode("anthropic_messages", ok("from claude"))
    out = await h.run(h.chain("openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"))
    assert out.served_by.provider == "anthropic" and out.response.text == "from claude"
    assert h.clock.sleeps == [] and len(h.modes["responses"].calls) == 1
    assert h.kinds() == ["fallback"]
    assert h.events[0].data["from"] == "openai/gpt-4.1-mini" and h.events[0].data["to"] == "anthropic/claude-sonnet-4-5"


async def test_fallback_rebuilds_the_request_for_the_new_model(h):
    h.mode("responses", err("server", status=500), err("server"), err("server"))
    h.mode("anthropic_messages", ok())
    await h.run(h.chain("openai", "anthropic"))
    assert h.built == ["openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"]
    sent = h.modes["anthropic_messages"].calls[0][0]
    assert sent.provider == "anthropic" and sent.model == "claude-sonnet-4-5"
    assert sent.base_url == "https://api.anthropic.com"
    assert sent.messages[0].content == "anthropic_messages-shaped history #2"  # rebuilt, not reused
    assert h.modes["anthropic_messages"].calls[0][1].key == "sk-ant"  # its own key, not OpenAI's


async def test_500_is_retried_with_growing_jittered_backoff_then_falls_back(h):
    h.mode("responses", err("server", status=500), err("server", status=500), err("server", status=500))
    h.mode("anthropic_messages", ok())
    settings = RetrySettings(max_attempts=3, base_delay=1.0, max_delay=30.0, jitter=0.5)
    out = await h.run(h.chain("openai", "anthropic"), settings=settings)
    assert out.attempts == 4 and out.served_by.provider == "anthropic"
    first, second = h.clock.sleeps
    assert 0.5 <= first <= 1.0 and 1.0 <= second <= 2.0
    assert h.kinds() == ["retry", "retry", "fallback"]
    assert h.events[-1].data["error_kind"] == "server"


@pytest.mark.parametrize("kind", ["overloaded", "server", "timeout", "connection", "truncated", "malformed"])
async def test_transient_kinds_are_retried_as_a_fresh_identical_request(h, kind):
    mode = h.mode("responses", err(kind, status=529 if kind == "overloaded" else None), ok("whole answer"))
    out = await h.run(h.chain("openai"))
    assert out.response.text == "whole answer" and out.attempts == 2
    first, second = (call[0] for call in mode.calls)
    assert second == first  # the same request again: no invented "continue" message
    assert [m.role for m in second.messages] == ["user"]
    retry = h.events[0]
    assert retry.kind == "retry" and retry.data["discard_partial"] is True  # partial was streamed
    assert h.built == ["openai/gpt-4.1-mini"]  # same target: no rebuild


async def test_transient_failures_exhaust_retries_and_raise_the_last_kind(h):
    h.mode("responses", err("server"), err("server"), err("timeout"))
    h.mode("anthropic_messages", err("connection"), err("connection"), err("overloaded", status=529))
    with pytest.raises(ProviderError) as info:
        await h.run(h.chain("openai", "anthropic"))
    assert info.value.kind is ErrorKind.OVERLOADED
    assert h.kinds().count("retry") == 4 and h.kinds().count("fallback") == 1


async def test_401_rotates_to_the_next_key_and_marks_the_bad_one(home, registry, clock):
    h = Harness(home, registry, clock, env=TWO_KEYS)
    mode = h.mode("responses", err("auth", status=401), ok())
    out = await h.run(h.chain("openai"))
    assert [c[1].key for c in mode.calls] == ["sk-a", "sk-b"]
    assert out.attempts == 2 and h.clock.sleeps == []
    rotated = h.events[0]
    assert rotated.kind == "credential_rotated" and rotated.data["from_id"] == mode.calls[0][1].id
    assert rotated.data["marked"] == "exhausted"
    status = {e.credential.key: e.status for e in h.pool.entries(registry["openai"])}
    assert status == {"sk-a": "exhausted", "sk-b": "ok"}


async def test_401_on_the_only_key_falls_back_or_fails(home, registry, clock):
    h = Harness(home, registry, clock)
    h.mode("responses", err("auth", status=401))
    h.mode("anthropic_messages", ok())
    assert (await h.run(h.chain("openai", "anthropic"))).served_by.provider == "anthropic"
    h2 = Harness(home, registry, clock, env={"OPENAI_API_KEY": "sk-z"})
    h2.mode("responses", err("auth", status=401))
    with pytest.raises(ProviderError) as info:
        await h2.run(h2.chain("openai"))
    assert info.value.kind is ErrorKind.AUTH


async def test_429_rotates_keys_before_changing_model(home, registry, clock):
    h = Harness(home, registry, clock, env=TWO_KEYS)
    mode = h.mode("responses", err("rate_limit", status=429), ok())
    out = await h.run(h.chain("openai", "anthropic"))
    assert out.served_by.provider == "openai" and [c[1].key for c in mode.calls] == ["sk-a", "sk-b"]
    assert h.kinds() == ["credential_rotated"]


async def test_missing_key_moves_on_to_a_model_that_has_one(home, registry, clock):
    h = Harness(home, registry, clock, env={})
    h.mode("responses")
    h.mode("chat_completions", ok("local answer"))
    out = await h.run(h.chain("openai", "ollama/llama3.2"))
    assert out.served_by.provider == "ollama" and h.kinds() == ["fallback"]
    assert out.errors[0].kind is ErrorKind.AUTH and "OPENAI_API_KEY" in str(out.errors[0])
    assert h.modes["chat_completions"].calls[0][1].key is None
    assert h.modes["responses"].calls == []  # nothing was sent without a key


async def test_overflow_compresses_once_then_retries_with_a_rebuilt_request(h):
    calls = []

    async def on_overflow(resolved):
        calls.append(resolved.spec)
        return True

    mode = h.mode("responses", err("context_overflow", status=400), ok())
    out = await h.run(h.chain("openai"), on_overflow=on_overflow)
    assert calls == ["openai/gpt-4.1-mini"] and out.attempts == 2
    assert h.built == ["openai/gpt-4.1-mini", "openai/gpt-4.1-mini"]
    assert mode.calls[1][0].messages[0].content.endswith("#2")  # the compressed rebuild


async def test_overflow_twice_fails_closed_without_fallback(h):
    calls = []

    async def on_overflow(resolved):
        calls.append(resolved.spec)
        return True

    h.mode("responses", err("context_overflow"), err("context_overflow"))
    h.mode("anthropic_messages", ok())
    with pytest.raises(ProviderError) as info:
        await h.run(h.chain("openai", "anthropic"), on_overflow=on_overflow)
    assert info.value.kind is ErrorKind.CONTEXT_OVERFLOW and len(calls) == 1
    assert h.modes["anthropic_messages"].calls == []


async def test_overflow_when_compression_declines_fails_at_once(h):
    async def on_overflow(resolved):
        return False

    h.mode("responses", err("context_overflow"))
    with pytest.raises(ProviderError, match="context_overflow"):
        await h.run(h.chain("openai"), on_overflow=on_overflow)
    with pytest.raises(ProviderError, match="context_overflow"):
        h.mode("responses", err("context_overflow"))
        await h.run(h.chain("openai"), on_overflow=None)


@pytest.mark.parametrize("kind", ["bad_request", "not_found", "unknown"])
async def test_non_transient_kinds_end_at_once(h, kind):
    h.mode("responses", err(kind, status=400))
    h.mode("anthropic_messages", ok())
    with pytest.raises(ProviderError) as info:
        await h.run(h.chain("openai", "anthropic"))
    assert info.value.kind.value == kind
    assert len(h.modes["responses"].calls) == 1 and h.modes["anthropic_messages"].calls == []
    assert h.events == [] and h.clock.sleeps == []


async def test_an_api_mode_bug_is_classified_unknown_not_a_crash(h):
    h.mode("responses", lambda req, cred: 1 / 0)
    with pytest.raises(ProviderError) as info:
        await h.run(h.chain("openai"))
    assert info.value.kind is ErrorKind.UNKNOWN and "ZeroDivisionError" in str(info.value)


async def test_cancellation_propagates_at_once(h):
    def cancelled(req, cred):
        raise asyncio.CancelledError

    h.mode("responses", cancelled, ok())
    h.mode("anthropic_messages", ok())
    with pytest.raises(asyncio.CancelledError):
        await h.run(h.chain("openai", "anthropic"))
    assert len(h.modes["responses"].calls) == 1 and h.modes["anthropic_messages"].calls == []


async def test_cancellation_during_backoff_propagates(h):
    async def sleep(delay):
        raise asyncio.CancelledError

    h.clock.sleep = sleep
    h.mode("responses", err("server"), ok())
    with pytest.raises(asyncio.CancelledError):
        await h.run(h.chain("openai"))


async def test_usage_of_failed_attempts_is_reported(h):
    h.mode("responses", err("truncated", usage=Usage(input_tokens=100, output_tokens=7)), ok())
    out = await h.run(h.chain("openai"))
    assert out.failed_usage == Usage(input_tokens=100, output_tokens=7)
    assert out.response.usage == Usage(input_tokens=10, output_tokens=2)


def test_retry_settings_from_config():
    s = RetrySettings.from_config({"retry": {"max_attempts": 5, "base_delay": 0.5}})
    assert (s.max_attempts, s.base_delay, s.max_delay) == (5, 0.5, 30.0)
    with pytest.raises(ConfigError, match="retry.max_attempts"):
        RetrySettings.from_config({"retry": {"max_attempts": 0}})
    with pytest.raises(ConfigError, match="retry.attempts: unknown key"):
        RetrySettings.from_config({"retry": {"attempts": 2}})


async def test_rotation_is_bounded_even_when_cool_downs_expire_at_once(home, registry):
    class RacingClock:  # every read is a second later: a tiny retry-after has always expired
        now = 0.0

        def __call__(self):
            self.now += 1
            return self.now

    h = Harness(home, registry, clock=None, env=TWO_KEYS)
    h.pool = CredentialPool(home, {}, TWO_KEYS, clock=RacingClock())
    sleeps = []

    async def sleep(delay):
        sleeps.append(delay)

    h.clock = type("C", (), {"sleep": staticmethod(sleep)})()
    mode = h.mode("responses", *[err("rate_limit", retry_after=1e-6) for _ in range(6)])
    with pytest.raises(ProviderError) as info:
        await h.run(h.chain("openai"), settings=RetrySettings(max_attempts=3))
    assert info.value.kind is ErrorKind.RATE_LIMIT
    assert len(mode.calls) <= 6 and len(sleeps) == 2
