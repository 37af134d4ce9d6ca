"""``talaria sessions``: list, show, search, export, compress and delete stored sessions.

Plain text output (no rich), ``--json`` on ``list`` and ``search``. Session ids may be given
as any unique prefix. The store is ``<ctx.obj.home>/state.db``; a missing file means "no
sessions yet" and is not created by read-only commands.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..errors import StoreError
from ._render import render_markdown, render_show, to_jsonable
from .base import SessionRow, StoredMessage

__all__ = ["sessions_group"]

T = TypeVar("T")


def _db(ctx: click.Context) -> Path:
    return Path(ctx.obj.home) / "state.db"


def _run(ctx: click.Context, work: Callable[[Any], Awaitable[T]]) -> T:
    """Open the store, run ``work(store)``, close it; store errors become clean CLI errors."""
    from .sqlite import SqliteStore

    async def main() -> T:
        async with SqliteStore(_db(ctx)) as store:
            return await work(store)

    try:
        return asyncio.run(main())
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc


async def _resolve(store: Any, prefix: str) -> SessionRow:
    ids = await store.resolve_session_id(prefix)
    if not ids:
        raise click.BadParameter(
            f"no session id starts with {prefix!r} (see `talaria sessions list`)", param_hint="ID"
        )
    if len(ids) > 1:
        raise click.BadParameter(
            f"{prefix!r} matches several sessions ({', '.join(ids)}…); give more characters",
            param_hint="ID",
        )
    row = await store.get_session(ids[0])
    assert row is not None
    return row


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "-"


def _one_line(text: str | None, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def sessions_group() -> click.Group:
    """The ``sessions`` click group (the root CLI adds it; ``ctx.obj`` is a CliContext)."""

    @click.group("sessions")
    def sessions() -> None:
        """Browse, search, export and delete stored conversations."""

    @sessions.command("list")
    @click.option("--limit", "-n", default=20, show_default=True, help="How many, newest first.")
    @click.option("--source", default=None, help="Only sessions from this source (cli, telegram…).")
    @click.option("--here", is_flag=True, help="Only sessions started in this workspace.")
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    @click.pass_context
    def list_cmd(ctx: click.Context, limit: int, source: str | None, here: bool, as_json: bool) -> None:
        """List sessions, newest first."""
        rows: list[SessionRow] = []
        if _db(ctx).exists():
            workspace = str(Path(ctx.obj.workspace).resolve()) if here else None
            rows = _run(
                ctx, lambda s: s.list_sessions(limit=limit, workspace=workspace, source=source)
            )
        if as_json:
            click.echo(json.dumps([dataclasses.asdict(r) for r in rows], indent=2))
            return
        if not rows:
            click.echo("No sessions yet.")
            return
        click.echo(f"{'ID':<14} {'CREATED':<16} {'MSGS':>5}  {'SOURCE':<10} {'MODEL':<24} TITLE")
        for r in rows:
            model = f"{r.provider}/{r.model}" if r.provider else r.model
            title = r.title or _one_line(r.preview, 60) or "(empty)"
            ended = "" if r.ended_at is None else f"  [{r.end_reason or 'ended'}]"
            click.echo(
                f"{r.id[:14]:<14} {_when(r.created_at):<16} {r.message_count or 0:>5}  "
                f"{_one_line(r.source, 10):<10} {_one_line(model, 24):<24} {title}{ended}"
            )

    @sessions.command("show")
    @click.argument("session_id", metavar="ID")
    @click.option("--all", "include_inactive", is_flag=True, help="Include compacted/inactive messages.")
    @click.pass_context
    def show_cmd(ctx: click.Context, session_id: str, include_inactive: bool) -> None:
        """Print a session's details and transcript."""
        _require_db(ctx)

        async def work(store: Any) -> str:
            row = await _resolve(store, session_id)
            msgs = await store.stored_messages(row.id, include_inactive=include_inactive)
            usage = await store.session_usage(row.id)
            return render_show(row, msgs, usage)

        click.echo(_run(ctx, work), nl=False)

    @sessions.command("search")
    @click.argument("query", nargs=-1, required=True)
    @click.option("--limit", "-n", default=10, show_default=True)
    @click.option("--json", "as_json", is_flag=True, help="Print JSON.")
    @click.pass_context
    def search_cmd(ctx: click.Context, query: tuple[str, ...], limit: int, as_json: bool) -> None:
        """Full-text search over all sessions (every word must match; `word*` = prefix)."""
        hits = []
        if _db(ctx).exists():
            hits = _run(ctx, lambda s: s.search_messages(" ".join(query), limit=limit))
        if as_json:
            click.echo(json.dumps([dataclasses.asdict(h) for h in hits], indent=2))
            return
        if not hits:
            click.echo("No matches.")
            return
        for h in hits:
            title = f"  {_one_line(h.title, 40)}" if h.title else ""
            click.echo(f"{h.session_id[:14]}  #{h.seq:<4} {_when(h.created_at)}  {h.role}{title}")
            click.echo(f"    {_one_line(h.snippet, 110)}")

    @sessions.command("export")
    @click.argument("session_id", metavar="ID")
    @click.option("--format", "fmt", type=click.Choice(["md", "jsonl"]), default="md", show_default=True)
    @click.option("--all", "include_inactive", is_flag=True, help="Include compacted/inactive messages.")
    @click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write to a file instead of stdout.")
    @click.pass_context
    def export_cmd(
        ctx: click.Context, session_id: str, fmt: str, include_inactive: bool, output: Path | None
    ) -> None:
        """Export a session as Markdown or JSON Lines (one session line, then one per message)."""
        _require_db(ctx)

        async def work(store: Any) -> str:
            row = await _resolve(store, session_id)
            msgs = await store.stored_messages(row.id, include_inactive=include_inactive)
            prompt = (
                await store.get_system_prompt(row.system_prompt_hash)
                if row.system_prompt_hash
                else None
            )
            if fmt == "md":
                return render_markdown(row, msgs, prompt)
            return _jsonl(row, msgs, prompt)

        text = _run(ctx, work)
        if output is None:
            click.echo(text, nl=False)
        else:
            output.write_text(text, encoding="utf-8")
            click.echo(f"Wrote {output}", err=True)

    @sessions.command("delete")
    @click.argument("session_id", metavar="ID")
    @click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
    @click.pass_context
    def delete_cmd(ctx: click.Context, session_id: str, yes: bool) -> None:
        """Delete a session and its messages (asks first unless --yes)."""
        _require_db(ctx)
        row, count = _run(ctx, lambda s: _resolve_with_count(s, session_id))
        label = f"{row.id}" + (f" ({row.title})" if row.title else "")
        if not yes and not click.confirm(
            f"Delete session {label} with {count} message(s)?", default=False
        ):
            raise click.Abort()
        _run(ctx, lambda s: s.delete_session(row.id))
        click.echo(f"Deleted session {row.id}.")

    @sessions.command("compress")
    @click.argument("session_id", metavar="ID")
    @click.option("--focus", default=None, metavar="TEXT", help="What the summary should keep in detail.")
    @click.option("--json", "as_json", is_flag=True, help="Print the compression report as JSON.")
    @click.pass_context
    def compress_cmd(ctx: click.Context, session_id: str, focus: str | None, as_json: bool) -> None:
        """Compress a conversation's history now (same as /compress in the REPL).

        \b
        ID must be the current session of its conversation; the history is compacted
        into a new child session (the old one is kept, ended `compressed`) and later
        turns continue there. Exits 1 when nothing was compressed, saying why.
        """
        _require_db(ctx)
        try:
            report = asyncio.run(_compress(ctx.obj, session_id, focus))
        except StoreError as exc:
            raise click.ClickException(str(exc)) from exc
        if as_json:
            click.echo(json.dumps(dataclasses.asdict(report), indent=2))
        if not report.compressed:
            raise click.ClickException(f"nothing compressed: {report.reason}")
        if not as_json:
            click.echo(
                f"Compressed {report.parent_id}: {report.messages_before} → {report.messages_after} messages, "
                f"{_tokens(report.tokens_before)} → {_tokens(report.tokens_after)} tokens ({report.engine}).\n"
                f"The conversation continues in {report.session_id}."
            )

    return sessions


