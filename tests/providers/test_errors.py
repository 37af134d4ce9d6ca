"""Error classification contracts that do not need a server (messages real providers send)."""

from __future__ import annotations

import asyncio
import json
import time
from email.utils import formatdate

import pytest

from talaria import ErrorKind, ProviderError
from talaria.testing import load_plugin_module

PLUGINS = ("openai", "anthropic")


def _errors(plugin: str):
    return load_plugin_module(plugin)._errors


class FakeStatusError(Exception):
    """Shaped like the SDKs' APIStatusError: status_code, response.headers, body."""

    def __init__(self, status: int, body: object, headers: dict | None = None) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status
        self.body = body
        self.response = type("R", (), {"headers": headers or {}})()


OVERFLOW_MESSAGES = [
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    "prompt is too long: 208310 tokens > 200000 maximum",
    "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length",
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "Please reduce the length of the messages or completion.",
]


@pytest.mark.parametrize("plugin", PLUGINS)
@pytest.mark.parametrize("message", OVERFLOW_MESSAGES)
def test_context_overflow_messages_are_recognized(plugin, message) -> None:
    error = _errors(plugin).classify(FakeStatusError(400, {"error": {"message": message}}), "p")
    assert error.kind is ErrorKind.CONTEXT_OVERFLOW


@pytest.mark.parametrize("plugin", PLUGINS)
def test_other_bad_requests_are_not_overflow(plugin) -> None:
    body = {"type": "error", "error": {"type": "invalid_request_error",
                                       "message": "max_tokens: 100000 > 64000, which is the maximum allowed "
                                                  "number of output tokens for claude-sonnet-4-5"}}
    assert _errors(plugin).classify(FakeStatusError(400, body), "p").kind is ErrorKind.BAD_REQUEST


@pytest.mark.parametrize("plugin", PLUGINS)
def test_openai_insufficient_quota_is_an_auth_problem(plugin) -> None:
    body = {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}
    assert _errors(plugin).classify(FakeStatusError(429, body), "p").kind is ErrorKind.AUTH


@pytest.mark.parametrize("plugin", PLUGINS)
def test_retry_after_forms(plugin) -> None:
    parse = _errors(plugin).parse_retry_after
    assert parse({"retry-after": "3"}) == 3.0
    assert parse({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse({"retry-after": "soon"}) is None
    assert parse({}) is None
    in_ten = parse({"retry-after": formatdate(time.time() + 10, usegmt=True)})
    assert in_ten is not None and 7 <= in_ten <= 11


@pytest.mark.parametrize("plugin", PLUGINS)
def test_raw_transport_and_decode_errors(plugin) -> None:
    classify = _errors(plugin).classify
    import httpx2

    assert classify(httpx2.ReadTimeout("slow"), "p").kind is ErrorKind.TIMEOUT
    assert classify(httpx2.RemoteProtocolError("peer closed"), "p").kind is ErrorKind.CONNECTION
    assert classify(httpx2.ReadError("reset"), "p").kind is ErrorKind.CONNECTION
    assert classify(json.JSONDecodeError("bad", "{", 0), "p").kind is ErrorKind.MALFORMED
    assert classify(asyncio.TimeoutError(), "p").kind is ErrorKind.TIMEOUT
    assert classify(ConnectionResetError(104, "reset"), "p").kind is ErrorKind.CONNECTION
    unknown = classify(RuntimeError("odd"), "p")
    assert unknown.kind is ErrorKind.UNKNOWN and "RuntimeError" in str(unknown)


@pytest.mark.parametrize("plugin", PLUGINS)
def test_a_provider_error_passes_through(plugin) -> None:
    original = ProviderError(ErrorKind.TRUNCATED, "cut", provider="p")
    assert _errors(plugin).classify(original, "other") is original


def test_both_plugins_classify_identically() -> None:
    cases = [FakeStatusError(s, {"error": {"message": "x", "type": t}})
             for s in (400, 401, 403, 404, 408, 413, 422, 429, 500, 503, 529)
             for t in ("invalid_request_error", "overloaded_error", "rate_limit_error")]
    kinds = [[_errors(p).classify(c, "p").kind for c in cases] for p in PLUGINS]
    assert kinds[0] == kinds[1]
