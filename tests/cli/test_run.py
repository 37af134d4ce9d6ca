"""``talaria run``: one turn from a fresh process against a local fake OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from talaria.testing.fakes import FakeLLMServer, FakeToolCall, Reply

from cli_helpers import talaria

pytestmark = pytest.mark.slow


def _user_texts(request_json: dict) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for m in request_json["messages"] if m["role"] == "user"]


def test_prints_only_the_answer_and_exits_0(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    fake.queue(Reply(text="The answer is 42."))
    proc = talaria(["run", "what is the answer?"], home=home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The answer is 42.\n"
    assert "what is the answer?" in _user_texts(fake.last_request.json)[-1]


def test_tool_activity_never_reaches_stdout(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("alpha beta\n", encoding="utf-8")
    fake.queue(Reply(tool_calls=[FakeToolCall(name="read_file", arguments={"path": "notes.txt"})]),
               Reply(text="The file says alpha beta."))
    proc = talaria(["run", "read notes.txt"], home=home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The file says alpha beta.\n"
    assert "⚙" not in proc.stderr  # stderr is not a terminal: no progress lines
    tool_messages = [m for m in fake.last_request.json["messages"] if m["role"] == "tool"]
    assert tool_messages and "alpha beta" in tool_messages[0]["content"]


def test_prompt_from_stdin(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    fake.queue(Reply(text="from stdin ok"))
    proc = talaria(["run"], home=home, cwd=workspace, stdin="summarise this piped text\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "from stdin ok\n"
    assert "summarise this piped text" in _user_texts(fake.last_request.json)[-1]
    fake.queue(Reply(text="dash ok"))
    proc = talaria(["run", "-"], home=home, cwd=workspace, stdin="dash prompt")
    assert proc.stdout == "dash ok\n"
    assert "dash prompt" in _user_texts(fake.last_request.json)[-1]


def test_empty_prompt_is_a_usage_error(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    proc = talaria(["run"], home=home, cwd=workspace, stdin="   \n")
    assert proc.returncode == 2
    assert "empty" in proc.stderr
    assert fake.requests == []


def test_provider_error_exit_code(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    fake.queue(*[Reply.error(500, "boom") for _ in range(10)])
    proc = talaria(["run", "hi"], home=home, cwd=workspace)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "provider_error" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_no_provider_configured_exits_2_with_the_first_run_message(tmp_path: Path, workspace: Path) -> None:
    empty_home = tmp_path / "fresh-home"
    proc = talaria(["run", "hi"], home=empty_home, cwd=workspace)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "No model is configured" in proc.stderr
    assert "OPENAI_API_KEY" in proc.stderr  # says exactly what to set
    assert "Traceback" not in proc.stderr


def test_json_lines_carry_events_and_result(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    fake.queue(Reply(text="streamed words here"))
    proc = talaria(["run", "--json", "hi"], home=home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    kinds = [line.get("kind") for line in lines if line["type"] == "event"]
    assert "turn_started" in kinds and "turn_ended" in kinds
    deltas = "".join(line["data"]["text"] for line in lines if line.get("kind") == "text_delta")
    assert deltas == "streamed words here"
    result = lines[-1]
    assert result["type"] == "result"
    assert result["end_reason"] == "completed" and result["exit_code"] == 0
    assert result["text"] == "streamed words here"
    assert result["session_key"].startswith("cli:")


def test_continue_and_session_resume_the_conversation(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    fake.queue(Reply(text="Noted: your name is Ada."))
    first = talaria(["run", "--json", "my name is Ada"], home=home, cwd=workspace)
    assert first.returncode == 0, first.stderr
    first_result = json.loads(first.stdout.splitlines()[-1])

    fake.queue(Reply(text="You are Ada."))
    second = talaria(["run", "--continue", "who am I?"], home=home, cwd=workspace)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "You are Ada.\n"
    messages = fake.last_request.json["messages"]
    texts = [json.dumps(m.get("content")) for m in messages]
    assert any("my name is Ada" in t for t in texts)
    assert any("Noted: your name is Ada." in t for t in texts)

    fake.queue(Reply(text="still Ada"))
    third = talaria(["run", "--session", first_result["session_id"][:12], "and now?"], home=home, cwd=workspace)
    assert third.returncode == 0, third.stderr
    assert any("who am I?" in json.dumps(m.get("content")) for m in fake.last_request.json["messages"])

    fake.queue(Reply(text="fresh"))
    fourth = talaria(["run", "new topic"], home=home, cwd=workspace)
    assert fourth.returncode == 0
    assert not any("Ada" in json.dumps(m.get("content")) for m in fake.last_request.json["messages"])


def test_continue_without_history_is_a_usage_error(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    proc = talaria(["run", "--continue", "hi"], home=home, cwd=workspace)
    assert proc.returncode == 2
    assert "no earlier session" in proc.stderr


_APPROVAL_PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "approval" / "__init__.py"


@pytest.mark.skipif(not _APPROVAL_PLUGIN.exists(), reason="the approval plugin (which flags dangerous commands) is not installed")
def test_dangerous_call_is_denied_without_an_approver(fake: FakeLLMServer, home: Path, workspace: Path) -> None:
    victim = workspace.parent / "outside-victim"  # outside the workspace: needs approval
    victim.mkdir()
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal", arguments={"command": f"rm -rf {victim}"})]),
               Reply(text="I could not delete it."))
    proc = talaria(["run", "delete victim"], home=home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert victim.exists()
    tool_messages = [m for m in fake.last_request.json["messages"] if m["role"] == "tool"]
    assert tool_messages and "Denied" in tool_messages[0]["content"]
