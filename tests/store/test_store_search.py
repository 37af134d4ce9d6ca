"""Full-text search: matches content and tool names; hostile query strings never break it."""

from __future__ import annotations

import pytest

from talaria import Message, ToolCall
from talaria.store import SessionRow, SqliteStore


@pytest.fixture
async def corpus(store: SqliteStore) -> SqliteStore:
    await store.create_session(SessionRow(id="s1", session_key="k1", title="Deploy day"))
    await store.create_session(SessionRow(id="s2", session_key="k2"))
    await store.append_messages("s1", [
        Message(role="user", content="How do I deploy the kubernetes cluster?"),
        Message(role="assistant", tool_calls=(ToolCall(id="c1", name="web_search", arguments={"q": "k8s"}),)),
        Message(role="tool", content="results: helm charts", tool_call_id="c1", name="web_search", status="ok"),
        Message(role="assistant", content='Use "helm" (v3) -- and AND/OR operators * are fine'),
    ], fence=None)
    await store.append_messages("s2", [Message(role="user", content="kubernetes networking question")], fence=None)
    return store


async def test_finds_words_with_snippet_and_session_title(corpus: SqliteStore) -> None:
    hits = await corpus.search_messages("deploy kubernetes")
    assert [(h.session_id, h.role) for h in hits] == [("s1", "user")]
    hit = hits[0]
    assert hit.title == "Deploy day" and hit.session_key == "k1" and hit.seq == 1
    assert "[deploy]" in hit.snippet and "[kubernetes]" in hit.snippet
    assert hit.created_at > 0


async def test_every_word_must_match_and_prefixes_work(corpus: SqliteStore) -> None:
    assert {h.session_id for h in await corpus.search_messages("kubernetes")} == {"s1", "s2"}
    assert [h.session_id for h in await corpus.search_messages("kubernetes networking")] == ["s2"]
    assert {h.session_id for h in await corpus.search_messages("kube*")} == {"s1", "s2"}
    assert await corpus.search_messages("kube") == []


async def test_tool_names_are_searchable(corpus: SqliteStore) -> None:
    hits = await corpus.search_messages("web_search")
    assert {h.role for h in hits} == {"assistant", "tool"}


async def test_exclude_session_and_limit(corpus: SqliteStore) -> None:
    assert [h.session_id for h in await corpus.search_messages("kubernetes", exclude_session="s1")] == ["s2"]
    assert len(await corpus.search_messages("kubernetes", limit=1)) == 1
    assert await corpus.search_messages("kubernetes", limit=0) == []


async def test_inactive_messages_are_not_found(corpus: SqliteStore) -> None:
    (s2_msg,) = await corpus.get_messages("s2")
    await corpus.deactivate_messages("s2", [s2_msg.uid])
    assert {h.session_id for h in await corpus.search_messages("kubernetes")} == {"s1"}


@pytest.mark.parametrize("query", [
    '"', '""', '"helm', "*", "**", "AND", "OR", "NOT", "NEAR", "-", "--", "(", ")", "((helm", "helm)",
    "AND OR NOT", "content:helm", "^helm", "helm AND", "-helm", "NEAR(helm, 2)", "{helm}", "'", "",
    "   ", "\x00", "helm\"*\"", "a" * 2000, "ü*", "💥",
])
async def test_hostile_queries_never_raise(corpus: SqliteStore, query: str) -> None:
    hits = await corpus.search_messages(query)
    assert isinstance(hits, list)
    assert all(h.session_id in {"s1", "s2"} for h in hits)


async def test_operators_are_taken_literally(corpus: SqliteStore) -> None:
    # 'AND' and 'OR' are ordinary words here (the assistant wrote them), not operators.
    hits = await corpus.search_messages("helm AND OR")
    assert [(h.session_id, h.seq) for h in hits] == [("s1", 4)]
    # a quoted or parenthesised word still finds the word
    assert [h.seq for h in await corpus.search_messages('"(v3)"')] == [4]
    # a lone NOT does not turn the query into a negation
    assert await corpus.search_messages("NOT kubernetes") == []
