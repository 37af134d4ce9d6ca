"""HTML → readable text with the standard library's ``html.parser``.

Contract of :func:`html_to_text`: drops ``script``, ``style``, ``noscript``, ``template``,
``svg``, ``nav``, ``iframe``, ``form``-ish chrome (``button``, ``select``) and the ``head``
(except the title); headings become ``#``-prefixed lines; links become
``[text](absolute-url)`` (fragment-only and ``javascript:`` links keep just their text);
list items get ``- ``; ``pre`` keeps its whitespace; other runs of whitespace collapse;
block elements end lines; at most one blank line in a row. Returns ``(title, text)``.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

__all__ = ["html_to_text"]

_SKIP = {"script", "style", "noscript", "template", "svg", "nav", "iframe", "button", "select", "head", "canvas"}
_BLOCK = {
    "p", "div", "section", "article", "main", "header", "footer", "aside", "ul", "ol",
    "table", "tr", "blockquote", "figure", "figcaption", "dl", "dt", "dd", "hr", "address",
    "details", "summary", "form", "fieldset",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


class _TextParser(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.out: list[str] = []
        self.skip_depth = 0
        self.skip_stack: list[str] = []
        self.pre = 0
        self.title: list[str] = []
        self.in_title = False
        self.links: list[tuple[str | None, int]] = []
        self.has_text = False

    # -- structure -------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
            return
        if self.skip_stack:
            if tag not in _VOID:
                self.skip_stack.append(tag)
            return
        if tag in _SKIP or dict(attrs).get("aria-hidden") == "true" and tag not in _VOID:
            self.skip_stack.append(tag)
            return
        if tag in _HEADINGS:
            self._newline(2)
            self.out.append("#" * _HEADINGS[tag] + " ")
        elif tag in _BLOCK:
            self._newline(1)
        elif tag == "li":
            self._newline(1)
            self.out.append("- ")
        elif tag == "br":
            self.out.append("\n")
        elif tag == "pre":
            self._newline(1)
            self.pre += 1
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif tag == "a":
            href = dict(attrs).get("href")
            self.links.append((href, len(self.out)))
        elif tag == "img":
            alt = (dict(attrs).get("alt") or "").strip()
            if alt:
                self.out.append(f"[image: {alt}]")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
            return
        if self.skip_stack:
            if tag in self.skip_stack:
                while self.skip_stack and self.skip_stack.pop() != tag:
                    pass
            return
        if tag in _HEADINGS or tag in _BLOCK or tag == "li":
            self._newline(2 if tag in _HEADINGS or tag == "p" else 1)
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            self._newline(1)
        elif tag == "a" and self.links:
            href, start = self.links.pop()
            text = "".join(self.out[start:]).strip()
            url = self._link(href)
            if url and text and url != text:
                del self.out[start:]
                self.out.append(f"[{text}]({url})")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
            return
        if self.skip_stack:
            return
        self.has_text = self.has_text or bool(data.strip())
        if self.pre:
            self.out.append(data.replace("\n", "\n\x01"))  # \x01: keep this line's indent
        else:
            self.out.append(re.sub(r"\s+", " ", data))

    # -- helpers ---------------------------------------------------------------------
    def _newline(self, count: int) -> None:
        """End the current line so that ``count`` newlines (not more) precede what follows."""
        existing = 0
        for piece in reversed(self.out):
            body = piece.replace("\x01", "").rstrip(" \t")
            existing += len(body) - len(body.rstrip("\n"))
            if body.strip():
                break
        if self.has_text:
            self.out.append("\n" * max(0, count - existing))

    def _link(self, href: str | None) -> str | None:
        if not href or href.startswith(("#", "javascript:", "mailto:", "data:")):
            return None
        return urljoin(self.base_url, href.strip())


def html_to_text(html: str, base_url: str = "") -> tuple[str, str]:
    """Return ``(title, readable text)`` of an HTML document (see module doc)."""
    parser = _TextParser(base_url)
    parser.feed(html)
    parser.close()
    text = "".join(parser.out)
    lines = [line[1:].rstrip() if line.startswith("\x01") else line.strip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    text = re.sub(r"^(#+ )\s+", r"\1", text, flags=re.M)
    title = " ".join("".join(parser.title).split())
    return title, text
