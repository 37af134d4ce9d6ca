"""todo (per-session list in ctx.state) and session_search (through the store's FTS)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from talaria import ToolError
from talaria.testing import load_plugin_module

TODO = load_plugin_module("todo").TOOLS[0]
SEARCH = load_plugin_module("session_search").TOOLS[0]


async def test_todo_replaces_and_shows_the_list(ctx) -> None:
    assert await TODO.handler({}, ctx) == "The todo list is empty."
    out = await TODO.handler(
        {"items": [{"text": "read code", "status": "done"}, {"text": "fix bug", "status": "active"}, {"text": "test"}]},
        ctx,
    )
    assert out.splitlines() == ["[x] 1. read code", "[>] 2. fix bug", "[ ] 3. test", "(1/3 done)"]
    assert await TODO.handler({}, ctx) == out  # listing shows the stored list
    assert await TODO.handler({"items": []}, ctx) == "The todo list is empty."


async def test_todo_is_per_session(make_ctx) -> None:
    one, two = make_ctx(), make_ctx()
    await TODO.handler({"items": [{"text": "mine"}]}, one)
    assert "mine" in await TODO.handler({}, one)
    assert await TODO.handler({}, two) == "The todo list is empty."


async def test_todo_rejects_bad_items(ctx) -> None:
    with pytest.raises(ToolError, match="no text"):
        await TODO.handler({"items": [{"text": "  "}]}, ctx)
    with pytest.raises(ToolError, match="too many"):
        await TODO.handler({"items": [{"text": str(i)} for i in range(51)]}, ctx)


class FakeStore:
    def __init__(self, hits: list[Any], error: Exception | None = None) -> None:
        self.hits, self.error, self.calls = hits, error, []

    async def search_messages(self, query: str, *, limit: int = 10, exclude_session: str | None = None) -> list[Any]:
        self.calls.append((query, limit, exclude_session))
        if self.error:
            raise self.error
        return self.hits[:limit]


async def test_session_search_groups_excerpts_by_session(make_ctx) -> None:
    hits = [
        {"session_id": "s-old", "uid": "u1", "role": "user", "snippet": "how do I  [deploy] the app?",
         "created_at": 1_700_000_000, "title": "Deploying"},
        SimpleNamespace(session_id="s-old", uid="u2", role="assistant", snippet="run make " + "x" * 400,
                        created_at=1_700_000_100, title="Deploying"),
        {"session_id": "s-other", "uid": "u3", "role": "user", "snippet": "deploy failed", "created_at": "2024-05-01T10:00:00", "title": None},
    ]
    store = FakeStore(hits)
    ctx = make_ctx(store=store, session_id="current")
    out = await SEARCH.handler({"query": "deploy", "limit": 5}, ctx)
    assert store.calls == [("deploy", 5, "current")]
    lines = out.splitlines()
    assert lines[0] == "session s-old — Deploying (2023-11-14 22:13)"
    assert lines[1] == "  user: how do I [deploy] the app?"
    assert lines[2].startswith("  assistant: run make x") and lines[2].endswith("…") and len(lines[2]) < 320
    assert lines[3] == "session s-other — (untitled) (2024-05-01 10:00)"


async def test_session_search_no_hits_no_store_and_store_errors(make_ctx) -> None:
    assert "No past sessions" in await SEARCH.handler({"query": "zzz"}, make_ctx(store=FakeStore([])))
    with pytest.raises(ToolError, match="unavailable"):
        await SEARCH.handler({"query": "x"}, make_ctx())
    broken = FakeStore([], error=RuntimeError("fts5: syntax error near '\"'"))
    with pytest.raises(ToolError, match="plain words"):
        await SEARCH.handler({"query": 'a"'}, make_ctx(store=broken))
    store = FakeStore([])
    await SEARCH.handler({"query": "x", "limit": 500}, make_ctx(store=store))
    assert store.calls[0][1] == 50  # capped
