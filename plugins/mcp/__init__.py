"""MCP bridge plugin: every configured MCP server's tools as ``mcp__<server>__<tool>``.

Registers one :class:`talaria.ToolSource` (``mcp``) and the ``talaria mcp`` command group.
Importing this package is cheap: the ``mcp`` SDK, ``click`` commands and ``tomlkit`` are
imported only when a runtime connects servers or a command runs.
"""

from __future__ import annotations

from typing import Any

import talaria

__all__ = ["register_commands", "register_tools"]


@talaria.hookimpl
def register_tools(register: Any) -> None:
    """Register the MCP tool source (it connects servers only when a runtime starts it)."""
    from .source import McpToolSource

    register(McpToolSource())


@talaria.hookimpl
def register_commands(cli: Any) -> None:
    """Add ``talaria mcp`` (add, list, test, remove, import)."""
    from .cli import mcp_group

    cli.add_command(mcp_group)
