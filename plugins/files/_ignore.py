"""A gitignore matcher and a workspace walker that honours it.

Supported gitignore syntax: comments, blank lines, ``!`` negation, trailing ``/``
(directories only), anchoring (a leading or middle ``/`` makes the pattern relative to
the ``.gitignore``'s folder), ``*``, ``?``, ``[...]`` and ``**``. Nested ``.gitignore``
files apply below their folder, and ``.git/info/exclude`` applies at the root. The last
matching rule wins; a file inside an ignored directory stays ignored (as in git).
``.git`` itself is always skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["IgnoreRules", "glob_regex", "walk_files"]


def glob_regex(pattern: str) -> str:
    """Translate a gitignore-style glob (``/`` separated, ``**`` aware) to a regex body."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


class IgnoreRules:
    """Rules of one ``.gitignore`` file, matching paths relative to its folder."""

    def __init__(self, lines: list[str]) -> None:
        self.rules: list[_Rule] = []
        for raw in lines:
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.startswith("#"):
                continue
            line = line.rstrip() if not line.endswith("\\ ") else line
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            elif line.startswith("\\!") or line.startswith("\\#"):
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            body = glob_regex(line)
            prefix = "" if anchored else "(?:.*/)?"
            self.rules.append(_Rule(re.compile(f"^{prefix}{body}$"), negate, dir_only))

    @classmethod
    def from_file(cls, path: Path) -> IgnoreRules | None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        rules = cls(text.splitlines())
        return rules if rules.rules else None

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included) or None (no rule matched)."""
        result: bool | None = None
        for rule in self.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(rel):
                result = not rule.negate
        return result


def walk_files(root: Path, start: Path, *, max_files: int = 50_000) -> Iterator[Path]:
    """Yield files under ``start`` (inside ``root``) that git would not ignore.

    ``.gitignore`` files between ``root`` and ``start`` are honoured too. Symlinked
    directories are not followed. Stops after ``max_files`` files.
    """
    stack_rules: list[tuple[Path, IgnoreRules]] = []
    exclude = IgnoreRules.from_file(root / ".git" / "info" / "exclude")
    if exclude:
        stack_rules.append((root, exclude))
    folder = root
    for part in start.relative_to(root).parts:
        rules = IgnoreRules.from_file(folder / ".gitignore")
        if rules:
            stack_rules.append((folder, rules))
        folder = folder / part
        if _ignored(stack_rules, folder, True):
            return
    count = 0
    yield_stack: list[tuple[Path, list[tuple[Path, IgnoreRules]]]] = [(start, stack_rules)]
    while yield_stack:
        directory, inherited = yield_stack.pop()
        rules = IgnoreRules.from_file(directory / ".gitignore")
        active = inherited + [(directory, rules)] if rules else inherited
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[Path] = []
        for entry in entries:
            if entry.name == ".git":
                continue
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if _ignored(active, path, is_dir):
                continue
            if is_dir:
                subdirs.append(path)
            elif entry.is_file():
                count += 1
                yield path
                if count >= max_files:
                    return
        yield_stack.extend((d, active) for d in reversed(subdirs))


def _ignored(stack: list[tuple[Path, IgnoreRules]], path: Path, is_dir: bool) -> bool:
    ignored = False
    for base, rules in stack:
        verdict = rules.verdict(path.relative_to(base).as_posix(), is_dir)
        if verdict is not None:
            ignored = verdict
    return ignored
