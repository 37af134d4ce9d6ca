"""Tools: what the model sees, what a handler gets, how tools are grouped.

Part of :mod:`talaria.types`, which re-exports every name here; import them from
``talaria`` (plugins) or ``talaria.types``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from .._values import value_type
from .approvals import ApprovalRequest
from .common import ApprovalDecision
from .sessions import Event
from .transcript import ToolCall, ToolResult


__all__ = ["ToolSpec", "ToolContext", "Tool", "Toolset", "ToolHandler"]


@value_type
class ToolSpec:
    """What the model sees of a tool: name, description, JSON-Schema parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]


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


#: ``handler(arguments, ctx)``: sync or async, see :class:`Tool`.
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
