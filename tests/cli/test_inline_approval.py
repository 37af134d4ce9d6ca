"""The REPL's inline approval question: one key answers once / session / always / deny."""

from __future__ import annotations

import importlib
import io

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from talaria import ApprovalRequest, ToolCall
from talaria.testing import load_plugin_module

_PKG = load_plugin_module("cli_channel").__name__
approve = importlib.import_module(_PKG + ".approve")
render = importlib.import_module(_PKG + ".render")

_CALL = ToolCall(id="call_1", name="terminal", arguments={"command": "rm -rf /tmp/build"})


async def _ask(keys: str) -> tuple[str, str, list[str]]:
    out = io.StringIO()
    calls: list[str] = []
    approver = approve.Approver(render.TurnRenderer(out), on_interrupt=lambda: calls.append("interrupt"),
                                after_prompt=lambda: calls.append("after"))
    request = ApprovalRequest(call=_CALL, tool="terminal", summary="rm -rf /tmp/build",
                              reason="deletes files outside the workspace")
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        decision = await approver(request)
    return decision, out.getvalue(), calls


@pytest.mark.parametrize(("keys", "decision"), [
    ("o", "once"), ("s", "session"), ("a", "always"), ("d", "deny"),
    ("S", "session"), ("y", "once"), ("n", "deny"), ("\r", "deny"), ("\x04", "deny"),
    ("xzo", "once"),  # other keys are ignored until one that answers
], ids=["o", "s", "a", "d", "S", "y", "n", "enter", "ctrl-d", "ignored-keys"])
async def test_one_key_answers(keys: str, decision: str) -> None:
    answer, shown, calls = await _ask(keys)
    assert answer == decision
    assert "deletes files outside the workspace" in shown and f"→ {decision}" in shown
    assert calls == ["after"]


async def test_ctrl_c_denies_and_interrupts_the_turn() -> None:
    answer, shown, calls = await _ask("\x03")
    assert answer == "deny"
    assert "denied; interrupting the turn" in shown
    assert calls == ["after", "interrupt"]


def test_the_question_names_the_tool_and_the_choices() -> None:
    approver = approve.Approver(render.TurnRenderer(io.StringIO()), on_interrupt=lambda: None, after_prompt=lambda: None)
    question = approver.question(ApprovalRequest(call=_CALL, tool="terminal", reason="", summary="rm -rf build"))
    assert question == "Allow terminal: rm -rf build? [o]nce / [s]ession / [a]lways / [d]eny "
