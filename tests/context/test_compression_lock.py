"""Two compressors, one session: exactly one rotation, nothing lost (issue 5, the lock).

Two real processes share ``TALARIA_HOME/state.db`` and run a turn on the same long session:
one compresses, the other waits (the turn lease, then finds the compacted child and has
nothing left to compress). Inside one process, a second store connection shows the
compression lock itself: held by the kernel's compactor for the whole summary call, and a
turn that meets someone else's lock skips compression — it continues uncompressed when the
history fits, ends ``compression_failed`` with its transcript intact when it does not, and
compresses once the lock is free again.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from talaria import ModelRequest
from talaria.testing import ScriptedModel, make_kernel, run_turn
from talaria.turn.runtime import Runtime, TurnOptions
from talaria.turn.transcript import unpaired_calls

CHILD = Path(__file__).with_name("ctx_compress_child.py")
KEY = "shared"
WINDOW = 8_000  # compressor threshold on this window: 0.75 × 8000 = 6000 tokens


@pytest.fixture
def home() -> Path:
    return Path(os.environ["TALARIA_HOME"])


async def seed(home: Path, turns: int = 16) -> list:
    """A long session on ``KEY`` (about 7,000 tokens), written with compression disabled."""
    model = ScriptedModel(default="detail " * 200)
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",),
                         config={"model": "scripted/test", "context": {"enabled": False}})
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        for i in range(turns):
            record = await rt.run_turn(f"seed {i} " + "words " * 60, session_key=KEY)
            assert record.end_reason == "completed", record
        return list(await rt.store.get_messages(record.session_id))


async def chain(home: Path) -> tuple[list, dict[str, list]]:
    """The sessions of ``KEY`` (oldest first) and each one's stored messages."""
    kernel = make_kernel(home, ScriptedModel().plugin())
    async with Runtime(kernel) as rt:
        sessions = sorted((s for s in await rt.store.list_sessions(limit=100) if s.session_key == KEY),
                          key=lambda s: s.created_at)
        return sessions, {s.id: list(await rt.store.get_messages(s.id)) for s in sessions}


def same(a: list, b: list) -> bool:
    return [(m.uid, m.role, m.content) for m in a] == [(m.uid, m.role, m.content) for m in b]


