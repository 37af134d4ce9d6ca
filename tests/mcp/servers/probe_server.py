"""A small real MCP server (stdio) for the bridge's tests, built with the mcp SDK's MCPServer.

Tools: ``add``; ``show_env`` (names of the env vars it sees); ``die`` (the process exits, as a
crashing server would); ``grow`` (registers tool ``extra`` and sends tools/list_changed);
``a.b`` and ``a-b`` (names that collide once sanitized); a tool with a very long name.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and "--fail" in sys.argv:  # before the SDK import: retries stay cheap
    print("probe server: refusing to start (--fail)", file=sys.stderr)
    sys.exit(2)

from mcp.server import MCPServer  # noqa: E402
from mcp.server.mcpserver import Context  # noqa: E402

server = MCPServer("probe")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def show_env() -> str:
    """Names of the environment variables this server sees."""
    return "\n".join(sorted(os.environ))


@server.tool()
def die() -> str:
    """Exit the server process at once."""
    sys.stdout.flush()
    os._exit(3)


@server.tool()
async def grow(ctx: Context) -> str:
    """Register tool `extra` and tell the client its tool list changed."""

    def extra() -> str:
        """A tool that appears at run time."""
        return "extra!"

    server.add_tool(extra, name="extra")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool(name="a.b")
def a_dot_b() -> str:
    """Dotted name."""
    return "dot"


@server.tool(name="a-b")
def a_dash_b() -> str:
    """Dashed name."""
    return "dash"


@server.tool(name="x" * 70)
def long_name() -> str:
    """A tool whose name exceeds provider limits."""
    return "long"


if __name__ == "__main__":
    server.run("stdio")
