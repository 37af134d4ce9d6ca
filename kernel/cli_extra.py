"""Commands whose implementation lives in other kernel modules (mounted here, lazily)."""

from __future__ import annotations

import json
from typing import Any

import click

__all__ = ["add_extra_commands", "default_request_sizes"]


def add_extra_commands(cli: click.Group) -> None:
    """Mount the kernel's subsystem commands on the root group."""
    def registry() -> Any:
        return dict(click.get_current_context().obj.load_kernel().registries.providers.items())

    def origins() -> dict[str, str]:
        kernel = click.get_current_context().obj.load_kernel()
        out = {}
        for reg in kernel.registries.providers.registrations():
            record = kernel.plugins.records.get(reg.plugin)
            out[reg.name] = f"{record.tier} ({reg.plugin})" if record else reg.plugin
        return out

    def provider_commands() -> dict[str, click.Command]:
        from .providers.cli import add_provider_commands

        group = click.Group()
        add_provider_commands(group, registry, origins)
        return dict(group.commands)

    def session_commands() -> dict[str, click.Command]:
        from .store.cli import sessions_group

        group = sessions_group()
        return {group.name or "sessions": group}

    lazy = getattr(cli, "lazy", None)
    if lazy is None:  # a plain click group: mount eagerly
        for commands in (provider_commands(), session_commands()):
            for command in commands.values():
                cli.add_command(command)
    else:
        lazy.update({"providers": provider_commands, "models": provider_commands, "auth": provider_commands,
                     "sessions": session_commands})
    cli.add_command(tools_group)
    cli.add_command(prompt_size)


@click.group("tools")
def tools_group() -> None:
    """Inspect tools and toolsets."""


@tools_group.command("list")
@click.option("--toolset", "toolset", default=None, help="Only tools of this toolset.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def tools_list(state: Any, toolset: str | None, as_json: bool) -> None:
    """List registered tools: name, toolset, plugin, offered now?"""
    from .tools import ToolBox, resolve_toolsets

    kernel = state.load_kernel()
    box = ToolBox(kernel.registries, kernel.config)
    offered = {t.name for t in box.offered()}
    rows = []
    wanted = resolve_toolsets([toolset], dict(kernel.registries.toolsets.items())) if toolset else None
    for reg in kernel.registries.tools.registrations():
        tool = reg.item
        if wanted is not None and tool.name not in wanted and tool.toolset != toolset:
            continue
        rows.append({"name": tool.name, "toolset": tool.toolset, "plugin": reg.plugin, "offered": tool.name in offered,
                     "dangerous": tool.dangerous, "description": tool.description,
                     "schema_bytes": len(json.dumps(tool.parameters, separators=(",", ":")))})
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        flag = "" if row["offered"] else "  (not offered)"
        click.echo(f"{row['name']:<22} {row['toolset']:<14} {row['plugin']:<16} {row['description']}{flag}")


def default_request_sizes(kernel: Any) -> dict[str, Any]:
    """Sizes (bytes of compact JSON) of the default request of this installation."""
    from .prompt import build_sections
    from .tools import ToolBox
    from .types import SessionInfo

    info = SessionInfo(id="prompt-size", session_key="prompt-size", workspace=kernel.workspace, home=kernel.home,
                       source="cli", context_window=128_000, config=kernel.config)
    sections = build_sections(info, kernel.hooks.prompt_sections(info))
    tools = ToolBox(kernel.registries, kernel.config).offered()
    tiers: dict[str, int] = {}
    for section in sections:
        tiers[section.tier] = tiers.get(section.tier, 0) + len(section.text.encode())
    tool_sizes = {
        t.name: len(json.dumps({"type": "function", "function": {"name": t.name, "description": t.description,
                                                                  "parameters": t.parameters}}, separators=(",", ":")).encode())
        for t in tools
    }
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": "\n\n".join(s.text for s in sections)},
                     {"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                  for t in tools],
    }
    return {"tiers": tiers, "tools": tool_sizes, "tools_total": sum(tool_sizes.values()),
            "request_total": len(json.dumps(body, separators=(",", ":")).encode())}


@click.command("prompt-size")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
def prompt_size(state: Any, as_json: bool) -> None:
    """Bytes of each system-prompt tier and each tool schema in the default request."""
    sizes = default_request_sizes(state.load_kernel())
    if as_json:
        click.echo(json.dumps(sizes, indent=2))
        return
    for tier, size in sizes["tiers"].items():
        click.echo(f"system/{tier:<9} {size:>7,} B")
    for name, size in sorted(sizes["tools"].items(), key=lambda kv: -kv[1]):
        click.echo(f"tool {name:<22} {size:>7,} B")
    click.echo(f"tools total      {sizes['tools_total']:>7,} B")
    click.echo(f"default request  {sizes['request_total']:>7,} B  (system prompt + tool schemas + one user message)")


