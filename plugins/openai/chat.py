"""The ``chat_completions`` API mode: OpenAI Chat Completions through ``openai.AsyncOpenAI``.

Also the mode of every OpenAI-compatible endpoint (OpenRouter, Groq, DeepSeek, Ollama, vLLM…).
Wire conversion is a pure function of the request (:func:`build_payload`), so the same
messages always produce byte-identical JSON and each request's ``messages`` extend the
previous request's (prefix caching).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlparse

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
    replay_wire,
    run_model_call,
    stall_bounded,
    tool_arguments_json,
    tool_call_from_wire,
)
from talaria import sdk_field as field

from ._sdk import new_client, post_json

__all__ = ["ChatCompletionsMode", "build_payload", "wire_messages"]

DeltaSink = Callable[[Delta], None]

NAME = "chat_completions"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls",
           "length": "length", "content_filter": "content_filter"}


def _message_wire(message: Message) -> list[dict[str, Any]]:
    stored = replay_wire(message, NAME)
    if stored is not None:
        return stored if isinstance(stored, list) else [stored]
    if message.role == "tool":
        return [{"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}]
    if message.role == "assistant":
        wire: dict[str, Any] = {"role": "assistant",
                                "content": message.content if message.content or not message.tool_calls else None}
        if message.tool_calls:
            wire["tool_calls"] = [
                {"id": c.id, "type": "function",
                 "function": {"name": c.name, "arguments": tool_arguments_json(c)}}
                for c in message.tool_calls
            ]
        return [wire]
    return [{"role": message.role, "content": message.content}]


def wire_messages(request: ModelRequest) -> list[dict[str, Any]]:
    """The ``messages`` array: the system prompt (all tiers, in order), then the transcript."""
    messages: list[dict[str, Any]] = []
    if request.system_text:
        messages.append({"role": "system", "content": request.system_text})
    for message in request.messages:
        messages.extend(_message_wire(message))
    return messages


def _max_tokens_param(base_url: str, config: Mapping[str, Any]) -> str:
    if config.get("max_tokens_param"):
        return str(config["max_tokens_param"])
    # OpenAI's reasoning models reject max_tokens; compatible servers mostly only know it.
    return "max_completion_tokens" if urlparse(base_url).hostname == "api.openai.com" else "max_tokens"


def build_payload(request: ModelRequest, *, base_url: str = DEFAULT_BASE_URL,
                  config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body for ``POST /chat/completions`` (without ``extra_body``)."""
    config = config or {}
    payload: dict[str, Any] = {"model": request.model, "messages": wire_messages(request)}
    if request.tools:
        payload["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": json_plain(t.parameters)}}
            for t in request.tools
        ]
    if request.max_tokens is not None:
        payload[_max_tokens_param(base_url, config)] = request.max_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.stream:
        payload["stream"] = True
        if config.get("stream_usage", True):
            payload["stream_options"] = {"include_usage": True}
    return payload


def _usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    prompt = int(field(raw, "prompt_tokens", 0))
    details = field(raw, "prompt_tokens_details")
    cached = int(field(details, "cached_tokens", 0)) or int(field(raw, "prompt_cache_hit_tokens", 0))
    written = int(field(details, "cache_write_tokens", 0))
    reasoning = int(field(field(raw, "completion_tokens_details"), "reasoning_tokens", 0))
    return Usage(input_tokens=max(prompt - cached - written, 0), output_tokens=int(field(raw, "completion_tokens", 0)),
                 cache_read_tokens=cached, cache_write_tokens=written, reasoning_tokens=reasoning)


def _finish(raw: str | None, has_calls: bool) -> str:
    finish = _FINISH.get(raw or "", "other")
    return "tool_calls" if has_calls and finish == "stop" else finish


