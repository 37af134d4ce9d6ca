"""MCP bridge plugin: every configured MCP server's tools as ``mcp__<server>__<tool>``.

Registers one :class:`talaria.ToolSource` (``mcp``) and the ``talaria mcp`` command group.
Loading this plugin is cheap (about a millisecond): registering imports only :mod:`.source`
(``asyncio`` + ``talaria``) and :mod:`.group` (``click``, already loaded by the CLI). The
connection machinery and the ``mcp`` SDK are imported only when ``[mcp.servers]`` has
entries and a runtime starts; the commands (and ``tomlkit``) only when a ``talaria mcp``
command runs.
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
    """Add ``talaria mcp`` (add, list, test, remove, enable, disable, import)."""
    from .group import mcp_group

    cli.add_command(mcp_group)
