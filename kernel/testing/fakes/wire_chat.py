"""OpenAI Chat Completions wire format (``POST /v1/chat/completions``)."""

from __future__ import annotations

from typing import Any

from .frames import Frame, UsageNumbers, new_id, now, split_args, split_text, sse, usage_numbers
from .script import Fault, Reply

__all__ = ["error_body", "render_json", "render_stream", "stream_error_frame"]

_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length",
           "content_filter": "content_filter"}


def _usage(u: UsageNumbers) -> dict[str, Any]:
    prompt = u.input + u.cache_read + u.cache_write
    details: dict[str, Any] = {"cached_tokens": u.cache_read}
    if u.cache_write:
        details["cache_write_tokens"] = u.cache_write
    return {
        "prompt_tokens": prompt,
        "completion_tokens": u.output,
        "total_tokens": prompt + u.output,
        "prompt_tokens_details": details,
        "completion_tokens_details": {"reasoning_tokens": u.reasoning},
    }


def _call_ids(reply: Reply) -> list[str]:
    return [c.id or new_id("call_") for c in reply.tool_calls]


def render_json(reply: Reply, request: dict[str, Any], *, finish: bool = True) -> dict[str, Any]:
    """A complete (non-streamed) ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function",
             "function": {"name": c.name, "arguments": c.arguments_json}}
            for cid, c in zip(_call_ids(reply), reply.tool_calls)
        ]
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": now(),
        "model": reply.model or request.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": _FINISH.get(reply.neutral_finish, "stop") if finish else None}],
        "usage": _usage(usage_numbers(reply, request)),
    }


def render_stream(reply: Reply, request: dict[str, Any]) -> list[Frame]:
    """``chat.completion.chunk`` frames, the optional usage chunk, then ``[DONE]``."""
    base = {"id": new_id("chatcmpl-"), "object": "chat.completion.chunk", "created": now(),
            "model": reply.model or request.get("model", "fake")}
    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                     "finish_reason": finish}]}
        if include_usage:
            body["usage"] = None
        return sse(body)

    frames = [Frame(chunk({"role": "assistant", "content": ""}), "meta")]
    frames += [Frame(chunk({"reasoning_content": p}), "reasoning") for p in split_text(reply.reasoning)]
    frames += [Frame(chunk({"content": p}), "text") for p in split_text(reply.text)]
    for index, (cid, call) in enumerate(zip(_call_ids(reply), reply.tool_calls)):
        start = {"index": index, "id": cid, "type": "function",
                 "function": {"name": call.name, "arguments": ""}}
        frames.append(Frame(chunk({"tool_calls": [start]}), "tool_start"))
        for piece in split_args(call.arguments_json):
            part = {"index": index, "function": {"arguments": piece}}
            frames.append(Frame(chunk({"tool_calls": [part]}), "tool_args"))
    frames.append(Frame(chunk({}, _FINISH.get(reply.neutral_finish, "stop")), "finish"))
    if include_usage:
        usage = {**base, "choices": [], "usage": _usage(usage_numbers(reply, request))}
        frames.append(Frame(sse(usage), "finish"))
    frames.append(Frame(sse("[DONE]"), "finish"))
    return frames


def _code(fault: Fault) -> str:
    if fault.error_type and fault.error_type.endswith("_error"):
        return {"rate_limit_error": "rate_limit_exceeded", "authentication_error": "invalid_api_key",
                "overloaded_error": "overloaded", "api_error": "server_error"}.get(
                    fault.error_type, fault.error_type)
    return fault.error_type or {429: "rate_limit_exceeded", 401: "invalid_api_key",
                                404: "model_not_found", 500: "server_error"}.get(fault.status, "error")


def error_body(fault: Fault, request: dict[str, Any]) -> dict[str, Any]:
    """The body OpenAI sends with an HTTP error (context overflow uses its real wording)."""
    code = _code(fault)
    message = fault.message
    if code == "context_length_exceeded" and not message:
        message = ("This model's maximum context length is 128000 tokens. However, your messages "
                   "resulted in 153210 tokens. Please reduce the length of the messages.")
    kind = "invalid_request_error" if fault.status in (400, 401, 404, 422) else (
        "requests" if fault.status == 429 else "server_error")
    return {"error": {"message": message or f"fake error {fault.status}", "type": kind,
                      "param": "messages" if code == "context_length_exceeded" else None,
                      "code": code}}


def stream_error_frame(fault: Fault, request: dict[str, Any]) -> bytes:
    """An error object sent as a data chunk in the middle of a stream."""
    return sse(error_body(fault, request))
