"""Render a turn's events on the terminal while it runs.

On a terminal, answer text is rendered as markdown while it streams (see
:mod:`.markdown_stream`: the block in progress shows raw in a live region, each completed
block is printed once, rendered by rich). Elsewhere — stdout not a terminal, ``TERM=dumb``,
or ``[channels.cli] markdown = false`` — deltas are written as plain text as they arrive.
Any other output (a tool line, a warning, a prompt) first ends the markdown segment.

A running tool shows a live line ``⚙ tool short-args …`` that is rewritten in place to
``⚙ tool short-args 0.3s ok`` when it finishes and nothing was printed since.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, TextIO

from .events import short_args, tool_line

__all__ = ["TurnRenderer", "markdown_settings"]

_CLEAR_LINE = "\r\x1b[2K"


def markdown_settings(config: Mapping[str, Any] | None, out: TextIO) -> dict[str, Any] | None:
    """How the REPL renders answers: ``{"code_theme": ...}`` for markdown, None for plain text.

    Plain text when ``[channels.cli] markdown = false``, when ``out`` is not a terminal or
    when ``TERM=dumb``. ``NO_COLOR`` keeps markdown layout but drops colours (rich reads it).
    A malformed ``[channels.cli]`` table or value is ignored (defaults apply; the REPL and
    ``talaria doctor`` report it, see :mod:`.settings`).
    """
    from .settings import cli_section

    section = cli_section(config)
    if section.get("markdown", True) is False:
        return None
    try:
        tty = out.isatty()
    except (AttributeError, ValueError, OSError):
        tty = False
    if not tty or os.environ.get("TERM") == "dumb":
        return None
    theme = section.get("code_theme")
    return {"code_theme": theme if isinstance(theme, str) and theme else "monokai"}


class TurnRenderer:
    """The ``emit`` callback of the REPL's runtime.

    :param markdown: None for plain text, else the options of :func:`markdown_settings`.
    """

    def __init__(self, out: TextIO, *, markdown: Mapping[str, Any] | None = None) -> None:
        self.out = out
        self.at_line_start = True
        self._live: str | None = None  # id of the tool whose line is the last thing printed
        self._args: dict[str, str] = {}
        self.streamed = False  # whether this turn printed any answer text
        self.markdown = dict(markdown) if markdown is not None else None
        self._console: Any = None  # rich Console on ``out``, made on the first markdown answer
        self._md: Any = None  # the MarkdownStream of the answer segment being printed

    # ------------------------------------------------------------------ output primitives
    def write(self, text: str) -> None:
        if not text:
            return
        self.end_markdown()
        self.out.write(text)
        self.out.flush()
        self.at_line_start = text.endswith("\n")
        self._live = None

    def line(self, text: str) -> None:
        """Print ``text`` on a line of its own."""
        self.newline()
        self.write(text + "\n")

    def newline(self) -> None:
        self.end_markdown()
        if not self.at_line_start:
            self.write("\n")

    def start_turn(self) -> None:
        self.streamed = False
        self._live = None
        self._args.clear()

    def end_turn(self, final_text: str | None = None) -> None:
        """The turn is over: print ``final_text`` if nothing was streamed, end on a fresh line."""
        if final_text and not self.streamed:
            self.answer(final_text)
        self.newline()

    # ------------------------------------------------------------------ answer text
    def answer(self, text: str) -> None:
        """Print answer text: fed to the markdown stream, or written plain."""
        if not text:
            return
        if self.markdown is not None:
            if self._md is None:
                self.newline()
            try:
                stream = self._stream()
            except Exception as exc:  # noqa: BLE001 - a rendering failure must not lose the answer
                self._markdown_failed(exc, text)
                return
            try:
                stream.feed(text)
            except Exception as exc:  # noqa: BLE001
                self._markdown_failed(exc, "", stream)
                return
            self.at_line_start = False
            self._live = None
            return
        self.write(text)

    def end_markdown(self) -> None:
        """Render what remains of the answer segment and drop its live region."""
        md, self._md = self._md, None
        if md is None:
            return
        try:
            md.finish()
        except Exception as exc:  # noqa: BLE001
            self._markdown_failed(exc, "", md)
            return
        self.at_line_start = True
        self._live = None

    def _stream(self) -> Any:
        if self._md is None:
            from .markdown_stream import MarkdownStream

            if self._console is None:
                from rich.console import Console

                self._console = Console(file=self.out, highlight=False, emoji=False)
            self._md = MarkdownStream(self._console, code_theme=self.markdown.get("code_theme", "monokai"))
        return self._md

    def _markdown_failed(self, exc: Exception, text: str, md: Any = None) -> None:
        """Fall back to plain text for the rest of the session, losing no text."""
        md = md or self._md
        self._md, self.markdown = None, None
        rest = md.abandon() if md is not None else ""
        self.at_line_start = True
        self.write(f"\n(markdown rendering failed: {type(exc).__name__}: {exc}; plain text from here)\n")
        self.write(rest + text)

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
        self.answer(text)

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
