"""Pieces the API modes of this plugin share: client cache, timeouts, stall-bounded stream
reads, argument parsing, JSON-plain conversion and the ``complete()`` error boundary.

Plugins may not import one another, so ``plugins/openai`` and ``plugins/anthropic`` each
carry this module (and ``_errors.py``); keep the two copies identical.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from talaria import Credential, Delta, ErrorKind, Message, ModelRequest, ModelResponse, ProviderError, ToolCall

from ._errors import classify

__all__ = ["END", "NO_KEY", "ClientCache", "DeltaSink", "call_boundary", "close_quietly",
           "dump_arguments", "field", "next_item", "parse_arguments", "plain", "replayed",
           "sdk_timeout", "tool_call"]

#: what :func:`next_item` returns when the stream is exhausted.
END: Any = object()
#: placeholder key for keyless endpoints (the SDK insists on one; local servers ignore it).
NO_KEY = "no-key"


class ClientCache:
    """One SDK client per (base URL, key) and event loop; ``aclose`` closes them all."""

    def __init__(self, factory: Callable[[str, str], Any]) -> None:
        self._factory = factory
        self._clients: dict[tuple[str, str, int], Any] = {}

    def get(self, base_url: str, credential: Credential) -> Any:
        loop_id = id(asyncio.get_running_loop())
        key = credential.key or NO_KEY
        for stale in [k for k in self._clients if k[2] != loop_id]:
            del self._clients[stale]  # its loop is gone: the connections cannot be reused
        cache_key = (base_url, key, loop_id)
        client = self._clients.get(cache_key)
        if client is None:
            client = self._clients[cache_key] = self._factory(base_url, key)
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            try:
                await client.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass


class _CallbackError(Exception):
    """Wraps an exception raised by ``on_delta`` so it is re-raised unclassified."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


class DeltaSink:
    """Calls ``on_delta``; its own exceptions propagate as they are (never classified)."""

    def __init__(self, on_delta: Callable[[Delta], None] | None) -> None:
        self._on_delta = on_delta

    def __call__(self, delta: Delta) -> None:
        if self._on_delta is None:
            return
        try:
            self._on_delta(delta)
        except Exception as exc:  # noqa: BLE001
            raise _CallbackError(exc) from exc


async def call_boundary(request: ModelRequest, call: Callable[[], Awaitable[ModelResponse]]) -> ModelResponse:
    """Run one model call under ``request.timeout``; every failure leaves as ProviderError."""
    try:
        async with asyncio.timeout(request.timeout):
            return await call()
    except ProviderError:
        raise
    except _CallbackError as exc:
        raise exc.original from None
    except TimeoutError as exc:
        raise ProviderError(ErrorKind.TIMEOUT, f"model call exceeded its {request.timeout:g} s bound",
                            provider=request.provider) from exc
    except Exception as exc:  # noqa: BLE001 - the contract: nothing raw escapes complete()
        raise classify(exc, request.provider) from exc


def sdk_timeout(request: ModelRequest) -> Any:
    """The SDK's per-request timeout: the whole-call bound, connecting bounded to 20 s."""
    import httpx2

    return httpx2.Timeout(request.timeout, connect=min(request.timeout, 20.0))


async def next_item(iterator: Any, stall_timeout: float, provider: str) -> Any:
    """The next stream item, or :data:`END`; silence longer than ``stall_timeout`` is TIMEOUT."""
    try:
        async with asyncio.timeout(stall_timeout):
            return await anext(iterator)
    except StopAsyncIteration:
        return END
    except TimeoutError as exc:
        raise ProviderError(ErrorKind.TIMEOUT, f"stream stalled: no data for {stall_timeout:g} s",
                            provider=provider) from exc


async def close_quietly(stream: Any) -> None:
    try:
        await stream.close()
    except Exception:  # noqa: BLE001 - the stream is being abandoned
        pass


def plain(value: Any) -> Any:
    """A JSON-plain copy: mappings become dicts, tuples lists (order preserved)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def parse_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """(arguments, raw_arguments): raw is kept only when it is not a JSON object."""
    if raw is None or not raw.strip():
        return {}, None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {}, raw
    if not isinstance(parsed, dict):
        return {}, raw
    return parsed, None


def dump_arguments(call: ToolCall) -> str:
    """The wire form of a call's arguments (what the model sent, when it was not JSON)."""
    if call.raw_arguments is not None and not call.arguments:
        return call.raw_arguments
    return json.dumps(plain(call.arguments), ensure_ascii=False, separators=(",", ":"))


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read ``name`` from an SDK model (declared or extra field) or a mapping."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        value = obj.get(name, default)
    else:
        value = getattr(obj, name, None)
        if value is None:
            extra = getattr(obj, "model_extra", None) or {}
            value = extra.get(name, default)
    return default if value is None else value


def replayed(message: Message, api_mode: str) -> Any:
    """The stored wire shape of ``message`` when it was produced by ``api_mode``, else None."""
    content = message.api_content
    if isinstance(content, Mapping) and content.get("api_mode") == api_mode and "wire" in content:
        return plain(content["wire"])
    return None


def tool_call(call_id: str | None, name: str, raw: str | None, fallback_id: str) -> ToolCall:
    arguments, raw_arguments = parse_arguments(raw)
    return ToolCall(id=call_id or fallback_id, name=name, arguments=arguments, raw_arguments=raw_arguments)
