"""End to end: `talaria mcp add time` from a fresh TALARIA_HOME, then a scripted turn whose
model calls MCP tools; their results reach the next model request as untrusted data. A server
that never starts shows its error in `talaria mcp list` and leaves the others working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib

import pytest

from mcp_helpers import EVERYTHING_JS, needs_everything
from talaria.testing import ScriptedModel, make_kernel, reply, run_turn, tool_call

pytestmark = [pytest.mark.slow, needs_everything]


def test_mcp_add_time_then_a_turn_uses_it(_home, tmp_path):
    env = {**os.environ, "TALARIA_HOME": str(_home)}
    cli = [sys.executable, "-m", "talaria"]
    added = subprocess.run([*cli, "mcp", "add", "time"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    added = subprocess.run([*cli, "mcp", "add", "everything", "--include", "echo", "--",
                            "node", str(EVERYTHING_JS), "stdio"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    added = subprocess.run([*cli, "mcp", "add", "ghost", "--", "no-such-mcp-server-xyz"], env=env, cwd=tmp_path,
                           capture_output=True, text=True)
    assert added.returncode == 0 and "not on PATH" in added.stderr, added.stderr
    listed = subprocess.run([*cli, "mcp", "list", "--json"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows["time"]["status"] == "connected" and rows["everything"]["status"] == "connected"
    assert rows["ghost"]["status"] == "failed" and "command not found" in rows["ghost"]["last_error"]

    config = tomllib.loads((_home / "config.toml").read_text())
    config["model"] = "scripted/test"
    config["mcp"]["startup_wait"] = 20

    model = ScriptedModel(
        reply("", tool_call("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"}, id="c1"),
              tool_call("mcp__everything__echo", {"message": "from the turn"}, id="c2")),
        reply("It is late in Tokyo."),
    )
    kernel = make_kernel(_home, model.plugin(), bundled=("mcp",), config=config, workspace=tmp_path)

    import asyncio

    record, _ = asyncio.run(run_turn(kernel, "What time is it in Tokyo?"))
    assert record.end_reason == "completed", record
    offered = {t.name for t in model.requests[0].tools}
    assert {"mcp__time__get_current_time", "mcp__time__convert_time", "mcp__everything__echo"} <= offered
    assert not any(n.startswith("mcp__everything__") and n != "mcp__everything__echo" for n in offered)
    assert not any(n.startswith("mcp__ghost__") for n in offered)
    results = {m.tool_call_id: m.content for m in model.requests[1].messages if m.role == "tool"}
    assert '"timezone": "Asia/Tokyo"' in results["c1"] and '"datetime"' in results["c1"]
    assert "Echo: from the turn" in results["c2"]
    assert all('<untrusted_tool_result source="mcp:' in text for text in results.values())

    # the same kernel serves a second runtime: the source restarts its connections
    model.add(reply("", tool_call("mcp__everything__echo", {"message": "again"}, id="c3")), reply("done"))
    record, _ = asyncio.run(run_turn(kernel, "Echo again", session_key="test:second"))
    assert record.end_reason == "completed", record
    results = {m.tool_call_id: m.content for m in model.requests[-1].messages if m.role == "tool"}
    assert "Echo: again" in results["c3"]
