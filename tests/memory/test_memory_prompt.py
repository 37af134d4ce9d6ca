"""The memory snapshot is frozen at session start: writes show from the next session."""

from __future__ import annotations

from pathlib import Path

import talaria
from talaria.testing import ScriptedModel, make_kernel, reply, run_turn, tool_call


def _session(home: Path, sid: str, config=None) -> talaria.SessionInfo:
    return talaria.SessionInfo(id=sid, session_key="k", home=home, workspace=home, config=config or {})


def test_no_section_when_memory_is_empty(memory_mod, home):
    assert memory_mod.prompt_sections(_session(home, "empty")) is None


def test_snapshot_shows_both_files_with_usage(memory_mod, home):
    store = memory_mod.MemoryStore(home)
    store.add("memory", "Repo uses uv.")
    store.add("memory", "CI takes 12 minutes.")
    store.add("user", "Name: Ada")
    section = memory_mod.prompt_sections(_session(home, "both"))
    assert section.tier == "volatile" and section.source == "memory"
    assert "## Memory" in section.text and "Repo uses uv.\n§\nCI takes 12 minutes." in section.text
    assert "(MEMORY.md, 36/2,200 chars" in section.text
    assert "## User profile" in section.text and "Name: Ada" in section.text


def test_rebuild_for_the_same_session_is_byte_identical(memory_mod, home):
    store = memory_mod.MemoryStore(home)
    store.add("memory", "before")
    first = memory_mod.prompt_sections(_session(home, "s1"))
    store.add("memory", "written during s1")
    store.remove("memory", "before")
    again = memory_mod.prompt_sections(_session(home, "s1"))  # e.g. rebuilt after compression
    assert again == first
    nxt = memory_mod.prompt_sections(_session(home, "s2"))
    assert "written during s1" in nxt.text and "before" not in nxt.text


def test_snapshot_cache_is_bounded(memory_mod, home):
    for i in range(memory_mod._SNAPSHOTS_MAX + 50):
        memory_mod.prompt_sections(_session(home, f"bounded-{i}"))
    assert len(memory_mod._SNAPSHOTS) <= memory_mod._SNAPSHOTS_MAX


async def test_scripted_session_writes_memory_and_the_next_session_sees_it(home):
    model = ScriptedModel(
        reply("", tool_call("memory", {"action": "add", "target": "user", "content": "Name: Ada Lovelace"})),
        "Noted.",
        "Still here.",
        "Hello Ada.",
    )
    kernel = make_kernel(home, model.plugin(), bundled=("memory",))
    first, _ = await run_turn(kernel, "Remember: my name is Ada Lovelace.", session_key="cli:a")
    assert first.end_reason == "completed"
    assert "Name: Ada Lovelace" in (home / "memories" / "USER.md").read_text()
    second, _ = await run_turn(kernel, "What now?", session_key="cli:a")
    third, _ = await run_turn(kernel, "Who am I?", session_key="cli:b")
    assert second.session_id == first.session_id and third.session_id != first.session_id

    same_session = [r.system_text for r in model.requests if r.session_id == first.session_id]
    assert len(same_session) == 3 and len(set(same_session)) == 1  # byte-stable
    assert "Ada Lovelace" not in same_session[0]
    assert "Name: Ada Lovelace" in model.requests[-1].system_text
