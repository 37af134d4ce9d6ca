"""The ``talaria mcp`` group as it is registered: a shell that loads :mod:`.cli` on demand.

Contract: every ``talaria`` command registers this group, so it must cost nothing: it
imports only ``click`` (already loaded by the CLI). Its subcommands (:data:`SUBCOMMANDS`,
kept equal to the commands of :data:`.cli.mcp_group`) are imported only when one of them
runs or ``talaria mcp --help`` lists them.
"""

from __future__ import annotations

from typing import Any

import click

__all__ = ["SUBCOMMANDS", "LazyMcpGroup", "mcp_group"]

#: The subcommands defined in ``cli.py`` (a test keeps the two in step).
SUBCOMMANDS = ("add", "disable", "enable", "import", "list", "remove", "test")


class LazyMcpGroup(click.Group):
    """A click group whose subcommands live in :mod:`.cli`, imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Any:
        if cmd_name not in SUBCOMMANDS:
            return None
        from .cli import mcp_group as real

        return real.commands.get(cmd_name)


mcp_group = LazyMcpGroup(
    "mcp",
    help="Manage MCP servers (tools from external processes and URLs).\n\n"
    "Start with a preset (`talaria mcp add time`), check it with `talaria mcp test NAME`.",
    short_help="Manage MCP servers (tools from external processes and URLs).",
)
