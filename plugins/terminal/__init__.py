"""``terminal`` and ``process`` tools (toolset ``terminal``).

``terminal(command, timeout?, background?)`` runs ``bash -c`` in the workspace. Options
(``[tools.terminal]``): ``timeout`` (default 120 s), ``max_timeout`` (600 s, the cap on a
model-requested timeout), ``max_output`` (16000 characters kept, head and tail).
Dangerous-command policy is not here: the ``approval`` plugin inspects commands in
``pre_tool_call`` before this handler ever runs.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import talaria
from talaria import Tool, ToolError, Toolset

if TYPE_CHECKING:  # annotations only
    from talaria import SessionInfo, ToolContext

# The process machinery (``_run``, ``_background``, ``_procs``) is imported on the first
# call of a tool, not when the plugin loads: a turn that runs no command does not pay for it.

__all__ = ["TOOLS", "terminal", "process"]


def _options(ctx: ToolContext) -> Mapping[str, Any]:
    tools = ctx.config.get("tools") or {}
    section = tools.get("terminal") if isinstance(tools, Mapping) else None
    return section if isinstance(section, Mapping) else {}


def _cwd(ctx: ToolContext) -> Path:
    cwd = Path(ctx.workspace).expanduser()
    if not cwd.is_dir():
        raise ToolError(f"the workspace {cwd} does not exist; nothing can run there.")
    return cwd


async def terminal(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    command: str = arguments["command"]
    if not command.strip():
        raise ToolError("command is empty.")
    opts = _options(ctx)
    max_output = int(opts.get("max_output", 16_000))
    if arguments.get("background"):
        from . import _background

        proc = _background.start(command, _cwd(ctx), ctx.session_id)
        return (
            f"Started background process {proc.id} (pid {proc.pid}). "
            f"Check it with process(action='poll', id='{proc.id}')."
        )
    default = float(opts.get("timeout", 120))
    ceiling = float(opts.get("max_timeout", 600))
    timeout = min(float(arguments.get("timeout") or default), ceiling)
    from ._run import run_command

    return await run_command(command, _cwd(ctx), timeout=timeout, max_chars=max_output)


async def process(arguments: Mapping[str, Any], ctx: ToolContext) -> str:
    import asyncio

    from . import _background, _procs

    action = arguments["action"]
    max_output = int(_options(ctx).get("max_output", 16_000))
    if action == "list":
        procs = _background.session_procs(ctx.session_id)
        if not procs:
            return "No background processes in this session."
        return "\n".join(f"{p.id}\t{p.status()}\t{p.command[:120]}" for p in procs)
    proc_id = arguments.get("id")
    if not proc_id:
        raise ToolError(f"action={action!r} needs the process id (see process(action='list')).")
    proc = _background.get(proc_id, ctx.session_id)
    if action == "kill":
        if proc.popen.poll() is not None and not _procs.group_alive(proc.pid):
            return f"{proc.id} had already {proc.status()}."
        await asyncio.to_thread(_background.kill, proc)
        return f"{proc.id} killed ({proc.status()})."
    output = _background.read_log(proc, max_output, since_last=action == "poll")
    if action == "poll":
        body = output or "(no new output)"
        return f"{proc.id} {proc.status()}\n{body}"
    return output or "(no output yet)"


TOOLS = (
    Tool(
        name="terminal",
        description=(
            "Run a bash command in the workspace; returns output and exit code. "
            "background=true returns an id for the process tool."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {"type": "integer", "minimum": 1},
                "background": {"type": "boolean"},
            },
            "required": ["command"],
        },
        handler=terminal,
        toolset="terminal",
        dangerous=False,
        parallel_safe=False,
        max_output=20_000,
    ),
    Tool(
        name="process",
        description="Manage background processes: list, poll (new output), log or kill.",
        parameters={
            "type": "object",
            "properties": {
                "action": {"enum": ["list", "poll", "log", "kill"]},
                "id": {"type": "string"},
            },
            "required": ["action"],
        },
        handler=process,
        toolset="terminal",
        parallel_safe=False,
        max_output=20_000,
    ),
)


@talaria.hookimpl
def register_tools(register: talaria.Registrar[Any]) -> None:
    for tool in TOOLS:
        register(tool)
    register(Toolset(name="terminal", tools=("terminal", "process"), description="Shell commands."))


@talaria.hookimpl
async def on_session_end(session: SessionInfo) -> None:
    """Background processes do not outlive the session that started them."""
    _background = sys.modules.get(f"{__name__}._background")
    if _background is None:  # never imported: this process started no background command
        return
    if _background.session_procs(session.id):
        import asyncio

        await asyncio.to_thread(_background.kill_session, session.id)
