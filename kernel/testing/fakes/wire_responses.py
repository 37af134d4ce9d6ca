"""OpenAI Responses wire format (``POST /v1/responses``): typed SSE events."""

from __future__ import annotations

from typing import Any

from .frames import Frame, UsageNumbers, new_id, now, split_args, split_text, sse, usage_numbers
from .script import Fault, Reply

__all__ = ["error_body", "render_json", "render_stream", "stream_error_frame"]


def _usage(u: UsageNumbers) -> dict[str, Any]:
    total_in = u.input + u.cache_read + u.cache_write
    return {
        "input_tokens": total_in,
        "input_tokens_details": {"cached_tokens": u.cache_read, "cache_write_tokens": u.cache_write},
        "output_tokens": u.output,
        "output_tokens_details": {"reasoning_tokens": u.reasoning},
        "total_tokens": total_in + u.output,
    }


def _items(reply: Reply) -> list[dict[str, Any]]:
    """The completed output items: reasoning, message, function calls (in that order)."""
    items: list[dict[str, Any]] = []
    if reply.reasoning:
        items.append({"id": new_id("rs_"), "type": "reasoning", "encrypted_content": "enc-fake",
                      "summary": [{"type": "summary_text", "text": reply.reasoning}]})
    if reply.text:
        items.append({"id": new_id("msg_"), "type": "message", "status": "completed",
                      "role": "assistant",
                      "content": [{"type": "output_text", "text": reply.text, "annotations": [],
                                   "logprobs": []}]})
    for call in reply.tool_calls:
        items.append({"id": new_id("fc_"), "type": "function_call", "status": "completed",
                      "call_id": call.id or new_id("call_"), "name": call.name,
                      "arguments": call.arguments_json})
    return items


def _response(reply: Reply, request: dict[str, Any], items: list[dict[str, Any]],
              status: str, rid: str, created: int) -> dict[str, Any]:
    incomplete = None
    if status == "incomplete":
        reason = "content_filter" if reply.neutral_finish == "content_filter" else "max_output_tokens"
        incomplete = {"reason": reason}
    done = status in ("completed", "incomplete")
    return {
        "id": rid, "object": "response", "created_at": created, "status": status,
        "model": reply.model or request.get("model", "fake"), "output": items if done else [],
        "error": None, "incomplete_details": incomplete,
        "instructions": request.get("instructions"), "parallel_tool_calls": True,
        "tool_choice": "auto", "tools": request.get("tools", []),
        "usage": _usage(usage_numbers(reply, request)) if done else None,
    }


def _final_status(reply: Reply) -> str:
    return "incomplete" if reply.neutral_finish in ("length", "content_filter") else "completed"


def render_json(reply: Reply, request: dict[str, Any], *, finish: bool = True) -> dict[str, Any]:
    """A complete ``response`` object."""
    status = _final_status(reply) if finish else "in_progress"
    body = _response(reply, request, _items(reply), status, new_id("resp_"), now())
    if not finish:
        body["output"] = _items(reply)
    return body


def render_stream(reply: Reply, request: dict[str, Any]) -> list[Frame]:
    """``response.created`` … item/part/delta events … ``response.completed``."""
    rid, created, items = new_id("resp_"), now(), _items(reply)
    seq = iter(range(1_000_000))

    def ev(kind: str, **data: Any) -> bytes:
        return sse({"type": kind, "sequence_number": next(seq), **data}, event=kind)

    frames = [Frame(ev("response.created", response=_response(reply, request, items, "in_progress", rid, created))),
              Frame(ev("response.in_progress", response=_response(reply, request, items, "in_progress", rid, created)))]
    for index, item in enumerate(items):
        iid = item["id"]
        if item["type"] == "reasoning":
            frames.append(Frame(ev("response.output_item.added", output_index=index,
                                   item={**item, "summary": []})))
            for piece in split_text(reply.reasoning):
                frames.append(Frame(ev("response.reasoning_summary_text.delta", item_id=iid,
                                       output_index=index, summary_index=0, delta=piece), "reasoning"))
        elif item["type"] == "message":
            frames.append(Frame(ev("response.output_item.added", output_index=index,
                                   item={**item, "status": "in_progress", "content": []})))
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            frames.append(Frame(ev("response.content_part.added", item_id=iid, output_index=index,
                                   content_index=0, part=part)))
            for piece in split_text(reply.text):
                frames.append(Frame(ev("response.output_text.delta", item_id=iid, output_index=index,
                                       content_index=0, delta=piece, logprobs=[]), "text"))
            frames.append(Frame(ev("response.output_text.done", item_id=iid, output_index=index,
                                   content_index=0, text=reply.text, logprobs=[])))
            frames.append(Frame(ev("response.content_part.done", item_id=iid, output_index=index,
                                   content_index=0, part=item["content"][0])))
        else:
            frames.append(Frame(ev("response.output_item.added", output_index=index,
                                   item={**item, "status": "in_progress", "arguments": ""}), "tool_start"))
            for piece in split_args(item["arguments"]):
                frames.append(Frame(ev("response.function_call_arguments.delta", item_id=iid,
                                       output_index=index, delta=piece), "tool_args"))
            frames.append(Frame(ev("response.function_call_arguments.done", item_id=iid,
                                   output_index=index, name=item["name"], arguments=item["arguments"])))
        frames.append(Frame(ev("response.output_item.done", output_index=index, item=item)))
    status = _final_status(reply)
    final = _response(reply, request, items, status, rid, created)
    frames.append(Frame(ev(f"response.{status}", response=final), "finish"))
    return frames


def error_body(fault: Fault, request: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's error body; context overflow says what the Responses API says."""
    code = fault.error_type or {429: "rate_limit_exceeded", 401: "invalid_api_key",
                                500: "server_error"}.get(fault.status, "error")
    message = fault.message
    if code == "context_length_exceeded" and not message:
        message = ("Your input exceeds the context window of this model. "
                   "Please adjust your input and try again.")
    kind = "invalid_request_error" if fault.status < 500 and fault.status != 429 else (
        "requests" if fault.status == 429 else "server_error")
    return {"error": {"message": message or f"fake error {fault.status}", "type": kind,
                      "param": "input" if code == "context_length_exceeded" else None, "code": code}}


def stream_error_frame(fault: Fault, request: dict[str, Any]) -> bytes:
    """A ``response.failed`` event carrying the error."""
    err = error_body(fault, request)["error"]
    body = {"id": new_id("resp_"), "object": "response", "created_at": now(), "status": "failed",
            "model": request.get("model", "fake"), "output": [],
            "error": {"code": err["code"], "message": err["message"]}}
    return sse({"type": "response.failed", "sequence_number": 9999, "response": body},
               event="response.failed")
