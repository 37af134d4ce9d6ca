"""Split streamed markdown into top-level blocks as soon as each one is complete.

The REPL renders an answer block by block: a block is printed (rendered) once, when no
later text can change it. :class:`BlockSplitter` decides that from complete lines only, so
the blocks do not depend on how the text was chunked — one character at a time gives the
same blocks as the whole answer at once — and the joined blocks are exactly the input.

A block ends

- at a blank line outside a code fence, for a paragraph, heading, table, block quote or
  thematic break;
- at a blank line followed by a line that neither is indented nor starts a list item, for a
  list or an indented code block (a loose list and nested item paragraphs stay together);
- at the closing fence of a top-level code fence (``````` or ``~~~``);
- before a top-level fence opening or ATX heading that follows other text with no blank
  line between (``Here is the code:`` then a fence), and right after such a heading line.

Everything is per line: feeding costs O(size of the delta) and the in-progress block is
available as a bounded tail (:meth:`BlockSplitter.tail`) for a live preview.
"""

from __future__ import annotations

import re

__all__ = ["BlockSplitter", "split_blocks"]

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_CLOSE = re.compile(r"^ *(`{3,}|~{3,})[ \t]*$")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))


class BlockSplitter:
    """Feed text deltas in; complete markdown blocks (source text) come out.

    ``feed`` and ``finish`` return the blocks completed by that call, in order.
    ``"".join`` of every block returned (``feed`` calls, then ``finish``) equals the text fed.
    """

    def __init__(self) -> None:
        self._partial = ""  # the incomplete last line
        self._lines: list[str] = []  # complete lines of the block in progress
        self._content = False  # the block in progress has a non-blank line
        self._kind = ""  # "list" | "indented" | "other": what a blank line would end
        self._gap = False  # a list / indented block saw a blank line: the next line decides
        self._fence: tuple[str, int] | None = None  # (marker char, length) of the open fence
        self._fence_top = False  # the open fence is top-level: its closing line ends the block

    # ------------------------------------------------------------------ input
    def feed(self, text: str) -> list[str]:
        """Add a delta; return the blocks it completed."""
        if "\n" not in text:
            self._partial += text
            return []
        head, *middle, rest = text.split("\n")
        first = self._partial + head
        self._partial = rest
        out: list[str] = []
        for line in (first, *middle):
            out += self._line(line + "\n")
        return out

    def finish(self) -> list[str]:
        """End of the answer: the last line counts as complete; return the remaining blocks."""
        last, self._partial = self._partial, ""
        out = self._line(last) if last else []
        return out + self._take()

    # ------------------------------------------------------------------ the block in progress
    @property
    def pending(self) -> bool:
        """Whether text that is not yet in a returned block was fed."""
        return bool(self._lines or self._partial)

    @property
    def in_fence(self) -> bool:
        """Whether the block in progress is inside an open code fence."""
        return self._fence is not None

    def tail(self, max_lines: int, max_chars: int) -> str:
        """The end of the block in progress: at most ``max_lines`` lines and ``max_chars``
        characters (cost bounded by those, not by the block's size)."""
        parts = [self._partial] if self._partial else []
        size = len(self._partial)
        for line in reversed(self._lines):
            if len(parts) >= max_lines or size >= max_chars:
                break
            parts.append(line)
            size += len(line)
        text = "".join(reversed(parts))
        return text[-max_chars:] if len(text) > max_chars else text

    # ------------------------------------------------------------------ line rules
    def _reset(self) -> None:
        self._lines, self._content, self._kind, self._gap = [], False, "", False
        self._fence, self._fence_top = None, False

    def _take(self) -> list[str]:
        text = "".join(self._lines)
        self._reset()
        return [text] if text else []

    def _line(self, line: str) -> list[str]:
        if self._fence is not None:
            self._lines.append(line)
            close = _CLOSE.match(line)
            if close and close.group(1)[0] == self._fence[0] and len(close.group(1)) >= self._fence[1]:
                top, self._fence = self._fence_top, None
                if top:
                    return self._take()
            return []
        if not line.strip():
            self._lines.append(line)
            if not self._content:
                return []
            if self._kind in ("list", "indented"):
                self._gap = True
                return []
            return self._take()
        out: list[str] = []
        indent = _indent(line)
        if self._gap:
            self._gap = False
            if not (indent > 0 or (self._kind == "list" and _LIST_ITEM.match(line))):
                out += self._take()
        # top level = not the continuation of a list item or an indented code block
        top = not self._content or (indent == 0 if self._kind == "list" else indent < 4)
        fence = _FENCE.match(line)
        if fence and top and len(fence.group(1)) < 4 and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
            if self._content:
                out += self._take()
            self._fence, self._fence_top = (fence.group(2)[0], len(fence.group(2))), True
        elif fence and self._content and self._kind == "list":
            self._fence, self._fence_top = (fence.group(2)[0], len(fence.group(2))), False
        elif top and _HEADING.match(line):
            if self._content:
                out += self._take()
            self._lines.append(line)
            return out + self._take()
        if not self._content:
            self._kind = "indented" if indent >= 4 else "other"
        if _LIST_ITEM.match(line) and indent < 4 and self._kind != "indented":
            self._kind = "list"
        self._lines.append(line)
        self._content = True
        return out


def split_blocks(text: str) -> list[str]:
    """All blocks of a complete text (what streaming it would produce)."""
    splitter = BlockSplitter()
    return splitter.feed(text) + splitter.finish()
