"""One MCP server's connection, supervised: connect, serve, notice a drop, back off, retry.

Contract:

- :meth:`ServerConnection.start` spawns a supervisor task that connects (bounded by
  ``connect_timeout``: spawn/connect + ``initialize`` + ``tools/list``), then holds the
  session until the server goes away (its stream ends, a keepalive ping fails, a call sees the
  connection closed) or :meth:`aclose` is called. Every failure is retried forever with
  exponential backoff (``backoff_initial`` doubling up to ``backoff_max``), reset after a
  successful connection. The state (``status`` connecting / connected / failed / stopped,
  ``last_error``, ``attempts``, tool count, timings) is readable at any time via
  :meth:`snapshot`.
- ``settled`` is set once the first attempt has ended either way (what ``ready`` waits for).
- ``notifications/tools/list_changed`` re-lists the tools; ``version`` increases whenever
  the offered tools may have changed.
- The ``mcp`` SDK is imported here lazily, on the first connect.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import talaria
from talaria import Event, Services, ToolError

from .callbacks import RateLimiter, make_callbacks
from .config import UTILITY_TOOLS, ServerConfig, child_env, expand

__all__ = ["ServerConnection", "describe_error", "import_sdk"]

log = logging.getLogger(__name__)

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_error(exc: BaseException, cfg: ServerConfig, stderr_tail: str = "") -> str:
    """A one-paragraph, actionable message for a failed connect."""
    exc = _leaf(exc)
    if isinstance(exc, FileNotFoundError) and cfg.transport == "stdio":
        text = f"command not found: {cfg.command!r} (install the server or fix `command` in [mcp.servers.{cfg.name}])"
    elif isinstance(exc, TimeoutError):
        text = f"no answer within connect_timeout = {cfg.connect_timeout:g} s"
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if text.startswith("MCPError: ") or text.startswith("ConfigError: "):
            text = text.split(": ", 1)[1]
    if cfg.transport != "stdio" and not isinstance(exc, TimeoutError):
        text += f" (url {cfg.url})"
    if stderr_tail:
        text += f"\nserver stderr (last lines):\n{stderr_tail}"
    return text


def _tail(handle: Any, lines: int = 12) -> str:
    if handle is None:
        return ""
    try:
        handle.flush()
        handle.seek(0)
        return "\n".join(handle.read()[-4000:].strip().splitlines()[-lines:])
    except (OSError, ValueError):
        return ""


def import_sdk() -> None:
    """Import the ``mcp`` SDK pieces a connection uses (seconds of CPU: call it off the loop)."""
    import mcp  # noqa: F401
    import mcp.client.stdio  # noqa: F401
    import mcp.client.streamable_http  # noqa: F401


class ServerConnection:
    """The supervised connection to one configured MCP server."""

    def __init__(
        self,
        cfg: ServerConfig,
        services: Services,
        *,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self.cfg = cfg
        self.services = services
        self.backoff_initial, self.backoff_max = backoff_initial, backoff_max
        self.on_change = on_change
        self.status = "connecting"
        self.last_error: str | None = None
        self.attempts = 0  # attempts since the last successful connection
        self.connects = 0  # successful connections so far
        self.connect_seconds: float | None = None
        self.next_retry_in: float | None = None
        self.server_info: str | None = None
        self.protocol_version: str | None = None
        self.has_resources = self.has_prompts = False
        self.tools: list[Any] = []  # MCP Tool objects that pass the filters
        self.hidden: list[str] = []  # tool names removed by the filters
        self.warnings: list[str] = []
        self.version = 0
        self.settled = asyncio.Event()
        self._stop = asyncio.Event()
        self._session: Any = None
        self._lost: Any = None
        self._tg: Any = None
        self._caps: Any = None
        self._fatal: BaseException | None = None
        self._task: asyncio.Task[None] | None = None
        self._limiter = RateLimiter(cfg.sampling.rpm)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the supervisor task (idempotent)."""
        if self._task is None:
            self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.cfg.name}")

    async def aclose(self, timeout: float = 8.0) -> None:
        """Stop retrying, close the session and wait for the server to be shut down."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), timeout)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
        self.status = "stopped"

    @property
    def connected(self) -> bool:
        return self._session is not None

    def snapshot(self) -> dict[str, Any]:
        """The queryable state of this server (JSON-able)."""
        return {
            "name": self.cfg.name,
            "transport": self.cfg.transport,
            "status": self.status,
            "last_error": self.last_error,
            "attempts": self.attempts,
            "connects": self.connects,
            "tools": len(self.tools),
            "hidden_tools": list(self.hidden),
            "resources": self.has_resources,
            "prompts": self.has_prompts,
            "connect_seconds": self.connect_seconds,
            "next_retry_in": self.next_retry_in,
            "server": self.server_info,
            "protocol_version": self.protocol_version,
            "warnings": list(self.warnings),
        }

    def _changed(self) -> None:
        self.version += 1
        try:
            self.on_change()
        except Exception:  # an observer must not break the connection
            log.exception("MCP on_change observer failed")

    def lose(self, reason: str) -> None:
        """Mark the live session as gone (it is closed and reconnected by the supervisor)."""
        if self._lost is not None and not self._lost.is_set():
            if not self._stop.is_set():
                self.last_error = reason
            self._lost.set()

    async def _supervise(self) -> None:
        delay = self.backoff_initial
        # `import mcp` costs seconds of CPU: do it off the event loop so a turn keeps moving
        try:
            await asyncio.to_thread(import_sdk)
        except Exception as exc:  # noqa: BLE001 - a missing/broken SDK is this server's state
            self.status, self.attempts = "failed", 1
            self.last_error = (f"cannot load the MCP client ({type(exc).__name__}: {exc}); "
                               "reinstall Talaria or run: pip install 'mcp>=2'")
            self.settled.set()
            self.services.emit(Event(kind="warning", data={
                "source": "mcp", "server": self.cfg.name,
                "message": f"MCP server '{self.cfg.name}' is unavailable: {self.last_error}"}))
            return
        while not self._stop.is_set():
            self.status, self.next_retry_in = "connecting", None
            self.attempts += 1
            try:
                await self._run_once()
                if self._stop.is_set():
                    break
                delay = self.backoff_initial  # it was connected: start the backoff over
                self.last_error = f"connection lost: {self.last_error or 'the server went away'}"
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # noqa: BLE001 - every failure is a state, never a crash
                if self._stop.is_set():
                    break
                self.last_error = getattr(exc, "_talaria_message", None) or describe_error(exc, self.cfg)
            finally:
                self._session = None
                self._changed()
            was_connected_or_new = self.status == "connected" or self.attempts == 1
            self.status = "failed"
            self.settled.set()
            log.info("MCP server %s: %s (retrying in %.1f s)", self.cfg.name, self.last_error, delay)
            if was_connected_or_new:  # report transitions, not every retry
                self.services.emit(Event(kind="warning", data={
                    "source": "mcp", "server": self.cfg.name,
                    "message": f"MCP server '{self.cfg.name}' is unavailable: {self.last_error}"}))
            self.next_retry_in = delay
            try:
                await asyncio.wait_for(self._stop.wait(), delay)
            except TimeoutError:
                pass
            delay = min(delay * 2, self.backoff_max)
        self.status = "stopped"
        self.settled.set()

    # ------------------------------------------------------------------ one connection

    @asynccontextmanager
    async def _transport(self, errlog: Any) -> AsyncIterator[tuple[Any, Any]]:
        cfg, ws = self.cfg, self.services.workspace
        where = f"[mcp.servers.{cfg.name}]"
        if cfg.transport == "stdio":
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            params = StdioServerParameters(
                command=expand(cfg.command or "", ws, what=f"{where}.command"),
                args=[expand(a, ws, what=f"{where}.args") for a in cfg.args],
                env=child_env({k: expand(v, ws, what=f"{where}.env.{k}") for k, v in cfg.env.items()}),
                cwd=expand(cfg.cwd, ws, what=f"{where}.cwd") if cfg.cwd else str(ws),
            )
            async with stdio_client(params, errlog=errlog) as streams:
                yield streams
            return
        url = expand(cfg.url or "", ws, what=f"{where}.url")
        headers = {k: expand(v, ws, what=f"{where}.headers.{k}") for k, v in cfg.headers.items()}
        if cfg.transport == "sse":
            from mcp.client.sse import sse_client

            async with sse_client(url, headers=headers, timeout=cfg.connect_timeout,
                                  sse_read_timeout=max(300.0, cfg.timeout)) as streams:
                yield streams
            return
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        timeout = httpx2.Timeout(cfg.connect_timeout, read=max(300.0, cfg.timeout))
        async with httpx2.AsyncClient(headers=headers, timeout=timeout) as client:
            async with streamable_http_client(url, http_client=client) as streams:
                yield streams

    async def _run_once(self) -> None:
        import anyio
        import mcp_types as types
        from mcp import ClientSession

        started = time.monotonic()
        connected = anyio.Event()
        self._lost = lost = anyio.Event()
        timed_out = False
        self._fatal = None
        errlog = tempfile.TemporaryFile("w+") if self.cfg.transport == "stdio" else None
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg

                async def watchdog() -> None:
                    nonlocal timed_out
                    with anyio.move_on_after(self.cfg.connect_timeout):
                        await connected.wait()
                        return
                    timed_out = True
                    tg.cancel_scope.cancel()

                async def stopper() -> None:
                    await self._stop.wait()
                    tg.cancel_scope.cancel()

                tg.start_soon(watchdog)
                tg.start_soon(stopper)
                async with self._transport(errlog) as (read, write):
                    send, receive = anyio.create_memory_object_stream[Any](0)

                    async def pump() -> None:  # forwards the transport, noticing when it ends
                        try:
                            async with send:
                                async for item in read:
                                    await send.send(item)
                        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                            pass
                        finally:
                            self.lose("the server closed the connection")

                    tg.start_soon(pump)
                    async with ClientSession(
                        receive, write,
                        client_info=types.Implementation(name="talaria", version=talaria.__version__),
                        message_handler=self._on_message,
                        **make_callbacks(self.cfg, self.services, self._limiter),
                    ) as session:
                        init = await session.initialize()
                        self._caps = init.capabilities
                        self._absorb(await self._list_tools(session))
                        await self._probe_extras(session)
                        info = init.server_info
                        self.server_info = f"{info.name} {info.version or ''}".strip() if info else None
                        self.protocol_version = init.protocol_version
                        self.connect_seconds = round(time.monotonic() - started, 3)
                        self._session = session
                        self.status, self.last_error, self.attempts = "connected", None, 0
                        self.connects += 1
                        connected.set()
                        self.settled.set()
                        self._changed()
                        tg.start_soon(self._keepalive, session)
                        await lost.wait()
                        self._session = None
                tg.cancel_scope.cancel()
        except BaseException as exc:
            if not isinstance(exc, asyncio.CancelledError) and not timed_out:
                exc._talaria_message = describe_error(exc, self.cfg, _tail(errlog))  # type: ignore[attr-defined]
                raise
            if not timed_out:
                raise
        finally:
            self._tg = None
            self._session = None
            if errlog is not None:
                tail = _tail(errlog)
                errlog.close()
            else:
                tail = ""
        if self._fatal is not None:
            fatal = ConnectionError(describe_error(self._fatal, self.cfg, tail))
            fatal._talaria_message = str(fatal)  # type: ignore[attr-defined]
            raise fatal
        if timed_out:
            raise TimeoutError(describe_error(TimeoutError(), self.cfg, tail))

    async def _keepalive(self, session: Any) -> None:
        import anyio

        while True:
            await anyio.sleep(self.cfg.keepalive)
            try:
                with anyio.fail_after(min(30.0, self.cfg.keepalive)):
                    await session.send_ping()
            except Exception as exc:  # noqa: BLE001
                self.lose(f"keepalive ping failed: {describe_error(exc, self.cfg)}")
                return

    async def _list_tools(self, session: Any) -> list[Any]:
        import mcp_types as types

        tools: list[Any] = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            tools.extend(result.tools)
            cursor = result.next_cursor
            if not cursor:
                return tools

    async def _probe_extras(self, session: Any) -> None:
        """Offer resource/prompt utility tools only when the server has some (prompt economy)."""
        caps = self._caps
        has_resources = has_prompts = False
        try:
            if caps is not None and caps.resources is not None and self.cfg.resources:
                has_resources = bool((await session.list_resources()).resources)
                if not has_resources:
                    has_resources = bool((await session.list_resource_templates()).resource_templates)
        except Exception as exc:  # noqa: BLE001 - an optional feature
            log.info("MCP server %s: listing resources failed: %s", self.cfg.name, exc)
        try:
            if caps is not None and caps.prompts is not None and self.cfg.prompts:
                has_prompts = bool((await session.list_prompts()).prompts)
        except Exception as exc:  # noqa: BLE001
            log.info("MCP server %s: listing prompts failed: %s", self.cfg.name, exc)
        self.has_resources, self.has_prompts = has_resources, has_prompts

    def _absorb(self, tools: list[Any]) -> None:
        self.tools = [t for t in tools if self.cfg.wants_tool(t.name)]
        self.hidden = sorted(t.name for t in tools if not self.cfg.wants_tool(t.name))
        missing = sorted(set(self.cfg.include) - {t.name for t in tools} - set(UTILITY_TOOLS))
        self.warnings = [f"include names unknown tools: {missing}"] if missing else []

    async def _refresh_tools(self) -> None:
        session = self._session
        if session is None:
            return
        try:
            self._absorb(await self._list_tools(session))
            await self._probe_extras(session)
            self._changed()
        except Exception as exc:  # noqa: BLE001
            log.warning("MCP server %s: refreshing tools failed: %s", self.cfg.name, exc)

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            log.debug("MCP server %s transport error: %s", self.cfg.name, message)
            if self._session is None and self._tg is not None and self._fatal is None:
                self._fatal = message  # e.g. HTTP 401/404 while connecting: fail now, not at the timeout
                self._tg.cancel_scope.cancel()
            return
        method = getattr(message, "method", "")
        if method.endswith("/list_changed") and method != "notifications/roots/list_changed" and self._tg is not None:
            self._tg.start_soon(self._refresh_tools)

    # ------------------------------------------------------------------ requests

    def _require_session(self) -> Any:
        session = self._session
        if session is None:
            detail = f": {self.last_error}" if self.last_error else ""
            raise ToolError(f"MCP server '{self.cfg.name}' is not connected ({self.status}{detail}); "
                            "it is being retried in the background, try again later")
        return session

    def _tool_error(self, what: str, exc: BaseException) -> ToolError:
        exc = _leaf(exc)
        code = getattr(exc, "code", None)
        if code == _CONNECTION_CLOSED:
            self.lose("connection closed during a request")
            return ToolError(f"MCP server '{self.cfg.name}' closed the connection during {what}; "
                             "it is being reconnected, try again")
        if code == _REQUEST_TIMEOUT or isinstance(exc, TimeoutError):
            return ToolError(f"MCP server '{self.cfg.name}' did not answer {what} within {self.cfg.timeout:g} s")
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        return ToolError(f"MCP server '{self.cfg.name}' failed {what}: {message}")

    async def call_tool(self, tool: str, arguments: Mapping[str, Any], progress: Any = None) -> Any:
        """Call ``tool``; return the ``CallToolResult``; raise ToolError on transport failures."""
        session = self._require_session()
        try:
            return await session.call_tool(tool, dict(arguments), read_timeout_seconds=self.cfg.timeout,
                                           progress_callback=progress)
        except Exception as exc:  # noqa: BLE001
            raise self._tool_error(f"tool {tool!r}", exc) from exc

    async def request(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a ``ClientSession`` method (``list_resources``, ``get_prompt``…) bounded by ``timeout``."""
        session = self._require_session()
        try:
            return await asyncio.wait_for(getattr(session, method)(*args, **kwargs), self.cfg.timeout)
        except Exception as exc:  # noqa: BLE001
            raise self._tool_error(method, exc) from exc
