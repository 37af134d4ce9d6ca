"""Null fields the provider streams in an output item are not kept for replay.

Providers send ``"status": null``, ``"citations": null``… in items and blocks; absent and
null mean the same to them on input, but some reject a null they never documented as input.
The items an API mode keeps in ``api_content`` (replayed verbatim later) carry no nulls.
The provider is the real SDK over an in-memory HTTP transport serving fixed SSE bytes.
"""

from __future__ import annotations

import json
from typing import Any

from talaria import Credential, Message, ModelRequest, SdkClientCache
from talaria.testing import load_plugin_module


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _client_serving(sdk: Any, body: bytes):
    import httpx2

    def handler(request: Any) -> Any:
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    def factory(base_url: str, key: str) -> Any:
        client_cls = sdk.AsyncAnthropic if sdk.__name__ == "anthropic" else sdk.AsyncOpenAI
        return client_cls(base_url=base_url, api_key=key, max_retries=0,
                          http_client=sdk.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(handler)))

    return SdkClientCache(factory)


def _request(base_url: str) -> ModelRequest:
    return ModelRequest(provider="p", model="m", base_url=base_url, messages=(Message(role="user", content="hi"),),
                        timeout=20.0, stall_timeout=5.0)


async def test_responses_reasoning_item_is_replayed_without_nulls() -> None:
    import openai

    reasoning = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "opaque",
                 "content": None, "status": None}
    message = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": "Hi.", "annotations": [], "logprobs": None}]}
    done = {"id": "resp_1", "object": "response", "status": "completed", "model": "m", "error": None,
            "incomplete_details": None, "output": [reasoning, message],
            "usage": {"input_tokens": 3, "output_tokens": 2, "input_tokens_details": None}}
    body = _sse([{"type": "response.output_item.done", "item": reasoning},
                 {"type": "response.output_text.delta", "delta": "Hi."},
                 {"type": "response.output_item.done", "item": message},
                 {"type": "response.completed", "response": done}])
    mode = load_plugin_module("openai").ResponsesMode({})
    mode._clients = _client_serving(openai, body)
    response = await mode.complete(_request("http://fake.invalid/v1"), Credential(provider="p", key="k", id="1"), None)
    await mode.aclose()

    assert response.text == "Hi."
    assert response.usage.input_tokens == 3
    replayed = response.api_content["wire"]
    assert replayed[0] == {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"}
    assert "null" not in json.dumps(replayed)


async def test_anthropic_thinking_block_is_replayed_without_nulls() -> None:
    import anthropic

    body = _sse([
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                              "content": [], "stop_reason": None, "stop_sequence": None,
                                              "usage": {"input_tokens": 4, "output_tokens": 1,
                                                        "cache_read_input_tokens": None}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "",
                                                                       "signature": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Hmm."}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "sig"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "",
                                                                       "citations": None}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi."}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ])
    mode = load_plugin_module("anthropic").AnthropicMessagesMode({})
    mode._clients = _client_serving(anthropic, body)
    response = await mode.complete(_request("http://fake.invalid"), Credential(provider="p", key="k", id="1"), None)
    await mode.aclose()

    assert response.text == "Hi."
    assert (response.usage.input_tokens, response.usage.output_tokens) == (4, 5)
    wire = response.api_content["wire"]["content"]
    assert wire == [{"type": "thinking", "thinking": "Hmm.", "signature": "sig"}, {"type": "text", "text": "Hi."}]
