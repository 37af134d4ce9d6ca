"""What the API modes put on the wire is what the SDK's own typed method would send.

The modes send their JSON body through the SDK client's generic ``post`` (see the plugins'
``_sdk``/``messages`` modules); these tests hold them to the request the SDK's documented
``create(...)`` builds for the same parameters: same path, same body, same headers (auth,
``anthropic-version``, ``X-Stainless-*``, the caller's own), timeouts included.
"""

from __future__ import annotations

import inspect
import json

import pytest

from talaria import Credential
from talaria.testing import load_plugin_module
from talaria.testing.fakes import Reply

from .conftest import WEATHER

pytestmark = pytest.mark.slow  # a server thread serves these tests

#: headers that legitimately differ between two otherwise identical requests.
_PER_REQUEST = {"content-length", "x-stainless-retry-count", "idempotency-key"}


def _sdk_client(case):
    if case.name == "anthropic_messages":
        import anthropic

        return anthropic.AsyncAnthropic(base_url=case.base_url, api_key="sk-wire", max_retries=0)
    import openai

    return openai.AsyncOpenAI(base_url=case.base_url, api_key="sk-wire", max_retries=0)


def _payload_and_timeout(case, request):
    if case.name == "anthropic_messages":
        plugin = load_plugin_module("anthropic")
        return plugin.wire.build_payload(request), plugin.AnthropicMessagesMode._timeout(request)
    plugin = load_plugin_module("openai")
    if case.name == "responses":
        return plugin.responses.build_payload(request), plugin._sdk.request_timeout(request)
    return plugin.chat.build_payload(request, base_url=case.mode.base_url(request)), plugin._sdk.request_timeout(request)


async def _send_with_create(case, request) -> None:
    """The same request through the SDK's typed ``create`` (the reference)."""
    payload, timeout = _payload_and_timeout(case, request)
    client = _sdk_client(case)
    resource = {"anthropic_messages": lambda: client.messages, "responses": lambda: client.responses,
                "chat_completions": lambda: client.chat.completions}[case.name]()
    known = inspect.signature(resource.create).parameters  # the rest travels as extra body
    extra = {k: payload.pop(k) for k in [k for k in payload if k not in known]}
    try:
        result = await resource.create(**payload, extra_headers=dict(request.headers),
                                       extra_body={**extra, **request.extra_body}, timeout=timeout)
        if request.stream:
            async for _ in result:
                pass
    finally:
        await client.close()


@pytest.mark.parametrize("stream", [True, False])
async def test_the_wire_request_matches_the_sdk_create_call(case, fake, stream) -> None:
    request = case.request(tools=(WEATHER,), headers={"X-Title": "Talaria"}, extra_body={"top_k": 3},
                           max_tokens=77, temperature=0.2, stream=stream)
    fake.queue(Reply(text="one"), Reply(text="two"))
    response = await case.mode.complete(request, Credential(provider="fakeprov", key="sk-wire", id="k1"), None)
    assert response.text == "one"
    ours = fake.last_request
    await _send_with_create(case, request)
    reference = fake.last_request

    assert reference is not ours
    assert ours.path == reference.path
    assert json.loads(ours.body) == json.loads(reference.body)
    assert json.loads(ours.body)["top_k"] == 3  # extra_body merged into the body
    ours_headers = {k: v for k, v in ours.headers.items() if k not in _PER_REQUEST}
    reference_headers = {k: v for k, v in reference.headers.items() if k not in _PER_REQUEST}
    assert ours_headers == reference_headers
    assert ours.headers["x-title"] == "Talaria"
