"""The ``responses`` API mode: the OpenAI Responses API through ``openai.AsyncOpenAI``.

Stateless by default (``store: false``): the whole conversation is sent each time, and
output items that text and tool calls cannot express (reasoning with its encrypted content)
are kept in the message's ``api_content`` and replayed verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from talaria import (
    Credential,
    Delta,
    ErrorKind,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    SdkClientCache,
    Usage,
    json_plain,
    provider_error_kind,
    replay_wire,
    run_model_call,
    stall_bounded,
    tool_arguments_json,
    tool_call_from_wire,
)
from talaria import sdk_field as field

from ._sdk import new_client, post_json

__all__ = ["ResponsesMode", "build_payload", "wire_input"]

DeltaSink = Callable[[Delta], None]

NAME = "responses"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_TERMINAL = {"response.completed", "response.incomplete"}
#: how long to wait for the end of the body after the terminal event (the SDK waits as long
#: after a chat stream's ``[DONE]``).
DRAIN_SECONDS = 0.1
#: fields of output items that are per-response bookkeeping, not content to replay.
_VOLATILE_ITEM_FIELDS = ("id", "status")


def _message_wire(message: Message) -> list[dict[str, Any]]:
    stored = replay_wire(message, NAME)
    if stored is not None:
        return stored if isinstance(stored, list) else [stored]
    if message.role == "tool":
        return [{"type": "function_call_output", "call_id": message.tool_call_id or "",
                 "output": message.content}]
    items: list[dict[str, Any]] = []
    if message.content or message.role != "assistant":
        items.append({"role": message.role, "content": message.content})
    for call in message.tool_calls:
        items.append({"type": "function_call", "call_id": call.id, "name": call.name,
                      "arguments": tool_arguments_json(call)})
    return items


def wire_input(request: ModelRequest) -> list[dict[str, Any]]:
    """The ``input`` array (the system prompt travels separately as ``instructions``)."""
    items: list[dict[str, Any]] = []
    for message in request.messages:
        items.extend(_message_wire(message))
    return items


def build_payload(request: ModelRequest, *, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body for ``POST /responses`` (without ``extra_body``)."""
    config = config or {}
    payload: dict[str, Any] = {"model": request.model}
    if request.system_text:
        payload["instructions"] = request.system_text
    payload["input"] = wire_input(request)
    if request.tools:
        payload["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                             "parameters": json_plain(t.parameters), "strict": False} for t in request.tools]
    if request.max_tokens is not None:
        payload["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    store = bool(config.get("store", False))
    payload["store"] = store
    if not store and config.get("include_reasoning", True):
        payload["include"] = ["reasoning.encrypted_content"]
    if request.stream:
        payload["stream"] = True
    return payload


def _usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    details = field(raw, "input_tokens_details")
    cached = int(field(details, "cached_tokens", 0))
    written = int(field(details, "cache_write_tokens", 0))
    total_in = int(field(raw, "input_tokens", 0))
    return Usage(input_tokens=max(total_in - cached - written, 0), output_tokens=int(field(raw, "output_tokens", 0)),
                 cache_read_tokens=cached, cache_write_tokens=written,
                 reasoning_tokens=int(field(field(raw, "output_tokens_details"), "reasoning_tokens", 0)))



def _replay_item(item: dict[str, Any]) -> dict[str, Any]:
    if item.get("type") == "reasoning":
        return {k: v for k, v in item.items() if k != "status"}
    return {k: v for k, v in item.items() if k not in _VOLATILE_ITEM_FIELDS}


async def _read_to_end(events: Any) -> None:
    """Read what follows the terminal event (the end of the HTTP/1.1 body), for at most
    :data:`DRAIN_SECONDS`, so the connection goes back to the client's pool: a stream closed
    unread closes its connection, and the turn's next request would pay a new TCP and TLS
    handshake. Best effort: nothing read here changes the finished response."""
    import asyncio

    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in events:
                pass
    except Exception:  # noqa: BLE001 - the response is complete; the connection is just not reused
        pass


def _failure(request: ModelRequest, error: Any, what: str) -> ProviderError:
    code = str(field(error, "code", "") or field(error, "type", ""))
    message = str(field(error, "message", "") or what)
    return ProviderError(provider_error_kind(None, code, message), message, provider=request.provider)


class ResponsesMode:
    """``responses``: OpenAI's Responses API, streaming by default.

    Config (``[api_modes.responses]``): ``base_url``, ``store`` (default false: stateless),
    ``include_reasoning`` (ask for encrypted reasoning to replay; default true when not
    storing).
    """

    name = NAME

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})
        self._clients = SdkClientCache(new_client)

    def base_url(self, request: ModelRequest) -> str:
        return (request.base_url or self.config.get("base_url") or DEFAULT_BASE_URL).rstrip("/")

    async def complete(self, request: ModelRequest, credential: Credential,
                       on_delta: Callable[[Delta], None]) -> ModelResponse:
        """Send ``request``; raises :class:`talaria.ProviderError` for every failure."""
        return await run_model_call(request, on_delta, lambda emit: self._complete(request, credential, emit))

    async def _complete(self, request: ModelRequest, credential: Credential, emit: DeltaSink) -> ModelResponse:
        client = self._clients.get(self.base_url(request), credential)
        payload = build_payload(request, config=self.config)
        if not request.stream:
            return self._from_response(request, await post_json(client, "/responses", payload, request), [])
        stream = await post_json(client, "/responses", payload, request)
        async with stall_bounded(stream, request) as events:
            return await self._from_stream(request, events, emit)

    async def _from_stream(self, request: ModelRequest, events: Any, sink: DeltaSink) -> ModelResponse:
        done_items: list[Any] = []
        text: list[str] = []
        calls_seen = 0
        async for event in events:
            kind = field(event, "type", "")
            if kind == "response.output_text.delta":
                text.append(field(event, "delta", ""))
                sink(Delta(kind="text", text=field(event, "delta", "")))
            elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
                sink(Delta(kind="reasoning", text=field(event, "delta", "")))
            elif kind == "response.output_item.added" and field(field(event, "item"), "type") == "function_call":
                sink(Delta(kind="tool_call", index=calls_seen, name=field(field(event, "item"), "name")))
                calls_seen += 1
            elif kind == "response.output_item.done":
                done_items.append(field(event, "item"))
            elif kind in _TERMINAL:
                response = self._from_response(request, field(event, "response"), done_items, "".join(text))
                await _read_to_end(events)
                return response
            elif kind == "response.failed":
                raise _failure(request, field(field(event, "response"), "error"), "the response failed")
            elif kind == "error":
                raise _failure(request, event, "the provider reported an error mid-stream")
        raise ProviderError(ErrorKind.TRUNCATED,
                            f"stream ended before response.completed ({len(''.join(text))} chars, "
                            f"{calls_seen} tool call(s) started)", provider=request.provider)

    def _from_response(self, request: ModelRequest, response: Any, done_items: list[Any],
                       streamed_text: str = "") -> ModelResponse:
        status = field(response, "status")
        if status == "failed":
            raise _failure(request, field(response, "error"), "the response failed")
        if status not in ("completed", "incomplete"):
            raise ProviderError(ErrorKind.TRUNCATED, f"response ended with status {status!r}",
                                provider=request.provider)
        items = [json_plain(i, drop_none=True) for i in (field(response, "output") or done_items)]
        text = "".join(part.get("text", "") for item in items if item.get("type") == "message"
                       for part in item.get("content", []) if part.get("type") == "output_text")
        calls = tuple(
            tool_call_from_wire(item.get("call_id"), item.get("name", ""), item.get("arguments"), f"call_{i}")
            for i, item in enumerate(i for i in items if i.get("type") == "function_call"))
        if status == "incomplete":
            reason = field(field(response, "incomplete_details"), "reason", "")
            finish = "content_filter" if reason == "content_filter" else (
                "length" if reason == "max_output_tokens" else "other")
            raw_finish = f"incomplete:{reason}"
        else:
            finish, raw_finish = ("tool_calls" if calls else "stop"), "completed"
        needs_replay = any(item.get("type") not in ("message", "function_call") for item in items)
        api_content = {"api_mode": NAME, "wire": [_replay_item(i) for i in items]} if needs_replay else None
        return ModelResponse(text=text or streamed_text, tool_calls=calls, finish_reason=finish,
                             raw_finish_reason=raw_finish, usage=_usage(field(response, "usage")),
                             provider=request.provider, model=field(response, "model", request.model),
                             api_mode=NAME, api_content=api_content)

    async def aclose(self) -> None:
        """Close every SDK client this mode opened."""
        await self._clients.aclose()
