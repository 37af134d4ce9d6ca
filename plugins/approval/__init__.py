"""Approval policy: a ``pre_tool_call`` hook that asks a human before dangerous actions.

What needs approval:

- ``terminal`` commands that trip a rule of :func:`classify_command` (recursive deletes of
  ``/``, ``~`` or absolute paths, ``mkfs``, ``dd`` to devices, ``chmod -R 777``, fork bombs,
  ``curl … | sh``, force pushes, ``git reset --hard``, writes to shell rc / SSH / credential
  files, ``sudo``, shutdown, ``kill -1`` …);
- ``write_file`` / ``edit_file`` to a path outside the workspace (rule
  ``write_outside_workspace:<folder>``) or to a sensitive file;
- any tool registered with ``dangerous=True`` (rule ``tool:<name>``), when the kernel
  exposes the tool as ``ctx.tool``.

Decision: ``[approvals] mode = "yolo"`` or ``ctx.yolo`` → allow everything (a warning is
logged once per session); a rule already approved for the session
(``ctx.state["approvals.session"]``) or always (``$TALARIA_HOME/approvals.json``) →
allow; ``mode = "deny"`` → deny; otherwise → ``Verdict.ask(reason, rule=…)``. The kernel
asks the human (no approver or a timeout means deny) and records "session"/"always"
answers. Calls that need nothing return None (abstain). See ``README.md``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import talaria

if TYPE_CHECKING:  # the value types load when a tool call is checked, not with the plugin
    from talaria import ToolCall, ToolContext, Verdict

__all__ = [
    "FILE_NAME",
    "RULES",
    "SESSION_KEY",
    "always_rules",
    "classify_all",
    "classify_command",
    "findings_for",
    "pre_tool_call",
    "remember",
]

log = logging.getLogger("talaria.approval")

#: Re-exported helpers and where they live. The rule tables (many compiled regexes) load
#: on the first classified call, not when the plugin loads: a turn with no tool call does
#: not pay for them.
_LAZY = {
    "RULES": "_classify", "classify_all": "_classify", "classify_command": "_classify",
    "FILE_NAME": "_memory", "SESSION_KEY": "_memory", "always_rules": "_memory",
    "is_remembered": "_memory", "remember": "_memory",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

_YOLO_WARNED = "approvals.yolo_warned"
_FILE_WRITERS = ("write_file", "edit_file")


def _mode(ctx: ToolContext) -> str:
    section = ctx.config.get("approvals") or {}
    mode = str(section.get("mode", "ask")).lower() if isinstance(section, Mapping) else "ask"
    return {"manual": "ask", "off": "yolo"}.get(mode, mode)


def _write_findings(call: ToolCall, ctx: ToolContext) -> list[tuple[str, str]]:
    raw = call.arguments.get("path")
    if not isinstance(raw, str) or not raw.strip():
        return []
    from ._paths import sensitive_write

    root = Path(ctx.workspace).expanduser().resolve()
    path = Path(raw.strip()).expanduser()
    resolved = (path if path.is_absolute() else root / path).resolve()
    found: list[tuple[str, str]] = []
    if not resolved.is_relative_to(root):
        found.append(
            (f"write_outside_workspace:{resolved.parent}", f"{call.name} writes {resolved}, outside the workspace {root}")
        )
    sensitive = sensitive_write(str(resolved))
    if sensitive and sensitive[0] != "write_system":  # system paths are covered by "outside"
        found.append(sensitive)
    return found


def findings_for(call: ToolCall, ctx: ToolContext) -> list[tuple[str, str]]:
    """Every ``(rule, reason)`` that makes ``call`` need approval (remembered or not)."""
    found: list[tuple[str, str]] = []
    tool = getattr(ctx, "tool", None)
    if tool is not None and getattr(tool, "dangerous", False):
        found.append((f"tool:{call.name}", f"{call.name} is marked dangerous"))
    if call.name == "terminal":
        command = call.arguments.get("command")
        if isinstance(command, str):
            from ._classify import classify_all

            found += classify_all(command, workspace=str(Path(ctx.workspace).expanduser().resolve()))
    elif call.name in _FILE_WRITERS:
        found += _write_findings(call, ctx)
    return found


@talaria.hookimpl
def pre_tool_call(call: ToolCall, ctx: ToolContext) -> Verdict | None:
    """Allow, deny or ask for ``call`` (see the module doc). Synchronous and cheap."""
    mode = _mode(ctx)
    if ctx.yolo or mode == "yolo":
        if not ctx.state.get(_YOLO_WARNED):
            ctx.state[_YOLO_WARNED] = True
            log.warning(
                "approvals bypassed (%s) for session %s: dangerous tool calls run without asking",
                "--yolo" if ctx.yolo else '[approvals] mode = "yolo"', ctx.session_id,
            )
        return talaria.Verdict.allow("approvals bypassed (yolo)")
    found = findings_for(call, ctx)
    if not found:
        return None
    from ._memory import is_remembered

    pending = [(rule, reason) for rule, reason in found if not is_remembered(ctx, rule)]
    if not pending:
        return talaria.Verdict.allow("approved earlier: " + ", ".join(rule for rule, _ in found))
    rule = pending[0][0]
    reason = "; ".join(reason for _, reason in pending[:3])
    if mode == "deny":
        return talaria.Verdict.deny(f"{reason} — not allowed: approvals are set to deny ([approvals] mode = \"deny\").")
    if mode != "ask":
        log.warning("unknown [approvals] mode %r; asking instead (use ask, deny or yolo)", mode)
    return talaria.Verdict.ask(reason, rule=rule)
