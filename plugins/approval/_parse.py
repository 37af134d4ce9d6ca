"""Shell tokenization for the command classifier.

:func:`parse` turns a command line into :class:`Stage`\\ s (simple commands) with their
redirection targets and whether they read a pipe from the previous stage. Command
substitutions (``$(…)``, backticks, ``<(…)``, ``>(…)``) are lifted out as nested command
strings (also inside double quotes, never inside single quotes) and replaced by a
placeholder word; unquoted newlines separate commands. Unbalanced quotes fall back to a
whitespace split, so a malformed command is still inspected.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

__all__ = ["Stage", "parse", "PLACEHOLDER"]

PLACEHOLDER = "__subst__"
_OP_CHARS = set("();<>|&")


@dataclass
class Stage:
    words: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)  # output redirection targets
    piped: bool = False  # stdin comes from the previous stage's stdout


def _closing(text: str, start: int, open_ch: str, close_ch: str) -> int:
    """Index of the bracket closing the one just before ``start`` (or len(text))."""
    depth, i, quote = 1, start, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def _lift(text: str) -> tuple[str, list[str]]:
    """Replace substitutions by a placeholder and unquoted newlines by ``;``."""
    out: list[str] = []
    nested: list[str] = []
    i, quote = 0, ""
    while i < len(text):
        c = text[i]
        if quote == "'":
            out.append(c)
            if c == "'":
                quote = ""
            i += 1
            continue
        if c == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if c == '"':
            quote = "" if quote == '"' else '"'
            out.append(c)
            i += 1
            continue
        if c == "'" and not quote:
            quote = "'"
            out.append(c)
            i += 1
            continue
        pair = text[i : i + 2]
        if pair == "$(" or (not quote and pair in ("<(", ">(")):
            end = _closing(text, i + 2, "(", ")")
            nested.append(text[i + 2 : end])
            out.append(PLACEHOLDER if quote or pair == "$(" else f"< {PLACEHOLDER}")
            i = end + 1
            continue
        if c == "`":
            end = text.find("`", i + 1)
            end = len(text) if end == -1 else end
            nested.append(text[i + 1 : end])
            out.append(PLACEHOLDER)
            i = end + 1
            continue
        if c == "\n" and not quote:
            out.append(" ; ")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), nested


def _tokens(text: str) -> list[str]:
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError:  # unbalanced quotes: inspect the words anyway
        return text.replace(";", " ; ").replace("|", " | ").replace("&", " & ").split()


def parse(command: str) -> tuple[list[Stage], list[str]]:
    """Split ``command`` into stages; also return the nested command strings."""
    flat, nested = _lift(command)
    stages: list[Stage] = []
    current = Stage()
    tokens = _tokens(flat)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok and set(tok) <= _OP_CHARS:
            if ">" in tok or "<" in tok:
                target = tokens[i + 1] if i + 1 < len(tokens) else ""
                if ">" in tok and not (tok.endswith("&") and (target.isdigit() or target == "-")):
                    current.writes.append(target)
                i += 2
                continue
            if current.words or current.writes:
                stages.append(current)
            current = Stage(piped=tok in ("|", "|&"))
            i += 1
            continue
        current.words.append(tok)
        i += 1
    if current.words or current.writes:
        stages.append(current)
    return stages, nested
