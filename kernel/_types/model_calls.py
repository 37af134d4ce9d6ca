"""One model call: the normalized request, streamed deltas, the response.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from .._values import value_type
from .common import FinishReason
from .sessions import PromptSection
from .tools import ToolSpec
from .transcript import Message, ToolCall, Usage


__all__ = ["ModelRequest", "Delta", "ModelResponse"]


@value_type
class ModelRequest:
    """A normalized request to a model; the API mode turns it into its wire format."""

    provider: str
    model: str
    system: tuple[PromptSection, ...] = ()
    messages: tuple[Message, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int | None = None
    temperature: float | None = None
    stream: bool = True
    base_url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    timeout: float = 600.0  # whole-call bound
    stall_timeout: float = 60.0  # max silence between stream chunks
    purpose: str = "turn"  # turn | summary | sampling | …
    session_id: str | None = None

    @property
    def system_text(self) -> str:
        """The system prompt as one string (tiers joined by blank lines)."""
        return "\n\n".join(s.text for s in self.system if s.text)


@value_type
class Delta:
    """A streamed piece of a response, passed to ``on_delta`` as it arrives."""

    kind: Literal["text", "reasoning", "tool_call"]
    text: str = ""
    index: int = 0
    name: str | None = None


@value_type
class ModelResponse:
    """A normalized, complete model response.

    ``provider`` and ``model`` name who actually served it. ``api_content`` is what the API
    mode wants replayed verbatim for this assistant message on later requests to the same
    API mode (None when ``text`` and ``tool_calls`` suffice).
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason = "stop"
    raw_finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    provider: str = ""
    model: str = ""
    api_mode: str = ""
    api_content: Any = None
