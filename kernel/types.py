"""Value types shared by the kernel and plugins.

Every type here is a frozen, keyword-only dataclass: plugins construct them, the kernel
stores and passes them on, nobody mutates them. New fields are only ever added with a
default, so a plugin written against an older Talaria keeps working.

Three forms of a message (DESIGN §4): ``content`` is canonical (display, audit, search);
``api_content`` is the stable shape replayed to the provider (for example reasoning items
an API mode must send back verbatim); the *wire* copy is built per request by the API mode
and never stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from ._values import value_type

__all__ = [
    "ApprovalDecision",
    "ApprovalRequest",
    "Compaction",
    "Credential",
    "Delta",
    "DeliveryResult",
    "EndReason",
    "Event",
    "FinishReason",
    "Inbound",
    "Message",
    "ModelInfo",
    "ModelRequest",
    "ModelResponse",
    "Outbound",
    "PromptSection",
    "ProviderProfile",
    "Role",
    "Services",
    "SessionInfo",
    "SlashCommand",
    "DoctorCheck",
    "CheckResult",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolResult",
    "ToolSpec",
    "Toolset",
    "TurnRecord",
    "Usage",
    "Verdict",
    "new_id",
]

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]
PromptTier = Literal["stable", "context", "volatile"]
EndReason = Literal[
    "completed",
    "budget_exhausted",
    "interrupted",
    "lease_lost",
    "watchdog",
    "compression_failed",
    "guardrail_halt",
    "persistence_failed",
    "provider_error",
    "empty_response",
]
ApprovalDecision = Literal["once", "session", "always", "deny"]


def new_id(prefix: str = "") -> str:
    """Return a fresh random identifier (32 hex chars), optionally prefixed."""
    return f"{prefix}{uuid.uuid4().hex}"


# --------------------------------------------------------------------------- messages


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


ToolStatus = Literal["ok", "error", "denied", "invalid", "skipped", "unknown"]


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


# --------------------------------------------------------------------------- providers


@value_type
class ModelInfo:
    """What is known about one model of a provider. Prices are USD per million tokens."""

    id: str
    context_window: int | None = None
    max_output: int | None = None
    capabilities: frozenset[str] = frozenset({"tools"})
    aliases: tuple[str, ...] = ()
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None


@value_type
class ProviderProfile:
    """A declarative description of a model provider (no code, no client).

    :param name: the ``provider`` part of ``provider/model``.
    :param api_mode: name of the registered API mode that speaks its wire protocol.
    :param base_url: endpoint root, e.g. ``https://api.openai.com/v1``.
    :param key_env: environment variables holding an API key, first found wins;
        ``NAME_2``, ``NAME_3``… add keys to the credential pool.
    :param keyless: True when the endpoint needs no key (local servers).
    :param models: known models; unknown model ids are still allowed.
    :param context_window: window assumed for models not listed in ``models``.
    """

    name: str
    api_mode: str = "chat_completions"
    base_url: str | None = None
    key_env: tuple[str, ...] = ()
    keyless: bool = False
    aliases: tuple[str, ...] = ()
    display_name: str | None = None
    description: str = ""
    default_model: str | None = None
    models: tuple[ModelInfo, ...] = ()
    context_window: int | None = None
    max_output: int | None = None
    default_headers: Mapping[str, str] = field(default_factory=dict)
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def model_info(self, model_id: str) -> ModelInfo | None:
        """Return the :class:`ModelInfo` for ``model_id`` or one of its aliases."""
        for info in self.models:
            if info.id == model_id or model_id in info.aliases:
                return info
        return None


@value_type
class Credential:
    """One API key of a provider's pool. ``key`` is never stored or logged."""

    provider: str
    key: str | None
    id: str = ""  # stable, non-secret identifier (e.g. env var name or a hash prefix)
    label: str = ""

    def __repr__(self) -> str:  # never leak the key through logs or tracebacks
        return f"Credential(provider={self.provider!r}, id={self.id!r})"


