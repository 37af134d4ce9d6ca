"""The REPL's slash commands, and dispatch of plugins' :class:`talaria.SlashCommand`s."""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from talaria import ConfigError, ToolContext, UsageError

from .host import key_for_session, last_workspace_session, new_session_key

__all__ = ["BUILTINS", "SlashContext", "dispatch"]


@dataclasses.dataclass
class SlashContext:
    """What a plugin's slash command handler receives as ``ctx``.

    ``print(text)`` writes a line to the terminal; ``runtime``/``kernel``/``store`` give
    read access; ``session_key`` is the conversation's routing key.
    """

    kernel: Any
    runtime: Any
    store: Any
    session_key: str
    workspace: Any
    home: Any
    print: Callable[[str], None]


class Repl(Protocol):
    """What slash commands use of the REPL (``repl.Repl`` is the implementation)."""

    runtime: Any
    session_key: str

    def say(self, text: str) -> None: ...

    def slash_context(self) -> SlashContext: ...


Handler = Callable[[Repl, str], Awaitable[bool | None]]
BUILTINS: dict[str, tuple[str, str, Handler]] = {}


def _command(name: str, description: str, args_hint: str = "") -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        BUILTINS[name] = (args_hint, description, fn)
        return fn
    return deco


async def dispatch(repl: Repl, line: str) -> bool:
    """Run one ``/command``; returns False when the REPL should exit."""
    name, _, args = line[1:].strip().partition(" ")
    name, args = name.lower(), args.strip()
    if name in ("quit", "q"):
        name = "exit"
    builtin = BUILTINS.get(name)
    try:
        if builtin is not None:
            return (await builtin[2](repl, args)) is not False
        plugin = repl.runtime.kernel.registries.slash_commands.get(name)
        if plugin is None:
            repl.say(f"unknown command /{name}; /help lists them")
            return True
        result = plugin.handler(args, repl.slash_context())
        if inspect.isawaitable(result):
            result = await result
        if result:
            repl.say(str(result))
    except (UsageError, ConfigError) as exc:
        repl.say(f"/{name}: {exc}")
    except Exception as exc:  # a command's bug must not end the conversation
        repl.say(f"/{name} failed: {type(exc).__name__}: {exc}")
    return True


def _one_line(text: str | None, width: int = 60) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@_command("help", "List the commands.")
async def _help(repl: Repl, args: str) -> None:
    lines = ["Commands:"]
    for name, (hint, description, _) in sorted(BUILTINS.items()):
        lines.append(f"  /{name} {hint}".ljust(28) + description)
    for name, command in repl.runtime.kernel.registries.slash_commands.items():
        if name not in BUILTINS:
            lines.append(f"  /{name} {command.args_hint}".ljust(28) + command.description)
    lines.append("Enter sends · Esc-Enter or a trailing \\ adds a line · Ctrl-C interrupts · Ctrl-D exits")
    repl.say("\n".join(lines))


@_command("exit", "Leave (same as Ctrl-D).")
async def _exit(repl: Repl, args: str) -> bool:
    return False


@_command("new", "Start a new session.")
async def _new(repl: Repl, args: str) -> None:
    repl.session_key = new_session_key()
    repl.say("New session started.")


@_command("resume", "Resume a session by id prefix or title (default: the last one here).", "[ID|title]")
async def _resume(repl: Repl, args: str) -> None:
    store = repl.runtime.store
    if args:
        row = await key_for_session(store, args)
    else:
        rows = await store.list_sessions(limit=20, workspace=str(repl.runtime.kernel.workspace), source="cli")
        rows = [r for r in rows if r.session_key != repl.session_key]
        if not rows:
            repl.say("No earlier session in this workspace.")
            return
        row = rows[0]
    repl.session_key = row.session_key
    current = await store.current_session(row.session_key) or row
    messages = await store.get_messages(current.id)
    last = next((m.content for m in reversed(messages) if m.role == "assistant" and m.content), "")
    title = row.title or _one_line(row.preview) or "(untitled)"
    repl.say(f"Resumed {current.id[:14]} · {title} · {len(messages)} messages"
             + (f"\n  last reply: {_one_line(last, 100)}" if last else ""))


