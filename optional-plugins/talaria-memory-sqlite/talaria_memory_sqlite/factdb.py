"""The fact database: one ``facts`` table and an external-content FTS5 index over it.

Contract: :meth:`FactDB.save` is idempotent on identical text (returns the existing id);
:meth:`FactDB.search` ranks by FTS5 ``bm25`` over the words of a free-text query (any word
may match; stop words and one-letter words are ignored; porter stemming); the file is in
WAL mode with a busy timeout so several Talaria processes may share it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Fact", "FactDB", "fts_query"]

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    id INTEGER PRIMARY KEY,
    content TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL,
    session_id TEXT
);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
    content, content='facts', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO facts_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

_STOP = frozenset(
    "a an and are as at be but by can could did do does for from had has have how i if in "
    "into is it its me my no not of on or our please should so that the their them then "
    "there these they this to was we were what when where which who why will with would "
    "you your".split()
)
_MAX_TERMS = 32


def fts_query(text: str) -> str | None:
    """An FTS5 OR-query of the meaningful words of ``text``; None when there are none."""
    terms: list[str] = []
    for word in re.findall(r"\w+", text.lower()):
        if len(word) > 1 and word not in _STOP and word not in terms:
            terms.append(word)
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms[:_MAX_TERMS])


@dataclass(frozen=True, slots=True)
class Fact:
    id: int
    content: str


class FactDB:
    """An open connection to the fact file (``await FactDB.open(path)``)."""

    def __init__(self, conn: Any, path: Path) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    async def open(cls, path: Path) -> FactDB:
        import aiosqlite  # lazy: plugin import stays cheap

        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, timeout=30)
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("PRAGMA busy_timeout=30000")
            await conn.executescript(_SCHEMA)
            await conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            await conn.commit()
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path)

    async def close(self) -> None:
        await self._conn.close()

    async def save(self, content: str, session_id: str | None = None) -> tuple[int, bool]:
        """Store ``content``; returns ``(id, created)`` (False when it was already stored)."""
        cur = await self._conn.execute("SELECT id FROM facts WHERE content = ?", (content,))
        row = await cur.fetchone()
        if row:
            return int(row[0]), False
        cur = await self._conn.execute(
            "INSERT INTO facts(content, created_at, session_id) VALUES (?, ?, ?)",
            (content, time.time(), session_id),
        )
        await self._conn.commit()
        return int(cur.lastrowid), True

    async def forget(self, fact_id: int) -> Fact | None:
        """Delete fact ``fact_id``; returns it, or None when there was no such fact."""
        cur = await self._conn.execute("SELECT id, content FROM facts WHERE id = ?", (fact_id,))
        row = await cur.fetchone()
        if row is None:
            return None
        await self._conn.execute("DELETE FROM facts WHERE id = ?", (fact_id,))
        await self._conn.commit()
        return Fact(int(row[0]), row[1])

    async def search(self, text: str, limit: int) -> list[Fact]:
        """Facts matching any meaningful word of ``text``, most relevant (bm25) first."""
        query = fts_query(text)
        if query is None:
            return []
        cur = await self._conn.execute(
            "SELECT f.id, f.content FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
            "WHERE facts_fts MATCH ? ORDER BY bm25(facts_fts), f.id DESC LIMIT ?",
            (query, limit),
        )
        return [Fact(int(r[0]), r[1]) for r in await cur.fetchall()]

    async def recent(self, limit: int) -> list[Fact]:
        cur = await self._conn.execute(
            "SELECT id, content FROM facts ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [Fact(int(r[0]), r[1]) for r in await cur.fetchall()]

    async def count(self) -> int:
        cur = await self._conn.execute("SELECT count(*) FROM facts")
        row = await cur.fetchone()
        return int(row[0]) if row else 0