@value_type
class ToolSpec:
    """What the model sees of a tool: name, description, JSON-Schema parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@value_type
class PromptSection:
    """A piece of the system prompt in one tier.

    Tiers, in prompt order: ``stable`` (identity, guidance), ``context`` (caller system
    message, project context files, workspace), ``volatile`` (skills index, memory, time).
    Inside a tier sections are sorted by ``order`` then ``source``.
    """

    tier: PromptTier
    text: str
    source: str = ""
    order: int = 100


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


# --------------------------------------------------------------------------- tools


@value_type
class ApprovalRequest:
    """A question to the human: may this call run?"""

    call: ToolCall
    tool: str
    reason: str
    rule: str | None = None  # key remembered by "session"/"always" answers
    session_id: str = ""
    summary: str = ""  # short human-readable description of the action


@value_type(slots=False)
class ToolContext:
    """What a tool handler (and ``pre_tool_call`` / ``post_tool_call``) may use.

    :param emit: report an :class:`Event` (progress) to the channel.
    :param ask: ask the channel's human for approval; None when nobody can answer.
    :param store: the session store (read access, e.g. full-text search).
    :param state: per-session scratch space owned by tools (e.g. a todo list).
    """

    session_id: str
    session_key: str
    workspace: Path
    home: Path
    call: ToolCall | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    channel: str = ""
    emit: Callable[[Event], None] = lambda event: None
    ask: Callable[[ApprovalRequest], Awaitable[ApprovalDecision]] | None = None
    store: Any = None
    state: dict[str, Any] = field(default_factory=dict)
    yolo: bool = False
    skill_dirs: tuple[tuple[str, Path], ...] = ()
    tool: Tool | None = None  # the tool being called (policy plugins read ``dangerous``)


ToolHandler = Callable[[Mapping[str, Any], ToolContext], Any]


@value_type
class Tool:
    """A tool plugins register.

    ``handler(arguments, ctx)`` may be sync or async; it returns a ``str``, a
    :class:`ToolResult`, or any JSON-serializable value. It raises
    :class:`talaria.ToolError` for a failure the model should read (other exceptions are
    reported as internal tool errors). Arguments are validated against ``parameters``
    before the handler runs.

    :param available: cheap check run when tools are offered for a turn (binary on PATH,
        key set…); False hides the tool for that turn.
    :param parallel_safe: may run concurrently with other parallel-safe calls.
    :param dangerous: always passes through approval policy as a risky action.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: ToolHandler
    toolset: str = "core"
    dangerous: bool = False
    parallel_safe: bool = True
    available: Callable[[], bool] | None = None
    max_output: int | None = None  # characters; None uses the kernel default
    untrusted: bool = False  # results are external data (MCP, web)

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)


@value_type
class Toolset:
    """A named group of tools; ``includes`` names other toolsets (cycles are safe)."""

    name: str
    tools: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    description: str = ""


@value_type
class Verdict:
    """A ``pre_tool_call`` decision: allow, deny (with a reason) or ask a human."""

    action: Literal["allow", "deny", "ask"]
    reason: str = ""
    rule: str | None = None
    halt: bool = False  # deny and end the turn ``guardrail_halt``

    @classmethod
    def allow(cls, reason: str = "") -> Verdict:
        return cls(action="allow", reason=reason)

    @classmethod
    def deny(cls, reason: str, *, halt: bool = False) -> Verdict:
        return cls(action="deny", reason=reason, halt=halt)

    @classmethod
    def ask(cls, reason: str, *, rule: str | None = None) -> Verdict:
        return cls(action="ask", reason=reason, rule=rule)


# --------------------------------------------------------------------------- sessions, turns


@value_type
class SessionInfo:
    """A read-only view of a session, passed to session hooks and prompt sections."""

    id: str
    session_key: str
    workspace: Path
    home: Path
    provider: str = ""
    model: str = ""
    source: str = ""
    parent_id: str | None = None
    context_window: int = 128_000
    config: Mapping[str, Any] = field(default_factory=dict)
    trusted_workspace: bool = False
    #: ``(source label, folder)`` of plugin-shipped skill folders, lowest precedence first.
    skill_dirs: tuple[tuple[str, Path], ...] = ()