@_command("sessions", "List recent sessions (* = this one).")
async def _sessions(repl: Repl, args: str) -> None:
    rows = await repl.runtime.store.list_sessions(limit=15)
    if not rows:
        repl.say("No sessions yet.")
        return
    lines = []
    for r in rows:
        mark = "*" if r.session_key == repl.session_key else " "
        when = time.strftime("%m-%d %H:%M", time.localtime(r.created_at))
        lines.append(f"{mark} {r.id[:14]}  {when}  {r.message_count or 0:>4} msgs  "
                     f"{r.title or _one_line(r.preview) or '(empty)'}")
    repl.say("\n".join(lines))


@_command("model", "Show the model chain, or switch model.", "[provider/model]")
async def _model(repl: Repl, args: str) -> None:
    runtime = repl.runtime
    if args:
        chain = runtime.models.chain(args)  # ConfigError → printed by dispatch
        runtime.options = dataclasses.replace(runtime.options, model=args)
        repl.say(f"Model: {chain[0].spec} (from the next turn)")
        return
    chain = runtime.models.chain(runtime.options.model)
    repl.say("Model: " + " → ".join(r.spec for r in chain))


@_command("compress", "Compress this session's history now (optionally keeping FOCUS in detail).", "[focus]")
async def _compress(repl: Repl, args: str) -> None:
    report = await repl.runtime.compress_session(repl.session_key, focus=args or None)
    repl.say(compress_line(report))


def compress_line(report: Any) -> str:
    """One line for a :class:`talaria.CompressionReport`: what changed, or why nothing did."""
    if not report.compressed:
        return f"Nothing compressed: {report.reason}"
    return (f"compressed {report.messages_before} → {report.messages_after} messages, "
            f"{_tokens(report.tokens_before)} → {_tokens(report.tokens_after)} tokens ({report.engine}); "
            f"now in session {report.session_id}")


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


@_command("usage", "Tokens and cost of this session.")
async def _usage(repl: Repl, args: str) -> None:
    store = repl.runtime.store
    row = await store.current_session(repl.session_key)
    if row is None:
        repl.say("No model calls in this session yet.")
        return
    rows = await store.session_usage(row.id)
    if not rows:
        repl.say("No model calls in this session yet.")
        return
    lines, total = [], 0.0
    for u in rows:
        cost = "cost unknown" if u.cost is None else f"${u.cost:.4f}"
        total += u.cost or 0.0
        lines.append(f"  {u.provider}/{u.model}: {u.calls} calls · {u.input_tokens} in · {u.output_tokens} out"
                     f" · {u.cache_read_tokens} cache read · {cost}")
    lines.append(f"  total: ${total:.4f}" if any(u.cost is not None for u in rows) else "  total: cost unknown")
    repl.say("Usage this session:\n" + "\n".join(lines))


@_command("tools", "List the tools offered to the model.")
async def _tools(repl: Repl, args: str) -> None:
    tools = repl.runtime.toolbox.offered()
    lines = [f"  {t.name}: {_one_line(t.description, 70)}" for t in sorted(tools, key=lambda t: t.name)]
    repl.say(f"{len(tools)} tools:\n" + "\n".join(lines))


@_command("mcp", "Show MCP servers and their state.")
async def _mcp(repl: Repl, args: str) -> None:
    source = repl.runtime.kernel.registries.tool_sources.get("mcp")
    states = getattr(source, "states", None)
    rows = states() if callable(states) else []
    if not rows:
        repl.say("No MCP servers configured (`talaria mcp add` adds one).")
        return
    lines = [f"  {r.get('name')}: {r.get('status')} · {r.get('tools', 0)} tools"
             + (f" · {r['last_error']}" if r.get("last_error") else "") for r in rows]
    repl.say("MCP servers:\n" + "\n".join(lines))


@_command("plugins", "List the loaded plugins.")
async def _plugins(repl: Repl, args: str) -> None:
    records = sorted(repl.runtime.kernel.plugins.records.values(), key=lambda r: r.name)
    repl.say("\n".join(f"  {r.name} {r.version or ''} [{r.tier}] {r.status}" for r in records))


@_command("skills", "List the available skills.")
async def _skills(repl: Repl, args: str) -> None:
    tool = repl.runtime.toolbox.all_tools().get("skills_list")
    if tool is None:
        repl.say("The skills plugin is not loaded.")
        return
    runtime = repl.runtime
    ctx = ToolContext(session_id="", session_key=repl.session_key, workspace=runtime.kernel.workspace,
                      home=runtime.kernel.home, config=runtime.config, channel="cli", store=runtime.store)
    result = tool.handler({}, ctx)
    if inspect.isawaitable(result):
        result = await result
    repl.say(str(getattr(result, "content", result)))