class ChatCompletionsMode:
    """``chat_completions``: streaming by default, one normalized :class:`ModelResponse`.

    Config (``[api_modes.chat_completions]``): ``base_url`` (default for requests without
    one), ``max_tokens_param`` (``max_tokens``/``max_completion_tokens``; default: the
    latter for api.openai.com only), ``stream_usage`` (ask for the usage chunk; default on).
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
        base_url = self.base_url(request)
        client = self._clients.get(base_url, credential)
        payload = build_payload(request, base_url=base_url, config=self.config)
        if not request.stream:
            return self._from_completion(request, await post_json(client, "/chat/completions", payload, request))
        stream = await post_json(client, "/chat/completions", payload, request)
        async with stall_bounded(stream, request) as chunks:
            return await self._from_stream(request, chunks, emit)

    def _from_completion(self, request: ModelRequest, completion: Any) -> ModelResponse:
        choices = field(completion, "choices") or []
        if not choices:
            raise ProviderError(ErrorKind.MALFORMED, "response has no choices", provider=request.provider)
        choice, message = choices[0], field(choices[0], "message")
        raw_finish = field(choice, "finish_reason")
        if raw_finish is None:
            raise ProviderError(ErrorKind.TRUNCATED, "response has no finish_reason", provider=request.provider)
        calls = tuple(
            tool_call_from_wire(field(c, "id"), field(field(c, "function"), "name", ""),
                                field(field(c, "function"), "arguments"), f"call_{i}")
            for i, c in enumerate(field(message, "tool_calls") or [])
        )
        return ModelResponse(text=field(message, "content", "") or "", tool_calls=calls,
                             finish_reason=_finish(raw_finish, bool(calls)), raw_finish_reason=raw_finish,
                             usage=_usage(field(completion, "usage")), provider=request.provider,
                             model=field(completion, "model", request.model), api_mode=NAME)

    async def _from_stream(self, request: ModelRequest, chunks: Any, sink: DeltaSink) -> ModelResponse:
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        raw_finish: str | None = None
        usage_raw: Any = None
        model = request.model
        async for chunk in chunks:
            model = field(chunk, "model", model)
            usage_raw = field(chunk, "usage", usage_raw)
            for choice in field(chunk, "choices") or []:
                delta = field(choice, "delta")
                reasoning = field(delta, "reasoning_content") or field(delta, "reasoning")
                if isinstance(reasoning, str) and reasoning:
                    sink(Delta(kind="reasoning", text=reasoning))
                content = field(delta, "content")
                if content:
                    text.append(content)
                    sink(Delta(kind="text", text=content))
                for part in field(delta, "tool_calls") or []:
                    self._merge_call(calls, part, sink)
                raw_finish = field(choice, "finish_reason", raw_finish)
        if raw_finish is None:
            partial = f", {len(calls)} unfinished tool call(s)" if calls else ""
            error = ProviderError(ErrorKind.TRUNCATED,
                                  f"stream ended without a finish reason after {len(''.join(text))} chars{partial}",
                                  provider=request.provider)
            error.usage = _usage(usage_raw)  # what the cut call still cost (read by the policy)
            raise error
        tool_calls = tuple(tool_call_from_wire(c["id"], c["name"], "".join(c["args"]), f"call_{i}")
                           for i, c in sorted(calls.items()))
        return ModelResponse(text="".join(text), tool_calls=tool_calls,
                             finish_reason=_finish(raw_finish, bool(tool_calls)), raw_finish_reason=raw_finish,
                             usage=_usage(usage_raw), provider=request.provider, model=model, api_mode=NAME)

    @staticmethod
    def _merge_call(calls: dict[int, dict[str, Any]], part: Any, sink: DeltaSink) -> None:
        index = field(part, "index")
        index = len(calls) if index is None else int(index)
        slot = calls.setdefault(index, {"id": None, "name": "", "args": [], "announced": False})
        slot["id"] = field(part, "id") or slot["id"]
        function = field(part, "function")
        name = field(function, "name")
        if name and not slot["name"]:
            slot["name"] = name
        arguments = field(function, "arguments")
        if arguments:
            slot["args"].append(arguments)
        if slot["name"] and not slot["announced"]:
            slot["announced"] = True
            sink(Delta(kind="tool_call", index=index, name=slot["name"]))

    async def aclose(self) -> None:
        """Close every SDK client this mode opened."""
        await self._clients.aclose()
