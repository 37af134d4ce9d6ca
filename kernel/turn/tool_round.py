"""One tool round: persist the calls, validate, decide, execute, persist results in order.

Invariant 3 of DESIGN §4: the assistant message with its calls is stored before any tool
runs; every call gets exactly one result; invalid and denied calls are never dispatched;
results are stored in call order; a result that cannot be stored is never sent on.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..types import ApprovalRequest, Event, Message, Tool, ToolCall, ToolContext, ToolResult

__all__ = ["RoundOutcome", "ToolRound", "record_always_approval"]

log = logging.getLogger("talaria.turn")
MAX_WORKERS = 8


@dataclass(slots=True)
class RoundOutcome:
    results: list[ToolResult] = field(default_factory=list)
    halt: str | None = None  # a guardrail asked to end the turn, with its reason


def record_always_approval(home: Path, rule: str) -> None:
    """Append ``rule`` to ``$TALARIA_HOME/approvals.json`` (``{"always": [...]}``), atomically."""
    import os
    import tempfile

    path = home / "approvals.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        data = {}
    rules = list(data.get("always", []))
    if rule not in rules:
        rules.append(rule)
    data["always"] = rules
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".approvals-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
    os.replace(tmp, path)


def _result_message(call: ToolCall, result: ToolResult) -> Message:
    meta = {"untrusted": True} if result.untrusted else {}
    return Message(role="tool", content=result.content, tool_call_id=call.id, name=call.name, status=result.status, meta=meta)


class ToolRound:
    """Runs the tool calls of one assistant message.

    :param persist: stores messages (fenced by the turn's lease); raises on failure.
    :param make_ctx: builds the :class:`ToolContext` for a call.
    """

    def __init__(
        self,
        *,
        toolbox: Any,
        hooks: Any,
        persist: Callable[[Sequence[Message]], Awaitable[None]],
        make_ctx: Callable[[ToolCall], ToolContext],
        emit: Callable[[Event], None],
        home: Path,
        ask_timeout: float = 300.0,
    ) -> None:
        self.toolbox = toolbox
        self.hooks = hooks
        self.persist = persist
        self.make_ctx = make_ctx
        self.emit = emit
        self.home = home
        self.ask_timeout = ask_timeout

    async def run(self, assistant: Message, offered: Mapping[str, Tool]) -> RoundOutcome:
        await self.persist([assistant])  # the ledger first: nothing runs before this lands
        calls = list(assistant.tool_calls)
        outcome = RoundOutcome()
        decided: dict[str, ToolResult] = {}
        runnable: list[tuple[ToolCall, Tool, ToolContext]] = []
        for call in calls:
            problem = self.toolbox.validate(call, offered)
            if problem is not None:
                decided[call.id] = ToolResult(call_id=call.id, content=f"Error: {problem}", status="invalid")
                continue
            ctx = self.make_ctx(call)
            denial = await self._decide(call, offered[call.name], ctx, outcome)
            if denial is not None:
                decided[call.id] = denial
                continue
            runnable.append((call, offered[call.name], ctx))

        stored = 0
        pending: dict[str, ToolResult] = dict(decided)
        try:
            for batch in self._batches(runnable):
                results = await self._run_batch(batch)
                pending.update(results)
                stored = await self._persist_ready(calls, pending, stored, outcome)
            stored = await self._persist_ready(calls, pending, stored, outcome)
        except asyncio.CancelledError:
            await self._persist_skipped(calls, pending, stored, outcome)
            raise
        return outcome

    # ------------------------------------------------------------------ decisions

    async def _decide(self, call: ToolCall, tool: Tool, ctx: ToolContext, outcome: RoundOutcome) -> ToolResult | None:
        verdict, plugin = self.hooks.pre_tool_call(call, ctx)
        if verdict is None or verdict.action == "allow":
            return None
        if verdict.action == "deny":
            if verdict.halt:
                outcome.halt = verdict.reason or f"halted by {plugin}"
            return ToolResult(call_id=call.id, content=f"Denied by policy: {verdict.reason}. The tool was not run.", status="denied")
        # ask a human
        if ctx.ask is None:
            self.emit(Event(kind="approval", data={"tool": call.name, "decision": "deny", "reason": verdict.reason, "why": "no approver"}))
            return ToolResult(
                call_id=call.id,
                content=f"Denied: this action needs approval ({verdict.reason}) and no one is available to approve it. The tool was not run.",
                status="denied",
            )
        request = ApprovalRequest(call=call, tool=call.name, reason=verdict.reason, rule=verdict.rule,
                                  session_id=ctx.session_id, summary=_summary(call))
        try:
            async with asyncio.timeout(self.ask_timeout):
                decision = await ctx.ask(request)
        except TimeoutError:
            decision = "deny"
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("approval prompt failed: %s", exc)
            decision = "deny"
        self.emit(Event(kind="approval", data={"tool": call.name, "decision": decision, "reason": verdict.reason}))
        if decision == "session" and verdict.rule:
            ctx.state.setdefault("approvals.session", set()).add(verdict.rule)
        elif decision == "always" and verdict.rule:
            record_always_approval(self.home, verdict.rule)
        if decision in ("once", "session", "always"):
            return None
        return ToolResult(call_id=call.id, content=f"Denied by the user: {verdict.reason}. The tool was not run; do not retry it without asking.", status="denied")

    # ------------------------------------------------------------------ execution

    @staticmethod
    def _batches(runnable: list[tuple[ToolCall, Tool, ToolContext]]) -> list[list[tuple[ToolCall, Tool, ToolContext]]]:
        """Consecutive parallel-safe calls form one concurrent batch; others run alone."""
        batches: list[list[tuple[ToolCall, Tool, ToolContext]]] = []
        for item in runnable:
            if item[1].parallel_safe and batches and all(t.parallel_safe for _, t, _ in batches[-1]):
                batches[-1].append(item)
            else:
                batches.append([item])
        return batches

    async def _run_batch(self, batch: list[tuple[ToolCall, Tool, ToolContext]]) -> dict[str, ToolResult]:
        semaphore = asyncio.Semaphore(MAX_WORKERS)

        async def one(call: ToolCall, tool: Tool, ctx: ToolContext) -> tuple[str, ToolResult]:
            async with semaphore:
                started = time.monotonic()
                self.emit(Event(kind="tool_started", data={"id": call.id, "tool": call.name, "arguments": dict(call.arguments)}))
                result = await self.toolbox.execute(tool, call, ctx)
                result = self.hooks.post_tool_call(call, result, ctx)
                self.emit(Event(kind="tool_finished", data={
                    "id": call.id, "tool": call.name, "status": result.status,
                    "duration": round(time.monotonic() - started, 3), "chars": len(result.content)}))
                return call.id, result

        pairs = await asyncio.gather(*(one(*item) for item in batch))
        return dict(pairs)

    async def _persist_ready(self, calls: list[ToolCall], pending: dict[str, ToolResult], stored: int, outcome: RoundOutcome) -> int:
        """Store results that are ready, strictly in call order; return how many are stored."""
        ready = []
        index = stored
        while index < len(calls) and calls[index].id in pending:
            ready.append(calls[index])
            index += 1
        if ready:
            await self.persist([_result_message(c, pending[c.id]) for c in ready])
            outcome.results.extend(pending[c.id] for c in ready)
        return index

    async def _persist_skipped(self, calls: list[ToolCall], pending: dict[str, ToolResult], stored: int, outcome: RoundOutcome) -> None:
        for call in calls[stored:]:
            pending.setdefault(call.id, ToolResult(
                call_id=call.id,
                content="Skipped: the turn was interrupted before this call finished. It may have partially run.",
                status="skipped",
            ))
        try:
            await asyncio.shield(self._persist_ready(calls, pending, stored, outcome))
        except Exception as exc:  # the lease may be gone; the next turn repairs pairing
            log.warning("could not store skipped results: %s", exc)


def _summary(call: ToolCall) -> str:
    args = dict(call.arguments)
    if "command" in args:
        return str(args["command"])[:300]
    return f"{call.name}({json.dumps(args, ensure_ascii=False)[:300]})"
