"""Remembered approvals — the reading side of the contract the kernel writes.

- "session" answers: ``ctx.state["approvals.session"]``, a ``set`` of rule keys.
- "always" answers: ``$TALARIA_HOME/approvals.json`` = ``{"always": ["rule", …]}``.

An unreadable or malformed ``approvals.json`` counts as empty (fail closed) and is logged.
:func:`remember` implements the writing side too (used by tests and usable by the kernel).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from talaria import ToolContext

__all__ = ["SESSION_KEY", "FILE_NAME", "is_remembered", "always_rules", "remember"]

SESSION_KEY = "approvals.session"
FILE_NAME = "approvals.json"
log = logging.getLogger("talaria.approval")


def always_rules(home: Path) -> frozenset[str]:
    """Rule keys the user approved "always" (persisted in ``home/approvals.json``)."""
    path = Path(home) / FILE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return frozenset()
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s (%s); fix or delete it", path, exc)
        return frozenset()
    rules = data.get("always") if isinstance(data, dict) else None
    if not isinstance(rules, list):
        log.warning("ignoring %s: expected {\"always\": [rule, …]}", path)
        return frozenset()
    return frozenset(r for r in rules if isinstance(r, str))


def is_remembered(ctx: ToolContext, rule: str) -> str | None:
    """``"session"`` or ``"always"`` when ``rule`` was approved that way, else None."""
    session = ctx.state.get(SESSION_KEY)
    if isinstance(session, set | frozenset | list | tuple) and rule in session:
        return "session"
    if rule in always_rules(ctx.home):
        return "always"
    return None


def remember(ctx: ToolContext, rule: str, decision: str) -> None:
    """Record a "session" or "always" answer for ``rule`` (atomic write for "always")."""
    if decision == "session":
        ctx.state.setdefault(SESSION_KEY, set()).add(rule)
    elif decision == "always":
        home = Path(ctx.home)
        home.mkdir(parents=True, exist_ok=True)
        rules = sorted(always_rules(home) | {rule})
        fd, tmp = tempfile.mkstemp(prefix=".approvals.", dir=home)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"always": rules}, fh, indent=2)
        os.replace(tmp, home / FILE_NAME)
