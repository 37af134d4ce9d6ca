"""``talaria chat``: the interactive loop.

One event loop and one :class:`Runtime` for the REPL's whole life (MCP servers connect
once, in the background, while the first prompt is typed). The model chain is resolved
before the first prompt is shown: with no provider configured the command prints what to
set and exits 2. SIGTERM and SIGHUP end it like Ctrl-C ends a turn, then exit 5.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from talaria import UsageError

from .approve import Approver
from .exitcodes import exit_code
from .host import key_for_session, last_workspace_session, make_runtime, new_session_key
from .render import TurnRenderer, markdown_settings
from .signals import Stopper
from .slash import SlashContext, dispatch

__all__ = ["PROMPT", "Repl"]

#: The input prompt (tests look for it).
PROMPT = "› "
_CONTINUATION = "… "


class Repl:
    def __init__(self, state: Any, *, model: str | None = None, toolsets: Sequence[str] | None = None,
                 session: str | None = None, cont: bool = False, yolo: bool = False, plain: bool = False) -> None:
        self.state = state
        self.plain = plain
        self.model, self.toolsets, self.yolo = model, toolsets, yolo
        self.session_arg, self.cont = session, cont
        self.renderer = TurnRenderer(sys.stdout)
        self.session_key = new_session_key()
        self.runtime: Any = None
        self.stopper = Stopper()
        self._on_sigint: Callable[[], None] | None = None

    # ------------------------------------------------------------------ output
    def say(self, text: str) -> None:
        self.renderer.line(text)

    def slash_context(self) -> SlashContext:
        rt = self.runtime
        return SlashContext(kernel=rt.kernel, runtime=rt, store=rt.store, session_key=self.session_key,
                            workspace=rt.kernel.workspace, home=rt.kernel.home, print=self.say)

    # ------------------------------------------------------------------ Ctrl-C while busy
    def _install_sigint(self) -> None:
        if self._on_sigint is None:
            return
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._on_sigint)
        except (NotImplementedError, RuntimeError):
            pass

    def _remove_sigint(self) -> None:
        self._on_sigint = None
        try:
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass

    # ------------------------------------------------------------------ main loop
    async def main(self) -> int:
        """Run the conversation; 0 after Ctrl-D or /exit, 5 after SIGTERM/SIGHUP (see :mod:`.signals`)."""
        approver = Approver(self.renderer, on_interrupt=lambda: self.runtime.interrupt(),
                            after_prompt=self._install_sigint)
        stopper = self.stopper
        with stopper.installed():
            # Raises ConfigError (exit 2, first-run message) before any prompt is shown.
            self.runtime = make_runtime(self.state, model=self.model, toolsets=self.toolsets, yolo=self.yolo,
                                        emit=stopper.watch(self.renderer), ask=approver)
            stopper.runtime = self.runtime
            self._setup_markdown()
            async with self.runtime:
                try:
                    await stopper.run(self._conversation())
                except asyncio.CancelledError:
                    if not stopper.stopped_by_signal():
                        raise
        if stopper.signal is not None:
            return self._terminated()
        self.renderer.newline()
        return 0

    async def _conversation(self) -> None:
        await self._pick_session()
        self._banner()
        session = self._prompt_session()
        while self.stopper.signal is None:
            try:
                text = await self._read(session)
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not text.strip():
                continue
            if text.lstrip().startswith("/"):
                if not await self._busy(dispatch(self, text.strip())):
                    break
                continue
            await self._turn(text)

    def _setup_markdown(self) -> None:
        """Render answers as markdown on a terminal (unless ``--plain`` or
        ``[channels.cli] markdown = false``)."""
        self.renderer.markdown = None if self.plain else markdown_settings(self.runtime.config, sys.stdout)

    def _warm_up_markdown(self, session: Any) -> None:
        """Once the first prompt is on screen, import rich in the background while it is typed
        (not before: the import would delay the prompt)."""
        if self.renderer.markdown is None:
            return
        import threading

        from .markdown_stream import warm_up

        theme = self.renderer.markdown["code_theme"]
        started: list[bool] = []

        def start(_app: Any) -> None:
            if not started:
                started.append(True)
                threading.Thread(target=_quietly, args=(warm_up, theme), name="talaria-rich-warm-up",
                                 daemon=True).start()

        session.app.after_render += start

    def _terminated(self) -> int:
        code = exit_code("interrupted")
        try:  # after SIGHUP the terminal may be gone
            self.say(f"stopped by {self.stopper.name}")
        except OSError:
            pass
        return code

    async def _pick_session(self) -> None:
        store = self.runtime.store
        if self.session_arg:
            self.session_key = (await key_for_session(store, self.session_arg)).session_key
        elif self.cont:
            row = await last_workspace_session(store, str(self.runtime.kernel.workspace))
            if row is None:
                raise UsageError("--continue: no earlier session in this workspace; run without it to start one")
            self.session_key = row.session_key

    def _banner(self) -> None:
        from talaria import __version__

        from .settings import settings_problems

        chain = self.runtime.models.chain(self.runtime.options.model)
        self.say(f"talaria {__version__} · {chain[0].spec} · /help for commands · Ctrl-D exits")
        for problem in settings_problems(self.runtime.config):
            self.say(f"warning: {problem}")

    def _prompt_session(self) -> Any:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings

        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _newline(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        home: Path = self.runtime.kernel.home
        home.mkdir(parents=True, exist_ok=True)
        session = PromptSession(history=FileHistory(str(home / "history")), key_bindings=bindings)
        self._warm_up_markdown(session)
        return session

    async def _read(self, session: Any) -> str:
        """One message: lines ending in ``\\`` continue on the next line."""
        self.renderer.at_line_start = True
        parts: list[str] = []
        prompt = PROMPT
        while True:
            line = await session.prompt_async(prompt)
            if line.endswith("\\"):
                parts.append(line[:-1])
                prompt = _CONTINUATION
                continue
            parts.append(line)
            return "\n".join(parts)

    async def _busy(self, work: Any) -> Any:
        """Run a slash command; Ctrl-C cancels it."""
        task = asyncio.ensure_future(work)
        self._on_sigint = task.cancel
        self._install_sigint()
        try:
            return await task
        except asyncio.CancelledError:
            self.say("(cancelled)")
            return True
        finally:
            self._remove_sigint()

    async def _turn(self, text: str) -> None:
        self.renderer.start_turn()
        self._on_sigint = self._interrupt
        self._install_sigint()
        try:
            record = await self.runtime.run_turn(text, session_key=self.session_key)
        except Exception as exc:
            self.say(f"error: {type(exc).__name__}: {exc}")
            return
        finally:
            self._remove_sigint()
        self.renderer.end_turn(record.final_text)
        if record.end_reason != "completed":
            self.say(f"[{record.end_reason}] {record.error or ''}".rstrip())

    def _interrupt(self) -> None:
        self.renderer.line("^C interrupting…")
        self.runtime.interrupt()


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    """Run a best-effort background job; its failure shows up later, where it matters."""
    try:
        fn(*args)
    except Exception:  # noqa: BLE001
        pass
