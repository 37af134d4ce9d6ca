"""The MCP bridge as one :class:`talaria.ToolSource` named ``mcp``.

Contract (see ``talaria.ToolSource``):

- ``start(services)`` reads ``services.config["mcp"]``, starts one supervised connection per
  enabled server, all concurrently, and returns at once (connecting goes on in the
  background, with retries, for as long as the source lives).
- ``ready(timeout)`` waits until every server's first attempt has ended, or ``timeout``.
- ``tools()`` is cheap: the tools of the servers connected *now*, names unique (collisions
  are renamed with a hash suffix, recorded in the server's ``warnings`` and emitted once as
  a ``warning`` event — never silently dropped).
- ``states()`` returns every configured server's state, including invalid and disabled ones.
- ``aclose()`` stops every connection (and its server process).

``[mcp] backoff_initial`` / ``backoff_max`` (seconds, default 1 / 60) tune the retry backoff.

Import cost: this module needs only ``talaria`` (``asyncio`` when a runtime starts it). With no ``[mcp.servers]``
configured nothing else is ever imported; otherwise ``start`` imports the connection
machinery (``.config``, ``.connection``, ``.tools``, ``.naming``) in a worker thread, and
each enabled server's connection imports the ``mcp`` SDK in a worker thread too, so the
event loop keeps building the first turn meanwhile. Disabled servers import no SDK.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import talaria
from talaria import Tool

if TYPE_CHECKING:
    from talaria import Services

    from .config import ServerConfig
    from .connection import ServerConnection

__all__ = ["McpToolSource"]


def _import_machinery() -> None:
    """Import the plugin's connection modules (in a worker thread; each connection then
    imports the ``mcp`` SDK off the loop too, see ``ServerConnection``)."""
    from . import config, connection, naming, tools  # noqa: F401


class McpToolSource:
    """Connects the configured MCP servers and offers their tools."""

    name = "mcp"

    def __init__(self) -> None:
        self.connections: dict[str, ServerConnection] = {}
        self.config_errors: dict[str, str] = {}
        self.disabled: list[ServerConfig] = []
        self._pending: list[str] = []  # configured servers whose connection is not created yet
        self._services: Services | None = None
        self._started_event: Any = None  # an asyncio.Event, made on first use (no asyncio import at load)
        self._cache_key: tuple[Any, ...] | None = None
        self._cache: list[Tool] = []
        self._reported: set[str] = set()
        self._owners: dict[str, str] = {}
        self._users = 0

    @property
    def _started(self) -> Any:
        if self._started_event is None:
            import asyncio

            self._started_event = asyncio.Event()
        return self._started_event

    async def start(self, services: Services) -> None:
        """Start connecting every enabled server in the background.

        Returns once the connections are launched (after the machinery import, done off the
        event loop); never waits for a server. One source object may serve several runtimes
        in turn (or at once): a ``start`` while already started shares the live connections;
        the last ``aclose`` stops them.
        """
        self._users += 1
        if self._services is not None:
            return
        self._services = services
        self.connections, self.disabled, self.config_errors, self._reported = {}, [], {}, set()
        self._cache_key, self._cache = None, []
        started = self._started
        section = services.config.get("mcp") or {}
        if not isinstance(section, Mapping):
            section = {"servers": section}  # parse_servers reports it
        raw_servers = section.get("servers")
        if not raw_servers:  # nothing configured: import nothing, connect nothing
            started.set()
            return
        self._pending = [str(n) for n in raw_servers] if isinstance(raw_servers, Mapping) else []
        import asyncio

        await asyncio.to_thread(_import_machinery)
        if self._services is not services:  # closed while importing: launch nothing
            return
        from .config import parse_servers
        from .connection import ServerConnection

        servers, self.config_errors = parse_servers(section)
        backoff = {
            "backoff_initial": float(section.get("backoff_initial", 1.0)),
            "backoff_max": float(section.get("backoff_max", 60.0)),
        }
        for cfg in servers:
            if not cfg.enabled:
                self.disabled.append(cfg)
                continue
            conn = ServerConnection(cfg, services, **backoff)
            self.connections[cfg.name] = conn
            conn.start()
        self._pending = []
        for name, error in self.config_errors.items():
            services.emit(talaria.Event(kind="warning", data={"source": "mcp", "server": name, "message": error}))
        started.set()

    async def ready(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for each server's first connect attempt to finish."""
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, timeout)
        try:
            await asyncio.wait_for(self._started.wait(), max(0.0, deadline - loop.time()))
            waits = [c.settled.wait() for c in self.connections.values()]
            if waits:
                await asyncio.wait_for(asyncio.gather(*waits), max(0.0, deadline - loop.time()))
        except TimeoutError:
            pass  # slow servers keep connecting in the background

    def tools(self) -> Sequence[Tool]:
        """The tools of the servers connected now (rebuilt only when something changed)."""
        live = [c for c in self.connections.values() if c.connected]
        key = tuple((c.cfg.name, c.version) for c in live)
        if key != self._cache_key:
            self._cache = self._build(live)
            self._cache_key = key
        return list(self._cache)

    def _build(self, live: list[ServerConnection]) -> list[Tool]:
        if not live:
            self._owners = {}
            return []
        from .naming import assign_names
        from .tools import make_tool, make_utility_tool, utility_names

        entries: list[tuple[str, str, str]] = []
        by_server = {c.cfg.name: c for c in live}
        mcp_tools: dict[tuple[str, str], Any] = {}
        for conn in live:
            for t in conn.tools:
                entries.append((conn.cfg.name, t.name, "tool"))
                mcp_tools[(conn.cfg.name, t.name)] = t
            entries += [(conn.cfg.name, u, "util") for u in utility_names(conn)]
        names, reports = assign_names(entries)
        for report in reports:
            self._report(report, by_server)
        tools: list[Tool] = []
        self._owners = {name: server for (server, _, _), name in names.items()}
        for (server, tool, kind), name in names.items():
            conn = by_server[server]
            if kind == "tool":
                tools.append(make_tool(conn, mcp_tools[(server, tool)], name))
            else:
                tools.append(make_utility_tool(conn, tool, name))
        return tools

    def _report(self, report: str, by_server: dict[str, ServerConnection]) -> None:
        for server, conn in by_server.items():
            if f"of server {server!r}" in report and report not in conn.warnings:
                conn.warnings.append(report)
        if report not in self._reported and self._services is not None:
            self._reported.add(report)
            self._services.emit(talaria.Event(kind="warning", data={"source": "mcp", "message": report}))

    def states(self) -> list[dict[str, Any]]:
        """Every configured server's state: live connections, disabled and invalid entries."""
        rows = [c.snapshot() for c in self.connections.values()]
        rows += [{"name": n, "transport": "?", "status": "connecting", "last_error": None, "attempts": 0,
                  "tools": 0} for n in self._pending]
        rows += [{"name": c.name, "transport": c.transport, "status": "disabled", "last_error": None,
                  "attempts": 0, "tools": 0} for c in self.disabled]
        rows += [{"name": n, "transport": "?", "status": "invalid", "last_error": e, "attempts": 0, "tools": 0}
                 for n, e in self.config_errors.items()]
        return rows

    def tools_by_server(self) -> dict[str, list[Tool]]:
        """``{server: [tools offered now, sorted by name]}`` for every enabled server."""
        out: dict[str, list[Tool]] = {name: [] for name in self.connections}
        for tool in self.tools():
            out[self._owners[tool.name]].append(tool)
        return {name: sorted(tools, key=lambda t: t.name) for name, tools in out.items()}

    def connection(self, name: str) -> ServerConnection | None:
        return self.connections.get(name)

    async def aclose(self) -> None:
        """Stop every connection concurrently (when the last runtime using them closes)."""
        self._users = max(0, self._users - 1)
        if self._users:
            return
        import asyncio

        await asyncio.gather(*(c.aclose() for c in self.connections.values()), return_exceptions=True)
        self._services, self._pending = None, []
        self._started_event = None
