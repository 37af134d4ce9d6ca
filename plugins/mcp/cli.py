"""``talaria mcp``: add, list, test, remove and import MCP servers.

Every command reads the config through ``click.get_current_context().obj`` (a
:class:`talaria.CliContext`) and writes it only through ``obj.edit_config()``. ``list`` (by
default) and ``test`` connect for real, with the same code a runtime uses, and report state,
tool count, last error and timings; ``test`` exits 1 when the server cannot be used.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from talaria import ConfigError, Services

from .config import parse_server
from .presets import import_entries, list_presets, load_preset, preset_entry

__all__ = ["mcp_group", "probe"]


def _obj() -> Any:
    obj = click.get_current_context().obj
    if obj is None:
        raise click.ClickException("no Talaria context: run this through the `talaria` command")
    return obj


def _servers(config: Mapping[str, Any]) -> Mapping[str, Any]:
    return (config.get("mcp") or {}).get("servers") or {}


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {value!r}", param_hint=option)
        out[key.strip()] = val
    return out


def _write_entry(name: str, entry: Mapping[str, Any], *, replace: bool) -> None:
    import tomlkit

    try:
        parse_server(name, entry)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    with _obj().edit_config() as doc:
        if "mcp" not in doc:
            doc["mcp"] = tomlkit.table()
        if "servers" not in doc["mcp"]:
            doc["mcp"]["servers"] = tomlkit.table(is_super_table=True)
        servers = doc["mcp"]["servers"]
        if name in servers and not replace:
            raise click.ClickException(f"MCP server {name!r} already exists; use --force to replace it")
        table = tomlkit.table()
        for key, value in entry.items():
            if isinstance(value, Mapping):
                inline = tomlkit.inline_table()
                inline.update({k: (list(v) if isinstance(v, list | tuple) else v) for k, v in value.items()})
                table[key] = inline
            else:
                table[key] = list(value) if isinstance(value, tuple) else value
        servers[name] = table


@click.group("mcp")
def mcp_group() -> None:
    """Manage MCP servers (tools from external processes and URLs)."""


@mcp_group.command("add", context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", help="Streamable HTTP (or SSE) endpoint instead of a command.")
@click.option("--header", "headers", multiple=True, metavar="K=V", help="HTTP header (repeatable).")
@click.option("--transport", type=click.Choice(["http", "sse"]), help="HTTP transport (default http).")
@click.option("--env", "envs", multiple=True, metavar="K=V", help="Environment variable for a command (repeatable).")
@click.option("--cwd", help="Working directory of a command (default: the workspace).")
@click.option("--timeout", type=float, help="Seconds per tool call (default 120).")
@click.option("--include", multiple=True, help="Offer only these tools (repeatable).")
@click.option("--exclude", multiple=True, help="Never offer these tools (repeatable).")
@click.option("--force", is_flag=True, help="Replace an existing server of that name.")
def add_cmd(name: str, command: tuple[str, ...], url: str | None, headers: tuple[str, ...],
            transport: str | None, envs: tuple[str, ...], cwd: str | None, timeout: float | None,
            include: tuple[str, ...], exclude: tuple[str, ...], force: bool) -> None:
    """Add a server: NAME -- COMMAND ARGS…, NAME --url URL, or a preset NAME.

    \b
    talaria mcp add time                      # preset from optional-mcps/
    talaria mcp add fs -- npx -y @modelcontextprotocol/server-filesystem ${WORKSPACE}
    talaria mcp add docs --url http://127.0.0.1:3001/mcp --header "Authorization=Bearer ${DOCS_TOKEN}"
    """
    notes: list[str] = []
    if command and url:
        raise click.UsageError("give either a command (after --) or --url, not both")
    if command:
        entry: dict[str, Any] = {"command": command[0]}
        if command[1:]:
            entry["args"] = list(command[1:])
        if envs:
            entry["env"] = _pairs(envs, "--env")
        if cwd:
            entry["cwd"] = cwd
    elif url:
        entry = {"url": url}
        if headers:
            entry["headers"] = _pairs(headers, "--header")
        if transport == "sse":
            entry["transport"] = "sse"
    else:
        preset = load_preset(name)
        if preset is None:
            known = ", ".join(list_presets()) or "none found"
            raise click.UsageError(f"{name!r} is not a preset (presets: {known}); "
                                   "give a command after -- or --url URL")
        entry, needed = preset_entry(preset)
        notes += [f"set {var} in your environment (the server needs it)" for var in needed if var not in os.environ]
        if entry.get("command") and shutil.which(entry["command"]) is None:
            notes.append(f"{entry['command']!r} is not on PATH; install it: {preset.get('install', preset.get('needs'))}")
    if timeout:
        entry["timeout"] = timeout
    if include or exclude:
        entry["tools"] = {k: list(v) for k, v in (("include", include), ("exclude", exclude)) if v}
    _write_entry(name, entry, replace=force)
    click.echo(f"Added MCP server {name!r}. Check it with: talaria mcp test {name}")
    for note in notes:
        click.echo(f"note: {note}", err=True)


@mcp_group.command("remove")
@click.argument("name")
def remove_cmd(name: str) -> None:
    """Remove a configured server."""
    with _obj().edit_config() as doc:
        servers = (doc.get("mcp") or {}).get("servers") or {}
        if name not in servers:
            raise click.ClickException(f"no MCP server named {name!r} (see `talaria mcp list --no-check`)")
        del servers[name]
    click.echo(f"Removed MCP server {name!r}.")


@mcp_group.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace servers that already exist.")
def import_cmd(file: Path, force: bool) -> None:
    """Import servers from an mcpServers JSON file (Claude Desktop, Cursor, VS Code…)."""
    try:
        entries, errors = import_entries(file.read_text(encoding="utf-8"))
    except ConfigError as exc:
        raise click.ClickException(f"{file}: {exc}") from exc
    existing = _servers(_obj().config)
    added = 0
    for name, entry in entries.items():
        if name in existing and not force:
            click.echo(f"skipped {name}: already configured (use --force to replace)")
            continue
        try:
            _write_entry(name, entry, replace=True)
        except click.ClickException as exc:
            errors[name] = exc.message
            continue
        added += 1
        click.echo(f"imported {name}")
    for name, error in errors.items():
        click.echo(f"error {name}: {error}", err=True)
    click.echo(f"{added} server(s) imported from {file}.")
    if errors and not added:
        raise SystemExit(1)


async def probe(config: Mapping[str, Any], names: list[str], *, home: Path, workspace: Path,
                timeout: float) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    """Connect the named servers once (the runtime's code), return states and tool names."""
    from .source import McpToolSource

    section = dict(config.get("mcp") or {})
    section["servers"] = {n: s for n, s in _servers(config).items() if n in names}
    source = McpToolSource()
    await source.start(Services(config={**config, "mcp": section}, home=home, workspace=workspace))
    await source.ready(timeout)
    try:
        tools = source.tool_names_by_server()
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


@mcp_group.command("list")
@click.option("--check/--no-check", default=True, help="Connect to each server (default) or only show the config.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--timeout", type=float, default=15.0, show_default=True, help="Seconds to wait for connections.")
def list_cmd(check: bool, as_json: bool, timeout: float) -> None:
    """Show configured servers: state, tool count, last error, connect time."""
    config = _obj().config
    servers = _servers(config)
    if not servers:
        click.echo("No MCP servers configured. Add one: talaria mcp add NAME -- COMMAND…  (presets: "
                   + ", ".join(list_presets()) + ")")
        return
    if check:
        home, workspace = _ctx_paths()
        states, _ = asyncio.run(probe(config, list(servers), home=home, workspace=workspace, timeout=timeout))
    else:
        states = [{"name": n, "status": "configured" if (s or {}).get("enabled", True) else "disabled",
                   "transport": "stdio" if (s or {}).get("command") else (s or {}).get("transport", "http")}
                  for n, s in servers.items()]
    if as_json:
        click.echo(json.dumps(states, indent=2))
        return
    for row in states:
        raw = servers.get(row["name"]) or {}
        target = raw.get("url") or " ".join([str(raw.get("command", ""))] + [str(a) for a in raw.get("args", [])])
        line = f"{row['name']:<16} {row.get('transport', '?'):<6} {row['status']:<10}"
        if check:
            secs = row.get("connect_seconds")
            line += f" tools={row.get('tools', 0):<3} " + (f"{secs:.2f}s " if secs is not None else "")
        click.echo(f"{line} {target}".rstrip())
        if row.get("last_error"):
            click.echo("    error: " + str(row["last_error"]).replace("\n", "\n    "))
        for warning in row.get("warnings") or []:
            click.echo(f"    warning: {warning}")


@mcp_group.command("test")
@click.argument("name")
@click.option("--timeout", type=float, default=None, help="Seconds to wait (default: the server's connect_timeout).")
def test_cmd(name: str, timeout: float | None) -> None:
    """Connect to one server, list its tools and time it; exit 1 when it fails."""
    config = _obj().config
    raw = _servers(config).get(name)
    if raw is None:
        raise click.ClickException(f"no MCP server named {name!r} (see `talaria mcp list --no-check`)")
    try:
        cfg = parse_server(name, raw)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from exc
    home, workspace = _ctx_paths()
    config = {**config, "mcp": {**(config.get("mcp") or {}),
                                "servers": {name: {**raw, "enabled": True}}}}
    started = time.monotonic()
    states, tools = asyncio.run(probe(config, [name], home=home, workspace=workspace,
                                      timeout=timeout or cfg.connect_timeout))
    elapsed = time.monotonic() - started
    row = states[0]
    if row["status"] != "connected":
        raise click.ClickException(f"MCP server {name!r} failed ({row['status']}) after {elapsed:.2f} s: "
                                   f"{row.get('last_error')}")
    click.echo(f"{name}: connected to {row.get('server')} (protocol {row.get('protocol_version')}) "
               f"in {row.get('connect_seconds'):.2f} s (total {elapsed:.2f} s)")
    click.echo(f"{len(tools.get(name, []))} tool(s):")
    for tool in tools.get(name, []):
        click.echo(f"  {tool}")
    if row.get("hidden_tools"):
        click.echo(f"hidden by filters: {', '.join(row['hidden_tools'])}")
    for warning in row.get("warnings") or []:
        click.echo(f"warning: {warning}")
