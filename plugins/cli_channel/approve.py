"""Inline approvals: ``Allow terminal: rm -rf build? [o]nce / [s]ession / [a]lways / [d]eny``.

One key answers (o, s, a, d; Enter or Ctrl-D mean deny). Ctrl-C denies and interrupts the turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Approver"]

_KEYS = {"o": "once", "s": "session", "a": "always", "d": "deny", "n": "deny", "y": "once"}


class Approver:
    """The REPL's ``ask`` callback (an :class:`talaria.ApprovalRequest` → decision)."""

    def __init__(self, renderer: Any, *, on_interrupt: Callable[[], None], after_prompt: Callable[[], None]) -> None:
        self.renderer = renderer
        self.on_interrupt = on_interrupt
        self.after_prompt = after_prompt

    def question(self, request: Any) -> str:
        what = request.summary or request.reason or request.tool
        return f"Allow {request.tool}: {what}? [o]nce / [s]ession / [a]lways / [d]eny "

    async def __call__(self, request: Any) -> str:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.key_binding import KeyBindings

        bindings = KeyBindings()

        def answer(decision: str) -> Callable[[Any], None]:
            def handler(event: Any) -> None:
                event.app.exit(result=decision)
            return handler

        for key, decision in _KEYS.items():
            bindings.add(key)(answer(decision))
            bindings.add(key.upper())(answer(decision))
        bindings.add("enter")(answer("deny"))
        bindings.add("c-d")(answer("deny"))
        bindings.add("c-c")(answer("interrupt"))
        bindings.add("<any>")(lambda event: None)  # ignore other keys

        self.renderer.newline()
        if request.reason and request.reason not in (request.summary or ""):
            self.renderer.write(f"⚠ {request.reason}\n")
        session: Any = PromptSession(key_bindings=bindings)
        try:
            result = await session.prompt_async(self.question(request))
        except (KeyboardInterrupt, EOFError):
            result = "interrupt"
        finally:
            self.renderer.at_line_start = True
            self.after_prompt()
        if result == "interrupt":
            self.renderer.write("denied; interrupting the turn\n")
            self.on_interrupt()
            return "deny"
        self.renderer.write(f"→ {result}\n")
        return str(result)
