"""Streamed answers rendered as markdown: each block lands in the scrollback once, rendered
by rich (headings without ``#``, highlighted code), exactly as the whole answer would render;
the raw preview of the block in progress is erased; plain text where markdown is off."""

from __future__ import annotations

import importlib
import io
import re
from typing import Any

import pytest
from rich.console import Console
from rich.markdown import Markdown

from talaria.testing import load_plugin_module

_PKG = load_plugin_module("cli_channel").__name__
markdown_stream = importlib.import_module(_PKG + ".markdown_stream")
render = importlib.import_module(_PKG + ".render")

ANSWER = (
    "# Release notes\n"
    "Some **bold** words and `inline code`, see [the docs](https://example.org/docs).\n\n"
    "- first item\n  - nested item\n- second item\n\n"
    "| name | value |\n|------|-------|\n| a    | 1     |\n\n"
    "> a quoted remark\n\n"
    "```python\ndef add(a, b):\n    return a + b\n```\n"
    "Plain closing words."
)

_CSI = re.compile(r"\x1b\[([?0-9;]*)([A-Za-z])")


class Screen:
    """Enough of a VT100 for what rich's Live writes: text, CR, LF, cursor up, erase line."""

    def __init__(self) -> None:
        self.rows: list[list[str]] = [[]]
        self.row = self.col = 0

    def feed(self, data: str) -> Screen:
        i = 0
        while i < len(data):
            match = _CSI.match(data, i)
            if match:
                arg, op = match.groups()
                if op == "A":
                    self.row = max(0, self.row - int(arg or 1))
                elif op == "K":
                    line = self.rows[self.row]
                    self.rows[self.row] = [] if arg == "2" else line[: self.col]
                i = match.end()
                continue
            char = data[i]
            if char == "\r":
                self.col = 0
            elif char == "\n":
                self.row, self.col = self.row + 1, 0
                while len(self.rows) <= self.row:
                    self.rows.append([])
            else:
                line = self.rows[self.row]
                line.extend(" " * (self.col + 1 - len(line)))
                line[self.col] = char
                self.col += 1
            i += 1
        return self

    def text(self) -> str:
        return "\n".join("".join(row).rstrip() for row in self.rows).rstrip("\n")


def _console(width: int = 60, *, color: bool = False, **kwargs: Any) -> Console:
    return Console(file=io.StringIO(), width=width, height=24, force_terminal=True,
                   color_system="truecolor" if color else None, **kwargs)


def _whole(text: str, width: int = 60) -> str:
    """The answer rendered by rich in one go (trailing padding dropped)."""
    console = _console(width)
    console.print(Markdown(text, hyperlinks=False))
    return "\n".join(line.rstrip() for line in console.file.getvalue().strip("\n").splitlines())


def _stream(text: str, console: Console, step: int = 1, *, live: bool = True) -> None:
    stream = markdown_stream.MarkdownStream(console, refresh_interval=0, live=live)
    for i in range(0, len(text), step):
        stream.feed(text[i : i + step])
    stream.finish()


@pytest.mark.parametrize("step", [1, 7, len(ANSWER)], ids=["char-by-char", "chunks", "all-at-once"])
def test_the_scrollback_holds_the_answer_rendered_once(step: int) -> None:
    console = _console()
    _stream(ANSWER, console, step)
    screen = Screen().feed(console.file.getvalue()).text()
    assert screen == _whole(ANSWER)
    assert screen.count("Release notes") == 1 and "# Release" not in screen
    assert screen.count("def add(a, b):") == 1 and "```" not in screen
    assert "**" not in screen and "Some bold words and inline code" in screen
    assert "see the docs" in screen and "(https://example.org/docs)" in screen  # the URL stays visible
    assert "• first item" in screen and "• nested item" in screen
    assert "▌ a quoted remark" in screen


def test_the_block_in_progress_shows_raw_until_it_completes() -> None:
    console = _console()
    stream = markdown_stream.MarkdownStream(console, refresh_interval=0)
    stream.feed("# Title\nSome **bo")
    screen = Screen().feed(console.file.getvalue()).text()
    assert screen.splitlines()[-1] == "Some **bo"  # streamed with no delay, below the rendered heading
    assert "# Title" not in screen and "Title" in screen
    stream.feed("ld** text\n\nnext")
    screen = Screen().feed(console.file.getvalue()).text()
    assert "Some bold text" in screen and "**" not in screen
    assert screen.splitlines()[-2:] == ["", "next"]  # already where it will be once rendered
    stream.finish()
    assert Screen().feed(console.file.getvalue()).text() == _whole("# Title\nSome **bold** text\n\nnext")


def test_a_long_code_block_previews_only_its_tail() -> None:
    console = _console(40)
    stream = markdown_stream.MarkdownStream(console, refresh_interval=0)
    stream.feed("```text\n" + "".join(f"row {i}\n" for i in range(200)))
    preview = Screen().feed(console.file.getvalue()).text().splitlines()
    assert len(preview) <= 22 and preview[-1] == "row 199"  # a screenful at most, the newest rows
    stream.feed("```\n")
    stream.finish()
    screen = Screen().feed(console.file.getvalue()).text()
    assert [line.strip() for line in screen.splitlines()].count("row 0") == 1
    assert screen.count("row 199") == 1


def test_code_is_highlighted_and_prose_is_not() -> None:
    console = _console(color=True, record=True)
    _stream(ANSWER, console, 5, live=False)
    styled = console.export_text(styles=True)
    code_line = next(line for line in styled.splitlines() if "add" in line and "def" in line)
    colours = set(re.findall(r"\x1b\[[0-9;]*38;2;(\d+;\d+;\d+)", code_line))
    assert len(colours) >= 2  # keyword, name, punctuation… in different colours
    prose = next(line for line in styled.splitlines() if "Plain closing words" in line)
    assert "38;2" not in prose


