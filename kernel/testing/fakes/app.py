"""The fake LLM server's ASGI application (starlette routing, raw ASGI responses).

Endpoints: ``POST /v1/chat/completions``, ``POST /v1/responses``, ``POST /v1/messages``,
``GET /v1/models``, and control endpoints under ``/_fake/`` (``GET requests``,
``POST replies``, ``POST reset``, ``GET health``) for tests that run the server as a
subprocess. Responses are written with raw ASGI messages so that faults can cut a stream at
an exact frame, close it cleanly, or reset the TCP connection.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from . import wire_anthropic, wire_chat, wire_responses
from .frames import Frame
from .script import DEFAULT_TEXT, Fault, Reply

__all__ = ["FakeLLMApp", "RecordedRequest", "ReplyFunction"]

ReplyFunction = Callable[[Any], Reply]
_WIRES: dict[str, ModuleType] = {"chat": wire_chat, "responses": wire_responses,
                                 "anthropic": wire_anthropic}


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as it reached the server.

    ``received_at`` is the wall-clock time (``time.time()``) at which the request reached
    the application, ``received_perf`` the same instant on ``time.perf_counter()``.
    ``body`` is the raw request body exactly as the client sent it; the control endpoint
    reports its length as ``body_bytes`` (request-size benchmarks measure that).
    """

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    received_at: float
    received_perf: float
    wire: str = ""
    json: Any = field(default=None)

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "headers": self.headers,
                "json": self.json, "wire": self.wire, "received_at": self.received_at,
                "body_bytes": len(self.body)}


