"""``talaria mcp list`` and ``talaria mcp test``: connect for real and report.

Contract: both connect with the code a runtime uses (:func:`probe`: one
:class:`McpToolSource` over the chosen servers) and show, per server, its transport, state,
tool count, connect time and — on failure — the last error, with the server's stderr tail.
``list --no-check`` shows the configuration without connecting; ``list --json`` is
machine-readable. ``test NAME`` lists the tools with their descriptions and exits 1 when the
server cannot be used; ``list`` exits 1 only with ``--strict`` when a server is not connected.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from talaria import ConfigError, Services, Tool

from .config import parse_server

__all__ = ["list_cmd", "probe", "test_cmd"]


def _obj() -> Any:
    obj = click.get_current_context().obj
    if obj is None:
        raise click.ClickException("no Talaria context: run this through the `talaria` command")
    return obj


def _servers(config: Mapping[str, Any]) -> Mapping[str, Any]:
    return (config.get("mcp") or {}).get("servers") or {}


async def probe(config: Mapping[str, Any], names: list[str], *, home: Path, workspace: Path,
                timeout: float) -> tuple[list[dict[str, Any]], dict[str, list[Tool]]]:
    """Connect the named servers once (the runtime's code); return states and offered tools."""
    from .source import McpToolSource

    section = dict(config.get("mcp") or {})
    section["servers"] = {n: s for n, s in _servers(config).items() if n in names}
    source = McpToolSource()
    await source.start(Services(config={**config, "mcp": section}, home=home, workspace=workspace))
    await source.ready(timeout)
    try:
        tools = source.tools_by_server()
        states = source.states()
        for row in states:
            if row["status"] == "connecting":
                row["last_error"] = row.get("last_error") or f"still connecting after {timeout:g} s"
        return states, tools
    finally:
        await source.aclose()


def _ctx_paths() -> tuple[Path, Path]:
    obj = _obj()
    return Path(obj.home), Path(obj.workspace)


def _target(raw: Mapping[str, Any]) -> str:
    if raw.get("url"):
        return str(raw["url"])
    return " ".join([str(raw.get("command", ""))] + [str(a) for a in raw.get("args", [])])


@click.command("list")
@click.option("--check/--no-check", default=True, help="Connect to each server (default) or only show the config.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--timeout", type=float, default=15.0, show_default=True, help="Seconds to wait for connections.")
@click.option("--strict", is_flag=True, help="Exit 1 when a server is not connected (for scripts).")
def list_cmd(check: bool, as_json: bool, timeout: float, strict: bool) -> None:
    """Show configured servers: state, tool count, last error, connect time."""
    config = _obj().config
    servers = _servers(config)
    if not servers:
        if as_json:
            click.echo("[]")
            return
        from .presets import list_presets

        click.echo("No MCP servers configured. Add one: talaria mcp add NAME -- COMMAND…  (presets: "
                   + ", ".join(list_presets()) + ")")
        return
    if check:
        home, workspace = _ctx_paths()
        states, _ = asyncio.run(probe(config, list(servers), home=home, workspace=workspace, timeout=timeout))
        order = {name: i for i, name in enumerate(servers)}
        states.sort(key=lambda row: order.get(row["name"], len(order)))  # config order
    else:
        states = [{"name": n, "status": "configured" if (s or {}).get("enabled", True) else "disabled",
                   "transport": "stdio" if (s or {}).get("command") else (s or {}).get("transport", "http")}
                  for n, s in servers.items()]
    if as_json:
        click.echo(json.dumps(states, indent=2))
    else:
        width = max(6, *(len(str(r["name"])) for r in states))
        head = f"{'SERVER':<{width}}  {'TYPE':<5}  {'STATE':<10}" + ("  TOOLS  TIME " if check else "")
        click.echo(f"{head}  COMMAND / URL")
        for row in states:
            line = f"{row['name']:<{width}}  {row.get('transport', '?'):<5}  {row['status']:<10}"
            if check:
                secs = row.get("connect_seconds")
                line += f"  {row.get('tools', 0):>5}  " + (f"{secs:>4.1f}s" if secs is not None else "    -")
            click.echo(f"{line}  {_target(servers.get(row['name']) or {})}".rstrip())
            if row.get("last_error"):
                click.echo("    error: " + str(row["last_error"]).replace("\n", "\n    "))
            for warning in row.get("warnings") or []:
                click.echo(f"    warning: {warning}")
    if check and strict and any(r["status"] not in ("connected", "disabled") for r in states):
        raise SystemExit(1)


def _one_line(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


@click.command("test")
@click.argument("name")
@click.option("--timeout", type=float, default=None, help="Seconds to wait (default: the server's connect_timeout).")
def test_cmd(name: str, timeout: float | None) -> None:
    """Connect to one server, list its tools and time it; exit 1 when it fails."""
    config = _obj().config
    raw = _servers(config).get(name)
    if raw is None:
        known = ", ".join(_servers(config)) or "none configured"
        raise click.ClickException(f"no MCP server named {name!r} (configured: {known})")
    try:
        cfg = parse_server(name, raw)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    home, workspace = _ctx_paths()
    config = {**config, "mcp": {**(config.get("mcp") or {}), "servers": {name: {**raw, "enabled": True}}}}
    started = time.monotonic()
    states, tools = asyncio.run(probe(config, [name], home=home, workspace=workspace,
                                      timeout=timeout or cfg.connect_timeout))
    elapsed = time.monotonic() - started
    row = states[0]
    if row["status"] != "connected":
        raise click.ClickException(f"MCP server {name!r} failed ({row['status']}) after {elapsed:.2f} s: "
                                   f"{row.get('last_error')}")
    note = "" if cfg.enabled else " (disabled in the config: turn it on with `talaria mcp enable " + name + "`)"
    click.echo(f"{name}: connected to {row.get('server')} (protocol {row.get('protocol_version')}) "
               f"in {row.get('connect_seconds'):.2f} s (total {elapsed:.2f} s){note}")
    offered = tools.get(name, [])
    click.echo(f"{len(offered)} tool(s) offered to the model:")
    width = max((len(t.name) for t in offered), default=0)
    for tool in offered:
        click.echo(f"  {tool.name:<{width}}  {_one_line(tool.description, 70)}".rstrip())
    if row.get("hidden_tools"):
        click.echo(f"hidden by the tools filter: {', '.join(row['hidden_tools'])}")
    for warning in row.get("warnings") or []:
        click.echo(f"warning: {warning}")
