"""Interfaces of the named things plugins register (DESIGN §3).

Plugins register a *class* (or factory) carrying a ``name`` attribute; the kernel
instantiates it with its config section (a mapping, possibly empty) when it is selected::

    class MyEngine:
        name = "my-engine"

        def __init__(self, config: Mapping[str, Any]) -> None: ...

The kernel checks the required methods at registration time and reports a plugin that
lacks one as a load error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:  # annotations only: the value types load when a plugin uses them
    from .types import (
        ApprovalDecision,
        ApprovalRequest,
        Compaction,
        Credential,
        Delta,
        DeliveryResult,
        Message,
        ModelRequest,
        ModelResponse,
        Outbound,
        Services,
        SessionInfo,
        Tool,
        TurnRecord,
    )

__all__ = [
    "ApiMode",
    "Channel",
    "CliContext",
    "ContextEngine",
    "Gateway",
    "MemoryProvider",
    "Registrar",
    "Summarizer",
    "ToolSource",
    "REQUIRED_METHODS",
]

T_contra = TypeVar("T_contra", contravariant=True)

#: ``summarize(prompt, max_tokens=…)`` — asks the configured (auxiliary) model for a
#: summary and returns its text; raises :class:`talaria.ProviderError` on failure.
Summarizer = Callable[..., Awaitable[str]]


class Registrar(Protocol, Generic[T_contra]):
    """The ``register`` callback passed to ``register_*`` hooks."""

    def __call__(self, item: T_contra, /) -> None: ...


@runtime_checkable
class ApiMode(Protocol):
    """An adapter for one wire protocol (``chat_completions``, ``anthropic_messages`` …).

    ``complete`` turns a normalized :class:`ModelRequest` into a :class:`ModelResponse`,
    calling ``on_delta`` for each streamed piece. It must raise
    :class:`talaria.ProviderError` with a classified :class:`talaria.ErrorKind` for every
    failure (including a stream that ends without a finish reason: ``TRUNCATED``), and it
    must not retry on its own: the kernel's policy retries, rotates keys and falls back.
    """

    name: str

    async def complete(
        self,
        request: ModelRequest,
        credential: Credential,
        on_delta: Callable[[Delta], None],
    ) -> ModelResponse: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class ContextEngine(Protocol):
    """A pure transformation of history; the kernel owns locking, rotation and prompts."""

    name: str

    def should_compress(self, prompt_tokens: int, context_window: int) -> bool: ...

    async def compress(
        self,
        messages: Sequence[Message],
        *,
        context_window: int,
        summarize: Summarizer,
        focus: str | None = None,
    ) -> Compaction: ...


@runtime_checkable
class MemoryProvider(Protocol):
    """A memory backend. ``prompt_block`` is read once at session start and frozen."""

    name: str

    async def start(self, session: SessionInfo) -> None: ...

    async def stop(self) -> None: ...

    def prompt_block(self) -> str: ...

    def tools(self) -> Sequence[Tool]: ...

    async def prefetch(self, query: str) -> str | None: ...

    async def on_turn_end(self, turn: TurnRecord, messages: Sequence[Message]) -> None: ...

    async def on_pre_compress(self, messages: Sequence[Message]) -> None: ...


@runtime_checkable
class ToolSource(Protocol):
    """A dynamic set of tools (e.g. the MCP bridge), registered through ``register_tools``.

    ``start`` is called once when a runtime starts (as a background task: it may connect
    to servers, but must not hold up the first turn beyond ``ready``); ``ready(timeout)``
    is awaited, bounded, before the first model call; ``tools()`` is read every time
    tools are offered to the model, so its answer may change between requests.
    """

    name: str

    async def start(self, services: Services) -> None: ...

    async def ready(self, timeout: float) -> None: ...

    def tools(self) -> Sequence[Tool]: ...

    async def aclose(self) -> None: ...


class Gateway(Protocol):
    """What a channel's receive loop talks to (provided by the kernel)."""

    async def submit(self, inbound: Any) -> Any: ...


@runtime_checkable
class Channel(Protocol):
    """A platform adapter. The kernel calls ``aclose()`` exactly once."""

    name: str

    async def run(self, gateway: Gateway) -> None: ...

    async def deliver(self, outbound: Outbound) -> DeliveryResult: ...

    async def aclose(self) -> None: ...


class Approver(Protocol):
    """Optional channel capability: ask a human whether a tool call may run."""

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision: ...


#: Methods the kernel checks on a registered class, per registry.
REQUIRED_METHODS: Mapping[str, Sequence[str]] = {
    "api_modes": ("complete",),
    "context_engines": ("should_compress", "compress"),
    "memory_providers": ("start", "prompt_block", "tools"),
    "channels": ("run", "deliver"),
}


class CliContext(Protocol):
    """``click.get_current_context().obj`` inside every ``talaria`` command.

    Plugin commands (``register_commands``) use it instead of reaching into the kernel:

    - ``home`` / ``workspace``: ``$TALARIA_HOME`` and the working directory;
    - ``config``: the loaded configuration (read-only mapping);
    - ``edit_config()``: a context manager yielding the config document (a mutable,
      comment-preserving mapping); on a clean exit it is validated and written atomically;
    - ``load_kernel()``: the loaded kernel (plugins, registries, store), built on first use.
    """

    home: Path
    workspace: Path

    @property
    def config(self) -> Mapping[str, Any]: ...

    def edit_config(self) -> AbstractContextManager[Any]: ...

    def load_kernel(self) -> Any: ...
