"""Building blocks for API modes (public API): the call boundary, stall-bounded streams,
SDK client reuse and the small conversions every wire format needs.

An API mode's ``complete(request, credential, on_delta)`` must bound the call by
``request.timeout``, cut a stream that is silent for ``request.stall_timeout``, raise only
:class:`talaria.ProviderError` for provider failures, and let exceptions from ``on_delta``
(the caller's own bug) through unchanged. These helpers do exactly that, for any SDK::

    async def complete(self, request, credential, on_delta):
        return await run_model_call(request, on_delta, lambda emit: self._call(request, credential, emit))

    async def _call(self, request, credential, emit):
        client = self._clients.get(request.base_url, credential)
        stream = await client.create(...)
        async with stall_bounded(stream, request) as chunks:
            async for chunk in chunks:
                emit(Delta(kind="text", text=sdk_field(chunk, "text", "")))
        ...

Nothing here imports an SDK, nor ``asyncio`` until a call runs (plugins import these
helpers at load time, also for commands that never call a model).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from talaria import Credential, Delta, ErrorKind, Message, ModelRequest, ModelResponse, ProviderError, ToolCall

from .classify import classify_provider_error

__all__ = ["NO_KEY", "SdkClientCache", "json_plain", "parse_tool_arguments", "plaintext_client_options",
           "replay_wire", "run_model_call", "sdk_field", "sdk_post", "stall_bounded", "tool_arguments_json",
           "tool_call_from_wire"]

#: the key given to an SDK for a keyless endpoint (the SDKs insist on one; local servers ignore it).
NO_KEY = "no-key"

DeltaSink = Callable[[Delta], None]


class SdkClientCache:
    """One SDK client per (base URL, key) and event loop, made by ``factory(base_url, key)``.

    Reusing the client keeps its connection pool warm across calls. Clients of an event
    loop that is gone are dropped (their connections cannot be reused); ``aclose()`` closes
    every client (best effort: it awaits each client's ``close()``).
    """

    def __init__(self, factory: Callable[[str, str], Any]) -> None:
        self._factory = factory
        self._clients: dict[tuple[str, str, int], Any] = {}

    def get(self, base_url: str, credential: Credential) -> Any:
        """The client for ``base_url`` and the credential's key (:data:`NO_KEY` when it has none)."""
        import asyncio

        loop_id = id(asyncio.get_running_loop())
        key = credential.key or NO_KEY
        for stale in [k for k in self._clients if k[2] != loop_id]:
            del self._clients[stale]
        cache_key = (base_url, key, loop_id)
        client = self._clients.get(cache_key)
        if client is None:
            _warm_platform_caches()
            client = self._clients[cache_key] = self._factory(base_url, key)
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            try:
                await client.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass


def plaintext_client_options(sdk: Any, base_url: str) -> dict[str, Any]:
    """Extra client arguments for a Stainless-style SDK (``openai``, ``anthropic``) at ``base_url``.

    A plaintext ``http://`` endpoint (a local server: Ollama, LM Studio, vLLM…) never
    negotiates TLS, so its client skips loading the CA bundle (tens of milliseconds on the way
    to the first request) and does not follow redirects — a redirect to ``https://`` fails
    loudly instead of being followed without certificate checks. Other URLs: ``{}``.
    """
    if not base_url.lower().startswith("http://"):
        return {}
    return {"http_client": sdk.DefaultAsyncHttpxClient(verify=False, follow_redirects=False)}


async def sdk_post(sdk: Any, client: Any, path: str, payload: dict[str, Any], request: ModelRequest, *,
                   timeout: Any, options: dict[str, Any] | None = None) -> Any:
    """``POST path`` through a Stainless-style SDK client's generic ``post`` (``openai``,
    ``anthropic``), with ``payload`` — the body the API mode built — as the JSON body.

    The SDK still does the transport, its auth and ``X-Stainless-*`` headers, the timeout
    (``timeout``: the SDK's own timeout object), its error classes and SSE parsing (error
    events raise); skipped are the resource modules, the body's re-walk against the SDK's
    TypedDicts and a typed model per event: the answer is the decoded JSON object or, when
    ``payload["stream"]`` is true, an ``sdk.AsyncStream`` of decoded JSON events.
    ``request.headers`` go out as extra headers and ``request.extra_body`` is merged into the
    body (its keys win), as the SDKs' ``extra_headers``/``extra_body`` do. ``options``: more
    request options (e.g. ``{"security": {"bearer_auth": True}}`` for ``openai``).
    """
    merged: dict[str, Any] = {"timeout": timeout, **(options or {})}
    if request.headers:
        merged["headers"] = dict(request.headers)
    if request.extra_body:
        merged["extra_json"] = json_plain(request.extra_body)
    if payload.get("stream"):
        return await client.post(path, body=payload, options=merged, cast_to=object, stream=True,
                                 stream_cls=sdk.AsyncStream[object])
    return await client.post(path, body=payload, options=merged, cast_to=object)


_PLATFORM_WARMING: list[Any] = []


def _warm_platform_caches() -> None:
    """Once per process, fill :mod:`platform`'s caches in a background thread.

    The SDKs describe the platform in their request headers (``platform.platform()`` and
    the os-release file; it may run ``uname`` as a subprocess) right before the first
    request. Done here, while the factory imports the SDK, that file and process I/O
    overlaps the import instead of delaying the first request.
    """
    if _PLATFORM_WARMING:
        return
    import threading

    def warm() -> None:
        import platform

        try:
            platform.system()
            platform.platform()
            platform.freedesktop_os_release()
        except Exception:  # noqa: BLE001 - only a cache warm-up; the SDK copes on its own
            pass

    thread = threading.Thread(target=warm, name="talaria-platform-warm-up", daemon=True)
    _PLATFORM_WARMING.append(thread)
    thread.start()


class _ObserverError(Exception):
    """Carries an exception raised by ``on_delta`` through the classification boundary."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


async def run_model_call(request: ModelRequest, on_delta: DeltaSink | None,
                         call: Callable[[DeltaSink], Awaitable[ModelResponse]]) -> ModelResponse:
    """Run ``call(emit)`` as one model call, the way the kernel's policy expects.

    - the whole call is bounded by ``request.timeout`` (→ ``ProviderError`` TIMEOUT);
    - ``emit(delta)`` forwards to ``on_delta`` (``None``: deltas are dropped); an exception
      raised by ``on_delta`` propagates unchanged, never classified as a provider failure;
    - any other exception leaves as a classified :class:`ProviderError` (see
      :func:`talaria.classify_provider_error`), chained to the original.
    """

    import asyncio

    def emit(delta: Delta) -> None:
        if on_delta is None:
            return
        try:
            on_delta(delta)
        except Exception as exc:  # noqa: BLE001
            raise _ObserverError(exc) from exc

    try:
        async with asyncio.timeout(request.timeout):
            return await call(emit)
    except ProviderError:
        raise
    except _ObserverError as exc:
        raise exc.original from None
    except TimeoutError as exc:
        raise ProviderError(ErrorKind.TIMEOUT, f"model call exceeded its {request.timeout:g} s bound",
                            provider=request.provider) from exc
    except Exception as exc:  # noqa: BLE001 - the contract: nothing raw escapes complete()
        raise classify_provider_error(exc, request.provider) from exc


class _StallBounded:
    """See :func:`stall_bounded`."""

    def __init__(self, stream: Any, request: ModelRequest) -> None:
        self._stream = stream
        self._iterator = stream.__aiter__()
        self._request = request

    def __aiter__(self) -> _StallBounded:
        return self

    async def __anext__(self) -> Any:
        import asyncio

        seconds = self._request.stall_timeout
        try:
            async with asyncio.timeout(seconds):
                return await anext(self._iterator)
        except TimeoutError as exc:
            raise ProviderError(ErrorKind.TIMEOUT, f"stream stalled: no data for {seconds:g} s",
                                provider=self._request.provider) from exc

    async def __aenter__(self) -> _StallBounded:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            try:
                await close()
            except Exception:  # noqa: BLE001 - the stream is being abandoned
                pass


def stall_bounded(stream: Any, request: ModelRequest) -> _StallBounded:
    """Iterate an async SDK stream; silence longer than ``request.stall_timeout`` between two
    items raises ``ProviderError`` TIMEOUT ("stream stalled").

    Use it as a context manager so the stream is closed however the iteration ends::

        async with stall_bounded(stream, request) as chunks:
            async for chunk in chunks:
                ...
    """
    return _StallBounded(stream, request)


def json_plain(value: Any, *, drop_none: bool = False) -> Any:
    """A JSON-plain copy: mappings become dicts with str keys, tuples lists (order kept).

    :param drop_none: also leave out mapping entries whose value is None, at every depth
        (for a decoded item replayed to an API that treats absent and null alike but
        rejects some nulls).
    """
    if isinstance(value, Mapping):
        return {str(k): json_plain(v, drop_none=drop_none) for k, v in value.items()
                if not (drop_none and v is None)}
    if isinstance(value, (list, tuple)):
        return [json_plain(v, drop_none=drop_none) for v in value]
    return value


def sdk_field(obj: Any, name: str, default: Any = None) -> Any:
    """``name`` of an SDK model (a declared field or a pydantic extra) or of a mapping;
    ``default`` when ``obj`` is None or the value is missing or None."""
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


def parse_tool_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """``(arguments, raw_arguments)`` from the model's argument string.

    A JSON object gives ``(object, None)``; empty gives ``({}, None)``; anything else
    (broken JSON, a JSON list) gives ``({}, raw)`` so the text the model sent is kept and
    the kernel can answer the call with an error instead of inventing arguments.
    """
    if raw is None or not raw.strip():
        return {}, None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return {}, raw
    if not isinstance(parsed, dict):
        return {}, raw
    return parsed, None


def tool_call_from_wire(call_id: str | None, name: str, raw_arguments: str | None, fallback_id: str) -> ToolCall:
    """A :class:`ToolCall` from its wire parts (``fallback_id`` when the provider sent no id)."""
    arguments, raw = parse_tool_arguments(raw_arguments)
    return ToolCall(id=call_id or fallback_id, name=name, arguments=arguments, raw_arguments=raw)


def tool_arguments_json(call: ToolCall) -> str:
    """The wire form of a call's arguments: compact JSON, or the model's own text when it
    was not a JSON object (so a replayed transcript shows what the model really sent)."""
    if call.raw_arguments is not None and not call.arguments:
        return call.raw_arguments
    return json.dumps(json_plain(call.arguments), ensure_ascii=False, separators=(",", ":"))


def replay_wire(message: Message, api_mode: str) -> Any:
    """The stored wire shape of ``message`` if ``api_mode`` produced it, else ``None``.

    API modes store what text and tool calls cannot express (reasoning items, thinking
    blocks with signatures) as ``api_content = {"api_mode": NAME, "wire": …}`` on the
    response; replaying it verbatim to the same mode keeps the provider's cache and
    reasoning state valid. Another mode's shape is ignored (the mode rebuilds from content).
    """
    content = message.api_content
    if isinstance(content, Mapping) and content.get("api_mode") == api_mode and "wire" in content:
        return json_plain(content["wire"])
    return None
