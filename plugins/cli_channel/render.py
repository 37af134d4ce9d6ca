"""Render a turn's events on the terminal while it runs.

Text deltas are written as they arrive (plain text streams robustly in any terminal and
in tmux). A running tool shows a live line ``⚙ tool short-args …`` that is rewritten in
place to ``⚙ tool short-args 0.3s ok`` when it finishes and nothing was printed since.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from .events import short_args, tool_line

__all__ = ["TurnRenderer"]

_CLEAR_LINE = "\r\x1b[2K"


class TurnRenderer:
    """The ``emit`` callback of the REPL's runtime."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.at_line_start = True
        self._live: str | None = None  # id of the tool whose line is the last thing printed
        self._args: dict[str, str] = {}
        self.streamed = False  # whether this turn printed any answer text

    # ------------------------------------------------------------------ output primitives
    def write(self, text: str) -> None:
        if not text:
            return
        self.out.write(text)
        self.out.flush()
        self.at_line_start = text.endswith("\n")
        self._live = None

    def line(self, text: str) -> None:
        """Print ``text`` on a line of its own."""
        self.newline()
        self.write(text + "\n")

    def newline(self) -> None:
        if not self.at_line_start:
            self.write("\n")

    def start_turn(self) -> None:
        self.streamed = False
        self._live = None
        self._args.clear()

    # ------------------------------------------------------------------ events
    def __call__(self, event: Any) -> None:
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(dict(event.data))

    def _on_text_delta(self, data: dict[str, Any]) -> None:
        text = data.get("text") or ""
        if text and self._live is not None:
            self.newline()
        self.streamed = self.streamed or bool(text)
        self.write(text)

    def _on_tool_started(self, data: dict[str, Any]) -> None:
        call_id = str(data.get("id", ""))
        args = self._args[call_id] = short_args(data.get("arguments"))
        self.newline()
        self.write(tool_line(str(data.get("tool", "?")), args))
        self._live = call_id

    def _on_tool_finished(self, data: dict[str, Any]) -> None:
        call_id = str(data.get("id", ""))
        done = tool_line(str(data.get("tool", "?")), self._args.pop(call_id, ""),
                         duration=data.get("duration"), status=str(data.get("status", "ok")))
        if self._live == call_id:
            self.out.write(_CLEAR_LINE)
            self.write(done + "\n")
        else:
            self.line(done)

    def _on_approval(self, data: dict[str, Any]) -> None:
        if data.get("decision") == "deny":
            self.line(f"✗ {data.get('tool')} denied ({data.get('reason') or 'needs approval'})")

    def _on_warning(self, data: dict[str, Any]) -> None:
        self.line(f"! {data.get('message') or json.dumps(data, default=str)}")

    def _on_retry(self, data: dict[str, Any]) -> None:
        self.line(f"· retrying: {data.get('message') or data.get('error') or json.dumps(data, default=str)}")

    def _on_fallback(self, data: dict[str, Any]) -> None:
        self.line(f"· falling back: {data.get('message') or json.dumps(data, default=str)}")

    def _on_compression(self, data: dict[str, Any]) -> None:
        self.line(f"· context compressed {json.dumps(data, default=str)}")
