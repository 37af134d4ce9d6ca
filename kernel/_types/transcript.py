"""Messages of a session transcript: tool calls, their results, token usage.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._values import value_type
from .common import Role, ToolStatus, new_id


__all__ = ["ToolCall", "ToolResult", "Message", "Usage"]


@value_type
class ToolCall:
    """One tool invocation the model asked for.

    ``arguments`` is the parsed JSON object. When the model sent something that is not a
    JSON object, ``arguments`` is empty and ``raw_arguments`` keeps what it sent, so the
    kernel can answer with a precise error instead of running the tool.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None


@value_type
class ToolResult:
    """The single result paired with a :class:`ToolCall`.

    ``status`` says how the call ended: ``ok``/``error`` (the tool ran), ``invalid``
    (unknown tool or arguments that failed the schema; not dispatched), ``denied``
    (policy or approval said no; not dispatched), ``skipped`` (the turn was interrupted
    before it ran), ``unknown`` (a crash lost the outcome; it may have run).
    """

    call_id: str
    content: str
    status: ToolStatus = "ok"
    untrusted: bool = False

    @property
    def is_error(self) -> bool:
        return self.status != "ok"


@value_type
class Message:
    """One stored message of a session transcript (provider-neutral)."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None  # tool name, on tool messages
    status: ToolStatus | None = None  # on tool messages
    api_content: Any = None  # JSON-able replay shape; None means "derive from content"
    uid: str = field(default_factory=new_id)
    meta: Mapping[str, Any] = field(default_factory=dict)


@value_type
class Usage:
    """Token counts of one model call (or a sum of several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )

    @property
    def prompt_tokens(self) -> int:
        """Everything the model read: fresh input plus cached reads and writes."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
