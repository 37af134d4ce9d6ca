"""session_search over the real session store: past sessions found, the current one left out,
and queries full of FTS syntax (quotes, operators, brackets) answered — never an index error."""

from __future__ import annotations

from pathlib import Path

import pytest

from talaria.testing import ScriptedModel, load_plugin_module, make_kernel, run_turn
from talaria.turn.runtime import Runtime

SEARCH = load_plugin_module("session_search").TOOLS[0]


async def test_past_sessions_are_found_and_odd_queries_never_break_the_index(home: Path, make_ctx) -> None:
    kernel = make_kernel(home, ScriptedModel(default="use the blue-green rollout").plugin())
    past, _ = await run_turn(kernel, "how do I deploy the C++ service? see docs/deploy-guide.md", session_key="old")
    current, _ = await run_turn(kernel, "deploy question asked right now", session_key="new")
    async with Runtime(kernel) as rt:
        def ctx():
            return make_ctx(store=rt.store, session_id=current.session_id)

        found = await SEARCH.handler({"query": "deploy"}, ctx())
        assert past.session_id in found and current.session_id not in found
        assert "[deploy]" in found  # the excerpt marks the hit

        for query in ['"', 'a"', "C++", "docs/deploy-guide.md", "AND", "deploy OR", "*", "-x", "NEAR(", "(",
                      "'", "col:val", "^", "deploy*"]:
            out = await SEARCH.handler({"query": query}, ctx())
            assert isinstance(out, str) and out, query
            assert current.session_id not in out, query
        assert past.session_id in await SEARCH.handler({"query": "C++"}, ctx())


@pytest.mark.parametrize("query", ["", "   "])
async def test_an_empty_query_is_a_clear_error(query: str, home: Path, make_ctx) -> None:
    from talaria import ToolError

    kernel = make_kernel(home, ScriptedModel().plugin())
    async with Runtime(kernel) as rt:
        with pytest.raises(ToolError, match="query"):
            await SEARCH.handler({"query": query}, make_ctx(store=rt.store))
