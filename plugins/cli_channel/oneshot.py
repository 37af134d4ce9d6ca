"""``talaria run``: one turn, non-interactive.

stdout carries only the final answer (or, with ``--json``, one JSON object per line: every
event, then ``{"type": "result", ...}``). Progress goes to stderr, and only when stderr is a
terminal. There is no approver: a call that needs approval is denied at once unless
``--yolo``. The exit code says how the turn ended (:mod:`.exitcodes`). Ctrl-C, SIGTERM
and SIGHUP interrupt the turn (:mod:`.signals`); the command then exits 5.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from talaria import UsageError

from .events import event_json, short_args, tool_line
from .exitcodes import exit_code
from .host import key_for_session, last_workspace_session, make_runtime, new_session_key
from .signals import TERMINATING, Stopper

__all__ = ["read_prompt", "run_once"]


def read_prompt(prompt: str | None, stdin: TextIO) -> str:
    """The prompt argument, or stdin when it is absent or ``-``.

    :raises talaria.UsageError: no prompt given (and stdin is a terminal), or it is empty.
    """
    if prompt is None or prompt == "-":
        if prompt is None and stdin.isatty():
            raise UsageError('no prompt: pass one (talaria run "…") or pipe it on stdin')
        prompt = stdin.read()
    if not prompt.strip():
        raise UsageError("the prompt is empty")
    return prompt


class _GcPause:
    """No garbage collection from the start of the run until the first answer event.

    On the way there the provider SDK is imported — hundreds of thousands of long-lived
    objects, which the collector would traverse again and again for nothing. At the first
    answer event (or when the run ends) what exists is frozen (never traversed again) and
    collection resumes, so a long agentic run is collected as usual.
    """

    _QUIET = frozenset({"turn_started", "session_started", "model_call"})

    def __init__(self) -> None:
        import gc

        self._gc = gc
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def watch(self, sink: Any) -> Any:
        def emit(event: Any) -> None:
            if self.paused and event.kind not in self._QUIET:
                self.resume()
            sink(event)

        return emit

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            self._gc.freeze()
            self._gc.enable()


class _Sink:
    """Renders events: JSON lines on stdout, or progress lines on a terminal stderr."""

    def __init__(self, *, as_json: bool, out: TextIO, err: TextIO, progress: bool) -> None:
        self.as_json, self.out, self.err, self.progress = as_json, out, err, progress
        self.args: dict[str, str] = {}

    def __call__(self, event: Any) -> None:
        if self.as_json:
            self.out.write(event_json(event) + "\n")
            self.out.flush()
            return
        if not self.progress:
            return
        data = event.data
        if event.kind == "tool_started":
            self.args[data.get("id", "")] = args = short_args(data.get("arguments"))
            self.err.write(tool_line(data.get("tool", "?"), args) + "\n")
        elif event.kind == "tool_finished":
            args = self.args.pop(data.get("id", ""), "")
            self.err.write(tool_line(data.get("tool", "?"), args, duration=data.get("duration"),
                                     status=data.get("status")) + "\n")
        elif event.kind == "approval" and data.get("decision") == "deny":
            self.err.write(f"✗ {data.get('tool')} denied: {data.get('reason') or 'needs approval'}"
                           f"{' (no approver; --yolo allows it)' if data.get('why') == 'no approver' else ''}\n")
        elif event.kind in ("warning", "retry", "fallback", "compression"):
            message = data.get("message") or json.dumps(dict(data), default=str)
            self.err.write(f"· {event.kind}: {message}\n")
        else:
            return
        self.err.flush()


async def run_once(
    state: Any,
    prompt: str,
    *,
    model: str | None = None,
    toolsets: Sequence[str] | None = None,
    session: str | None = None,
    cont: bool = False,
    yolo: bool = False,
    as_json: bool = False,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run ``prompt`` as one turn and return the exit code.

    :raises talaria.ConfigError: no model can be resolved (exit 2 through the CLI).
    :raises talaria.UsageError: ``--session`` names no session, or both it and ``--continue``.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    if session and cont:
        raise UsageError("use either --session ID or --continue, not both")
    sink = _Sink(as_json=as_json, out=out, err=err, progress=err.isatty())
    stopper = Stopper()
    pause = _GcPause()
    try:
        return await _run(state, prompt, sink, stopper, pause, model=model, toolsets=toolsets, session=session,
                          cont=cont, yolo=yolo, as_json=as_json, out=out, err=err)
    finally:
        pause.resume()


async def _run(state: Any, prompt: str, sink: _Sink, stopper: Stopper, pause: _GcPause, *, model: str | None,
               toolsets: Sequence[str] | None, session: str | None, cont: bool, yolo: bool, as_json: bool,
               out: TextIO, err: TextIO) -> int:
    with stopper.installed((signal.SIGINT, *TERMINATING)):
        runtime = make_runtime(state, model=model, toolsets=toolsets, yolo=yolo,
                               emit=stopper.watch(pause.watch(sink)), ask=None)
        stopper.runtime = runtime
        record = None
        async with runtime:
            key = new_session_key()
            if session:
                key = (await key_for_session(runtime.store, session)).session_key
            elif cont:
                row = await last_workspace_session(runtime.store, str(runtime.kernel.workspace))
                if row is None:
                    raise UsageError("--continue: no earlier session in this workspace; run without it to start one")
                key = row.session_key
            if stopper.signal is None:
                try:
                    record = await stopper.run(runtime.run_turn(prompt, session_key=key))
                except asyncio.CancelledError:
                    if not stopper.stopped_by_signal():
                        raise
    if record is None:  # a signal arrived before the turn's body started: nothing ran
        code = exit_code("interrupted")
        if as_json:
            out.write(json.dumps({"type": "result", "end_reason": "interrupted", "exit_code": code, "text": "",
                                  "error": f"stopped by {stopper.name} before the turn started"}) + "\n")
            out.flush()
        err.write(f"talaria: stopped by {stopper.name} before the turn started (exit {code})\n")
        err.flush()
        return code
    code = exit_code(record.end_reason)
    if as_json:
        out.write(json.dumps({
            "type": "result", "end_reason": record.end_reason, "exit_code": code, "text": record.final_text,
            "error": record.error, "session_id": record.session_id, "session_key": record.session_key,
            "provider": record.provider, "model": record.model, "iterations": record.iterations,
            "api_calls": record.api_calls,
            "usage": {"input_tokens": record.usage.input_tokens, "output_tokens": record.usage.output_tokens,
                      "cache_read_tokens": record.usage.cache_read_tokens,
                      "cache_write_tokens": record.usage.cache_write_tokens},
        }, ensure_ascii=False) + "\n")
    elif record.final_text:
        out.write(record.final_text.rstrip("\n") + "\n")
    out.flush()
    if record.end_reason != "completed":
        by = f" (stopped by {stopper.name})" if stopper.signal is not None else ""
        err.write(f"talaria: turn ended {record.end_reason}{by}: {record.error or 'no detail'} (exit {code})\n")
        err.flush()
    return code
