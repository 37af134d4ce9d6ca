"""Anthropic Messages wire format (``POST /v1/messages``): typed SSE events."""

from __future__ import annotations

import json
from typing import Any

from .frames import Frame, UsageNumbers, new_id, split_args, split_text, sse, usage_numbers
from .script import Fault, Reply

__all__ = ["error_body", "render_json", "render_stream", "stream_error_frame"]

_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
         "content_filter": "refusal"}


def _usage(u: UsageNumbers, *, output: int | None = None) -> dict[str, Any]:
    return {"input_tokens": u.input, "cache_creation_input_tokens": u.cache_write,
            "cache_read_input_tokens": u.cache_read,
            "output_tokens": u.output if output is None else output}


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.reasoning:
        blocks.append({"type": "thinking", "thinking": reply.reasoning, "signature": "sig-fake"})
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        try:
            parsed = json.loads(call.arguments_json)
        except ValueError:
            parsed = {}
        blocks.append({"type": "tool_use", "id": call.id or new_id("toolu_"), "name": call.name,
                       "input": parsed, "_raw": call.arguments_json})
    return blocks


def _public(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if not k.startswith("_")}


def render_json(reply: Reply, request: dict[str, Any], *, finish: bool = True) -> dict[str, Any]:
    """A complete ``message`` object."""
    return {
        "id": new_id("msg_"), "type": "message", "role": "assistant",
        "model": reply.model or request.get("model", "fake"),
        "content": [_public(b) for b in _blocks(reply)],
        "stop_reason": _STOP.get(reply.neutral_finish, "end_turn") if finish else None,
        "stop_sequence": None,
        "usage": _usage(usage_numbers(reply, request)),
    }


def render_stream(reply: Reply, request: dict[str, Any]) -> list[Frame]:
    """``message_start``, content blocks (start/delta/stop), ``message_delta``, ``message_stop``."""
    numbers = usage_numbers(reply, request)
    start = render_json(reply, request, finish=False)
    start.update(content=[], usage=_usage(numbers, output=1))
    frames = [Frame(sse({"type": "message_start", "message": start}, event="message_start")),
              Frame(sse({"type": "ping"}, event="ping"))]

    def ev(kind: str, **data: Any) -> bytes:
        return sse({"type": kind, **data}, event=kind)

    for index, block in enumerate(_blocks(reply)):
        if block["type"] == "thinking":
            frames.append(Frame(ev("content_block_start", index=index,
                                   content_block={"type": "thinking", "thinking": "", "signature": ""})))
            for piece in split_text(block["thinking"]):
                frames.append(Frame(ev("content_block_delta", index=index,
                                       delta={"type": "thinking_delta", "thinking": piece}), "reasoning"))
            frames.append(Frame(ev("content_block_delta", index=index,
                                   delta={"type": "signature_delta", "signature": block["signature"]})))
        elif block["type"] == "text":
            frames.append(Frame(ev("content_block_start", index=index,
                                   content_block={"type": "text", "text": ""})))
            for piece in split_text(block["text"]):
                frames.append(Frame(ev("content_block_delta", index=index,
                                       delta={"type": "text_delta", "text": piece}), "text"))
        else:
            frames.append(Frame(ev("content_block_start", index=index, content_block={
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}), "tool_start"))
            for piece in split_args(block["_raw"]):
                frames.append(Frame(ev("content_block_delta", index=index, delta={
                    "type": "input_json_delta", "partial_json": piece}), "tool_args"))
        frames.append(Frame(ev("content_block_stop", index=index)))
    frames.append(Frame(ev("message_delta",
                           delta={"stop_reason": _STOP.get(reply.neutral_finish, "end_turn"),
                                  "stop_sequence": None},
                           usage=_usage(numbers)), "finish"))
    frames.append(Frame(ev("message_stop"), "finish"))
    return frames


def error_body(fault: Fault, request: dict[str, Any]) -> dict[str, Any]:
    """Anthropic's error body; context overflow says ``prompt is too long``."""
    kind = fault.type_name
    message = fault.message
    if kind == "context_length_exceeded":
        kind = "invalid_request_error"
        message = message or "prompt is too long: 208310 tokens > 200000 maximum"
    return {"type": "error", "error": {"type": kind, "message": message or f"fake error {fault.status}"},
            "request_id": new_id("req_")}


def stream_error_frame(fault: Fault, request: dict[str, Any]) -> bytes:
    """An ``error`` event in the middle of a stream (how Anthropic reports overload mid-stream)."""
    return sse(error_body(fault, request), event="error")
