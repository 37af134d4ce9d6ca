"""``talaria sessions compress ID [--focus TEXT]``: compress a stored conversation from the shell."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from talaria import Runtime, TurnOptions
from talaria.store.cli import sessions_group
from talaria.testing import ScriptedModel, make_kernel


def _model() -> ScriptedModel:
    focus: list[str] = []

    def script(request: Any) -> str:
        if request.purpose == "summary":
            focus.append(request.messages[-1].content)
            return "SUMMARY: numbered questions were answered."
        return f"answer to {request.messages[-1].content[:12]} " + "detail " * 60

    model = ScriptedModel(default=None, context_window=200_000)
    model.default = script  # type: ignore[assignment]
    model.summary_prompts = focus  # type: ignore[attr-defined]
    return model


@pytest.fixture()
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    home = tmp_path / "home"
    monkeypatch.setenv("TALARIA_HOME", str(home))
    model = _model()
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",), workspace=tmp_path)

    async def chat(turns: int) -> str:
        async with Runtime(kernel, options=TurnOptions(channel="cli")) as rt:
            for i in range(turns):
                record = await rt.run_turn(f"question {i} " + "words " * 40, session_key="cli:abc")
                assert record.end_reason == "completed"
            return record.session_id

    obj = SimpleNamespace(home=home, workspace=tmp_path, config=kernel.config, load_kernel=lambda: kernel)
    runner = CliRunner()

    def invoke(*args: str) -> Any:
        return runner.invoke(sessions_group(), ["compress", *args], obj=obj)

    async def current() -> Any:
        async with Runtime(kernel) as rt:
            return await rt.store.current_session("cli:abc")

    return SimpleNamespace(chat=lambda n: asyncio.run(chat(n)), invoke=invoke, model=model,
                           current=lambda: asyncio.run(current()))


def test_compresses_the_current_session_into_a_child(setup: SimpleNamespace) -> None:
    session_id = setup.chat(30)

    result = setup.invoke(session_id[:12], "--focus", "question 7")

    assert result.exit_code == 0, result.output
    child = setup.current()
    assert child.id != session_id and child.parent_session_id == session_id
    assert f"Compressed {session_id}: 60 → " in result.output
    assert f"The conversation continues in {child.id}." in result.output
    assert any("question 7" in prompt for prompt in setup.model.summary_prompts)  # --focus reached the summary


def test_refuses_a_session_that_is_no_longer_current(setup: SimpleNamespace) -> None:
    session_id = setup.chat(30)
    assert setup.invoke(session_id).exit_code == 0
    child = setup.current()

    again = setup.invoke(session_id)

    assert again.exit_code != 0
    assert "is not the current session" in again.output and child.id in again.output
    assert setup.current().id == child.id  # nothing changed


def test_json_report_and_nothing_to_compress(setup: SimpleNamespace) -> None:
    session_id = setup.chat(1)

    result = setup.invoke(session_id, "--json")

    assert result.exit_code == 1
    report = json.loads(result.output[: result.output.rindex("}") + 1])
    assert report["compressed"] is False and report["session_id"] == session_id
    assert "nothing compressed" in result.output.lower()
    assert setup.current().id == session_id


def test_unknown_id_is_a_usage_error(setup: SimpleNamespace) -> None:
    setup.chat(1)
    result = setup.invoke("ses_doesnotexist")
    assert result.exit_code == 2 and "no session id starts with" in result.output
