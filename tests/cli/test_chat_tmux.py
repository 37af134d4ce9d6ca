"""``talaria chat`` driven in tmux (send-keys / capture-pane) against the fake server."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from talaria.testing.fakes import FakeLLMServer, FakeToolCall, Reply

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

PROMPT = "› "


class Pane:
    def __init__(self, name: str) -> None:
        self.name = name

    def send(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)
        self.send("Enter")

    def screen(self) -> str:
        proc = subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t", self.name],
                              capture_output=True, text=True)
        return proc.stdout

    def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")

    def wait_text(self, text: str, timeout: float = 60.0) -> str:
        return self.wait_for(lambda s: text in s, repr(text), timeout)

    def prompts(self) -> int:
        return sum(1 for line in self.screen().splitlines() if line.startswith(PROMPT.strip()))

    def wait_prompt(self, count: int, timeout: float = 60.0) -> str:
        """Wait until at least ``count`` prompts were shown and the last line is an empty prompt."""
        def ready(screen: str) -> bool:
            lines = [line for line in screen.splitlines() if line.strip()]
            shown = sum(1 for line in lines if line.startswith(PROMPT.strip()))
            return shown >= count and bool(lines) and lines[-1].strip() == PROMPT.strip()
        return self.wait_for(ready, f"prompt #{count}", timeout)


def _chat_command(home: Path, exit_file: Path | None = None) -> str:
    command = f"env TALARIA_HOME={shlex.quote(str(home))} NO_COLOR=1 {shlex.quote(sys.executable)} -m talaria chat"
    if exit_file is None:
        return command
    return f"sh -c {shlex.quote(f'{command}; echo $? > {shlex.quote(str(exit_file))}')}"


@contextmanager
def _tmux(workspace: Path, command: str) -> Iterator[Pane]:
    name = f"talaria-test-{uuid.uuid4().hex[:8]}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", str(workspace), command],
                   check=True)
    try:
        yield Pane(name)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


@pytest.fixture()
def pane(home: Path, workspace: Path) -> Iterator[Pane]:
    with _tmux(workspace, _chat_command(home)) as pane:
        yield pane


def test_chat_session_in_tmux(fake: FakeLLMServer, home: Path, workspace: Path, pane: Pane) -> None:
    pane.wait_prompt(1, timeout=90)

    # a streamed answer renders
    fake.queue(Reply(text="Streaming works fine."))
    pane.type("first question")
    pane.wait_text("Streaming works fine.")
    pane.wait_prompt(2)

    # a markdown answer is rendered: the heading without its #, the code block once, no fences
    fake.queue(Reply(text="# Shopping list\n\nBuy **two** apples.\n\n```python\ndef total(items):\n"
                          "    return sum(items)\n```\n\nThat is all."))
    pane.type("markdown please")
    pane.wait_text("That is all.")
    screen = pane.wait_prompt(3)
    assert "Shopping list" in screen and "# Shopping list" not in screen
    assert "Buy two apples." in screen and "**" not in screen
    assert screen.count("def total(items):") == 1 and "return sum(items)" in screen and "```" not in screen

    # a tool call shows its activity line, then the answer
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal", arguments={"command": "echo hi"})]),
               Reply(text="Echo done."))
    pane.type("run echo")
    screen = pane.wait_text("Echo done.")
    assert "⚙ terminal echo hi" in screen
    pane.wait_for(lambda s: any(line.startswith("⚙ terminal echo hi") and line.rstrip().endswith(" ok")
                                for line in s.splitlines()), "finished tool line")
    pane.wait_prompt(4)

    # an approval prompt appears and deny works
    victim = home / "x-victim"
    victim.mkdir()
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal", arguments={"command": f"rm -rf {victim}"})]),
               Reply(text="Left it alone."))
    pane.type("delete it")
    pane.wait_text("[d]eny")
    pane.send("d")
    pane.wait_text("Left it alone.")
    assert victim.exists()
    tool_results = [m for m in fake.last_request.json["messages"] if m["role"] == "tool"]
    assert "Denied" in tool_results[-1]["content"]
    pane.wait_prompt(5)

    # Ctrl-C interrupts a long tool; the next prompt works
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal", arguments={"command": "sleep 30"})]))
    pane.type("sleep a while")
    pane.wait_text("⚙ terminal sleep 30 …")
    started = time.monotonic()
    pane.send("C-c")
    pane.wait_text("[interrupted]", timeout=25)
    assert time.monotonic() - started < 25  # did not wait the sleep out
    pane.wait_prompt(6)
    fake.queue(Reply(text="Back after the interrupt."))
    pane.type("are you there?")
    pane.wait_text("Back after the interrupt.")
    pane.wait_prompt(7)

    # /new starts an empty conversation; /resume brings the first one back
    pane.type("/new")
    pane.wait_text("New session started.")
    fake.queue(Reply(text="Fresh start."))
    pane.type("in the new session")
    pane.wait_text("Fresh start.")
    sent = [str(m.get("content")) for m in fake.last_request.json["messages"]]
    assert not any("first question" in text for text in sent)
    pane.wait_prompt(9)
    pane.type("/resume first question")
    pane.wait_text("Resumed ")
    fake.queue(Reply(text="Resumed reply."))
    pane.type("continue the old one")
    pane.wait_text("Resumed reply.")
    sent = [str(m.get("content")) for m in fake.last_request.json["messages"]]
    assert any("first question" in text for text in sent)
    assert any("are you there?" in text for text in sent)

    # a trailing backslash continues the message on a new line
    pane.wait_prompt(11)
    fake.queue(Reply(text="Two lines received."))
    pane.type("line one\\")
    pane.wait_for(lambda s: any(line.strip() == "…" for line in s.splitlines()), "the continuation prompt")
    pane.type("line two")
    pane.wait_text("Two lines received.")
    user = [m["content"] for m in fake.last_request.json["messages"] if m["role"] == "user"][-1]
    assert "line one\nline two" in str(user)

    # Ctrl-D exits; the input history was kept
    pane.wait_prompt(12)
    pane.send("C-d")
    pane.wait_for(lambda s: subprocess.run(["tmux", "has-session", "-t", pane.name],
                                           capture_output=True).returncode != 0, "the REPL to exit", timeout=30)
    history = (home / "history").read_text(encoding="utf-8")
    assert "first question" in history and "/resume first question" in history


def _wait_file(path: Path, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


def _proc_field(pid: int, index: int) -> str:
    """A field of /proc/PID/stat after the command name (0 = state, 1 = parent pid)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[index]
    except FileNotFoundError:
        return ""