async def _compress(state: Any, prefix: str, focus: str | None) -> Any:
    """Compress the session named by ``prefix`` with a runtime of the loaded kernel.

    :raises click.BadParameter: unknown/ambiguous id, or not the current session of its key.
    """
    from ..turn.runtime import Runtime, TurnOptions

    kernel = state.load_kernel()
    async with Runtime(kernel, options=TurnOptions(channel="cli", start_tool_sources=False)) as runtime:
        row = await _resolve(runtime.store, prefix)
        current = await runtime.store.current_session(row.session_key)
        if current is None:
            raise click.BadParameter(
                f"session {row.id} has ended ({row.end_reason or 'ended'}) and its conversation has no "
                "current session; there is nothing to compress", param_hint="ID")
        if current.id != row.id:
            raise click.BadParameter(
                f"session {row.id} is not the current session of its conversation (it was already "
                f"compressed or ended: {row.end_reason or 'ended'}); the current one is {current.id} — "
                f"run `talaria sessions compress {current.id}`", param_hint="ID")
        return await runtime.compress_session(row.session_key, focus=focus)


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def _require_db(ctx: click.Context) -> None:
    if not _db(ctx).exists():
        raise click.ClickException(f"no sessions yet ({_db(ctx)} does not exist)")


async def _resolve_with_count(store: Any, prefix: str) -> tuple[SessionRow, int]:
    row = await _resolve(store, prefix)
    return row, await store.count_messages(row.id, include_inactive=True)


def _jsonl(row: SessionRow, msgs: list[StoredMessage], prompt: str | None) -> str:
    head = {"type": "session", **dataclasses.asdict(row), "system_prompt": prompt}
    head.pop("message_count", None)
    head.pop("preview", None)
    lines = [json.dumps(head, ensure_ascii=False)]
    for sm in msgs:
        line = {
            "type": "message",
            "seq": sm.seq,
            "active": sm.active,
            "compacted": sm.compacted,
            "created_at": sm.created_at,
            **to_jsonable(sm.message),
        }
        lines.append(json.dumps(line, ensure_ascii=False))
    return "\n".join(lines) + "\n"
