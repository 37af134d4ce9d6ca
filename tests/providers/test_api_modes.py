"""The three API modes, driven through the real SDKs against the fake server."""

from __future__ import annotations

import pytest

from talaria import ApiMode, Message, ProviderError
from talaria.testing.fakes import FakeToolCall, FakeUsage, Reply

from .conftest import WEATHER

pytestmark = pytest.mark.slow  # a server thread serves these tests

PARIS = FakeToolCall(name="get_weather", arguments={"city": "Paris"})


def _wire_messages(case, body):
    if case.name == "responses":
        return body["input"]
    return body["messages"]


async def test_each_mode_honours_the_protocol(case) -> None:
    assert isinstance(case.mode, ApiMode)
    assert case.mode.name == case.name


async def test_plain_text_without_streaming(case, fake) -> None:
    fake.queue(Reply(text="Plain answer.", model="served-model-2"))
    response = await case.complete(case.request(stream=False))
    assert response.text == "Plain answer."
    assert response.finish_reason == "stop"
    assert response.tool_calls == ()
    assert (response.provider, response.model, response.api_mode) == ("fakeprov", "served-model-2", case.name)
    assert not fake.last_request.json.get("stream")


async def test_streamed_text_arrives_as_deltas(case, fake) -> None:
    fake.queue(Reply(text="The quick brown fox jumps."))
    response = await case.complete(case.request())
    assert response.text == "The quick brown fox jumps."
    assert response.finish_reason == "stop"
    text_deltas = [d.text for d in case.deltas if d.kind == "text"]
    assert len(text_deltas) > 1
    assert "".join(text_deltas) == "The quick brown fox jumps."
    assert fake.last_request.json["stream"] is True


async def test_tool_call_round_trip(case, fake) -> None:
    fake.queue(Reply(tool_calls=[PARIS]), Reply(text="It is sunny in Paris."))
    ask = Message(role="user", content="Weather in Paris?")
    first = await case.complete(case.request(ask, tools=(WEATHER,)))
    assert first.finish_reason == "tool_calls"
    (call,) = first.tool_calls
    assert (call.name, dict(call.arguments), call.raw_arguments) == ("get_weather", {"city": "Paris"}, None)
    assert [d.name for d in case.deltas if d.kind == "tool_call"] == ["get_weather"]

    history = (ask, Message(role="assistant", content=first.text, tool_calls=first.tool_calls,
                            api_content=first.api_content),
               Message(role="tool", content="21C, sunny", tool_call_id=call.id, name="get_weather"))
    second = await case.complete(case.request(*history, tools=(WEATHER,)))
    assert second.text == "It is sunny in Paris."
    wire = _wire_messages(case, fake.last_request.json)
    if case.name == "chat_completions":
        assert wire[-1] == {"role": "tool", "tool_call_id": call.id, "content": "21C, sunny"}
        assert wire[-2]["tool_calls"][0]["id"] == call.id
    elif case.name == "responses":
        assert wire[-1] == {"type": "function_call_output", "call_id": call.id, "output": "21C, sunny"}
        assert wire[-2]["type"] == "function_call" and wire[-2]["call_id"] == call.id
    else:
        result = wire[-1]["content"][0]
        assert wire[-1]["role"] == "user"
        assert (result["type"], result["tool_use_id"], result["content"]) == ("tool_result", call.id, "21C, sunny")
        assert wire[-2]["content"][0] == {"type": "tool_use", "id": call.id, "name": "get_weather",
                                          "input": {"city": "Paris"}}


async def test_parallel_tool_calls_keep_their_order(case, fake) -> None:
    calls = [FakeToolCall(name="get_weather", arguments={"city": c}) for c in ("Paris", "Oslo", "Lima")]
    fake.queue(Reply(text="Checking three cities.", tool_calls=calls))
    response = await case.complete(case.request(tools=(WEATHER,)))
    assert [c.arguments["city"] for c in response.tool_calls] == ["Paris", "Oslo", "Lima"]
    assert len({c.id for c in response.tool_calls}) == 3
    assert response.text == "Checking three cities."
    assert [d.index for d in case.deltas if d.kind == "tool_call"] == [0, 1, 2]


