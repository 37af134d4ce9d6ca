from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from talaria import Tool, hookimpl


@pytest.fixture
def home() -> Path:
    return Path(os.environ["TALARIA_HOME"])


def make_tool(name: str, handler: Any, *, props: dict | None = None, required: tuple[str, ...] = (), parallel_safe: bool = True) -> Tool:
    return Tool(
        name=name,
        description=f"{name} tool",
        parameters={"type": "object", "properties": props or {}, "required": list(required)},
        handler=handler,
        parallel_safe=parallel_safe,
    )


def tools_plugin(*tools: Tool, name: str = "test_tools") -> tuple[str, object]:
    class _P:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            for tool in tools:
                register(tool)

    return name, _P()


async def sleepy(args: dict, ctx: Any) -> str:
    await asyncio.sleep(float(args.get("seconds", 0)))
    return f"slept {args.get('seconds', 0)}"
