"""Stream an answer to the terminal as rendered markdown, block by block.

The block in progress is shown raw in a transient live region (rich ``Live``), so text
appears as it streams. When :class:`~.md_blocks.BlockSplitter` says a block is complete it
is rendered once with ``rich.markdown.Markdown`` and printed into the scrollback, and the
live region goes on with the next block; :meth:`MarkdownStream.finish` renders what
remains and removes the live region. The scrollback ends up holding the answer exactly as
``Markdown(answer)`` renders it, each block once.

Costs stay bounded: a delta costs O(its size) plus a redraw of the live region, which shows
at most a screenful of the block's tail (a long code block is not re-rendered per delta),
and redraws are throttled to ``refresh_interval``. rich is imported only when a stream is
created, never by ``talaria run``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from .md_blocks import BlockSplitter

__all__ = ["MarkdownStream", "render_block", "warm_up"]

#: The live preview never uses more rows than this (nor more than the terminal minus two).
MAX_LIVE_ROWS = 30


def render_block(console: Any, source: str, *, code_theme: str = "monokai") -> list[Any]:
    """The segments of one block rendered by ``Markdown`` at the console's width, without the
    blank lines rich puts before a block (the stream adds one between blocks) and without the
    trailing padding of unstyled lines (the scrollback re-wraps cleanly after a resize)."""
    from rich.markdown import Markdown
    from rich.segment import Segment

    markdown = Markdown(source, code_theme=code_theme, hyperlinks=False)
    lines = list(Segment.split_lines(console.render(markdown, console.options)))
    while lines and not "".join(segment.text for segment in lines[0]):
        lines.pop(0)
    out: list[Any] = []
    for line in lines:
        out += _trim(line)
        out.append(Segment.line())
    return out


def _trim(line: list[Any]) -> list[Any]:
    """Drop trailing spaces that carry no background colour (rich's padding)."""
    line = list(line)
    while line:
        last = line[-1]
        if last.control or (last.style is not None and last.style.bgcolor is not None):
            break
        text = last.text.rstrip(" ")
        if text:
            line[-1] = type(last)(text, last.style)
            break
        line.pop()
    return line


class MarkdownStream:
    """One answer segment (text until the next tool line, warning or prompt).

    :param console: a ``rich.console.Console``; the live region is used only when it is a terminal.
    :param refresh_interval: least time between two redraws of the live region (0: every delta).
    """

    def __init__(self, console: Any, *, code_theme: str = "monokai", refresh_interval: float = 1 / 25,
                 live: bool = True) -> None:
        self.console = console
        self.code_theme = code_theme
        self.refresh_interval = refresh_interval
        self._splitter = BlockSplitter()
        self._ready: list[str] = []  # complete blocks not yet printed
        self._blocks = 0  # blocks printed so far (a blank line goes between two)
        self._live: Any = None
        self._use_live = live and console.is_terminal and not console.is_dumb_terminal
        self._last_refresh = 0.0
        self._timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ input
    def feed(self, text: str) -> None:
        """Add a streamed delta: print the blocks it completes, show the rest live."""
        self._ready += self._splitter.feed(text)
        self._print_ready()
        self._show()

    def finish(self) -> None:
        """Render what remains and remove the live region. The stream can be fed again after."""
        self._cancel_timer()
        self._ready += self._splitter.finish()
        self._print_ready()
        self._stop_live()

    def abandon(self) -> str:
        """Stop without rendering (after a rendering failure): the raw text not yet printed."""
        self._cancel_timer()
        rest = "".join(self._ready + self._splitter.finish())
        self._ready = []
        try:
            self._stop_live()
        except Exception:  # noqa: BLE001 - the terminal is already in trouble; plain text follows
            self._live = None
        return rest

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            from rich.text import Text

            live.update(Text(""))
            live.stop()  # transient: the region is erased, the cursor is back where it began

    # ------------------------------------------------------------------ output
    def _print_ready(self) -> None:
        while self._ready:
            self._print(self._ready[0])
            self._ready.pop(0)

    def _print(self, block: str) -> None:
        if not block.strip():
            return
        from rich.segment import Segment, Segments

        segments = render_block(self.console, block, code_theme=self.code_theme)
        if not segments:
            return
        if self._blocks:
            segments.insert(0, Segment.line())
        self._blocks += 1
        with self.console:  # one write: the raw preview is erased and the block printed in its place
            self._stop_live()  # the next delta starts a new preview below the block
            self.console.print(Segments(segments), end="")

    def _preview(self) -> Any:
        """The raw tail of the block in progress, cut to the rows the live region may use."""
        from rich.segment import Segment, Segments
        from rich.text import Text

        rows = max(1, min(MAX_LIVE_ROWS, self.console.height - 3))
        width = max(1, self.console.width)
        tail = self._splitter.tail(rows, rows * width).rstrip("\n")
        if not tail:
            return Text("")
        lines = self.console.render_lines(Text(tail), self.console.options, pad=False)[-rows:]
        if self._blocks:  # the blank line that will separate this block from the previous one
            lines.insert(0, [])
        flat: list[Any] = []
        for index, line in enumerate(lines):
            if index:
                flat.append(Segment.line())
            flat += line
        return Segments(flat)

    def _show(self) -> None:
        if not self._use_live or not self._splitter.pending:
            return
        now = time.monotonic()
        wait = self._last_refresh + self.refresh_interval - now
        if wait > 0:
            self._schedule(wait)
            return
        self._refresh(now)

    def _refresh(self, now: float | None = None) -> None:
        self._timer = None
        self._last_refresh = time.monotonic() if now is None else now
        if not self._splitter.pending:
            return
        if self._live is None:
            from rich.live import Live

            self._live = Live(self._preview(), console=self.console, auto_refresh=False, transient=True,
                              redirect_stdout=False, redirect_stderr=False, vertical_overflow="visible")
            self._live.start(refresh=True)
        else:
            self._live.update(self._preview(), refresh=True)

    def _schedule(self, delay: float) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a plain caller): draw now
            self._refresh()
            return
        self._timer = loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        try:
            if self._live is not None or self._splitter.pending:
                self._refresh()
        except Exception:  # noqa: BLE001 - a failed preview must not break the event loop
            self._timer = None

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def warm_up(code_theme: str = "monokai") -> None:
    """Import rich's markdown machinery and a code lexer/theme (run in a background thread
    while the first prompt is typed, so the first answer does not pay for it)."""
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), width=40, force_terminal=True, color_system="truecolor")
    render_block(console, "# h\n\n*t* `c`\n\n```python\nx = 1\n```\n", code_theme=code_theme)
    import rich.live  # noqa: F401
