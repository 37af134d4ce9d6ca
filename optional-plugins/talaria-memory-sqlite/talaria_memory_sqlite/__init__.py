"""talaria-memory-sqlite: a memory provider for Talaria's ``[memory] provider`` slot.

Facts live in SQLite with an FTS5 index. The model saves, searches and forgets them with
the ``fact_store`` tool; before each turn the facts most relevant to the user's words
(bm25) are recalled into the turn. See README.md.
"""

from __future__ import annotations

__version__ = "0.1.0"
