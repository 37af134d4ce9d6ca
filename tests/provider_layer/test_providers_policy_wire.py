"""The policy over the real API modes and SDKs, against the local fake LLM server.

A config-defined provider (no code) is pooled with two keys; faults on the wire end in the
documented action, and a fallback to an Anthropic-mode provider rebuilds the request in
that provider's shape.
"""

from __future__ import annotations

import random

import pytest

from talaria import Message, ModelRequest, PromptSection
from talaria.providers import CredentialPool, RetrySettings, call_with_policy, resolve_model
from talaria.testing import load_plugin_module

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server():
    from talaria.testing.fakes import FakeLLMServer

    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def fake(server):
    server.reset()
    return server


def modes():
    openai_mod = load_plugin_module("openai")
    anthropic_mod = load_plugin_module("anthropic")
    made = {"chat_completions": openai_mod.ChatCompletionsMode({}),
            "anthropic_messages": anthropic_mod.AnthropicMessagesMode({})}
    return made


async def run(chain, pool, sleeps, built, events, on_overflow=None, history=None):
    instances = modes()

    async def build_request(resolved):
        built.append(resolved.spec)
        messages = tuple(history) if history else (Message(role="user", content="hello"),)
        return ModelRequest(provider=resolved.provider, model=resolved.model_id, base_url=resolved.base_url,
                            system=(PromptSection(tier="stable", text="be brief"),),
                            messages=messages, max_tokens=64, timeout=20, stall_timeout=1.5)

    async def sleep(delay):
        sleeps.append(delay)

    try:
        return await call_with_policy(
            chain, build_request=build_request, get_api_mode=instances.__getitem__, pool=pool,
            on_delta=lambda d: None, emit=events.append, on_overflow=on_overflow,
            settings=RetrySettings(max_attempts=3, base_delay=0.01), sleep=sleep, rng=random.Random(0))
    finally:
        for mode in instances.values():
            await mode.aclose()


def config_for(fake):
    return {
        "providers": {
            "local": {"base_url": fake.openai_base_url, "key_env": "LOCAL_API_KEY"},
            "backup": {"api_mode": "anthropic_messages", "base_url": fake.anthropic_base_url,
                       "key_env": "BACKUP_KEY"},
        }
    }


async def test_faults_on_the_wire_rotate_wait_and_retry_with_pooled_keys(fake, tmp_path):
    from talaria.testing.fakes import Reply

    env = {"LOCAL_API_KEY": "k-one", "LOCAL_API_KEY_2": "k-two", "OPENAI_API_KEY": "sk-must-not-leak"}
    config = config_for(fake)
    pool = CredentialPool(tmp_path, config, env)
    fake.queue(Reply.error(401, "bad key"), Reply.rate_limited(retry_after=1),
               Reply.faulty("truncate"), Reply(text="all good"))
    sleeps, built, events = [], [], []
    out = await run([resolve_model("local/qwen3", {}, config)], pool, sleeps, built, events)
    assert out.response.text == "all good" and out.attempts == 4
    auth = [r.headers.get("authorization") for r in fake.requests]
    assert auth == ["Bearer k-one", "Bearer k-two", "Bearer k-two", "Bearer k-two"]
    assert [e.kind for e in events] == ["credential_rotated", "retry", "retry"]
    assert sleeps[0] == 1.0  # the server's retry-after
    bodies = [r.json["messages"] for r in fake.requests]
    assert all(b == bodies[0] for b in bodies)  # a cut stream is re-asked, never "continued"
    statuses = {e.credential.key: e.status for e in pool.entries(out.served_by.profile)}
    assert statuses["k-one"] == "exhausted"


async def test_fallback_rebuilds_messages_in_the_second_providers_shape(fake, tmp_path):
    from talaria.testing.fakes import Reply

    env = {"LOCAL_API_KEY": "k-one", "BACKUP_KEY": "b-key"}
    config = config_for(fake)
    pool = CredentialPool(tmp_path, config, env)
    fake.queue(Reply.error(500), Reply.error(500), Reply.error(500), Reply(text="from backup"))
    sleeps, built, events = [], [], []
    chain = [resolve_model("local/qwen3", {}, config), resolve_model("backup/claude-x", {}, config)]
    out = await run(chain, pool, sleeps, built, events)
    assert out.served_by.spec == "backup/claude-x" and out.response.text == "from backup"
    assert built == ["local/qwen3", "backup/claude-x"]
    first, last = fake.requests[0], fake.requests[-1]
    assert first.path.endswith("/chat/completions") and first.json["messages"][0]["role"] == "system"
    assert last.path.endswith("/messages") and last.json["system"]  # Anthropic shape: top-level system
    assert all(m["role"] != "system" for m in last.json["messages"])
    sent = {last.headers.get("x-api-key"), last.headers.get("authorization")}
    assert sent & {"b-key", "Bearer b-key"}  # each provider's own key …
    assert not any("k-one" in (v or "") for v in sent)  # … and never the other's
    assert [e.kind for e in events] == ["retry", "retry", "fallback"]


def _transient_faults():
    from talaria.testing.fakes import FakeToolCall, Fault, Reply

    call = FakeToolCall(name="get_weather", arguments={"city": "Paris, Île-de-France, France"})
    return {
        "500": Reply.error(500),
        "529 overloaded": Reply.overloaded(529),
        "connection reset": Reply.faulty("reset_mid"),
        "read timeout (stalled stream)": Reply.faulty("stall", seconds=30),
        "truncated mid tool call": Reply(tool_calls=[call], fault=Fault(kind="truncate_tool")),
        "malformed chunk": Reply.faulty("malformed"),
    }


@pytest.mark.parametrize("spec", ["local/qwen3", "backup/claude-x"], ids=["chat_completions", "anthropic_messages"])
@pytest.mark.parametrize("fault", list(_transient_faults()))
async def test_transient_wire_faults_are_retried_to_an_answer(fake, tmp_path, fault, spec):
    from talaria.testing.fakes import Reply

    config = config_for(fake)
    pool = CredentialPool(tmp_path, config, {"LOCAL_API_KEY": "k-one", "BACKUP_KEY": "b-key"})
    fake.queue(_transient_faults()[fault], Reply(text="recovered"))
    sleeps, built, events = [], [], []
    out = await run([resolve_model(spec, {}, config)], pool, sleeps, built, events)
    assert out.response.text == "recovered" and out.attempts == 2
    assert [e.kind for e in events] == ["retry"] and len(sleeps) == 1
    assert len(fake.requests) == 2 and fake.requests[0].json == fake.requests[1].json  # asked again, as it was


async def test_context_overflow_400_on_the_wire_compresses_and_retries(fake, tmp_path):
    from talaria.testing.fakes import Reply

    config = config_for(fake)
    pool = CredentialPool(tmp_path, config, {"LOCAL_API_KEY": "k-one"})
    history = [Message(role="user", content=f"old question {i}") for i in range(6)]
    compressed = []

    async def on_overflow(resolved):  # what the turn engine does through the context engine
        compressed.append(resolved.spec)
        del history[:-1]
        return True

    fake.queue(Reply.context_overflow(), Reply(text="fits now"))
    sleeps, built, events = [], [], []
    out = await run([resolve_model("local/qwen3", {}, config)], pool, sleeps, built, events,
                    on_overflow=on_overflow, history=history)
    assert out.response.text == "fits now" and compressed == ["local/qwen3"]
    assert built == ["local/qwen3", "local/qwen3"]  # the request was rebuilt after compressing
    sent = [len(r.json["messages"]) for r in fake.requests]
    assert sent == [7, 2]  # system + 6 turns, then system + the kept turn
