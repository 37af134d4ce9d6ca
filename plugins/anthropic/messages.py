"""The ``anthropic_messages`` API mode: Anthropic Messages through ``anthropic.AsyncAnthropic``."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from talaria import (
    Credential,
    Delta,
    ErrorKind,
    ModelRequest,
    ModelResponse,
    ProviderError,
    SdkClientCache,
    Usage,
    json_plain,
    parse_tool_arguments,
    plaintext_client_options,
    run_model_call,
    sdk_post,
    stall_bounded,
    tool_call_from_wire,
)
from talaria import sdk_field as field

from .wire import NAME, build_payload

__all__ = ["AnthropicMessagesMode"]

DeltaSink = Callable[[Delta], None]

DEFAULT_BASE_URL = "https://api.anthropic.com"
_STOP = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
         "model_context_window_exceeded": "length", "refusal": "content_filter"}
_PLAIN_BLOCKS = ("text", "tool_use")
#: seconds allowed to open a connection (the whole call is bounded by ``request.timeout``).
CONNECT_TIMEOUT = 20.0



class _Usage:
    """Usage numbers as they arrive (message_start, then cumulative message_delta)."""

    def __init__(self) -> None:
        self.numbers = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
                        "cache_creation_input_tokens": 0}

    def update(self, raw: Any) -> None:
        for key in self.numbers:
            value = field(raw, key)
            if value is not None:
                self.numbers[key] = int(value)

    def usage(self) -> Usage:
        n = self.numbers
        return Usage(input_tokens=n["input_tokens"], output_tokens=n["output_tokens"],
                     cache_read_tokens=n["cache_read_input_tokens"],
                     cache_write_tokens=n["cache_creation_input_tokens"])


def _response(request: ModelRequest, blocks: list[dict[str, Any]], stop_reason: str | None,
              usage: Usage, model: str) -> ModelResponse:
    """Normalize finished content blocks (tool_use inputs already parsed or kept raw)."""
    text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    calls = tuple(tool_call_from_wire(b.get("id"), b.get("name", ""), b.get("_raw"), f"toolu_{i}")
                  for i, b in enumerate(b for b in blocks if b.get("type") == "tool_use"))
    finish = _STOP.get(stop_reason or "", "other")
    wire = [{k: v for k, v in b.items() if not k.startswith("_")} for b in blocks]
    needs_replay = any(b.get("type") not in _PLAIN_BLOCKS for b in wire)
    api_content = {"api_mode": NAME, "wire": {"role": "assistant", "content": wire}} if needs_replay else None
    return ModelResponse(text=text, tool_calls=calls, finish_reason=finish, raw_finish_reason=stop_reason,
                         usage=usage, provider=request.provider, model=model, api_mode=NAME,
                         api_content=api_content)


class AnthropicMessagesMode:
    """``anthropic_messages``: streaming by default, prompt-cache breakpoints on the prefix.

    Config (``[api_modes.anthropic_messages]``): ``base_url``, ``max_tokens`` (used when the
    request sets none; default 8192), ``prompt_caching`` (default true).
    """

    name = NAME

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})
        self._clients = SdkClientCache(self._new_client)

    @staticmethod
    def _new_client(base_url: str, key: str) -> Any:
        """A plaintext ``http://`` endpoint: see :func:`talaria.plaintext_client_options`."""
        import anthropic

        return anthropic.AsyncAnthropic(base_url=base_url, api_key=key, max_retries=0,
                                        **plaintext_client_options(anthropic, base_url))

    @staticmethod
    def _timeout(request: ModelRequest) -> Any:
        import anthropic  # already imported by the client: a dict lookup

        return anthropic.Timeout(request.timeout, connect=min(request.timeout, CONNECT_TIMEOUT))

    def base_url(self, request: ModelRequest) -> str:
        """The SDK appends ``/v1/messages`` itself: a trailing ``/v1`` is dropped."""
        url = (request.base_url or self.config.get("base_url") or DEFAULT_BASE_URL).rstrip("/")
        return url[: -len("/v1")] if url.endswith("/v1") else url

    async def complete(self, request: ModelRequest, credential: Credential,
                       on_delta: Callable[[Delta], None]) -> ModelResponse:
        """Send ``request``; raises :class:`talaria.ProviderError` for every failure."""
        return await run_model_call(request, on_delta, lambda emit: self._complete(request, credential, emit))

    async def _complete(self, request: ModelRequest, credential: Credential, emit: DeltaSink) -> ModelResponse:
        client = self._clients.get(self.base_url(request), credential)
        payload = build_payload(request, config=self.config)
        if not request.stream:
            return self._from_message(request, await self._post(client, payload, request))
        stream = await self._post(client, payload, request)
        async with stall_bounded(stream, request) as events:
            return await self._from_stream(request, events, emit)

    @classmethod
    async def _post(cls, client: Any, payload: dict[str, Any], request: ModelRequest) -> Any:
        """``POST /v1/messages`` with the body as built, through :func:`talaria.sdk_post` (the SDK
        still adds ``x-api-key``/``anthropic-version``; ``ping`` events are skipped by its parser)."""
        import anthropic  # already imported by the client: a dict lookup

        return await sdk_post(anthropic, client, "/v1/messages", payload, request, timeout=cls._timeout(request))

    def _from_message(self, request: ModelRequest, message: Any) -> ModelResponse:
        stop_reason = field(message, "stop_reason")
        if stop_reason is None:
            raise ProviderError(ErrorKind.TRUNCATED, "message has no stop_reason", provider=request.provider)
        blocks = []
        for block in field(message, "content") or []:
            data = json_plain(block, drop_none=True)
            if data.get("type") == "tool_use":
                data["_raw"] = json.dumps(data.get("input", {}), ensure_ascii=False, separators=(",", ":"))
            blocks.append(data)
        usage = _Usage()
        usage.update(field(message, "usage"))
        return _response(request, blocks, stop_reason, usage.usage(), field(message, "model", request.model))

    async def _from_stream(self, request: ModelRequest, events: Any, sink: DeltaSink) -> ModelResponse:
        blocks: dict[int, dict[str, Any]] = {}
        args: dict[int, list[str]] = {}
        usage = _Usage()
        model, stop_reason, stopped, calls_seen = request.model, None, False, 0
        async for event in events:
            kind = field(event, "type", "")
            if kind == "message_start":
                message = field(event, "message")
                model = field(message, "model", model)
                usage.update(field(message, "usage"))
            elif kind == "content_block_start":
                index, block = int(field(event, "index", len(blocks))), json_plain(field(event, "content_block"), drop_none=True)
                blocks[index] = block
                if block.get("type") in ("tool_use", "server_tool_use"):
                    args[index] = []
                    if block["type"] == "tool_use":
                        sink(Delta(kind="tool_call", index=calls_seen, name=block.get("name")))
                        calls_seen += 1
            elif kind == "content_block_delta":
                self._apply_delta(blocks, args, int(field(event, "index", 0)), field(event, "delta"), sink)
            elif kind == "message_delta":
                stop_reason = field(field(event, "delta"), "stop_reason", stop_reason)
                usage.update(field(event, "usage"))
            elif kind == "message_stop":
                stopped = True
        if not stopped or stop_reason is None:
            partial = sum(1 for i in args if i in blocks)
            error = ProviderError(ErrorKind.TRUNCATED,
                                  f"stream ended without message_stop (stop_reason={stop_reason!r}, "
                                  f"{len(blocks)} block(s), {partial} tool call(s) started)",
                                  provider=request.provider)
            error.usage = usage.usage()  # what the cut call still cost (read by the policy)
            raise error
        for index, parts in args.items():
            raw = "".join(parts)
            blocks[index]["_raw"] = raw
            blocks[index]["input"] = parse_tool_arguments(raw)[0]
        return _response(request, [blocks[i] for i in sorted(blocks)], stop_reason, usage.usage(), model)

    @staticmethod
    def _apply_delta(blocks: dict[int, dict[str, Any]], args: dict[int, list[str]], index: int,
                     delta: Any, sink: DeltaSink) -> None:
        block = blocks.setdefault(index, {"type": "text", "text": ""})
        kind = field(delta, "type", "")
        if kind == "text_delta":
            text = field(delta, "text", "")
            block["text"] = block.get("text", "") + text
            sink(Delta(kind="text", text=text))
        elif kind == "input_json_delta":
            args.setdefault(index, []).append(field(delta, "partial_json", ""))
        elif kind == "thinking_delta":
            thinking = field(delta, "thinking", "")
            block["thinking"] = block.get("thinking", "") + thinking
            sink(Delta(kind="reasoning", text=thinking))
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + field(delta, "signature", "")
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(json_plain(field(delta, "citation"), drop_none=True))

    async def aclose(self) -> None:
        """Close every SDK client this mode opened."""
        await self._clients.aclose()
