"""``talaria chat`` driven in tmux (send-keys / capture-pane) against the fake server."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
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


@pytest.fixture()
def pane(home: Path, workspace: Path) -> Iterator[Pane]:
    name = f"talaria-test-{uuid.uuid4().hex[:8]}"
    command = f"env TALARIA_HOME={shlex.quote(str(home))} NO_COLOR=1 {shlex.quote(sys.executable)} -m talaria chat"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", str(workspace), command],
                   check=True)
    try:
        yield Pane(name)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def test_chat_session_in_tmux(fake: FakeLLMServer, home: Path, workspace: Path, pane: Pane) -> None:
    pane.wait_prompt(1, timeout=90)

    # a streamed answer renders
    fake.queue(Reply(text="Streaming works fine."))
    pane.type("first question")
    pane.wait_text("Streaming works fine.")
    pane.wait_prompt(2)

    # a tool call shows its activity line, then the answer
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal", arguments={"command": "echo hi"})]),
               Reply(text="Echo done."))
    pane.type("run echo")
    screen = pane.wait_text("Echo done.")
    assert "⚙ terminal echo hi" in screen
    pane.wait_for(lambda s: any(line.startswith("⚙ terminal echo hi") and line.rstrip().endswith(" ok")
                                for line in s.splitlines()), "finished tool line")
    pane.wait_prompt(3)

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
    pane.wait_prompt(4)

    # Ctrl-C interrupts a long tool; the next prompt works
    fake.queue(Reply(tool_calls=[FakeToolCall(name="terminal", arguments={"command": "sleep 30"})]))
    pane.type("sleep a while")
    pane.wait_text("⚙ terminal sleep 30 …")
    started = time.monotonic()
    pane.send("C-c")
    pane.wait_text("[interrupted]", timeout=25)
    assert time.monotonic() - started < 25  # did not wait the sleep out
    pane.wait_prompt(5)
    fake.queue(Reply(text="Back after the interrupt."))
    pane.type("are you there?")
    pane.wait_text("Back after the interrupt.")
    pane.wait_prompt(6)

    # /new starts an empty conversation; /resume brings the first one back
    pane.type("/new")
    pane.wait_text("New session started.")
    fake.queue(Reply(text="Fresh start."))
    pane.type("in the new session")
    pane.wait_text("Fresh start.")
    sent = [str(m.get("content")) for m in fake.last_request.json["messages"]]
    assert not any("first question" in text for text in sent)
    pane.wait_prompt(8)
    pane.type("/resume first question")
    pane.wait_text("Resumed ")
    fake.queue(Reply(text="Resumed reply."))
    pane.type("continue the old one")
    pane.wait_text("Resumed reply.")
    sent = [str(m.get("content")) for m in fake.last_request.json["messages"]]
    assert any("first question" in text for text in sent)
    assert any("are you there?" in text for text in sent)

    # Ctrl-D exits
    pane.wait_prompt(10)
    pane.send("C-d")
    pane.wait_for(lambda s: subprocess.run(["tmux", "has-session", "-t", pane.name],
                                           capture_output=True).returncode != 0, "the REPL to exit", timeout=30)
