"""Consecutive calls of one API mode reuse one HTTP connection.

A turn with tool calls makes several requests in a row; each new connection to a real
provider costs a TCP and TLS handshake. A stream the mode stops reading early (Responses ends
at ``response.completed``) must still leave its connection reusable. The server here is a
bare loopback HTTP/1.1 server that counts the connections it accepts and serves each request
the fake LLM server's SSE frames, chunked, with keep-alive.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from talaria import Credential, Message, ModelRequest
from talaria.testing.fakes import Reply, wire_anthropic, wire_chat, wire_responses

from .conftest import make_mode

pytestmark = pytest.mark.slow  # a loopback server serves these tests

_WIRES = {"chat_completions": wire_chat, "responses": wire_responses, "anthropic_messages": wire_anthropic}


class _KeepAliveServer:
    def __init__(self, wire: Any) -> None:
        self.wire = wire
        self.connections = 0
        self.requests = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                body = json.loads(await reader.readexactly(length))
                self.requests += 1
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n")
                for frame in self.wire.render_stream(Reply(text="Hello there."), body):
                    writer.write(b"%x\r\n%s\r\n" % (len(frame.payload), frame.payload))
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.mark.parametrize("name", sorted(_WIRES))
async def test_consecutive_streamed_calls_share_one_connection(name) -> None:
    server = _KeepAliveServer(_WIRES[name])
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{port}" + ("" if name == "anthropic_messages" else "/v1")
    mode = make_mode(name)
    try:
        for _ in range(3):
            request = ModelRequest(provider="p", model="m", base_url=base, timeout=20.0, stall_timeout=5.0,
                                   messages=(Message(role="user", content="hi"),))
            response = await mode.complete(request, Credential(provider="p", key="k", id="1"), None)
            assert response.text == "Hello there."
    finally:
        await mode.aclose()
        listener.close()
        await listener.wait_closed()
    assert server.requests == 3
    assert server.connections == 1
