"""End to end through the kernel: the approval and redaction plugins in a real turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from talaria.testing import ScriptedModel, make_kernel, reply, run_turn, tool_call

pytestmark = pytest.mark.slow


async def test_rm_rf_home_without_an_approver_is_denied_and_the_turn_continues(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_home = tmp_path / "fake-home"
    fake_home.mkdir()
    (fake_home / "canary").write_text("still here")
    monkeypatch.setenv("HOME", str(fake_home))  # if the policy failed, only this would go
    workspace = tmp_path / "ws"
    workspace.mkdir()
    model = ScriptedModel(
        reply("", tool_call("terminal", {"command": "rm -rf ~"}), tool_call("terminal", {"command": "echo still-running"})),
        reply("done"),
    )
    kernel = make_kernel(home, model.plugin(), bundled=("terminal", "approval"), workspace=workspace)
    record, messages = await run_turn(kernel, "clean up")
    assert record.end_reason == "completed" and record.final_text == "done"
    results = [m for m in messages if m.role == "tool"]
    assert results[0].status == "denied" and "approv" in results[0].content
    assert results[1].status == "ok" and "still-running" in results[1].content
    assert (fake_home / "canary").read_text() == "still here"


async def test_env_secret_printed_by_a_tool_never_reaches_the_store(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "acme-live-9f8e7d6c5b4a3210"
    monkeypatch.setenv("ACME_API_KEY", secret)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    model = ScriptedModel(reply("", tool_call("terminal", {"command": "echo key=$ACME_API_KEY"})), reply("done"))
    kernel = make_kernel(home, model.plugin(), bundled=("terminal", "redaction"), workspace=workspace)
    record, messages = await run_turn(kernel, "show the key")
    assert record.end_reason == "completed"
    tool_messages = [m for m in messages if m.role == "tool"]
    assert tool_messages and "key=[REDACTED:env:ACME_API_KEY]" in tool_messages[0].content
    assert all(secret not in (m.content or "") and secret not in str(m.api_content) for m in messages)
    assert secret not in model.wire()  # nor was it sent to the model
    stored = b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())
    assert stored and secret.encode() not in stored  # not in the database files either
