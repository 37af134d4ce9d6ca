"""``SqliteMemoryProvider``: the ``sqlite`` memory provider (a :class:`talaria.MemoryProvider`).

Selected with ``[memory] provider = "sqlite"``; configured by ``[memory.sqlite]``:

- ``path``: the database file (default ``$TALARIA_HOME/memory_sqlite.db``; a relative
  path is relative to ``$TALARIA_HOME``);
- ``recall_limit`` (5): facts recalled before a turn; ``recall_max_chars`` (800): cap of the
  recalled block; ``fact_max_chars`` (500): longest fact the tool accepts.

Honest by design: facts enter the store only through the ``fact_store`` tool (the model
decides what is durable); ``on_turn_end`` and ``on_pre_compress`` extract nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import talaria

from .factdb import FactDB

__all__ = ["SqliteMemoryProvider"]

PROMPT_BLOCK = (
    "## Fact store\n"
    "Durable facts (decisions, preferences, project details) go into fact_store "
    "(action=save); facts relevant to each user message are recalled with it."
)


class SqliteMemoryProvider:
    """Facts in SQLite + FTS5, recalled by bm25 relevance to the user's words."""

    name = "sqlite"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})
        self.recall_limit = int(self.config.get("recall_limit", 5))
        self.recall_max_chars = int(self.config.get("recall_max_chars", 800))
        self.fact_max_chars = int(self.config.get("fact_max_chars", 500))
        self._db: FactDB | None = None
        self._session_id: str | None = None

    def db_path(self, home: Path) -> Path:
        raw = self.config.get("path")
        if not raw:
            return Path(home) / "memory_sqlite.db"
        path = Path(str(raw)).expanduser()
        return path if path.is_absolute() else Path(home) / path

    # ------------------------------------------------------------------ lifecycle

    async def start(self, session: talaria.SessionInfo) -> None:
        """Open (creating if needed) the database for ``session``."""
        if self._db is not None:
            await self._db.close()
        self._db = await FactDB.open(self.db_path(session.home))
        self._session_id = session.id

    async def stop(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    def prompt_block(self) -> str:
        """Constant text (read once at session start): how the store is used."""
        return PROMPT_BLOCK

    # ------------------------------------------------------------------ turn hooks

    async def prefetch(self, query: str) -> str | None:
        """The facts most relevant to ``query`` as a short block, or None when none match."""
        if self._db is None or not query.strip():
            return None
        facts = await self._db.search(query, self.recall_limit)
        if not facts:
            return None
        lines: list[str] = []
        size = 0
        for fact in facts:
            line = f"- {fact.content} (#{fact.id})"
            if lines and size + len(line) > self.recall_max_chars:
                break
            lines.append(line)
            size += len(line) + 1
        return "Recalled from the fact store (may be relevant; not part of the request):\n" + "\n".join(lines)

    async def on_turn_end(self, turn: talaria.TurnRecord, messages: Sequence[talaria.Message]) -> None:
        """Nothing is extracted automatically: facts come from the ``fact_store`` tool."""
        return None

    async def on_pre_compress(self, messages: Sequence[talaria.Message]) -> None:
        """No-op: nothing is saved from history that is about to be compressed."""
        return None

    # ------------------------------------------------------------------ tool

    def tools(self) -> Sequence[talaria.Tool]:
        return [
            talaria.Tool(
                name="fact_store",
                description="Long-term facts: save a fact, search facts, or forget one by id.",
                parameters={
                    "type": "object",
                    "properties": {
                        "action": {"enum": ["save", "search", "forget"]},
                        "text": {"type": "string", "description": "fact to save, or search words"},
                        "id": {"type": "integer", "description": "fact to forget"},
                    },
                    "required": ["action"],
                    "additionalProperties": False,
                },
                handler=self._handle,
                toolset="memory",
                parallel_safe=False,
            )
        ]

    async def _handle(self, arguments: Mapping[str, Any], ctx: talaria.ToolContext) -> str:
        if self._db is None:
            raise talaria.ToolError("the sqlite fact store is not started; start a new session")
        action = arguments.get("action")
        text = " ".join(str(arguments.get("text") or "").split())
        if action == "save":
            if not text:
                raise talaria.ToolError("'text' is required to save a fact")
            if len(text) > self.fact_max_chars:
                raise talaria.ToolError(
                    f"fact is {len(text):,} chars, over {self.fact_max_chars:,}; save one short fact per call"
                )
            fact_id, created = await self._db.save(text, self._session_id)
            return f"Saved fact #{fact_id}." if created else f"Already stored as fact #{fact_id}."
        if action == "search":
            facts = await (self._db.search(text, 10) if text else self._db.recent(10))
            if not facts:
                return "No matching facts." if text else "The fact store is empty."
            return "\n".join(f"#{f.id}: {f.content}" for f in facts)
        if action == "forget":
            fact_id = arguments.get("id")
            if fact_id is None:
                raise talaria.ToolError("'id' is required to forget a fact; find it with action=search")
            fact = await self._db.forget(int(fact_id))
            if fact is None:
                raise talaria.ToolError(f"no fact #{fact_id}; find ids with action=search")
            return f"Forgot fact #{fact.id}: {fact.content}"
        raise talaria.ToolError(f"unknown action '{action}'; use save, search or forget")
