"""A fast, dependency-free token estimate for messages (no tokenizer needed).

The estimate is deliberately simple and slightly pessimistic: about four characters per
token for text, the JSON of tool calls (name + arguments) and of any ``api_content``
replay shape counted as text, plus a fixed per-message overhead for the role and framing
tokens every chat format adds. It is used to choose boundaries and to decide whether the
cheap phase was enough; the kernel prefers provider-reported usage when it has it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from talaria import Message

__all__ = ["CHARS_PER_TOKEN", "MESSAGE_OVERHEAD", "estimate_message", "estimate_messages", "estimate_text"]

#: Characters per token assumed for English text and code.
CHARS_PER_TOKEN = 4
#: Tokens every message costs besides its content (role, separators, call ids).
MESSAGE_OVERHEAD = 4


def estimate_text(text: str) -> int:
    """Tokens in ``text``: ``ceil(len / 4)``; 0 for the empty string."""
    return -(-len(text) // CHARS_PER_TOKEN)


def _json_len(value: Any) -> int:
    try:
        return len(json.dumps(value, ensure_ascii=False, default=str, separators=(",", ":")))
    except (TypeError, ValueError):
        return len(str(value))


def estimate_message(message: Message) -> int:
    """Estimated prompt tokens of one message, tool calls and replay shape included.

    When ``api_content`` is set it is what the provider will actually read, so the larger
    of it and ``content`` is counted (never both: they carry the same text).
    """
    chars = len(message.content)
    if message.api_content is not None:
        chars = max(chars, _json_len(message.api_content))
    for call in message.tool_calls:
        chars += len(call.id) + len(call.name)
        chars += len(call.raw_arguments) if call.raw_arguments is not None else _json_len(dict(call.arguments))
    if message.name:
        chars += len(message.name)
    return MESSAGE_OVERHEAD + -(-chars // CHARS_PER_TOKEN)


def estimate_messages(messages: Iterable[Message]) -> int:
    """Sum of :func:`estimate_message` over ``messages``."""
    return sum(estimate_message(m) for m in messages)
