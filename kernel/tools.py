"""Tools at run time: which exist, which are offered this turn, validation, execution.

Three layers, never merged (DESIGN §8): a tool *exists* (registered, or currently offered
by a tool source such as the MCP bridge); it is *available this turn* (selected by the
toolsets in force and its availability check passes); and *this call is allowed*
(schema-valid, then policy and approval — see :mod:`talaria.turn.tool_round`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .errors import ToolError
from .loader.registries import Registries
from .types import Tool, ToolCall, ToolContext, ToolResult, Toolset

__all__ = ["ToolBox", "budget_text", "resolve_toolsets"]

DEFAULT_MAX_OUTPUT = 30_000  # characters per result
DEFAULT_TURN_OUTPUT = 200_000  # characters of tool results per turn


def resolve_toolsets(names: Iterable[str], toolsets: Mapping[str, Toolset]) -> set[str]:
    """Expand toolset names (and plain tool names) into tool names; cycles are safe."""
    seen: set[str] = set()
    tools: set[str] = set()
    stack = list(names)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        toolset = toolsets.get(name)
        if toolset is None:
            tools.add(name)  # a plain tool name
            continue
        tools.update(toolset.tools)
        stack.extend(toolset.includes)
    return tools


def budget_text(text: str, limit: int) -> str:
    """Keep head and tail of ``text`` within ``limit`` chars, saying how much was cut."""
    if len(text) <= limit:
        return text
    keep_head = int(limit * 0.7)
    keep_tail = max(limit - keep_head, 0)
    cut = len(text) - keep_head - keep_tail
    note = (
        f"\n\n[... {cut:,} of {len(text):,} characters cut to fit the output budget. "
        "Ask for a narrower range (e.g. line offsets, a more specific pattern) to see the rest. ...]\n\n"
    )
    return text[:keep_head] + note + (text[-keep_tail:] if keep_tail else "")


class ToolBox:
    """The kernel's view of tools for one runtime.

    :param selection: tool or toolset names to offer (``--toolsets``); None means the
        config's ``[tools] enabled`` list, or every registered tool.
    """

    def __init__(
        self,
        registries: Registries,
        config: Mapping[str, Any],
        *,
        selection: Sequence[str] | None = None,
        extra_tools: Sequence[Tool] = (),
    ) -> None:
        self.registries = registries
        tools_cfg = config.get("tools", {})
        self.enabled = list(selection) if selection is not None else tools_cfg.get("enabled")
        self.disabled = set(tools_cfg.get("disabled", []))
        self.max_output = int(tools_cfg.get("max_output", DEFAULT_MAX_OUTPUT))
        self.turn_output = int(tools_cfg.get("turn_output", DEFAULT_TURN_OUTPUT))
        self.extra_tools = list(extra_tools)
        self._validators: dict[int, Any] = {}
        self._known_sources = [src for _, src in registries.tool_sources.items()]

    # ------------------------------------------------------------------ what exists

    def all_tools(self) -> dict[str, Tool]:
        """Every tool that exists right now (registered, extra, and from tool sources)."""
        tools: dict[str, Tool] = {name: tool for name, tool in self.registries.tools.items()}
        for tool in self.extra_tools:
            tools.setdefault(tool.name, tool)
        for source in self._known_sources:
            try:
                for tool in source.tools():
                    tools.setdefault(tool.name, tool)
            except Exception:  # a broken source must not hide every other tool
                continue
        return tools

    def offered(self) -> list[Tool]:
        """Tools offered to the model now, sorted by name (a stable request)."""
        tools = self.all_tools()
        if self.enabled is not None:
            wanted = resolve_toolsets(self.enabled, dict(self.registries.toolsets.items()))
            wanted |= {t.name for t in tools.values() if t.toolset in wanted}
            tools = {n: t for n, t in tools.items() if n in wanted}
        blocked = resolve_toolsets(self.disabled, dict(self.registries.toolsets.items()))
        offered = []
        for name in sorted(tools):
            tool = tools[name]
            if name in blocked or tool.toolset in blocked:
                continue
            if tool.available is not None:
                try:
                    if not tool.available():
                        continue
                except Exception:
                    continue
            offered.append(tool)
        return offered

    # ------------------------------------------------------------------ validation

    def validate(self, call: ToolCall, offered: Mapping[str, Tool]) -> str | None:
        """Why ``call`` must not run (unknown tool, bad arguments), or None when valid."""
        tool = offered.get(call.name)
        if tool is None:
            names = ", ".join(sorted(offered)) or "none"
            return f"Unknown tool '{call.name}'. Available tools: {names}."
        if call.raw_arguments is not None:
            return (
                f"The arguments for '{call.name}' were not a JSON object ({call.raw_arguments[:200]!r}). "
                "Call the tool again with a JSON object matching its schema."
            )
        validator = self._validator(tool)
        errors = sorted(validator.iter_errors(dict(call.arguments)), key=lambda e: list(e.path))
        if not errors:
            return None
        details = "; ".join(
            f"{'/'.join(str(p) for p in e.path) or '(arguments)'}: {e.message}" for e in errors[:5]
        )
        return f"Invalid arguments for '{call.name}': {details}. The tool was not run."

    def _validator(self, tool: Tool) -> Any:
        key = id(tool.parameters)
        validator = self._validators.get(key)
        if validator is None:
            from jsonschema import validators

            cls = validators.validator_for(tool.parameters)
            validator = cls(tool.parameters)
            self._validators[key] = validator
        return validator

    # ------------------------------------------------------------------ execution

    async def execute(self, tool: Tool, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run the handler and normalize its outcome; never raises except on cancellation."""
        try:
            outcome = tool.handler(dict(call.arguments), ctx)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except asyncio.CancelledError:
            raise
        except ToolError as exc:
            return ToolResult(call_id=call.id, content=f"Error: {exc}", status="error", untrusted=tool.untrusted)
        except Exception as exc:
            return ToolResult(
                call_id=call.id,
                content=f"Error: tool '{tool.name}' failed internally: {type(exc).__name__}: {exc}",
                status="error",
                untrusted=tool.untrusted,
            )
        return self._to_result(tool, call, outcome)

    def _to_result(self, tool: Tool, call: ToolCall, outcome: Any) -> ToolResult:
        if isinstance(outcome, ToolResult):
            result = ToolResult(call_id=call.id, content=outcome.content, status=outcome.status,
                                untrusted=outcome.untrusted or tool.untrusted)
        elif isinstance(outcome, str):
            result = ToolResult(call_id=call.id, content=outcome, untrusted=tool.untrusted)
        elif outcome is None:
            result = ToolResult(call_id=call.id, content="(no output)", untrusted=tool.untrusted)
        else:
            try:
                text = json.dumps(outcome, ensure_ascii=False, default=str)
            except (TypeError, ValueError):
                text = str(outcome)
            result = ToolResult(call_id=call.id, content=text, untrusted=tool.untrusted)
        limit = min(tool.max_output or self.max_output, self.max_output)
        if len(result.content) > limit:
            result = ToolResult(call_id=result.call_id, content=budget_text(result.content, limit),
                                status=result.status, untrusted=result.untrusted)
        return result
