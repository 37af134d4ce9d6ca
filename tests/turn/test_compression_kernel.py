"""Compression seen from the kernel: rotation, lineage, nothing lost, prompt rebuilt once."""

from __future__ import annotations

from pathlib import Path

from talaria import PromptSection, hookimpl
from talaria.testing import ScriptedModel, make_kernel, reply, tool_call
from talaria.turn.runtime import Runtime, TurnOptions
from talaria.turn.transcript import unpaired_calls

from turn_helpers import make_tool, tools_plugin


async def test_sixty_turn_session_compresses_without_losing_anything(home: Path) -> None:
    built: list[str] = []

    class Prompt:
        @hookimpl
        def prompt_sections(self, session):
            built.append(session.id)
            return PromptSection(tier="stable", text="probe section", source="probe")

    counter = {"n": 0}

    def script(request):
        if request.purpose == "summary":
            return "SUMMARY: goal, constraints, done, state, open questions, files, next step."
        last = request.messages[-1]
        if last.role == "user":
            counter["n"] += 1
            return reply("", tool_call("lookup", {"q": f"item {counter['n']}"}, id=f"c{counter['n']}"))
        return f"answer {counter['n']} " + "detail " * 40

    model = ScriptedModel(default=None, context_window=6000)
    model.default = script  # type: ignore[assignment]
    lookup = make_tool("lookup", lambda a, c: f"result for {a['q']}: " + "data " * 120, props={"q": {"type": "string"}})
    kernel = make_kernel(home, model.plugin(), ("probe", Prompt()), tools_plugin(lookup), bundled=("compressor",),
                         config={"model": "scripted/test", "context": {"engine": "compressor"}})
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        for i in range(60):
            record = await rt.run_turn(f"question {i} " + "words " * 30, session_key="long")
            assert record.end_reason == "completed", record
        store = rt.store
        sessions = await store.list_sessions(limit=100)
        chain = [s for s in sessions if s.session_key == "long"]
        compressed = [s for s in chain if s.end_reason == "compressed"]
        current = await store.current_session("long")
        assert compressed, "the session never compressed"
        assert current.parent_session_id in {s.id for s in compressed}
        total = 0
        for parent in compressed:
            messages = await store.get_messages(parent.id)
            assert messages and not unpaired_calls(messages)
            total += len(messages)
        child = await store.get_messages(current.id)
        assert not unpaired_calls(child)
        # head verbatim: the child's first message is the original first user question
        assert child[0].content.startswith("question 0 ")
        assert child[-1].content.startswith("answer 60")  # the 60th turn's answer
    # the prompt was built once per session: the first and one per compression
    assert len(built) == 1 + len(compressed)
    # after the last compression, requests are byte-stable extensions again
    turn_requests = [r for r in model.requests if r.purpose == "turn"]
    a, b = turn_requests[-2], turn_requests[-1]
    assert a.system == b.system
    assert [(m.role, m.content) for m in b.messages[: len(a.messages)]] == [(m.role, m.content) for m in a.messages]


async def test_summarizer_failure_loses_nothing_and_records_a_cooldown(home: Path) -> None:
    from talaria import ErrorKind, ProviderError

    def script(request):
        if request.purpose == "summary":
            raise ProviderError(ErrorKind.SERVER, "summary backend down")
        return "answer " + "long text " * 200

    model = ScriptedModel(default=None, context_window=3000)
    model.default = script  # type: ignore[assignment]
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",),
                         config={"model": "scripted/test", "context": {"engine": "compressor", "compressor": {"protect_first": 1, "protect_last": 2}}})
    records = []
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        for i in range(8):
            records.append(await rt.run_turn(f"q{i} " + "words " * 100, session_key="fail"))
        sessions = [s for s in await rt.store.list_sessions(limit=50) if s.session_key == "fail"]
        messages = await rt.store.get_messages(sessions[0].id)
        locked = not await rt.store.try_lock_compression(sessions[0].id, "someone-else", 1)
    assert len(sessions) == 1  # never rotated
    assert len([m for m in messages if m.role == "user"]) == 8  # zero messages lost
    assert locked  # the failure cool-down holds the compression lock
    assert {r.end_reason for r in records} <= {"completed", "compression_failed"}
    assert records[-1].end_reason == "compression_failed"
