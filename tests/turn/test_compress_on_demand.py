"""``Runtime.compress_session``: what ``/compress`` and ``talaria sessions compress`` do."""

from __future__ import annotations

from pathlib import Path

from talaria.testing import ScriptedModel, make_kernel
from talaria.turn.runtime import Runtime, TurnOptions
from talaria.turn.transcript import unpaired_calls


def _model(*, fail_summary: bool = False) -> ScriptedModel:
    from talaria import ErrorKind, ProviderError

    seen: list[str] = []

    def script(request):
        if request.purpose == "summary":
            seen.append(request.messages[-1].content)
            if fail_summary:
                raise ProviderError(ErrorKind.SERVER, "summary backend down")
            return "SUMMARY: goal, state, next step."
        return f"answer to {request.messages[-1].content[:12]} " + "detail " * 60

    model = ScriptedModel(default=None, context_window=200_000)
    model.default = script  # type: ignore[assignment]
    model.summary_prompts = seen  # type: ignore[attr-defined]
    return model


async def _chat(rt: Runtime, turns: int) -> None:
    for i in range(turns):
        record = await rt.run_turn(f"question {i} " + "words " * 40, session_key="k")
        assert record.end_reason == "completed", record


async def test_forced_compression_rotates_below_the_threshold_and_keeps_the_parent(home: Path) -> None:
    model = _model()
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",), config={"model": "scripted/test"})
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        await _chat(rt, 30)
        parent = await rt.store.current_session("k")
        before = await rt.store.get_messages(parent.id)

        report = await rt.compress_session("k", focus="the parser bug")

        assert report.compressed, report
        assert report.parent_id == parent.id and report.session_id != parent.id
        assert report.messages_after < report.messages_before == len(before)
        assert report.tokens_after < report.tokens_before
        child = await rt.store.current_session("k")
        assert child.id == report.session_id and child.parent_session_id == parent.id
        assert [m.uid for m in await rt.store.get_messages(parent.id)] == [m.uid for m in before]
        assert (await rt.store.get_session(parent.id)).end_reason == "compressed"
        assert any("the parser bug" in prompt for prompt in model.summary_prompts)  # focus reached the summarizer
        # the conversation goes on in the child with a valid transcript
        record = await rt.run_turn("and now?", session_key="k")
        assert record.end_reason == "completed" and record.session_id == child.id
        assert not unpaired_calls(await rt.store.get_messages(child.id))


async def test_failed_summary_changes_nothing_and_says_why(home: Path) -> None:
    model = _model(fail_summary=True)
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",), config={"model": "scripted/test"})
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        await _chat(rt, 30)
        session = await rt.store.current_session("k")
        before = [m.uid for m in await rt.store.get_messages(session.id)]

        report = await rt.compress_session("k")

        assert not report.compressed and "summary backend down" in report.reason
        assert (await rt.store.current_session("k")).id == session.id
        assert [m.uid for m in await rt.store.get_messages(session.id)] == before
        # the failure cool-down now answers a second attempt without calling the model again
        calls = len(model.summary_prompts)
        again = await rt.compress_session("k")
        assert not again.compressed and "cool-down" in again.reason and len(model.summary_prompts) == calls


async def test_nothing_to_compress_on_an_unknown_or_tiny_session(home: Path) -> None:
    model = _model()
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",), config={"model": "scripted/test"})
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        report = await rt.compress_session("never-used")
        assert not report.compressed and "no history" in report.reason
        await _chat(rt, 1)
        small = await rt.compress_session("k")
        assert not small.compressed and small.reason
        assert (await rt.store.current_session("k")).id == small.session_id
