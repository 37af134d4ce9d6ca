"""Talaria :class:`~talaria.Tool` objects for a connected MCP server.

Contract: one Tool per server tool that passes the filters, named by the caller (see
:mod:`.naming`), with the server's JSON Schema as parameters (the kernel validates
arguments against it); plus, when the server advertises them, the utility tools
``list_resources``, ``read_resource``, ``list_prompts`` and ``get_prompt``. Every tool is
``untrusted``, in toolset ``mcp``; results are wrapped as untrusted data; an ``is_error``
result or a failed request raises :class:`talaria.ToolError` (an error result the model sees).
Progress notifications become ``progress`` events.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from talaria import Event, Tool, ToolContext, ToolError

from .config import UTILITY_TOOLS
from .connection import ServerConnection
from .render import content_text, resource_text, result_text, wrap_untrusted

__all__ = ["MAX_DESCRIPTION", "TOOLSET", "UTILITY_TOOLS", "make_tool", "make_utility_tool", "utility_names"]

TOOLSET = "mcp"
MAX_DESCRIPTION = 1024
_EMPTY = {"type": "object", "properties": {}}


def utility_names(conn: ServerConnection) -> list[str]:
    """The utility tools a connected server gets: advertised, non-empty, and let through
    by the include/exclude filters (an ``include`` list must name them to keep them)."""
    names = []
    if conn.has_resources:
        names += ["list_resources", "read_resource"]
    if conn.has_prompts:
        names += ["list_prompts", "get_prompt"]
    return [n for n in names if conn.cfg.wants_tool(n)]


def _schema(raw: Any) -> dict[str, Any]:
    schema = dict(raw) if isinstance(raw, Mapping) else {}
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def _describe(text: str | None, fallback: str) -> str:
    text = " ".join((text or "").split()) or fallback
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


def make_tool(conn: ServerConnection, mcp_tool: Any, name: str) -> Tool:
    """Wrap one MCP tool of ``conn`` as a Talaria Tool called ``name``."""
    server, raw = conn.cfg.name, mcp_tool.name

    async def handler(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
        call_id = ctx.call.id if ctx.call is not None else ""

        async def progress(value: float, total: float | None, message: str | None) -> None:
            conn.services.emit(Event(kind="progress", session_id=ctx.session_id, data={
                "source": "mcp", "server": server, "tool": name, "call_id": call_id,
                "progress": value, "total": total, "message": message,
            }))

        result = await conn.call_tool(raw, arguments, progress)
        text = wrap_untrusted(server, result_text(result))
        if result.is_error:
            raise ToolError(text)
        return text

    annotations = getattr(mcp_tool, "annotations", None)
    destructive = bool(annotations and getattr(annotations, "destructive_hint", None) is True
                       and getattr(annotations, "read_only_hint", None) is not True)
    return Tool(
        name=name,
        description=_describe(mcp_tool.description or getattr(mcp_tool, "title", None),
                              f"Tool {raw} of MCP server {server}."),
        parameters=_schema(mcp_tool.input_schema),
        handler=handler,
        toolset=TOOLSET,
        dangerous=destructive,
        untrusted=True,
    )


async def _list_resources(conn: ServerConnection, args: Mapping[str, Any]) -> str:
    lines = []
    resources = await conn.request("list_resources")
    for r in resources.resources:
        extra = f" ({r.mime_type})" if getattr(r, "mime_type", None) else ""
        lines.append(f"{r.uri} - {r.name}{extra}" + (f": {r.description}" if r.description else ""))
    try:
        templates = await conn.request("list_resource_templates")
        for t in templates.resource_templates:
            lines.append(f"{t.uri_template} (template) - {t.name}" + (f": {t.description}" if t.description else ""))
    except ToolError:
        pass  # templates are optional
    return "\n".join(lines) or "(no resources)"


async def _read_resource(conn: ServerConnection, args: Mapping[str, Any]) -> str:
    result = await conn.request("read_resource", str(args["uri"]))
    return "\n".join(resource_text(c) for c in result.contents) or "(empty resource)"


async def _list_prompts(conn: ServerConnection, args: Mapping[str, Any]) -> str:
    result = await conn.request("list_prompts")
    lines = []
    for p in result.prompts:
        params = ", ".join(a.name + ("" if a.required else "?") for a in (p.arguments or []))
        lines.append(f"{p.name}({params})" + (f": {p.description}" if p.description else ""))
    return "\n".join(lines) or "(no prompts)"


async def _get_prompt(conn: ServerConnection, args: Mapping[str, Any]) -> str:
    arguments = {str(k): str(v) for k, v in (args.get("arguments") or {}).items()}
    result = await conn.request("get_prompt", str(args["name"]), arguments or None)
    return "\n\n".join(f"[{m.role}]\n{content_text(m.content)}" for m in result.messages)


_UTILITY: dict[str, tuple[str, dict[str, Any], Any]] = {
    "list_resources": ("List the resources (and resource templates) of MCP server {server}.", _EMPTY,
                       _list_resources),
    "read_resource": ("Read one resource of MCP server {server} by URI.",
                      {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
                      _read_resource),
    "list_prompts": ("List the prompts of MCP server {server}.", _EMPTY, _list_prompts),
    "get_prompt": ("Get a prompt of MCP server {server}, filled with string arguments.",
                   {"type": "object", "properties": {
                       "name": {"type": "string"},
                       "arguments": {"type": "object", "additionalProperties": {"type": "string"}},
                   }, "required": ["name"]},
                   _get_prompt),
}


def make_utility_tool(conn: ServerConnection, kind: str, name: str) -> Tool:
    """One of :data:`UTILITY_TOOLS` for ``conn``, called ``name``."""
    description, schema, run = _UTILITY[kind]

    async def handler(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
        return wrap_untrusted(conn.cfg.name, await run(conn, arguments))

    return Tool(
        name=name,
        description=description.format(server=conn.cfg.name),
        parameters=json.loads(json.dumps(schema)),
        handler=handler,
        toolset=TOOLSET,
        untrusted=True,
    )
