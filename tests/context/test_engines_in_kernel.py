"""The bundled engines driven by the real kernel: the ``[context] engine`` slot is real.

A scripted model with a small window answers long replies until the session crosses the
threshold; the kernel compresses with the engine named in config. With ``compressor`` the
continuation holds one model-written summary; with ``sliding-window`` a drop note and no
summary call — same code, only the config differs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ctx_transcripts import assert_pairs_intact

from talaria import ModelRequest
from talaria.testing import ScriptedModel, make_kernel, reply, run_turn

WINDOW = 12_000


def scripted() -> ScriptedModel:
    def answer(request: ModelRequest):
        if request.purpose == "summary":
            return reply("## Goal\nkeep chatting\n## Done\n- many turns")
        return reply("r" * 4_000)

    return ScriptedModel(*[answer] * 200, context_window=WINDOW)


@pytest.mark.parametrize("engine", ["compressor", "sliding-window"])
async def test_engine_selected_by_config_compresses_a_long_session(tmp_path: Path, engine: str) -> None:
    model = scripted()
    kernel = make_kernel(tmp_path, model.plugin(), bundled=("compressor", "sliding_window"),
                         config={"model": "scripted/test", "context": {"engine": engine}})
    sessions = set()
    for i in range(12):
        record, messages = await run_turn(kernel, f"turn {i}: " + "q" * 1_000, session_key="long")
        assert record.end_reason == "completed", record
        sessions.add(record.session_id)

    assert len(sessions) > 1, "the session should have rotated to a compacted child"
    assert_pairs_intact(messages)
    assert messages[-1].role == "assistant" and messages[-2].content.startswith("turn 11:")
    summary_calls = [r for r in model.requests if r.purpose == "summary"]
    marked = [m for m in messages if m.meta.get("summary")]
    assert len(marked) == 1, "exactly one summary/note, never stacked"
    if engine == "compressor":
        assert summary_calls and "keep chatting" in marked[0].content
    else:
        assert not summary_calls and "earlier messages were dropped" in marked[0].content
