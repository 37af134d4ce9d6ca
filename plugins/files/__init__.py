"""Workspace file tools: ``read_file``, ``write_file``, ``edit_file``, ``list_dir``,
``search_files`` (toolset ``files``).

Every path is resolved relative to the workspace and confined to it unless
``[tools.files] confine = false``. Options (``[tools.files]``): ``confine`` (true),
``max_lines`` (2000), ``max_chars`` (40000), ``max_entries`` (500), ``max_results`` (100).
Schemas are deliberately terse: every byte is sent on every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import talaria
from talaria import Tool, ToolContext, Toolset

# The handlers' modules (path checks, diffing, .gitignore parsing) are imported on the first
# call, not when the plugin loads: a turn that reads no file does not pay for them.


async def read_file(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    from ._read import read_file as handler

    return await handler(arguments, ctx)


async def write_file(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    from ._write import write_file as handler

    return await handler(arguments, ctx)


async def edit_file(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    from ._write import edit_file as handler

    return await handler(arguments, ctx)


async def list_dir(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    from ._read import list_dir as handler

    return await handler(arguments, ctx)


async def search_files(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    from ._search import search_files as handler

    return await handler(arguments, ctx)


_S = {"type": "string"}
_INT = {"type": "integer", "minimum": 1}

TOOLS = (
    Tool(
        name="read_file",
        description="Read a text file with line numbers; offset/limit select lines (1-based).",
        parameters={
            "type": "object",
            "properties": {"path": _S, "offset": _INT, "limit": _INT},
            "required": ["path"],
        },
        handler=read_file,
        toolset="files",
        max_output=50_000,
    ),
    Tool(
        name="write_file",
        description="Create or overwrite a file (parent dirs are created).",
        parameters={
            "type": "object",
            "properties": {"path": _S, "content": _S},
            "required": ["path", "content"],
        },
        handler=write_file,
        toolset="files",
        parallel_safe=False,
        max_output=2_000,
    ),
    Tool(
        name="edit_file",
        description="Replace exact text old with new in a file; old must be unique unless replace_all.",
        parameters={
            "type": "object",
            "properties": {"path": _S, "old": _S, "new": _S, "replace_all": {"type": "boolean"}},
            "required": ["path", "old", "new"],
        },
        handler=edit_file,
        toolset="files",
        parallel_safe=False,
        max_output=4_000,
    ),
    Tool(
        name="list_dir",
        description="List a directory (default: workspace root) with types and sizes.",
        parameters={"type": "object", "properties": {"path": _S}},
        handler=list_dir,
        toolset="files",
        max_output=30_000,
    ),
    Tool(
        name="search_files",
        description=(
            "Search the workspace: pattern is a regex over file contents, glob filters file "
            "names (e.g. *.py); .gitignored files are skipped."
        ),
        parameters={"type": "object", "properties": {"pattern": _S, "glob": _S, "path": _S}},
        handler=search_files,
        toolset="files",
        max_output=30_000,
    ),
)

TOOLSET = Toolset(
    name="files",
    tools=tuple(t.name for t in TOOLS),
    description="Read, write, edit and search files in the workspace.",
)


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    for tool in TOOLS:
        register(tool)
    register(TOOLSET)
