"""``talaria mcp``: add, remove, enable, disable and import MCP servers (plus ``list`` and
``test`` from :mod:`.cli_status`).

Every command reads the config through ``click.get_current_context().obj`` (a
:class:`talaria.CliContext`) and writes it only through ``obj.edit_config()``. An entry is
validated before it is written; an option that does not fit the server (``--header`` on a
command, ``--env`` on a URL) is a usage error, never silently dropped; a command that is not
on ``PATH`` is written but reported.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from talaria import ConfigError

from .cli_status import _obj, _servers, list_cmd, test_cmd
from .config import parse_server
from .presets import import_entries, list_presets, load_preset, preset_entry

__all__ = ["mcp_group"]


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
    install = None
    if command:
        entry: dict[str, Any] = {"command": command[0]}
        if command[1:]:
            entry["args"] = list(command[1:])
    elif url:
        entry = {"url": url}
        if transport == "sse":
            entry["transport"] = "sse"
    else:
        preset = load_preset(name)
        if preset is None:
            known = ", ".join(list_presets()) or "none found"
            raise click.UsageError(f"{name!r} is not a preset (presets: {known}); "
                                   "give a command after -- or --url URL")
        entry, needed = preset_entry(preset)
        install = preset.get("install") or preset.get("needs")
        notes += [f"set {var} in your environment (the server needs it)" for var in needed if var not in os.environ]
    if entry.get("url"):
        _refuse(envs=envs, cwd=cwd, why="only for command servers (NAME -- COMMAND ARGS…)")
    else:
        _refuse(headers=headers, transport=transport, why="only for URL servers (--url URL)")
    if envs:
        entry["env"] = {**(entry.get("env") or {}), **_pairs(envs, "--env")}
    if cwd:
        entry["cwd"] = cwd
    if headers:
        entry["headers"] = {**(entry.get("headers") or {}), **_pairs(headers, "--header")}
    if timeout:
        entry["timeout"] = timeout
    if include or exclude:
        entry["tools"] = {k: list(v) for k, v in (("include", include), ("exclude", exclude)) if v}
    program = str(entry.get("command") or "")
    if program and "${" not in program and shutil.which(program) is None:
        notes.insert(0, f"{program!r} is not on PATH; install it ({install})" if install
                     else f"{program!r} is not on PATH; install it or give its full path")
    _write_entry(name, entry, replace=force)
    click.echo(f"Added MCP server {name!r}. Check it with: talaria mcp test {name}")
    for note in notes:
        click.echo(f"note: {note}", err=True)


def _refuse(*, why: str, **given: Any) -> None:
    """A usage error naming the options in ``given`` that were used but do not fit."""
    used = [f"--{k.rstrip('s')}" for k, v in given.items() if v]
    if used:
        raise click.UsageError(f"{', '.join(used)}: {why}")


def _existing(doc: Any, name: str) -> Any:
    servers = (doc.get("mcp") or {}).get("servers") or {}
    if name not in servers:
        known = ", ".join(servers) or "none configured"
        raise click.ClickException(f"no MCP server named {name!r} (configured: {known})")
    return servers


@mcp_group.command("remove")
@click.argument("name")
def remove_cmd(name: str) -> None:
    """Remove a configured server."""
    with _obj().edit_config() as doc:
        del _existing(doc, name)[name]
    click.echo(f"Removed MCP server {name!r}.")


def _set_enabled(name: str, enabled: bool) -> None:
    with _obj().edit_config() as doc:
        table = _existing(doc, name)[name]
        if enabled:
            table.pop("enabled", None)  # true is the default
        else:
            table["enabled"] = False
    click.echo(f"MCP server {name!r} {'enabled' if enabled else 'disabled'} (from the next start).")


@mcp_group.command("enable")
@click.argument("name")
def enable_cmd(name: str) -> None:
    """Turn a disabled server back on."""
    _set_enabled(name, True)


@mcp_group.command("disable")
@click.argument("name")
def disable_cmd(name: str) -> None:
    """Keep a server configured but do not start it."""
    _set_enabled(name, False)


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


mcp_group.add_command(list_cmd)
mcp_group.add_command(test_cmd)
