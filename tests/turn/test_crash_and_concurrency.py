"""Crashes (SIGKILL) and two processes on one session key, with real OS processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from talaria.testing import ScriptedModel, make_kernel, reply
from talaria.turn.runtime import Runtime, TurnOptions

CHILD = Path(__file__).with_name("crash_child.py")
pytestmark = pytest.mark.slow


def spawn(mode: str, key: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(CHILD), mode, key], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())


@pytest.mark.parametrize("mode", ["after_ledger", "during_tool", "after_results"])
async def test_sigkill_leaves_no_fabricated_result_and_the_session_recovers(home: Path, mode: str) -> None:
    child = spawn(mode, "crash")
    if mode == "during_tool":
        deadline = time.time() + 60
        while not (home / "ready").exists():
            assert time.time() < deadline and child.poll() is None, child.stderr.read() if child.poll() is not None else "timeout"
            time.sleep(0.05)
        child.kill()
    child.wait(timeout=60)
    assert child.returncode == -9, child.stderr.read()

    model = ScriptedModel("recovered answer")
    kernel = make_kernel(home, model.plugin())
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        session = await rt.store.current_session("crash")
        before = await rt.store.get_messages(session.id)
        # the ledger was written before the tool ran, and no result was invented
        assistant = [m for m in before if m.role == "assistant" and m.tool_calls]
        assert len(assistant) == 1 and assistant[0].tool_calls[0].id == "call-1"
        results = [m for m in before if m.role == "tool"]
        if mode == "after_results":
            assert [r.content for r in results] == ["work result"]
        else:
            assert results == []
        record = await rt.run_turn("continue", session_key="crash")
        after = await rt.store.get_messages(session.id)
        stale = await rt.store.stale_admissions(lambda owner: True)
    assert record.end_reason == "completed"
    assert stale == []  # the crashed admission was reconciled
    calls = {c.id for m in after for c in m.tool_calls}
    answered = [m.tool_call_id for m in after if m.role == "tool"]
    assert sorted(answered) == sorted(calls)  # every call paired exactly once
    if mode != "after_results":
        (unknown,) = [m for m in after if m.role == "tool"]
        assert unknown.status == "unknown" and "may or may not have run" in unknown.content
    # what reached the model is a valid transcript: each call's result follows it
    wire = model.requests[-1].messages
    for i, message in enumerate(wire):
        for call in message.tool_calls:
            assert any(m.tool_call_id == call.id for m in wire[i + 1:])


def test_two_processes_on_one_key_never_overlap_and_keep_admission_order(home: Path) -> None:
    first = spawn("slow:1.0:A", "shared")
    time.sleep(0.4)  # A is admitted first
    second = spawn("slow:0.1:B", "shared")
    out_a, err_a = first.communicate(timeout=90)
    out_b, err_b = second.communicate(timeout=90)
    assert first.returncode == 0 and second.returncode == 0, err_a + err_b
    reason_a, start_a, end_a, session = out_a.split()
    reason_b, start_b, end_b, session_b = out_b.split()
    assert reason_a == reason_b == "completed" and session == session_b

    import asyncio

    async def read() -> list:
        kernel = make_kernel(home, ScriptedModel().plugin())
        async with Runtime(kernel) as rt:
            return await rt.store.get_messages(session)

    messages = asyncio.run(read())
    assert [(m.role, m.content) for m in messages] == [
        ("user", "question A"), ("assistant", "answer A"), ("user", "question B"), ("assistant", "answer B")]
