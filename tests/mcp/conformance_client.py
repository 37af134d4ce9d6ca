"""Client under test for @modelcontextprotocol/conformance, driving the Talaria MCP bridge.

Usage (by the harness): ``python conformance_client.py <server-url>``; the scenario name is in
``MCP_CONFORMANCE_SCENARIO``. The bridge's own code does the work: a ``McpToolSource`` with one
HTTP server connects (initialize + tools/list), the scenario's tool is called through the
Talaria ``Tool`` the bridge offers, and elicitation requests go through the bridge's
elicitation callback to ``Services.elicit`` — answered here with every schema default (SEP-1034).
Exit status 0 when the scenario's action completed.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and os.environ.get("MCP_CONFORMANCE_SCENARIO", "").startswith("auth/"):
    # The bridge has no OAuth client (see expected-failures.yml): decline at once, before
    # any import, instead of spending the suite's CPU on a connection that cannot succeed.
    print("talaria mcp bridge: OAuth is not supported", file=sys.stderr)
    sys.exit(1)

import asyncio  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from talaria import Services, ToolCall, ToolContext  # noqa: E402
from talaria.testing import load_plugin_module  # noqa: E402

SCENARIO_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}


async def elicit_defaults(message: str, schema: Any) -> dict[str, Any]:
    props = (schema or {}).get("properties", {})
    return {key: spec["default"] for key, spec in props.items() if isinstance(spec, dict) and "default" in spec}


async def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    print(f"scenario {scenario}: server {url}", file=sys.stderr)
    items: list[Any] = []
    load_plugin_module("mcp").register_tools(items.append)
    [source] = items
    workspace = Path(tempfile.mkdtemp(prefix="talaria-conformance-"))
    config = {"mcp": {"servers": {"conformance": {"url": url, "connect_timeout": 80, "timeout": 80}}}}
    await source.start(Services(config=config, home=workspace, workspace=workspace, elicit=elicit_defaults))
    t0 = time.monotonic()
    try:
        await source.ready(80)
        [state] = source.states()
        if state["status"] != "connected":
            print(f"connect failed ({state['status']} after {time.monotonic() - t0:.1f} s): {state['last_error']}", file=sys.stderr)
            return 1
        tools = {t.name: t for t in source.tools()}
        print("tools:", sorted(tools))
        if scenario in SCENARIO_CALLS:
            raw, args = SCENARIO_CALLS[scenario]
            name = f"mcp__conformance__{raw}"
            ctx = ToolContext(session_id="conformance", session_key="conformance", workspace=workspace,
                              home=workspace, call=ToolCall(id="c1", name=name, arguments=args))
            print(await tools[name].handler(args, ctx))
        return 0
    finally:
        await source.aclose()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
