"""Sessions: find or create the session of a key, build its prompt once, memory slot.

The system prompt is built **before** the session row is written, stored by hash, and
re-read (never rebuilt) by later turns of the session — rebuilt only by compression.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..prompt import assemble, build_sections, parse_stored
from ..types import Event, PromptSection, SessionInfo, Tool, new_id

if TYPE_CHECKING:
    from .state import TurnHost

__all__ = ["SessionManager"]

log = logging.getLogger("talaria.turn")


class SessionManager:
    def __init__(self, runtime: TurnHost) -> None:
        self.runtime = runtime
        self.memory: Any = None  # the external memory provider (at most one)
        self._memory_started: set[str] = set()
        self._trust: tuple[Any, bool] | None = None  # (trusted.json mtime, answer)
        self._parsed: dict[str, tuple[PromptSection, ...]] = {}  # stored prompts by hash

    # ------------------------------------------------------------------ memory slot

    async def start_memory(self) -> None:
        name = self.runtime.config.get("memory", {}).get("provider")
        if not name:
            return
        factory = self.runtime.kernel.registries.memory_providers.get(name)
        if factory is None:
            known = ", ".join(self.runtime.kernel.registries.memory_providers.names()) or "none installed"
            self._warn(f"memory provider '{name}' is not installed (known: {known}); using built-in memory only")
            return
        try:
            self.memory = factory(self.runtime.config.get("memory", {}).get(name, {}))
        except Exception as exc:
            self._warn(f"memory provider '{name}' failed to start: {exc}; using built-in memory only")

    def memory_tools(self) -> list[Tool]:
        if self.memory is None:
            return []
        try:
            return list(self.memory.tools())
        except Exception as exc:
            self._warn(f"memory provider tools failed: {exc}")
            return []

    async def stop_memory(self) -> None:
        if self.memory is not None and self._memory_started:
            try:
                await self.memory.stop()
            except Exception as exc:
                log.debug("memory provider stop failed: %s", exc)

    async def recall(self, text: str) -> str | None:
        if self.memory is None:
            return None
        try:
            return await self.memory.prefetch(text) or None
        except Exception as exc:
            self._warn(f"memory recall failed: {exc}")
            return None

    def _warn(self, message: str) -> None:
        log.warning("talaria: %s", message)
        self.runtime.emit(Event(kind="warning", data={"message": message}))

    # ------------------------------------------------------------------ sessions

    def _trusted(self) -> bool:
        """The workspace, or a folder above it, is listed in ``$TALARIA_HOME/trusted.json``
        (re-read only when the file changed)."""
        path = self.runtime.kernel.home / "trusted.json"
        try:
            info = path.stat()
            stamp: Any = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        if self._trust is not None and self._trust[0] == stamp:
            return self._trust[1]
        trusted = stamp is not None and self._read_trusted(path)
        self._trust = (stamp, trusted)
        return trusted

    def _read_trusted(self, path: Path) -> bool:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        workspace = self.runtime.kernel.workspace.resolve()
        for entry in data.get("workspaces", []):
            trusted = Path(entry).expanduser().resolve()
            if workspace == trusted or trusted in workspace.parents:
                return True
        return False

    def skill_dirs(self) -> tuple[tuple[str, Path], ...]:
        """Plugin-shipped skill folders, ``("plugin:<name>", path)``, lowest precedence first."""
        regs = self.runtime.kernel.registries.skill_dirs.registrations()
        return tuple((f"plugin:{r.plugin}", Path(r.item)) for r in sorted(regs, key=lambda r: r.rank))

    def info(self, session_id: str, key: str, resolved: Any, parent_id: str | None = None) -> SessionInfo:
        kernel = self.runtime.kernel
        return SessionInfo(
            id=session_id,
            session_key=key,
            workspace=kernel.workspace,
            home=kernel.home,
            provider=resolved.provider,
            model=resolved.model_id,
            source=self.runtime.options.channel,
            parent_id=parent_id,
            context_window=resolved.context_window,
            config=self.runtime.config,
            trusted_workspace=self._trusted(),
            skill_dirs=self.skill_dirs(),
        )

    def build_prompt(self, info: SessionInfo) -> list[PromptSection]:
        sections = self.runtime.kernel.hooks.prompt_sections(info)
        if self.memory is not None:
            try:
                block = self.memory.prompt_block()
            except Exception as exc:
                block = ""
                self._warn(f"memory provider prompt failed: {exc}")
            if block:
                sections.append(PromptSection(tier="volatile", text=block, source=f"memory:{self.memory.name}", order=60))
        return build_sections(info, sections, caller_system=self.runtime.options.caller_system)

    async def ensure(self, state: Any, key: str, resolved: Any, *, new_session: bool) -> None:
        """Set ``state.session``, ``state.info``, ``state.info_system`` and ``state.messages``
        (the stored transcript) for the turn."""
        store = self.runtime.store
        row, state.messages = (None, []) if new_session else await store.current_transcript(key)
        if row is not None:
            state.session = row
            state.info = self.info(row.id, key, resolved, row.parent_session_id)
            state.info_system = await self._stored_prompt(row.system_prompt_hash) or tuple(self.build_prompt(state.info))
            await self._start_memory_for(state.info)
            return
        if new_session:
            current = await store.current_session(key)
            if current is not None:
                await self.end(current.id, "new_session", state.info)
        await self.create(state, key, resolved, parent_id=None)

    async def _stored_prompt(self, prompt_hash: str | None) -> tuple[PromptSection, ...]:
        """The session's stored prompt as sections (parsed once per hash), or () if none."""
        if not prompt_hash:
            return ()
        parsed = self._parsed.get(prompt_hash)
        if parsed is None:
            stored = await self.runtime.store.get_system_prompt(prompt_hash)
            if not stored:
                return ()
            parsed = self._parsed[prompt_hash] = parse_stored(stored)
            while len(self._parsed) > 64:
                self._parsed.pop(next(iter(self._parsed)))
        return parsed

    async def create(self, state: Any, key: str, resolved: Any, *, parent_id: str | None) -> None:
        from ..store.base import SessionRow

        store = self.runtime.store
        session_id = new_id("ses_")
        info = self.info(session_id, key, resolved, parent_id)
        sections = self.build_prompt(info)  # before the row exists
        prompt_hash = await store.put_system_prompt(assemble(sections))
        row = await store.create_session(SessionRow(
            id=session_id, session_key=key, parent_session_id=parent_id, source=info.source,
            provider=resolved.provider, model=resolved.model_id, system_prompt_hash=prompt_hash,
            cwd=str(info.workspace),
        ))
        state.session, state.info, state.info_system = row, info, tuple(sections)
        state.messages = []
        self.runtime.emit(Event(kind="session_started", session_id=session_id, data={"parent": parent_id}))
        await self.runtime.kernel.hooks.notify("on_session_start", session=info)
        await self._start_memory_for(info)

    async def end(self, session_id: str, reason: str, info: SessionInfo | None) -> None:
        await self.runtime.store.end_session(session_id, reason)
        if info is not None:
            await self.runtime.kernel.hooks.notify("on_session_end", session=info)

    async def _start_memory_for(self, info: SessionInfo) -> None:
        if self.memory is None or info.id in self._memory_started:
            return
        try:
            await self.memory.start(info)
            self._memory_started.add(info.id)
        except Exception as exc:
            self._warn(f"memory provider failed to start for the session: {exc}")
