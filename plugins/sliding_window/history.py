"""Token estimate and tool-group structure of a transcript (no model, no tokenizer).

Deliberately self-contained: plugins never import each other, so this engine carries its
own small copy of the rules the ``compressor`` uses (about 4 characters a token plus a
per-message overhead; a tool call and its results are one indivisible group).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from talaria import Message

__all__ = ["estimate_message", "estimate_messages", "safe_cuts"]

_OVERHEAD = 4


def estimate_message(message: Message) -> int:
    """Estimated prompt tokens of ``message`` (content or replay shape, tool-call JSON)."""
    chars = len(message.content)
    if message.api_content is not None:
        chars = max(chars, len(json.dumps(message.api_content, default=str)))
    for call in message.tool_calls:
        args = call.raw_arguments if call.raw_arguments is not None else json.dumps(
            dict(call.arguments), default=str
        )
        chars += len(call.id) + len(call.name) + len(args)
    return _OVERHEAD + -(-chars // 4)


def estimate_messages(messages: Iterable[Message]) -> int:
    """Sum of :func:`estimate_message`."""
    return sum(estimate_message(m) for m in messages)


def safe_cuts(messages: Sequence[Message]) -> list[bool]:
    """``ok[c]`` is True when splitting before index ``c`` separates no tool call from
    its result (``c`` in ``0..len(messages)``)."""
    ok = [True] * (len(messages) + 1)
    owner_of: dict[str, int] = {}
    for i, message in enumerate(messages):
        if message.role == "assistant":
            for call in message.tool_calls:
                owner_of[call.id] = i
        elif message.role == "tool" and message.tool_call_id in owner_of:
            for c in range(owner_of[message.tool_call_id] + 1, i + 1):
                ok[c] = False
    return ok