@value_type
class Compaction:
    """What a context engine returns: the new message list and what it replaced.

    ``messages`` must keep every tool call paired with its result. ``dropped`` lists the
    uids of messages that are not in ``messages`` any more. ``summary`` is the summary
    text, when one was made.
    """

    messages: tuple[Message, ...]
    summary: str | None = None
    dropped: tuple[str, ...] = ()
    made_model_call: bool = False


@value_type
class Event:
    """Something for a channel to render. Events are not the transcript.

    Kinds emitted by the kernel: ``turn_started``, ``text_delta``, ``reasoning_delta``,
    ``model_call``, ``retry``, ``fallback``, ``tool_started``, ``tool_finished``,
    ``approval``, ``compression``, ``progress``, ``warning``, ``turn_ended``.
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    session_id: str = ""
    turn_id: str = ""


@value_type
class TurnRecord:
    """How a turn ended, passed to ``on_turn_end`` and returned to the caller."""

    turn_id: str
    session_id: str
    session_key: str
    end_reason: EndReason
    final_text: str = ""
    usage: Usage = field(default_factory=Usage)
    iterations: int = 0
    api_calls: int = 0
    error: str | None = None
    provider: str = ""
    model: str = ""
    user_text: str = ""

    @property
    def ok(self) -> bool:
        return self.end_reason == "completed"


# --------------------------------------------------------------------------- channels


@value_type
class Inbound:
    """A user message normalized by a channel, with its source metadata."""

    text: str
    platform: str
    chat_id: str = ""
    chat_type: str = "dm"
    user_id: str = ""
    thread_id: str = ""
    request_id: str = field(default_factory=new_id)
    principal: str = ""


@value_type
class Outbound:
    """A reply the gateway asks a channel to deliver."""

    delivery_id: str
    session_key: str
    text: str
    chat_id: str = ""
    thread_id: str = ""


@value_type
class DeliveryResult:
    """Outcome of :meth:`Channel.deliver`; ``ambiguous`` means it may have been sent."""

    ok: bool
    error: str | None = None
    ambiguous: bool = False
    platform_message_id: str | None = None


# --------------------------------------------------------------------------- CLI extras


@value_type
class SlashCommand:
    """An in-chat ``/command``; ``handler(args, ctx)`` may be sync or async and may return text."""

    name: str
    description: str
    handler: Callable[..., Any]
    args_hint: str = ""


@value_type
class CheckResult:
    """One line of ``talaria doctor``."""

    name: str
    ok: bool
    detail: str = ""
    hint: str = ""
    level: Literal["ok", "warn", "error"] | None = None


@value_type
class DoctorCheck:
    """A ``talaria doctor`` check: ``run(kernel)`` returns one or more :class:`CheckResult`."""

    name: str
    run: Callable[[Any], Any]


# --------------------------------------------------------------------------- runtime services


@value_type(slots=False)
class Services:
    """What the kernel lends long-lived plugin objects (tool sources, memory providers).

    :param complete: ``await complete(messages, system="", model=None, max_tokens=1024)``
        asks a model (the configured one unless ``model`` names ``provider/model``) and
        returns a :class:`ModelResponse`; retries and fallback apply. None when no model
        is configured.
    :param elicit: ``await elicit(message, schema)`` asks the channel's human to fill a
        form; returns the answers, or None when declined or nobody can answer.
    :param emit: report an :class:`Event` to whoever renders events.
    """

    config: Mapping[str, Any]
    home: Path
    workspace: Path
    emit: Callable[[Event], None] = lambda event: None
    complete: Callable[..., Awaitable[ModelResponse]] | None = None
    elicit: Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any] | None]] | None = None
    store: Any = None
