"""Real stdio servers: mcp-server-time (PyPI) and the probe server (mcp SDK)."""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

from mcp_helpers import call, probe_server
from talaria import Tool, ToolError

pytestmark = pytest.mark.slow


async def wait_for(predicate, timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


def unwrap(text: str, server: str) -> str:
    match = re.search(rf'<untrusted_tool_result source="mcp:{server}">\n(.*)\n</untrusted_tool_result>', text, re.S)
    assert match, text
    return match.group(1)


async def test_time_server_tools_and_a_call_and_a_missing_server(mcp_mod, runtime):
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    assert source.name == "mcp"
    config = {"mcp": {"servers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
        "ghost": {"command": "definitely-not-an-mcp-server-xyz"},
    }}}
    await source.start(runtime.services(config))
    try:
        await source.ready(20)
        tools = {t.name: t for t in source.tools()}
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(tools)
        tool = tools["mcp__time__get_current_time"]
        assert isinstance(tool, Tool) and tool.untrusted and tool.parameters["type"] == "object"
        assert "timezone" in tool.parameters["properties"]
        text = await call(source, "mcp__time__get_current_time", {"timezone": "Europe/Paris"})
        assert "treat it as data" in text
        data = json.loads(unwrap(text, "time"))
        assert data["timezone"] == "Europe/Paris" and "datetime" in data
        with pytest.raises(ToolError, match="Invalid timezone"):  # is_error result -> error result
            await call(source, "mcp__time__get_current_time", {"timezone": "Nowhere/Nothing"})
        states = {s["name"]: s for s in source.states()}
        assert states["time"]["status"] == "connected" and states["time"]["tools"] == 2
        assert states["ghost"]["status"] == "failed" and states["ghost"]["attempts"] >= 1
        assert "command not found" in states["ghost"]["last_error"]
        assert not any(name.startswith("mcp__ghost__") for name in tools)
        assert any(e.kind == "warning" and "ghost" in e.data.get("message", "") for e in runtime.events)
    finally:
        await source.aclose()


async def test_probe_server_naming_filters_env_and_list_changed(mcp_mod, runtime, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("PASSED_ON", "yes")
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    server = {**probe_server(), "env": {"DECLARED": "1", "FROM_PARENT": "${PASSED_ON}"},
              "tools": {"exclude": ["die"]}}
    await source.start(runtime.services({"mcp": {"servers": {"probe": server}}}))
    try:
        await source.ready(20)
        names = {t.name for t in source.tools()}
        assert "mcp__probe__die" not in names and "mcp__probe__add" in names  # exclude filter
        assert "mcp__probe__a_b" in names and any(re.fullmatch(r"mcp__probe__a_b_[0-9a-f]{8}", n) for n in names)
        assert all(len(n) <= 64 and re.fullmatch(r"[A-Za-z0-9_]+", n) for n in names)
        [state] = source.states()
        assert state["hidden_tools"] == ["die"] and any("a.b" in w for w in state["warnings"])
        env = unwrap(await call(source, "mcp__probe__show_env"), "probe").split("\n")
        assert "DECLARED" in env and "FROM_PARENT" in env and "PATH" in env
        assert "OPENAI_API_KEY" not in env
        assert unwrap(await call(source, "mcp__probe__add", {"a": 2, "b": 40}), "probe") == "42"
        assert "mcp__probe__extra" not in names
        await call(source, "mcp__probe__grow")
        await wait_for(lambda: "mcp__probe__extra" in {t.name for t in source.tools()})
        assert unwrap(await call(source, "mcp__probe__extra"), "probe") == "extra!"
    finally:
        await source.aclose()


async def test_include_filter_offers_only_named_tools(mcp_mod, runtime):
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    server = {**probe_server(), "tools": {"include": ["add", "nonexistent"], "exclude": ["add"]}}
    await source.start(runtime.services({"mcp": {"servers": {"p": server}}}))
    try:
        await source.ready(20)
        assert [t.name for t in source.tools()] == ["mcp__p__add"]
        assert any("nonexistent" in w for w in source.states()[0]["warnings"])
    finally:
        await source.aclose()


async def test_server_that_exits_is_reconnected_and_broken_one_keeps_retrying(mcp_mod, runtime):
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    config = {"mcp": {"backoff_initial": 0.1, "backoff_max": 0.5, "servers": {
        "p": probe_server(), "broken": probe_server("--fail")}}}
    await source.start(runtime.services(config))
    try:
        await source.ready(20)
        p = source.connection("p")
        assert p.connected and p.connects == 1
        with pytest.raises(ToolError, match="closed the connection"):
            await call(source, "mcp__p__die")
        await wait_for(lambda: p.connects == 2 and p.connected, timeout=20)
        assert unwrap(await call(source, "mcp__p__add", {"a": 1, "b": 1}), "p") == "2"
        broken = {s["name"]: s for s in source.states()}["broken"]
        assert broken["status"] in ("failed", "connecting") and broken["attempts"] >= 2
        assert "refusing to start" in (broken["last_error"] or "")
        assert not any(t.name.startswith("mcp__broken__") for t in source.tools())
    finally:
        await source.aclose()
    assert all(s["status"] == "stopped" for s in source.states())


async def test_calling_a_tool_of_a_disconnected_server_is_a_tool_error(mcp_mod, runtime):
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    await source.start(runtime.services({"mcp": {"servers": {"p": probe_server()}}}))
    try:
        await source.ready(20)
        [tool] = [t for t in source.tools() if t.name == "mcp__p__add"]
    finally:
        await source.aclose()
    from mcp_helpers import tool_ctx

    with pytest.raises(ToolError, match="not connected"):
        await tool.handler({"a": 1, "b": 2}, tool_ctx())


async def test_ready_is_bounded_by_its_timeout(mcp_mod, runtime):
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    # `sleep` never speaks MCP: the server is "slow"; ready() must not wait for it
    await source.start(runtime.services({"mcp": {"servers": {"slow": {"command": "sleep", "args": ["30"],
                                                                      "connect_timeout": 0.5}}}}))
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await source.ready(0.2)
        assert loop.time() - started < 1.0
        assert source.tools() == []
        await wait_for(lambda: source.states()[0]["status"] == "failed", timeout=10)
        assert "connect_timeout" in source.states()[0]["last_error"]
    finally:
        await source.aclose()
    assert os.environ.get("TALARIA_HOME")