def test_sigterm_during_a_tool_and_sighup_at_the_prompt_exit_5(fake: FakeLLMServer, home: Path,
                                                                workspace: Path) -> None:
    # SIGTERM while a long tool runs: the turn ends interrupted, the tool's process is gone
    exit_file, pid_file = workspace / "exit-code", workspace / "tool.pid"
    with _tmux(workspace, _chat_command(home, exit_file)) as pane:
        pane.wait_prompt(1, timeout=90)
        fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal",
                                                  arguments={"command": f"echo $$ > {pid_file}; exec sleep 45"})]))
        pane.type("run something long")
        tool_pid = int(_wait_file(pid_file))
        chat_pid = int(_proc_field(tool_pid, 1))
        assert "talaria" in Path(f"/proc/{chat_pid}/cmdline").read_text()
        os.kill(chat_pid, signal.SIGTERM)
        assert _wait_file(exit_file, timeout=25) == "5"
        assert _proc_field(tool_pid, 0) in ("", "Z") or not Path(f"/proc/{tool_pid}").exists()

    # the transcript stayed valid: the next chat resumes it and the model sees a paired result
    exit_file.unlink()
    with _tmux(workspace, _chat_command(home, exit_file)) as pane:
        pane.wait_prompt(1, timeout=90)
        pane.type("/resume run something long")
        pane.wait_text("Resumed ")
        fake.queue(Reply(text="Resumed after SIGTERM."))
        pane.type("still there?")
        pane.wait_text("Resumed after SIGTERM.")
        messages = fake.last_request.json["messages"]
        calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
        assert calls and calls == results
        # SIGHUP at the prompt (the terminal went away): the REPL leaves with exit 5
        pane.wait_prompt(3)
        shell_pid = subprocess.run(["tmux", "display-message", "-p", "-t", pane.name, "#{pane_pid}"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        chat_pid = int(subprocess.run(["pgrep", "-P", shell_pid], capture_output=True, text=True).stdout.split()[0])
        assert "talaria" in Path(f"/proc/{chat_pid}/cmdline").read_text()
        os.kill(chat_pid, signal.SIGHUP)
        assert _wait_file(exit_file, timeout=25) == "5"
