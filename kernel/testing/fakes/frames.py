"""Server-sent-event frames and the helpers the three wire renderers share.

A renderer turns a :class:`~.script.Reply` into a list of :class:`Frame` objects; each frame
is one complete SSE event plus a ``kind`` tag, which is what lets fault injection act on
"the frame that carries the finish reason" or "a frame in the middle of a tool call"
without knowing the wire format.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from .script import FakeUsage, Reply

__all__ = ["Frame", "UsageNumbers", "new_id", "now", "split_args", "split_text", "sse", "usage_numbers"]

FrameKind = Literal["meta", "reasoning", "text", "tool_start", "tool_args", "finish"]


@dataclass(frozen=True, slots=True)
class Frame:
    """One SSE event (bytes ready for the wire) and what it carries."""

    payload: bytes
    kind: FrameKind = "meta"


def sse(data: Any, event: str | None = None) -> bytes:
    """Encode one SSE event; ``data`` is JSON-encoded unless it is already a string."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def new_id(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def now() -> int:
    return int(time.time())


def split_text(text: str) -> list[str]:
    """Split text into word-sized stream pieces (whitespace kept, so joining restores it)."""
    return re.findall(r"\s*\S+\s*?(?=\s|$)|\s+$", text) or ([text] if text else [])


def split_args(arguments: str, size: int = 8) -> list[str]:
    """Split a tool call's argument JSON into pieces, at least two when it is long enough."""
    if len(arguments) <= 1:
        return [arguments] if arguments else []
    size = min(size, max(1, len(arguments) // 2))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)]


@dataclass(frozen=True, slots=True)
class UsageNumbers:
    """Usage with every estimate filled in; ``input`` excludes cached tokens."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    reasoning: int


def usage_numbers(reply: Reply, request_json: Any) -> UsageNumbers:
    """The reply's usage, estimating unset numbers at roughly four characters per token."""
    usage: FakeUsage = reply.usage
    estimated_in = max(1, len(json.dumps(request_json, separators=(",", ":"))) // 4)
    produced = reply.text + reply.reasoning + "".join(c.arguments_json for c in reply.tool_calls)
    estimated_out = max(1, len(produced) // 4)
    return UsageNumbers(
        input=usage.input_tokens if usage.input_tokens is not None else estimated_in,
        output=usage.output_tokens if usage.output_tokens is not None else estimated_out,
        cache_read=usage.cache_read_tokens,
        cache_write=usage.cache_write_tokens,
        reasoning=usage.reasoning_tokens,
    )
