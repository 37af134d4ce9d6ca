"""``todo``: a per-session task list the model maintains (toolset ``todo``).

Contract: one call shape keeps the schema small. ``todo()`` shows the list;
``todo(items=[…])`` replaces the whole list and shows it; ``todo(items=[])`` clears it.
Each item is ``{"text": …, "status": "pending" | "active" | "done"}`` (status defaults to
pending). The list lives in ``ctx.state["todo"]`` (a list of ``{"text", "status"}`` dicts),
so it belongs to the session and nothing is written to disk. At most 50 items of at most
500 characters each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import talaria
from talaria import Tool, ToolContext, ToolError, Toolset

__all__ = ["TOOLS", "todo", "render", "STATE_KEY"]

STATE_KEY = "todo"
MAX_ITEMS = 50
MAX_TEXT = 500
_MARK = {"pending": "[ ]", "active": "[>]", "done": "[x]"}


def render(items: list[dict[str, str]]) -> str:
    """The list as the model sees it: one numbered line per item and a progress count."""
    if not items:
        return "The todo list is empty."
    rows = [f"{_MARK[item['status']]} {n}. {item['text']}" for n, item in enumerate(items, start=1)]
    done = sum(1 for item in items if item["status"] == "done")
    rows.append(f"({done}/{len(items)} done)")
    return "\n".join(rows)


async def todo(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    if "items" in arguments and arguments["items"] is not None:
        raw = list(arguments["items"])
        if len(raw) > MAX_ITEMS:
            raise ToolError(f"{len(raw)} items is too many (max {MAX_ITEMS}); merge or drop some.")
        items = []
        for n, entry in enumerate(raw, start=1):
            text = " ".join(str(entry.get("text", "")).split())
            if not text:
                raise ToolError(f"item {n} has no text.")
            status = entry.get("status") or "pending"
            if status not in _MARK:
                raise ToolError(f"item {n}: status must be pending, active or done.")
            items.append({"text": text[:MAX_TEXT], "status": status})
        ctx.state[STATE_KEY] = items
    return render(list(ctx.state.get(STATE_KEY) or []))


TOOLS = (
    Tool(
        name="todo",
        description="Show your task list, or replace it by passing items (all of them).",
        parameters={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "text": {"type": "string"},
                            "status": {"enum": ["pending", "active", "done"]},
                        },
                        "required": ["text"],
                    },
                }
            },
        },
        handler=todo,
        toolset="todo",
        parallel_safe=False,
        max_output=30_000,
    ),
)


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    for tool in TOOLS:
        register(tool)
    register(Toolset(name="todo", tools=("todo",), description="A task list for multi-step work."))
