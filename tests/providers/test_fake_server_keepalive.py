"""The fake LLM server answers on a reused keep-alive connection without stalling.

A tool loop sends several requests over one connection. Each reply must reach the client as
soon as the server writes it: the body (a streamed reply's first SSE frame, or a JSON body)
must not lag the response headers. Without ``TCP_NODELAY`` on the accepted socket, Nagle's
algorithm holds the body until the client's delayed ACK of the headers (~40 ms on Linux) —
on every request after the first on a connection. The bound below is generous (the fixed
server takes well under a millisecond) so a loaded machine does not make it flaky.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from typing import Any

import httpx2
import pytest

from talaria.testing.fakes import FakeLLMServer

pytestmark = pytest.mark.slow  # a loopback server serves these tests

_BOUND_MS = 20.0
_MEASURED = 7  # requests measured after the one that opens the connection

_REQUESTS = {
    "chat": ("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
    "responses": ("/v1/responses", {"model": "m", "input": "hi"}),
    "anthropic": ("/v1/messages", {"model": "m", "max_tokens": 16,
                                   "messages": [{"role": "user", "content": "hi"}]}),
}


def _body_lags(base_url: str, path: str, body: dict[str, Any]) -> tuple[list[float], set[Any]]:
    """Per request on one connection: ms between the headers and the first body bytes.

    Returns the lags of the requests after the first, and the client addresses used (one
    address = one reused connection).
    """
    lags: list[float] = []
    addresses: set[Any] = set()
    with httpx2.Client(timeout=10.0) as client:
        for index in range(_MEASURED + 1):
            with client.stream("POST", base_url + path, json=body) as response:
                assert response.status_code == 200
                headers_at = time.perf_counter()
                chunks = response.iter_raw()
                first = next(chunks)
                lag = (time.perf_counter() - headers_at) * 1000
                rest = b"".join(chunks)
                addresses.add(response.extensions["network_stream"].get_extra_info("client_addr"))
            assert first + rest  # a whole reply arrived
            if index:
                lags.append(lag)
    return lags, addresses


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "json"])
@pytest.mark.parametrize("wire", sorted(_REQUESTS))
def test_reused_connection_gets_the_body_right_after_the_headers(wire: str, stream: bool) -> None:
    path, body = _REQUESTS[wire]
    with FakeLLMServer() as srv:
        lags, addresses = _body_lags(srv.base_url, path, {**body, "stream": stream})
        assert len(srv.requests) == _MEASURED + 1
    assert len(addresses) == 1, "the client should have reused its one connection"
    assert statistics.median(lags) < _BOUND_MS, f"body lagged the headers by {lags} ms"


def test_standalone_server_streams_without_stall_on_a_reused_connection() -> None:
    """``python -m talaria.testing.fakes`` (what the benchmarks start) behaves the same."""
    proc = subprocess.Popen([sys.executable, "-m", "talaria.testing.fakes", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert "listening on" in line, line
        path, body = _REQUESTS["chat"]
        lags, addresses = _body_lags(line.rsplit(" ", 1)[-1], path, {**body, "stream": True})
    finally:
        proc.terminate()
        proc.wait(10)
    assert len(addresses) == 1, "the client should have reused its one connection"
    assert statistics.median(lags) < _BOUND_MS, f"first SSE frame lagged the headers by {lags} ms"
