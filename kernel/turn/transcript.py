"""Facts about a transcript: pairing of tool calls, the API view, token estimates."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..types import Message, ToolCall

__all__ = ["api_view", "estimate_tokens", "unpaired_calls"]

UNKNOWN_OUTCOME = (
    "The outcome of this tool call is unknown: the process running it stopped before its "
    "result was recorded. It may or may not have run. Check the current state before retrying."
)


def unpaired_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """Tool calls in ``messages`` that have no result message, in call order."""
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    return [call for m in messages if m.role == "assistant" for call in m.tool_calls if call.id not in answered]


def api_view(messages: Sequence[Message]) -> tuple[Message, ...]:
    """Messages as the model sees them: a user message carrying recalled memory
    (``meta["recall"]``) gets it appended — stored once, so every request replays it
    identically."""
    out = []
    for message in messages:
        recall = message.meta.get("recall") if message.meta else None
        if message.role == "user" and recall:
            message = Message(
                role="user",
                content=f"{message.content}\n\n<recalled-memory>\n{recall}\n</recalled-memory>",
                uid=message.uid,
                meta=message.meta,
            )
        out.append(message)
    return tuple(out)


def estimate_tokens(messages: Sequence[Message], *, extra_chars: int = 0) -> int:
    """A fast, deliberately generous token estimate (about 4 characters per token)."""
    chars = extra_chars
    for message in messages:
        chars += len(message.content) + 16
        for call in message.tool_calls:
            chars += len(call.name) + len(json.dumps(dict(call.arguments), ensure_ascii=False)) + 16
    return chars // 4 + 1