@pytest.mark.slow
def test_two_processes_compressing_one_session_rotate_it_once(home: Path, tmp_path: Path) -> None:
    seeded = asyncio.run(seed(home))
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    (barrier / "expected").write_text("A B")
    procs = [subprocess.Popen([sys.executable, str(CHILD), tag, str(barrier)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=os.environ.copy()) for tag in "AB"]
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outs.append(json.loads(out.strip().splitlines()[-1]))

    assert [o["end_reason"] for o in outs] == ["completed", "completed"], outs
    winners = [o for o in outs if o["compressions"]]
    assert len(winners) == 1, f"exactly one process compresses: {outs}"
    [winner] = winners
    [loser] = [o for o in outs if o is not winner]
    [event] = winner["compressions"]
    assert event["ok"] is True and winner["summary_calls"] == 1 and loser["summary_calls"] == 0
    # the loser was submitted before the winner compressed, and its turn started only after
    assert loser["times"]["submitted"] < event["at"] < loser["times"]["started"]

    sessions, messages = asyncio.run(chain(home))
    assert len(sessions) == 2, "one rotation: the parent and one compacted child"
    parent, child = sessions
    assert parent.end_reason == "compressed" and child.parent_session_id == parent.id
    assert event["parent"] == parent.id and winner["session"] == loser["session"] == child.id
    # the parent's transcript is untouched: every seeded message, then the winner's question
    stored = messages[parent.id]
    assert same(stored[: len(seeded)], seeded)
    assert [m.content for m in stored[len(seeded):]] == [f"question {winner['tag']}"]
    # the child: head verbatim, one summary, both questions and answers in turn order
    kept = messages[child.id]
    assert kept[0].content == seeded[0].content and kept[0].meta.get("origin_uid") == seeded[0].uid
    assert len([m for m in kept if m.meta.get("summary")]) == 1
    assert [m.content for m in kept[-3:]] == [f"answer {winner['tag']}", f"question {loser['tag']}",
                                               f"answer {loser['tag']}"]
    assert kept[-4].content == f"question {winner['tag']}"
    assert not unpaired_calls(kept)


async def test_the_compactor_holds_the_lock_for_the_whole_summary_call(home: Path) -> None:
    await seed(home)
    summarizing, release = asyncio.Event(), asyncio.Event()

    async def slow_summary() -> str:
        summarizing.set()
        await release.wait()
        return "## Goal\nkeep going"

    def answer(request: ModelRequest):
        return slow_summary() if request.purpose == "summary" else "answer"

    model = ScriptedModel(default=None, context_window=WINDOW)
    model.default = answer  # type: ignore[assignment]
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",),
                         config={"model": "scripted/test", "context": {"engine": "compressor"}})
    sessions, _ = await chain(home)
    parent = sessions[0].id
    async with Runtime(kernel, options=TurnOptions(channel="test")) as other:  # its own store connection
        turn = asyncio.create_task(run_turn(kernel, "question", session_key=KEY))
        await asyncio.wait_for(summarizing.wait(), 30)
        assert not await other.store.try_lock_compression(parent, f"{other.owner}:rival", 600), \
            "a second compressor must not get the lock while the first is summarizing"
        release.set()
        record, kept = await asyncio.wait_for(turn, 30)
        assert record.end_reason == "completed"
        assert await other.store.try_lock_compression(parent, f"{other.owner}:rival", 600), \
            "the lock is released after the rotation"
        await other.store.unlock_compression(parent, f"{other.owner}:rival")
    sessions, _ = await chain(home)
    assert [s.end_reason for s in sessions] == ["compressed", None] and sessions[1].parent_session_id == parent
    assert kept[-1].content == "answer" and not unpaired_calls(kept)


async def test_a_turn_skips_compression_while_another_holder_has_the_lock(home: Path) -> None:
    seeded = await seed(home)
    model = ScriptedModel(default=None, context_window=WINDOW)
    model.default = lambda r: "## Goal\nkeep going" if r.purpose == "summary" else "short answer"  # type: ignore[assignment]
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",),
                         config={"model": "scripted/test", "context": {"engine": "compressor"}})
    sessions, _ = await chain(home)
    parent = sessions[0].id
    async with Runtime(kernel, options=TurnOptions(channel="test")) as other:
        rival = f"{other.owner}:rival-turn"  # a live holder: this very process
        assert await other.store.try_lock_compression(parent, rival, 600)

        # over the threshold but within the window: the turn skips compression and completes
        record, stored = await run_turn(kernel, "small question", session_key=KEY)
        assert record.end_reason == "completed" and record.session_id == parent
        assert not [r for r in model.requests if r.purpose == "summary"]
        assert same(stored[: len(seeded)], seeded) and stored[-1].content == "short answer"

        # beyond the window: no compression is possible, the turn fails closed, nothing lost
        record, stored = await run_turn(kernel, "big question " + "x" * 8_000, session_key=KEY)
        assert record.end_reason == "compression_failed", record
        assert "another process holds the lock" in (record.error or "")
        assert record.session_id == parent and stored[-1].content.startswith("big question")
        assert same(stored[: len(seeded)], seeded)

        # the lock is free again: the next turn compresses, once
        await other.store.unlock_compression(parent, rival)
        record, kept = await run_turn(kernel, "after the release", session_key=KEY)
        assert record.end_reason == "completed" and record.session_id != parent
    sessions, messages = await chain(home)
    assert len(sessions) == 2 and sessions[0].end_reason == "compressed"
    assert len(messages[parent]) == len(stored) + 1  # plus the last question, stored before compressing
    assert kept[-2].content == "after the release" and not unpaired_calls(kept)
