"""The SQLite schema: one table per kind of fact, a version, ordered forward migrations.

``MIGRATIONS[n]`` takes a database at version ``n`` to ``n + 1``. A migration is a list of
SQL statements run inside the caller's write transaction. Migrations are never edited once
released: a change is a new migration appended at the end.

Version history:

1. the tables of DESIGN §5 except the full-text index;
2. ``messages_fts`` (FTS5 over message content and tool names), its sync triggers, and a
   backfill of existing messages.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1 = [
    """CREATE TABLE IF NOT EXISTS schema_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL)""",
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        parent_session_id TEXT,
        source TEXT NOT NULL DEFAULT '',
        provider TEXT NOT NULL DEFAULT '',
        model TEXT NOT NULL DEFAULT '',
        system_prompt_hash TEXT,
        cwd TEXT NOT NULL DEFAULT '',
        title TEXT,
        created_at REAL NOT NULL,
        ended_at REAL,
        end_reason TEXT)""",
    "CREATE INDEX idx_sessions_key ON sessions(session_key, created_at)",
    "CREATE INDEX idx_sessions_created ON sessions(created_at)",
    "CREATE INDEX idx_sessions_parent ON sessions(parent_session_id)",
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        api_content TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        name TEXT,
        status TEXT,
        uid TEXT NOT NULL UNIQUE,
        active INTEGER NOT NULL DEFAULT 1,
        compacted INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        meta TEXT,
        UNIQUE (session_id, seq))""",
    """CREATE TABLE system_prompts (
        hash TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        created_at REAL NOT NULL)""",
    """CREATE TABLE admissions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        principal TEXT NOT NULL,
        session_key TEXT NOT NULL,
        request_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('queued', 'started', 'unknown', 'terminal')),
        end_reason TEXT,
        owner TEXT,
        created_at REAL NOT NULL,
        started_at REAL,
        finished_at REAL,
        UNIQUE (principal, session_key, request_id))""",
    "CREATE INDEX idx_admissions_queue ON admissions(session_key, status, seq)",
    "CREATE INDEX idx_admissions_status ON admissions(status)",
    """CREATE TABLE turn_leases (
        session_key TEXT PRIMARY KEY,
        owner TEXT,
        generation INTEGER NOT NULL DEFAULT 0,
        expires_at REAL NOT NULL DEFAULT 0,
        host TEXT NOT NULL DEFAULT '',
        pid INTEGER NOT NULL DEFAULT 0,
        acquired_at REAL)""",
    """CREATE TABLE compression_locks (
        session_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        acquired_at REAL NOT NULL,
        expires_at REAL NOT NULL)""",
    """CREATE TABLE model_usage (
        session_id TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        calls INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost REAL,
        first_at REAL NOT NULL,
        last_at REAL NOT NULL,
        PRIMARY KEY (session_id, provider, model))""",
    """CREATE TABLE deliveries (
        id TEXT PRIMARY KEY,
        session_key TEXT NOT NULL,
        admission_id TEXT,
        channel TEXT NOT NULL DEFAULT '',
        target TEXT,
        text TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('pending', 'attempting', 'delivered', 'failed', 'abandoned')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL)""",
    "CREATE INDEX idx_deliveries_status ON deliveries(status, created_at)",
]

# Tool names searched: a tool message's ``name`` plus the names of an assistant's tool calls.
_TOOL_NAMES = (
    "trim(coalesce({row}.name, '') || ' ' || coalesce((SELECT group_concat("
    "json_extract(value, '$.name'), ' ') FROM json_each({row}.tool_calls)), ''))"
)

_V2 = [
    """CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, tool_names, tokenize = 'unicode61 remove_diacritics 2')""",
    f"""CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content, tool_names)
        VALUES (new.id, new.content, {_TOOL_NAMES.format(row="new")});
    END""",
    """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        DELETE FROM messages_fts WHERE rowid = old.id;
    END""",
    f"""CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, name, tool_calls
        ON messages BEGIN
        DELETE FROM messages_fts WHERE rowid = old.id;
        INSERT INTO messages_fts(rowid, content, tool_names)
        VALUES (new.id, new.content, {_TOOL_NAMES.format(row="new")});
    END""",
    f"""INSERT INTO messages_fts(rowid, content, tool_names)
        SELECT m.id, m.content, {_TOOL_NAMES.format(row="m")} FROM messages AS m""",
]

#: Ordered forward migrations; ``MIGRATIONS[n]`` upgrades version ``n`` to ``n + 1``.
MIGRATIONS: tuple[list[str], ...] = (_V1, _V2)

#: The version a database has after every migration ran.
SCHEMA_VERSION = len(MIGRATIONS)
