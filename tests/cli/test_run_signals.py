"""SIGTERM / SIGHUP to ``talaria run`` end the turn like Ctrl-C: ``interrupted``, a valid
transcript, no orphaned tool process, the store closed, exit code 5."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from talaria.store import SqliteStore
from talaria.testing.fakes import FakeLLMServer, FakeToolCall, Reply
from talaria.turn.transcript import unpaired_calls

pytestmark = pytest.mark.slow

EXIT_INTERRUPTED = 5


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _wait_for_file(path: Path, proc: subprocess.Popen[str], timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        if proc.poll() is not None:
            raise AssertionError(f"talaria exited early ({proc.returncode}): {proc.communicate()}")
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def _start(home: Path, workspace: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(TALARIA_HOME=str(home), NO_COLOR="1")
    return subprocess.Popen([sys.executable, "-m", "talaria", "run", *args], cwd=workspace, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def _stored(home: Path, turn_id: str, session_id: str, session_key: str):  # type: ignore[no-untyped-def]
    async with SqliteStore(home / "state.db") as store:
        return (await store.get_admission(turn_id), await store.get_messages(session_id),
                await store.get_lease(session_key))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signal_interrupts_a_long_tool_and_exits_5(sig: signal.Signals, fake: FakeLLMServer, home: Path,
                                                    workspace: Path) -> None:
    pidfile = workspace / "tool.pid"
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal",
                                              arguments={"command": f"echo $$ > {pidfile}; exec sleep 45"})]),
               Reply(text="never asked"))
    proc = _start(home, workspace, "--yolo", "--json", "run a long command")
    try:
        tool_pid = int(_wait_for_file(pidfile, proc))
        assert _alive(tool_pid)
        started = time.monotonic()
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.monotonic() - started < 20  # the sleep was not waited out
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    assert "Traceback" not in stderr and f"stopped by {sig.name}" in stderr

    lines = [json.loads(line) for line in stdout.splitlines()]
    result = lines[-1]
    assert result["type"] == "result" and result["end_reason"] == "interrupted"
    assert result["exit_code"] == EXIT_INTERRUPTED
    turn_id = next(line["turn_id"] for line in lines if line.get("kind") == "turn_started")

    deadline = time.monotonic() + 5
    while _alive(tool_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(tool_pid), "the tool's child process outlived talaria"

    admission, messages, lease = asyncio.run(_stored(home, turn_id, result["session_id"], result["session_key"]))
    assert admission.status == "terminal" and admission.end_reason == "interrupted"
    assert lease is None  # released
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert not unpaired_calls(messages)  # every call has its result
    assert len(fake.requests) == 1  # the interrupted turn did not go back to the model