def test_no_color_keeps_the_layout_without_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    console = Console(file=io.StringIO(), width=60, force_terminal=True, color_system="truecolor")
    _stream(ANSWER, console, 3)
    out = console.file.getvalue()
    assert not re.search(r"\x1b\[[0-9;]*(38|48);", out)  # no foreground/background colours
    screen = Screen().feed(out).text()
    assert "Release notes" in screen and "# Release" not in screen


def test_a_narrow_terminal_wraps_instead_of_overflowing() -> None:
    console = _console(16)
    _stream(ANSWER, console, 4)
    screen = Screen().feed(console.file.getvalue()).text()
    assert all(len(line) <= 16 for line in screen.splitlines())
    assert screen == _whole(ANSWER, 16)
    assert "def add(a, b):" in screen and "return a +" in screen  # long code lines wrap, not crop


# ---------------------------------------------------------------------- the REPL's renderer
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _event(kind: str, **data: Any) -> Any:
    return type("Event", (), {"kind": kind, "data": data})()


def test_tool_lines_and_prompts_end_the_markdown_segment() -> None:
    out = _Tty()
    renderer = render.TurnRenderer(out, markdown={"code_theme": "monokai"})
    renderer.start_turn()
    for piece in ("Let me **check**", " that.\n\n", "Running:"):
        renderer(_event("text_delta", text=piece))
    renderer(_event("tool_started", id="c1", tool="terminal", arguments={"command": "ls"}))
    renderer(_event("tool_finished", id="c1", tool="terminal", duration=0.25, status="ok"))
    renderer(_event("text_delta", text="## Result\nAll *good*."))
    renderer.end_turn("ignored: the answer was streamed")
    renderer.line("› next prompt")
    lines = [line.strip() for line in Screen().feed(out.getvalue()).text().splitlines()]
    assert lines == ["Let me check that.", "", "Running:", "⚙ terminal ls 0.2s ok", "Result", "", "All good.",
                     "› next prompt"]


def test_an_answer_that_was_not_streamed_is_rendered_at_the_end() -> None:
    out = _Tty()
    renderer = render.TurnRenderer(out, markdown={"code_theme": "monokai"})
    renderer.start_turn()
    renderer.end_turn("# Done\n\n`ok`")
    text = Screen().feed(out.getvalue()).text()
    assert "Done" in text and "#" not in text and "`" not in text


def test_plain_mode_writes_the_raw_text() -> None:
    out = io.StringIO()
    renderer = render.TurnRenderer(out)
    renderer.start_turn()
    for piece in ("# Title\n", "**bold**"):
        renderer(_event("text_delta", text=piece))
    renderer.end_turn()
    assert out.getvalue() == "# Title\n**bold**\n"


def test_a_rendering_failure_falls_back_to_plain_text_and_loses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(markdown_stream, "render_block", broken)
    out = _Tty()
    renderer = render.TurnRenderer(out, markdown={"code_theme": "monokai"})
    renderer.start_turn()
    for piece in ("First para", "graph.\n\nSecond", " one."):
        renderer(_event("text_delta", text=piece))
    renderer.end_turn()
    text = Screen().feed(out.getvalue()).text()
    assert "markdown rendering failed: RuntimeError: boom" in text
    assert "First paragraph.\n\nSecond one." in text
    assert renderer.markdown is None  # plain from here on


@pytest.mark.parametrize(("config", "tty", "term", "expected"), [
    ({}, True, "xterm", {"code_theme": "monokai"}),
    ({"channels": {"cli": {"code_theme": "dracula"}}}, True, "xterm", {"code_theme": "dracula"}),
    ({"channels": {"cli": {"markdown": False}}}, True, "xterm", None),
    ({}, False, "xterm", None),  # piped / redirected stdout: plain text, no ANSI
    ({}, True, "dumb", None),
    ({"channels": {"cli": "not a table"}}, True, "xterm", {"code_theme": "monokai"}),
    ({"channels": {"cli": {"code_theme": 3}}}, True, "xterm", {"code_theme": "monokai"}),
], ids=["default", "theme", "off", "not-a-tty", "dumb", "malformed", "bad-theme"])
def test_markdown_settings(config: dict[str, Any], tty: bool, term: str, expected: Any,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", term)
    out = _Tty() if tty else io.StringIO()
    assert render.markdown_settings(config, out) == expected


async def test_redraws_are_throttled_but_the_last_delta_still_shows() -> None:
    import asyncio

    console = _console()
    stream = markdown_stream.MarkdownStream(console, refresh_interval=0.05)
    for piece in ("Hello", " there", " friend"):
        stream.feed(piece)
    assert Screen().feed(console.file.getvalue()).text() == "Hello"  # drawn at once, then throttled
    await asyncio.sleep(0.15)
    assert Screen().feed(console.file.getvalue()).text() == "Hello there friend"  # caught up by the timer
    stream.finish()
    assert Screen().feed(console.file.getvalue()).text() == "Hello there friend"



def test_chat_plain_flag_turns_markdown_off_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    repl_mod = importlib.import_module(f"{_PKG}.repl")
    monkeypatch.setattr(repl_mod.sys, "stdout", _Tty())
    runtime = SimpleNamespace(config={})
    rich_repl, plain_repl = repl_mod.Repl(None), repl_mod.Repl(None, plain=True)
    for repl in (rich_repl, plain_repl):
        repl.runtime = runtime
        repl._setup_markdown()
    assert rich_repl.renderer.markdown is not None and plain_repl.renderer.markdown is None
