"""Every fault the fake server injects ends as a classified ProviderError, promptly."""

from __future__ import annotations

import time

import pytest

from talaria import ErrorKind, ProviderError
from talaria.testing.fakes import FakeToolCall, FakeUsage, Fault, Reply

pytestmark = pytest.mark.slow  # a server thread serves these tests

LONG_CALL = FakeToolCall(name="get_weather", arguments={"city": "Paris, Île-de-France, France"})

FAULTS = {
    "429 retry-after": (Reply.rate_limited(retry_after=2), ErrorKind.RATE_LIMIT),
    "500": (Reply.error(500), ErrorKind.SERVER),
    "502": (Reply.error(502), ErrorKind.SERVER),
    "529 overloaded": (Reply.overloaded(529), ErrorKind.OVERLOADED),
    "503 unavailable": (Reply.overloaded(503), ErrorKind.OVERLOADED),
    "401": (Reply.error(401, "invalid x-api-key"), ErrorKind.AUTH),
    "403": (Reply.error(403, "forbidden"), ErrorKind.AUTH),
    "404": (Reply.error(404, "model not found"), ErrorKind.NOT_FOUND),
    "400 context overflow": (Reply.context_overflow(), ErrorKind.CONTEXT_OVERFLOW),
    "400 bad request": (Reply.error(400, "tools[0].name: invalid"), ErrorKind.BAD_REQUEST),
    "422": (Reply.error(422, "unprocessable"), ErrorKind.BAD_REQUEST),
    "reset before": (Reply.faulty("reset_before"), ErrorKind.CONNECTION),
    "reset mid-stream": (Reply.faulty("reset_mid"), ErrorKind.CONNECTION),
    "truncated": (Reply.faulty("truncate"), ErrorKind.TRUNCATED),
    "truncated mid tool call": (Reply(tool_calls=[LONG_CALL], fault=Fault(kind="truncate_tool")),
                                ErrorKind.TRUNCATED),
    "malformed chunk": (Reply.faulty("malformed"), ErrorKind.MALFORMED),
}


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
@pytest.mark.parametrize("fault", list(FAULTS))
async def test_fault_is_classified(case, fake, fault, stream) -> None:
    reply, kind = FAULTS[fault]
    fake.queue(reply)
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request(stream=stream))
    assert info.value.kind is kind, str(info.value)
    assert info.value.provider == "fakeprov"
    assert isinstance(info.value.__cause__, Exception) or kind is ErrorKind.TRUNCATED
    if reply.fault.kind == "status":
        assert info.value.status == reply.fault.status


async def test_retry_after_is_read_from_the_headers(case, fake) -> None:
    fake.queue(Reply.rate_limited(retry_after=7), Reply.error(429, retry_after_ms=1500))
    with pytest.raises(ProviderError) as first:
        await case.complete(case.request())
    with pytest.raises(ProviderError) as second:
        await case.complete(case.request())
    assert first.value.retry_after == 7.0
    assert second.value.retry_after == 1.5


async def test_overloaded_error_inside_a_stream(case, fake) -> None:
    fake.queue(Reply.faulty("stream_error", status=529, error_type="overloaded_error", message="Overloaded"))
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request())
    assert info.value.kind in (ErrorKind.OVERLOADED, ErrorKind.SERVER)
    if case.name == "anthropic_messages":
        assert info.value.kind is ErrorKind.OVERLOADED


async def test_truncated_tool_call_reports_the_unfinished_call(case, fake) -> None:
    fake.queue(Reply(tool_calls=[LONG_CALL], fault=Fault(kind="truncate_tool")))
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request())
    assert info.value.kind is ErrorKind.TRUNCATED
    assert "tool call" in str(info.value)
    assert [d.name for d in case.deltas if d.kind == "tool_call"] == ["get_weather"]


async def test_stalled_stream_is_cut_after_stall_timeout(case, fake) -> None:
    await case.complete(case.request())  # warm up: SDK import and connection
    fake.queue(Reply.faulty("stall", seconds=30))
    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request(stall_timeout=1.0))
    elapsed = time.monotonic() - started
    assert info.value.kind is ErrorKind.TIMEOUT
    assert "stalled" in str(info.value)
    assert elapsed < 4.0
    assert [d.text for d in case.deltas if d.kind == "text"]  # text before the stall was delivered


async def test_slow_first_byte_hits_the_whole_call_timeout(case, fake) -> None:
    await case.complete(case.request())  # warm up
    fake.queue(Reply(text="late", delay=20))
    started = time.monotonic()
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request(stream=False, timeout=1.0))
    assert info.value.kind is ErrorKind.TIMEOUT
    assert time.monotonic() - started < 4.0


async def test_slow_stream_within_bounds_succeeds(case, fake) -> None:
    fake.queue(Reply(text="a b c d", chunk_delay=0.02, delay=0.1))
    response = await case.complete(case.request(stall_timeout=1.0))
    assert response.text == "a b c d"


async def test_connection_refused_is_a_connection_error(case) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("" if case.name == "anthropic_messages" else "/v1")
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request(base_url=base))
    assert info.value.kind is ErrorKind.CONNECTION


async def test_delta_callback_errors_propagate_unclassified(case, fake) -> None:
    class Boom(Exception):
        pass

    def explode(delta) -> None:
        raise Boom("observer bug")

    from talaria import Credential

    with pytest.raises(Boom):
        await case.mode.complete(case.request(), Credential(provider="fakeprov", key="k"), explode)


async def test_truncated_anthropic_stream_reports_the_usage_it_cost(fake) -> None:
    from .conftest import ModeCase, make_mode

    mode = make_mode("anthropic_messages")
    case = ModeCase(name="anthropic_messages", mode=mode, base_url=fake.anthropic_base_url, deltas=[])
    fake.queue(Reply(text="one two three four", usage=FakeUsage(input_tokens=40, cache_read_tokens=900),
                     fault=Fault(kind="truncate", after=4)))
    with pytest.raises(ProviderError) as info:
        await case.complete(case.request())
    await mode.aclose()
    assert info.value.kind is ErrorKind.TRUNCATED
    assert (info.value.usage.input_tokens, info.value.usage.cache_read_tokens) == (40, 900)
