"""Run the fake LLM app with uvicorn: in a background thread (tests) or in the foreground."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any

from .app import FakeLLMApp, RecordedRequest, ReplyFunction
from .script import Reply

__all__ = ["FakeLLMServer", "bind_socket", "make_uvicorn_server"]


def bind_socket(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (port 0 picks a free one).

    Every connection accepted on it has ``TCP_NODELAY`` set, so a streamed reply's frames
    leave as soon as the app sends them. asyncio sets it only on sockets whose ``proto`` is
    ``IPPROTO_TCP`` -- a socket made with proto 0 (the default), and every connection
    accepted on it, would keep Nagle's algorithm on: on a reused keep-alive connection the
    first SSE frame then waits for the client's delayed ACK of the headers (~40 ms).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this on Linux; the proto above makes asyncio set it anyway.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    return sock


def make_uvicorn_server(app: FakeLLMApp) -> Any:
    """A quiet ``uvicorn.Server`` for ``app``; the app learns it (for connection resets)."""
    import uvicorn

    config = uvicorn.Config(app, log_level="critical", access_log=False, lifespan="off",
                            timeout_graceful_shutdown=1, timeout_keep_alive=5)
    server = uvicorn.Server(config)
    app.uvicorn_server = server
    return server


class FakeLLMServer:
    """A local fake of the OpenAI and Anthropic APIs on a free loopback port.

    ::

        with FakeLLMServer([Reply(text="hi")]) as srv:
            client = openai.AsyncOpenAI(base_url=srv.openai_base_url, api_key="x")
            ...
            assert srv.requests[0].json["model"] == "gpt-4.1"

    Replies are served first from the FIFO queue (:meth:`queue`), then from ``reply`` (a
    callable receiving the request JSON), then ``default`` (a short text reply). Every
    request is recorded in :attr:`requests`.
    """

    def __init__(self, replies: Iterable[Reply] = (), *, reply: ReplyFunction | None = None,
                 default: Reply | None = None, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = FakeLLMApp(replies, reply=reply, default=default)
        self.host = host
        self._port = port
        self._server: Any = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self, timeout: float = 10.0) -> FakeLLMServer:
        """Start serving in a daemon thread; returns once the socket accepts connections."""
        if self._thread is not None:
            return self
        sock = bind_socket(self.host, self._port)
        self._port = sock.getsockname()[1]
        self._server = make_uvicorn_server(self.app)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                        name=f"fake-llm-{self._port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"fake LLM server did not start on {self.host}:{self._port}")
            time.sleep(0.005)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server and wait for its thread (open streams are cut)."""
        if self._thread is None:
            return
        self._server.should_exit = True
        self._thread.join(timeout)
        self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    # ------------------------------------------------------------------ addresses
    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://{self.host}:{self._port}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for the OpenAI SDK (``…/v1``)."""
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """Base URL for the Anthropic SDK (it appends ``/v1/messages`` itself)."""
        return self.base_url

    # ------------------------------------------------------------------ scripting
    def queue(self, *replies: Reply) -> None:
        """Append replies to the FIFO queue."""
        self.app.queue(*replies)

    def reset(self) -> None:
        """Forget queued replies and recorded requests."""
        self.app.reset()

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first."""
        return self.app.requests

    @property
    def last_request(self) -> RecordedRequest:
        requests = self.app.requests
        if not requests:
            raise AssertionError("the fake LLM server has received no request")
        return requests[-1]

    @property
    def first_request_at(self) -> float | None:
        """Wall-clock time (``time.time()``) the first request arrived, or None."""
        requests = self.app.requests
        return requests[0].received_at if requests else None