@pytest.mark.parametrize("stream", [True, False])
async def test_usage_includes_cache_tokens(case, fake, stream) -> None:
    fake.queue(Reply(text="ok", usage=FakeUsage(input_tokens=120, output_tokens=9, cache_read_tokens=2048,
                                                cache_write_tokens=512, reasoning_tokens=3)))
    response = await case.complete(case.request(stream=stream))
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens) == (120, 9)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (2048, 512)
    assert usage.prompt_tokens == 120 + 2048 + 512


async def test_unparseable_arguments_are_kept_raw(case, fake) -> None:
    fake.queue(Reply(tool_calls=[FakeToolCall(name="get_weather", arguments='{"city": "Par')]))
    response = await case.complete(case.request(tools=(WEATHER,)))
    (call,) = response.tool_calls
    assert call.name == "get_weather"
    assert call.arguments == {}
    assert call.raw_arguments == '{"city": "Par'


async def test_length_finish_is_normalized(case, fake) -> None:
    fake.queue(Reply(text="cut short", finish_reason="length"))
    response = await case.complete(case.request())
    assert response.finish_reason == "length"


async def test_headers_extra_body_and_key_reach_the_wire(case, fake) -> None:
    request = case.request(headers={"X-Title": "Talaria"}, extra_body={"top_k": 3}, max_tokens=77,
                           temperature=0.2)
    await case.complete(request, key="sk-live-123")
    seen = fake.last_request
    assert seen.headers["x-title"] == "Talaria"
    assert seen.json["top_k"] == 3
    assert seen.json["temperature"] == 0.2
    assert 77 in (seen.json.get("max_tokens"), seen.json.get("max_output_tokens"),
                  seen.json.get("max_completion_tokens"))
    key_header = seen.headers.get("x-api-key") or seen.headers.get("authorization")
    assert key_header in ("sk-live-123", "Bearer sk-live-123")


async def test_keyless_endpoint_needs_no_key(case, fake, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-must-not-leak")
    response = await case.complete(case.request(), key=None)
    assert response.text
    assert "sk-must-not-leak" not in repr(fake.last_request.headers)


async def test_one_client_per_base_url_and_key(case, fake) -> None:
    for _ in range(3):
        await case.complete(case.request())
    await case.complete(case.request(), key="sk-other")
    assert len(case.mode._clients._clients) == 2
    await case.mode.aclose()
    assert case.mode._clients._clients == {}


async def test_replayed_api_content_reaches_the_wire_verbatim(case, fake) -> None:
    fake.queue(Reply(text="Answer.", reasoning="Thinking it over."))
    first = await case.complete(case.request())
    if case.name == "chat_completions":
        assert first.api_content is None  # text and tool calls suffice for chat
        return
    assert first.api_content["api_mode"] == case.name
    assert [d.text for d in case.deltas if d.kind == "reasoning"]
    history = (Message(role="user", content="Hello?"),
               Message(role="assistant", content=first.text, api_content=first.api_content),
               Message(role="user", content="And then?"))
    await case.complete(case.request(*history))
    wire = _wire_messages(case, fake.last_request.json)
    if case.name == "responses":
        assert any(item.get("type") == "reasoning" and item.get("encrypted_content") for item in wire)
    else:
        assistant = wire[1]["content"]
        assert assistant[0] == {"type": "thinking", "thinking": "Thinking it over.", "signature": "sig-fake"}


async def test_retries_are_left_to_the_kernel(case, fake) -> None:
    fake.queue(Reply.error(500), Reply(text="second"))
    with pytest.raises(ProviderError):
        await case.complete(case.request())
    assert len(fake.requests) == 1
