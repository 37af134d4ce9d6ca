"""@modelcontextprotocol/server-everything (npm) over stdio and Streamable HTTP."""

from __future__ import annotations

import asyncio

import pytest

from mcp_helpers import EVERYTHING_JS, call, needs_everything
from talaria import ToolError

pytestmark = [pytest.mark.slow, needs_everything]


@pytest.fixture(params=["stdio", "http"])
def everything(request):
    """The server entry for server-everything over one transport."""
    if request.param == "stdio":
        return {"command": "node", "args": [str(EVERYTHING_JS), "stdio"]}
    return {"url": request.getfixturevalue("everything_http")}


async def started(mcp_mod, runtime, server, **kw):
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    await source.start(runtime.services({"mcp": {"servers": {"everything": server}}}, **kw))
    await source.ready(20)
    assert source.states()[0]["status"] == "connected", source.states()
    return source


async def test_tools_echo_progress_sampling_elicitation_roots(mcp_mod, runtime, everything):
    source = await started(mcp_mod, runtime, everything)
    try:
        names = {t.name for t in source.tools()}
        assert {"mcp__everything__echo", "mcp__everything__get_sum",
                "mcp__everything__trigger_long_running_operation",
                "mcp__everything__trigger_sampling_request",
                "mcp__everything__trigger_elicitation_request"} <= names
        assert {"mcp__everything__list_resources", "mcp__everything__read_resource",
                "mcp__everything__list_prompts", "mcp__everything__get_prompt"} <= names

        assert "Echo: hello" in await call(source, "mcp__everything__echo", {"message": "hello"})

        text = await call(source, "mcp__everything__trigger_long_running_operation", {"duration": 0.4, "steps": 4})
        assert "completed" in text
        progress = [e for e in runtime.events if e.kind == "progress"]
        assert [e.data["progress"] for e in progress] == [1, 2, 3, 4]
        assert progress[-1].data["total"] == 4 and progress[-1].data["server"] == "everything"
        assert progress[-1].session_id == "sess"

        text = await call(source, "mcp__everything__trigger_sampling_request", {"prompt": "say hi", "maxTokens": 5000})
        assert "scripted sample" in text
        [sample] = runtime.sampled
        assert "say hi" in sample["messages"][0].content and sample["max_tokens"] == 1024  # capped

        runtime.elicit_answer = {"name": "Ada Lovelace", "check": True}
        text = await call(source, "mcp__everything__trigger_elicitation_request")
        assert "Ada Lovelace" in text and runtime.elicited
        assert runtime.elicited[0][1]["properties"]["name"]["type"] == "string"
        runtime.elicit_answer = None
        assert "declined" in await call(source, "mcp__everything__trigger_elicitation_request")

        roots = await call(source, "mcp__everything__get_roots_list")
        assert runtime.workspace.resolve().as_uri() in roots
    finally:
        await source.aclose()


async def test_resources_and_prompts_utility_tools(mcp_mod, runtime, everything_http):
    source = await started(mcp_mod, runtime, {"url": everything_http})
    try:
        listing = await call(source, "mcp__everything__list_resources")
        assert "demo://resource/static/document/architecture.md" in listing
        assert "{resourceId}" in listing  # templates too
        body = await call(source, "mcp__everything__read_resource",
                          {"uri": "demo://resource/dynamic/text/1"})
        assert "untrusted_tool_result" in body and len(body) > 100
        prompts = await call(source, "mcp__everything__list_prompts")
        assert "simple-prompt" in prompts and "args-prompt(city, state?)" in prompts
        text = await call(source, "mcp__everything__get_prompt", {"name": "args-prompt", "arguments": {"city": "Lyon"}})
        assert "Lyon" in text
        with pytest.raises(ToolError):
            await call(source, "mcp__everything__get_prompt", {"name": "no-such-prompt"})
    finally:
        await source.aclose()


async def test_sampling_limits_no_model_and_disabled(mcp_mod, runtime, everything_http):
    server = {"url": everything_http, "sampling": {"rpm": 1}}
    source = await started(mcp_mod, runtime, server)
    try:
        assert "scripted sample" in await call(source, "mcp__everything__trigger_sampling_request", {"prompt": "a"})
        with pytest.raises(ToolError, match="rate limit"):
            await call(source, "mcp__everything__trigger_sampling_request", {"prompt": "b"})
        assert len(runtime.sampled) == 1
    finally:
        await source.aclose()

    source = await started(mcp_mod, runtime, {"url": everything_http}, model=False, human=False)
    try:
        with pytest.raises(ToolError, match="no model configured"):
            await call(source, "mcp__everything__trigger_sampling_request", {"prompt": "c"})
        # nobody to ask: elicitation is declined, never hangs
        text = await asyncio.wait_for(call(source, "mcp__everything__trigger_elicitation_request"), 10)
        assert "declined" in text
    finally:
        await source.aclose()

    # sampling turned off: not advertised, so the server does not even offer its trigger
    source = await started(mcp_mod, runtime, {"url": everything_http, "sampling": {"enabled": False}})
    try:
        names = {t.name for t in source.tools()}
        assert "mcp__everything__echo" in names and "mcp__everything__trigger_sampling_request" not in names
    finally:
        await source.aclose()


async def test_http_server_that_is_down_then_up_connects_in_the_background(mcp_mod, runtime):
    import os
    import subprocess

    from mcp_helpers import free_port

    port = free_port()
    items: list = []
    mcp_mod.register_tools(items.append)
    [source] = items
    config = {"mcp": {"backoff_initial": 0.2, "backoff_max": 0.5,
                      "servers": {"late": {"url": f"http://127.0.0.1:{port}/mcp", "connect_timeout": 5}}}}
    await source.start(runtime.services(config))
    proc = None
    try:
        await source.ready(5)
        state = source.states()[0]
        assert state["status"] == "failed" and state["last_error"]
        proc = subprocess.Popen(["node", str(EVERYTHING_JS), "streamableHttp"], env={**os.environ, "PORT": str(port)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not source.connection("late").connected:
            assert loop.time() < deadline, source.states()
            await asyncio.sleep(0.1)
        assert "Echo: up" in await call(source, "mcp__late__echo", {"message": "up"})
    finally:
        await source.aclose()
        if proc is not None:
            proc.terminate()
            proc.wait(5)
