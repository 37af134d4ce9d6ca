"""Facts about a transcript: pairing of tool calls, the API view, token estimates."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..types import Message, ToolCall

__all__ = ["api_view", "estimate_tokens", "last_turn_start", "unpaired_calls"]

UNKNOWN_OUTCOME = (
    "The outcome of this tool call is unknown: the process running it stopped before its "
    "result was recorded. It may or may not have run. Check the current state before retrying."
)


def unpaired_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """Tool calls in ``messages`` that have no result message, in call order."""
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    return [call for m in messages if m.role == "assistant" for call in m.tool_calls if call.id not in answered]


def last_turn_start(messages: Sequence[Message]) -> int:
    """Index of the last user message (where the latest turn began), 0 if there is none.

    Turns end with every call paired, so only the latest turn can hold unanswered calls
    (a crash stopped it): repair looks there instead of scanning the whole history."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    return 0


def api_view(messages: Sequence[Message]) -> tuple[Message, ...]:
    """Messages as the model sees them: a user message carrying recalled memory
    (``meta["recall"]``) gets it appended — stored once, so every request replays it
    identically."""
    out = list(messages)
    for index, message in enumerate(out):
        if message.role != "user" or not message.meta:
            continue
        recall = message.meta.get("recall")
        if recall:
            out[index] = Message(
                role="user",
                content=f"{message.content}\n\n<recalled-memory>\n{recall}\n</recalled-memory>",
                uid=message.uid,
                meta=message.meta,
            )
    return tuple(out)


def estimate_tokens(messages: Sequence[Message], *, extra_chars: int = 0) -> int:
    """A fast, deliberately generous token estimate (about 4 characters per token)."""
    chars = extra_chars
    for message in messages:
        chars += len(message.content) + 16
        for call in message.tool_calls:
            chars += len(call.name) + len(json.dumps(dict(call.arguments), ensure_ascii=False)) + 16
    return chars // 4 + 1