class FakeLLMApp:
    """ASGI app answering with scripted replies (FIFO), then ``reply_fn``, then a default.

    Thread-safe for the scripting side: tests queue replies and read ``requests`` from
    another thread while the server runs.
    """

    def __init__(self, replies: Iterable[Reply] = (), *, reply: ReplyFunction | None = None,
                 default: Reply | None = None) -> None:
        from starlette.routing import Route, Router

        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque(replies)
        self._requests: list[RecordedRequest] = []
        self.reply_fn = reply
        self.default = default or Reply(text=DEFAULT_TEXT)
        #: the uvicorn.Server running this app; lets connection faults reset the socket.
        self.uvicorn_server: Any = None
        self._router = Router(routes=[
            Route("/v1/chat/completions", self._endpoint("chat"), methods=["POST"]),
            Route("/chat/completions", self._endpoint("chat"), methods=["POST"]),
            Route("/v1/responses", self._endpoint("responses"), methods=["POST"]),
            Route("/responses", self._endpoint("responses"), methods=["POST"]),
            Route("/v1/messages", self._endpoint("anthropic"), methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/_fake/requests", self._control_requests, methods=["GET"]),
            Route("/_fake/replies", self._control_replies, methods=["POST"]),
            Route("/_fake/reset", self._control_reset, methods=["POST"]),
            Route("/_fake/health", self._control_health, methods=["GET"]),
        ])

    # ------------------------------------------------------------------ scripting API
    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def _next_reply(self, request_json: Any) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.reply_fn is not None:
            return self.reply_fn(request_json)
        return self.default

    # ------------------------------------------------------------------ ASGI
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await self._router(scope, receive, send)

    def _endpoint(self, wire: str) -> _RawEndpoint:
        return _RawEndpoint(self, wire)

    async def _serve(self, wire: str, scope: dict[str, Any], receive: Any, send: Any) -> None:
        wall, perf = time.time(), time.perf_counter()
        body = await _read_body(receive)
        try:
            request_json = json.loads(body or b"null")
        except ValueError:
            request_json = None
        headers: dict[str, str] = {}
        for key, value in scope.get("headers", []):
            name = key.decode("latin-1").lower()
            headers[name] = f"{headers[name]}, {value.decode('latin-1')}" if name in headers else value.decode("latin-1")
        record = RecordedRequest(method=scope["method"], path=scope["path"], headers=headers, body=body,
                                 received_at=wall, received_perf=perf, wire=wire, json=request_json)
        with self._lock:
            self._requests.append(record)
        if not isinstance(request_json, dict):
            await _send_json(send, 400, {"error": {"message": "request body is not a JSON object",
                                                   "type": "invalid_request_error"}})
            return
        reply = self._next_reply(request_json)
        module = _WIRES[wire]
        disconnected = asyncio.Event()
        watcher = asyncio.create_task(_watch_disconnect(receive, disconnected))
        try:
            if reply.delay and await _sleep(reply.delay, disconnected):
                return
            if request_json.get("stream"):
                await self._stream(module, reply, request_json, scope, send, disconnected)
            else:
                await self._respond(module, reply, request_json, scope, send, disconnected)
        finally:
            watcher.cancel()

    async def _respond(self, module: ModuleType, reply: Reply, request: dict[str, Any],
                       scope: dict[str, Any], send: Any, disconnected: asyncio.Event) -> None:
        fault = reply.fault
        if fault is not None:
            if fault.kind in ("status", "stream_error"):
                await self._send_error(module, fault, request, send)
                return
            if fault.kind in ("reset_before",):
                self._reset(scope)
                return
            if fault.kind == "stall" and await _sleep(fault.seconds, disconnected):
                return
            if fault.kind == "malformed":
                await _send_raw(send, 200, b'{"id": "broken', "application/json")
                return
            if fault.kind == "reset_mid":
                data = json.dumps(module.render_json(reply, request)).encode()
                await send({"type": "http.response.start", "status": 200, "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(data)).encode())]})
                await send({"type": "http.response.body", "body": data[: len(data) // 2], "more_body": True})
                self._reset(scope)
                return
            if fault.kind in ("truncate", "truncate_tool"):
                await _send_json(send, 200, module.render_json(reply, request, finish=False))
                return
        await _send_json(send, 200, module.render_json(reply, request))

    async def _stream(self, module: ModuleType, reply: Reply, request: dict[str, Any],
                      scope: dict[str, Any], send: Any, disconnected: asyncio.Event) -> None:
        fault = reply.fault
        if fault is not None and fault.kind == "status":
            await self._send_error(module, fault, request, send)
            return
        if fault is not None and fault.kind == "reset_before":
            self._reset(scope)
            return
        frames: list[Frame] = module.render_stream(reply, request)
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache")]})
        cut = _cut_index(frames, fault)
        for index, frame in enumerate(frames):
            if fault is not None and index == cut:
                if fault.kind in ("truncate", "truncate_tool"):
                    break  # a clean end: no finish reason, no [DONE] / message_stop
                if fault.kind == "reset_mid":
                    self._reset(scope)
                    return
                if fault.kind == "stream_error":
                    await _body(send, module.stream_error_frame(fault, request))
                    break
                if fault.kind == "stall" and await _sleep(fault.seconds, disconnected):
                    return
                if fault.kind == "malformed":
                    await _body(send, _malformed(frame.payload))
                    continue
            if reply.chunk_delay and index and await _sleep(reply.chunk_delay, disconnected):
                return
            await _body(send, frame.payload)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _send_error(self, module: ModuleType, fault: Fault, request: dict[str, Any], send: Any) -> None:
        headers: dict[str, str] = {}
        if fault.retry_after is not None:
            value = fault.retry_after
            headers["retry-after"] = str(int(value)) if float(value).is_integer() else str(value)
        if fault.retry_after_ms is not None:
            headers["retry-after-ms"] = str(fault.retry_after_ms)
        if module is wire_anthropic and fault.status in (429, 529) and "retry-after" not in headers:
            headers["x-should-retry"] = "true"
        headers.update(fault.headers)
        body = fault.body.encode() if fault.body is not None else json.dumps(
            module.error_body(fault, request)).encode()
        await _send_raw(send, fault.status, body, "application/json", headers)

    def _reset(self, scope: dict[str, Any]) -> None:
        """Reset the TCP connection of this request (RST, no response bytes after it)."""
        client = tuple(scope.get("client") or ())
        server = self.uvicorn_server
        for proto in list(getattr(getattr(server, "server_state", None), "connections", ())):
            if tuple(getattr(proto, "client", None) or ()) == client and proto.transport is not None:
                sock = proto.transport.get_extra_info("socket")
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                except (OSError, AttributeError):
                    pass
                proto.transport.abort()
                return
        raise ConnectionResetError("fake server: connection reset (uvicorn server unknown)")

    # ------------------------------------------------------------------ small endpoints
    async def _models(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        return JSONResponse({"object": "list", "data": [
            {"id": "fake-model", "object": "model", "created": 0, "owned_by": "talaria"}]})

    async def _control_requests(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        return JSONResponse([r.to_json() for r in self.requests])

    async def _control_replies(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        data = await request.json()
        items = data if isinstance(data, list) else [data]
        self.queue(*(Reply.from_json(item) for item in items))
        return JSONResponse({"queued": len(items), "pending": self.pending})

    async def _control_reset(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        self.reset()
        return JSONResponse({"ok": True})

    async def _control_health(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        return JSONResponse({"ok": True, "pending": self.pending})


class _RawEndpoint:
    """A raw ASGI endpoint (starlette passes scope/receive/send through to non-functions)."""

    def __init__(self, app: FakeLLMApp, wire: str) -> None:
        self.app, self.wire = app, wire

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await self.app._serve(self.wire, scope, receive, send)


def _cut_index(frames: list[Frame], fault: Fault | None) -> int:
    """The frame index at which a mid-stream fault acts (-1: none)."""
    if fault is None or fault.kind in ("status", "reset_before"):
        return -1
    first_finish = next((i for i, f in enumerate(frames) if f.kind == "finish"), len(frames))
    if fault.kind == "truncate_tool":
        args = [i for i, f in enumerate(frames) if f.kind == "tool_args"]
        if args:
            return args[0] + 1 if len(args) > 1 else args[0]
        return first_finish
    if fault.kind == "truncate":
        return min(fault.after, first_finish)
    return min(fault.after, len(frames) - 1)


def _malformed(payload: bytes) -> bytes:
    """Corrupt a frame's JSON while keeping the SSE framing intact."""
    lines = payload.split(b"\n")
    return b"\n".join(line[: max(6, len(line) // 2)] + b'\x7b"' if line.startswith(b"data:") else line
                      for line in lines)


async def _read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


async def _watch_disconnect(receive: Any, event: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    event.set()


async def _sleep(seconds: float, disconnected: asyncio.Event) -> bool:
    """Sleep; return True (early) when the client went away."""
    try:
        await asyncio.wait_for(disconnected.wait(), timeout=seconds)
    except (TimeoutError, asyncio.TimeoutError):
        return False
    return True


async def _body(send: Any, data: bytes) -> None:
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def _send_raw(send: Any, status: int, body: bytes, content_type: str,
                    headers: dict[str, str] | None = None) -> None:
    raw = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _send_json(send: Any, status: int, data: Any) -> None:
    await _send_raw(send, status, json.dumps(data).encode(), "application/json")
