"""What the fake LLM server answers: scripted replies, tool calls, usage numbers and faults.

A :class:`Reply` is wire-format neutral: the same reply is rendered as a Chat Completions,
Responses or Anthropic Messages answer depending on which endpoint the client called.
Replies round-trip through plain JSON (:meth:`Reply.from_json` / :meth:`Reply.to_json`) so a
script file can drive ``python -m talaria.testing.fakes --script FILE.json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

__all__ = ["DEFAULT_TEXT", "Fault", "FakeToolCall", "FakeUsage", "Reply", "load_script"]

#: What the server says when nothing was scripted.
DEFAULT_TEXT = "Hello from the Talaria fake model."

FaultKind = Literal[
    "status",  # HTTP error status with the provider's error body (and retry-after)
    "reset_before",  # connection reset before any response byte
    "reset_mid",  # connection reset after ``after`` stream frames
    "truncate",  # stream closes cleanly after ``after`` frames: no finish reason / [DONE]
    "truncate_tool",  # stream closes cleanly in the middle of a tool call's arguments
    "malformed",  # frame number ``after`` is replaced by invalid JSON
    "stall",  # silence for ``seconds`` after ``after`` frames, then the rest
    "stream_error",  # an in-stream error event after ``after`` frames (e.g. overloaded)
]

_STATUS_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    529: "overloaded_error",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Fault:
    """A failure the server injects instead of (or in the middle of) a normal reply.

    :param kind: see ``FaultKind``.
    :param status: HTTP status for ``status`` faults.
    :param message: error message in the provider's error body.
    :param error_type: provider error type/code (``rate_limit_error``,
        ``context_length_exceeded``…); derived from ``status`` when empty.
    :param retry_after: seconds, sent as the ``retry-after`` header.
    :param retry_after_ms: milliseconds, sent as the ``retry-after-ms`` header.
    :param after: number of stream frames sent before a mid-stream fault.
    :param seconds: length of a ``stall``.
    :param headers: extra response headers.
    :param body: a raw error body that replaces the rendered one.
    """

    kind: FaultKind = "status"
    status: int = 500
    message: str = ""
    error_type: str = ""
    retry_after: float | None = None
    retry_after_ms: int | None = None
    after: int = 2
    seconds: float = 30.0
    headers: Mapping[str, str] = field(default_factory=dict)
    body: str | None = None

    @property
    def type_name(self) -> str:
        """The provider error type for this fault (explicit or derived from the status)."""
        return self.error_type or _STATUS_ERROR_TYPES.get(self.status, "api_error")


@dataclass(frozen=True, slots=True, kw_only=True)
class FakeToolCall:
    """A tool call the fake model makes. ``arguments`` may be a raw (even invalid) string."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    @property
    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, separators=(",", ":"))


@dataclass(frozen=True, slots=True, kw_only=True)
class FakeUsage:
    """Token numbers reported by the fake. ``input_tokens`` excludes cached tokens.

    ``None`` fields are estimated from the request/response size.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """One scripted answer.

    :param text: assistant text (streamed word by word).
    :param tool_calls: tool calls; several are parallel calls in one response.
    :param reasoning: reasoning/thinking text, sent before the answer where the wire has it.
    :param usage: token numbers (cache read/write included).
    :param finish_reason: neutral reason ``stop``/``tool_calls``/``length``/
        ``content_filter``; derived from ``tool_calls`` when None.
    :param model: the model that "served" it (default: the requested one).
    :param delay: seconds before the first response byte.
    :param chunk_delay: seconds between stream frames.
    :param fault: a failure to inject (see :class:`Fault`).
    """

    text: str = ""
    tool_calls: Sequence[FakeToolCall] = ()
    reasoning: str = ""
    usage: FakeUsage = field(default_factory=FakeUsage)
    finish_reason: str | None = None
    model: str | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0
    fault: Fault | None = None

    # ------------------------------------------------------------------ shortcuts
    @classmethod
    def error(cls, status: int, message: str = "", **fault: Any) -> Reply:
        """An HTTP error reply, e.g. ``Reply.error(429, retry_after=2)``."""
        return cls(fault=Fault(kind="status", status=status, message=message, **fault))

    @classmethod
    def rate_limited(cls, retry_after: float | None = 1.0, **fault: Any) -> Reply:
        return cls.error(429, "Rate limit reached. Please try again later.",
                         retry_after=retry_after, **fault)

    @classmethod
    def overloaded(cls, status: int = 529, **fault: Any) -> Reply:
        return cls.error(status, "Overloaded", error_type="overloaded_error", **fault)

    @classmethod
    def context_overflow(cls) -> Reply:
        """A 400 whose body is what each provider really says when the prompt is too long."""
        return cls(fault=Fault(kind="status", status=400, error_type="context_length_exceeded"))

    @classmethod
    def faulty(cls, kind: FaultKind, *, text: str = "one two three four five six", **fault: Any) -> Reply:
        """A normal reply broken by a mid-stream/connection fault of ``kind``."""
        return cls(text=text, fault=Fault(kind=kind, **fault))

    @property
    def neutral_finish(self) -> str:
        if self.finish_reason:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["tool_calls"] = [asdict(c) for c in self.tool_calls]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Reply:
        """Build a reply from a JSON object (a bare string is a text reply)."""
        if isinstance(data, str):
            return cls(text=data)
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown reply field(s) {sorted(unknown)}; allowed: "
                             f"{sorted(f.name for f in fields(cls))}")
        kwargs: dict[str, Any] = dict(data)
        kwargs["tool_calls"] = tuple(FakeToolCall(**c) for c in data.get("tool_calls") or ())
        kwargs["usage"] = FakeUsage(**(data.get("usage") or {}))
        if data.get("fault") is not None:
            kwargs["fault"] = Fault(**data["fault"])
        return cls(**kwargs)


def load_script(path: str | Path) -> list[Reply]:
    """Read a script file: a JSON list of replies, or ``{"replies": [...]}``."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    items = raw.get("replies", []) if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a JSON list of replies or {{'replies': [...]}}")
    return [Reply.from_json(item) for item in items]
