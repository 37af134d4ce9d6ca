"""The public error classifier, as a third-party API-mode author relies on it.

``talaria.classify_provider_error`` and friends turn whatever an SDK raised into the
kernel's ``ErrorKind`` (messages below are what real providers send); no server needed.
"""

from __future__ import annotations

import asyncio
import json
import time
from email.utils import formatdate

import pytest

from talaria import (
    ErrorKind,
    ProviderError,
    classify_provider_error,
    is_context_overflow,
    parse_retry_after,
    provider_error_kind,
)


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


@pytest.mark.parametrize("message", OVERFLOW_MESSAGES)
def test_context_overflow_messages_are_recognized(message) -> None:
    assert is_context_overflow(message)
    error = classify_provider_error(FakeStatusError(400, {"error": {"message": message}}), "p")
    assert error.kind is ErrorKind.CONTEXT_OVERFLOW and error.status == 400 and error.provider == "p"


def test_other_bad_requests_are_not_overflow() -> None:
    message = ("max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens "
               "for claude-sonnet-4-5")
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    assert not is_context_overflow("tools[0].name: invalid")
    assert classify_provider_error(FakeStatusError(400, body), "p").kind is ErrorKind.BAD_REQUEST


def test_openai_insufficient_quota_is_an_auth_problem() -> None:
    body = {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}
    assert classify_provider_error(FakeStatusError(429, body), "p").kind is ErrorKind.AUTH


def test_429_carries_the_servers_retry_after() -> None:
    error = classify_provider_error(FakeStatusError(429, {"error": {"message": "slow down"}},
                                                    {"retry-after": "7"}), "p")
    assert (error.kind, error.retry_after, str(error)) == (ErrorKind.RATE_LIMIT, 7.0, "rate_limit 429: slow down")


def test_error_body_as_json_text_is_read() -> None:
    body = json.dumps({"error": {"type": "overloaded_error", "message": "Overloaded"}})
    error = classify_provider_error(FakeStatusError(200, body), "p")  # an error event inside a 200 stream
    assert error.kind is ErrorKind.OVERLOADED and error.status is None


@pytest.mark.parametrize("status,kind", [
    (400, ErrorKind.BAD_REQUEST), (401, ErrorKind.AUTH), (403, ErrorKind.AUTH), (404, ErrorKind.NOT_FOUND),
    (408, ErrorKind.TIMEOUT), (413, ErrorKind.CONTEXT_OVERFLOW), (422, ErrorKind.BAD_REQUEST),
    (429, ErrorKind.RATE_LIMIT), (500, ErrorKind.SERVER), (502, ErrorKind.SERVER), (503, ErrorKind.OVERLOADED),
    (504, ErrorKind.TIMEOUT), (529, ErrorKind.OVERLOADED),
])
def test_status_alone_decides_the_kind(status, kind) -> None:
    assert provider_error_kind(status) is kind


def test_codes_decide_when_there_is_no_status() -> None:
    assert provider_error_kind(None, "overloaded_error") is ErrorKind.OVERLOADED
    assert provider_error_kind(None, "rate_limit_exceeded") is ErrorKind.RATE_LIMIT
    assert provider_error_kind(None, "context_length_exceeded") is ErrorKind.CONTEXT_OVERFLOW
    assert provider_error_kind(None, "", "prompt is too long") is ErrorKind.CONTEXT_OVERFLOW
    assert provider_error_kind(None, "something_new") is ErrorKind.SERVER


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None
    assert parse_retry_after({"retry-after": formatdate(time.time() - 60, usegmt=True)}) == 0.0
    in_ten = parse_retry_after({"retry-after": formatdate(time.time() + 10, usegmt=True)})
    assert in_ten is not None and 7 <= in_ten <= 11


def test_raw_transport_and_decode_errors() -> None:
    import httpx2

    assert classify_provider_error(httpx2.ReadTimeout("slow"), "p").kind is ErrorKind.TIMEOUT
    assert classify_provider_error(httpx2.RemoteProtocolError("peer closed"), "p").kind is ErrorKind.CONNECTION
    assert classify_provider_error(httpx2.ReadError("reset"), "p").kind is ErrorKind.CONNECTION
    assert classify_provider_error(json.JSONDecodeError("bad", "{", 0), "p").kind is ErrorKind.MALFORMED
    assert classify_provider_error(asyncio.TimeoutError(), "p").kind is ErrorKind.TIMEOUT
    assert classify_provider_error(ConnectionResetError(104, "reset"), "p").kind is ErrorKind.CONNECTION
    unknown = classify_provider_error(RuntimeError("odd"), "p")
    assert unknown.kind is ErrorKind.UNKNOWN and "RuntimeError" in str(unknown)


def test_sdk_connection_error_with_a_timeout_cause_is_a_timeout() -> None:
    class APIConnectionError(Exception):
        pass

    class TimeoutException(Exception):
        pass

    wrapped = APIConnectionError("Connection error.")
    wrapped.__cause__ = TimeoutException("read")
    assert classify_provider_error(wrapped, "p").kind is ErrorKind.TIMEOUT
    refused = APIConnectionError("Connection error.")
    refused.__cause__ = ConnectionRefusedError(111, "refused")
    error = classify_provider_error(refused, "p")
    assert error.kind is ErrorKind.CONNECTION and "ConnectionRefusedError" in str(error)


def test_a_provider_error_passes_through() -> None:
    original = ProviderError(ErrorKind.TRUNCATED, "cut", provider="p")
    assert classify_provider_error(original, "other") is original
