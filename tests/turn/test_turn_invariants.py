"""The turn transaction's invariants (DESIGN §4), observed through the store and the wire."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from talaria import PromptSection, Verdict, hookimpl
from talaria.testing import ScriptedModel, make_kernel, reply, run_turn, tool_call
from talaria.turn.runtime import Runtime, TurnOptions

from turn_helpers import make_tool, sleepy, tools_plugin


async def test_resubmitting_a_request_id_runs_one_turn(home: Path) -> None:
    model = ScriptedModel("first answer", "second answer")
    kernel = make_kernel(home, model.plugin())
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        first = await rt.run_turn("hi", session_key="k", request_id="req-1")
        second = await rt.run_turn("hi", session_key="k", request_id="req-1")
        messages = await rt.store.get_messages(first.session_id)
    assert first.end_reason == "completed" and first.final_text == "first answer"
    assert len(model.requests) == 1
    assert second.error and "duplicate" in second.error
    assert [m.role for m in messages] == ["user", "assistant"]


async def test_invalid_calls_get_one_result_each_and_are_not_dispatched(home: Path) -> None:
    ran: list[str] = []

    def echo(args: dict, ctx: Any) -> str:
        ran.append(args["text"])
        return "echo " + args["text"]

    model = ScriptedModel(
        reply("", tool_call("echo", {"text": "good"}, id="c1"), tool_call("no_such_tool", {}, id="c2"),
              tool_call("echo", {"text": 42}, id="c3"), tool_call("echo", {}, id="c4")),
        "done",
    )
    kernel = make_kernel(home, model.plugin(), tools_plugin(make_tool("echo", echo, props={"text": {"type": "string"}}, required=("text",))))
    record, messages = await run_turn(kernel, "go")
    assert record.end_reason == "completed"
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    assert set(results) == {"c1", "c2", "c3", "c4"}
    assert results["c1"].status == "ok" and results["c1"].content == "echo good"
    assert results["c2"].status == "invalid" and "Unknown tool 'no_such_tool'" in results["c2"].content
    assert results["c3"].status == "invalid" and "not of type 'string'" in results["c3"].content
    assert results["c4"].status == "invalid" and "'text' is a required property" in results["c4"].content
    assert ran == ["good"]
    # the model saw every result, paired with its call
    last = model.requests[-1].messages
    assert [m.tool_call_id for m in last if m.role == "tool"] == ["c1", "c2", "c3", "c4"]


async def test_concurrent_results_are_stored_in_call_order(home: Path) -> None:
    finished: list[str] = []

    async def timed(args: dict, ctx: Any) -> str:
        await asyncio.sleep(args["seconds"])
        finished.append(ctx.call.id)
        return f"done {ctx.call.id}"

    calls = [tool_call("timed", {"seconds": s}, id=f"c{i}") for i, s in enumerate((0.3, 0.1, 0.2, 0.0))]
    model = ScriptedModel(reply("", *calls), "ok")
    kernel = make_kernel(home, model.plugin(), tools_plugin(make_tool("timed", timed, props={"seconds": {"type": "number"}})))
    record, messages = await run_turn(kernel, "go")
    assert record.end_reason == "completed"
    assert finished != ["c0", "c1", "c2", "c3"]  # they really finished out of order
    assert [m.tool_call_id for m in messages if m.role == "tool"] == ["c0", "c1", "c2", "c3"]


async def test_prefix_stability_over_twenty_turns_and_prompt_built_once(home: Path) -> None:
    built: list[str] = []

    class Prompt:
        @hookimpl
        def prompt_sections(self, session):
            built.append(session.id)
            return PromptSection(tier="volatile", text="volatile note", source="probe")

    script = []
    for i in range(20):
        script += [reply("", tool_call("sleepy", {"seconds": 0}, id=f"t{i}")), f"answer {i}"]
    model = ScriptedModel(*script)
    kernel = make_kernel(home, model.plugin(), ("probe", Prompt()), tools_plugin(make_tool("sleepy", sleepy, props={"seconds": {"type": "number"}})))
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        for i in range(20):
            record = await rt.run_turn(f"question {i}", session_key="stable")
            assert record.end_reason == "completed", record
    assert len(built) == 1
    previous = None
    for request in model.requests:
        system = [[s.tier, s.text] for s in request.system]
        messages = [json.dumps([m.role, m.content, m.tool_call_id, [[c.id, c.name, dict(c.arguments)] for c in m.tool_calls]]) for m in request.messages]
        if previous is not None:
            assert system == previous[0]
            assert messages[: len(previous[1])] == previous[1], "request is not an extension of the previous one"
        previous = (system, messages)
    assert len(model.requests) == 40


async def test_store_failure_mid_round_ends_persistence_failed_and_sends_nothing(home: Path, monkeypatch) -> None:
    model = ScriptedModel(reply("", tool_call("sleepy", {"seconds": 0}, id="c1")), "never sent")
    kernel = make_kernel(home, model.plugin(), tools_plugin(make_tool("sleepy", sleepy, props={"seconds": {"type": "number"}})))
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        original = rt.store.append_messages

        async def failing(session_id, messages, **kw):
            if any(m.role == "tool" for m in messages):
                raise OSError("disk full")
            return await original(session_id, messages, **kw)

        monkeypatch.setattr(rt.store, "append_messages", failing)
        record = await rt.run_turn("go", session_key="k")
        stored = await rt.store.get_messages(record.session_id)
    assert record.end_reason == "persistence_failed" and "disk full" in record.error
    assert len(model.requests) == 1  # the unstored result was never sent to the model
    assert [m.role for m in stored] == ["user", "assistant"]


async def test_no_approver_means_deny_at_once_and_the_turn_continues(home: Path) -> None:
    ran: list[str] = []

    class AskPolicy:
        @hookimpl
        def pre_tool_call(self, call, ctx):
            return Verdict.ask("deletes files", rule="rm") if call.name == "shell" else None

    model = ScriptedModel(reply("", tool_call("shell", {"command": "rm -rf ~"}, id="c1")), "I could not run it.")
    kernel = make_kernel(home, model.plugin(), ("policy", AskPolicy()),
                         tools_plugin(make_tool("shell", lambda a, c: ran.append(a["command"]) or "ran", props={"command": {"type": "string"}})))
    record, messages = await run_turn(kernel, "clean up")
    assert record.end_reason == "completed"
    assert ran == []
    (result,) = [m for m in messages if m.role == "tool"]
    assert result.status == "denied" and "no one is available to approve" in result.content


async def test_interrupt_during_a_tool_pairs_every_call(home: Path) -> None:
    started = asyncio.Event()

    async def long(args: dict, ctx: Any) -> str:
        started.set()
        await asyncio.sleep(30)
        return "finished"

    model = ScriptedModel(reply("", tool_call("long", {}, id="c1"), tool_call("long", {}, id="c2")), "after")
    kernel = make_kernel(home, model.plugin(), tools_plugin(make_tool("long", long)))
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        task = asyncio.create_task(rt.run_turn("go", session_key="k"))
        await asyncio.wait_for(started.wait(), 10)
        rt.interrupt()
        record = await asyncio.wait_for(task, 10)
        messages = await rt.store.get_messages(record.session_id)
        follow = await rt.run_turn("again", session_key="k")
    assert record.end_reason == "interrupted"
    results = [m for m in messages if m.role == "tool"]
    assert [m.tool_call_id for m in results] == ["c1", "c2"] and {m.status for m in results} == {"skipped"}
    assert follow.end_reason == "completed"


async def test_guardrail_halt_ends_the_turn_named(home: Path) -> None:
    class Halt:
        @hookimpl
        def pre_tool_call(self, call, ctx):
            return Verdict.deny("exfiltration attempt", halt=True)

    model = ScriptedModel(reply("", tool_call("sleepy", {}, id="c1")), "never")
    kernel = make_kernel(home, model.plugin(), ("halt", Halt()), tools_plugin(make_tool("sleepy", sleepy)))
    record, messages = await run_turn(kernel, "go")
    assert record.end_reason == "guardrail_halt" and "exfiltration" in record.error
    assert [m.status for m in messages if m.role == "tool"] == ["denied"]
    assert len(model.requests) == 1


async def test_budget_exhausted(home: Path) -> None:
    model = ScriptedModel(*[reply("", tool_call("sleepy", {}, id=f"c{i}")) for i in range(5)])
    kernel = make_kernel(home, model.plugin(), tools_plugin(make_tool("sleepy", sleepy)))
    record, _ = await run_turn(kernel, "loop", options=TurnOptions(channel="test", max_iterations=3))
    assert record.end_reason == "budget_exhausted" and record.iterations == 3


async def test_empty_response(home: Path) -> None:
    model = ScriptedModel(reply(""))
    kernel = make_kernel(home, model.plugin())
    record, messages = await run_turn(kernel, "say nothing")
    assert record.end_reason == "empty_response"
    assert [m.role for m in messages] == ["user"]
