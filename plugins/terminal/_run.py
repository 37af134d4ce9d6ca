"""Run one foreground command: ``bash -c`` in its own process group, bounded in time and
output.

Contract of :func:`run_command`:

- stdout and stderr are merged; stdin is ``/dev/null`` (a command waiting for input fails
  instead of hanging);
- output beyond ``max_chars`` keeps its head and tail with a note of how much was cut;
  ANSI escapes are stripped and carriage-return progress lines collapsed;
- on timeout the whole group gets SIGTERM, then SIGKILL after a short grace, and a
  :class:`ToolError` carries the partial output;
- when the task is cancelled (the turn was interrupted) the group is SIGKILLed, the child
  reaped, and ``CancelledError`` re-raised;
- if the command exits while its own background children still hold the output pipe,
  they are killed after a short grace (use ``background=true`` for long-running work).
"""

from __future__ import annotations

import asyncio
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path

from talaria import ToolError

from . import _procs

__all__ = ["Capture", "clean_output", "looks_binary", "run_command"]

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
LINGER_GRACE = 0.5
TERM_GRACE = 0.5


@dataclass
class Capture:
    """Keeps the first and last bytes of a stream and counts the rest."""

    max_chars: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_size - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            excess = len(self.tail) - self.tail_size
            if excess > 0:
                del self.tail[:excess]

    @property
    def head_size(self) -> int:
        return self.max_chars * 2 // 5

    @property
    def tail_size(self) -> int:
        return self.max_chars - self.head_size

    def text(self) -> str:
        if looks_binary(bytes(self.head[:4096])):
            return (f"[binary output: {self.total} bytes, not shown; redirect it to a file and inspect "
                    "it with a tool made for it, e.g. `file out.bin` or `xxd out.bin | head`]")
        cut = self.total - len(self.head) - len(self.tail)
        head = clean_output(self.head.decode("utf-8", errors="replace"))
        if cut <= 0:
            return clean_output((self.head + self.tail).decode("utf-8", errors="replace"))
        tail = clean_output(self.tail.decode("utf-8", errors="replace"))
        return (
            f"{head}\n[… {cut} bytes of output cut from the middle ({self.total} total); "
            f"redirect to a file and read_file or grep it to see everything …]\n{tail}"
        )


_TEXT_CONTROLS = frozenset(b"\t\n\r\x08\x0c\x1b")


def looks_binary(sample: bytes) -> bool:
    """A NUL byte, or more than 10 % control bytes that text does not use."""
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = sum(1 for byte in sample if byte < 32 and byte not in _TEXT_CONTROLS)
    return controls * 10 > len(sample)


def clean_output(text: str) -> str:
    """Strip ANSI escapes and keep only the last state of ``\\r``-rewritten lines."""
    text = _ANSI.sub("", text).replace("\r\n", "\n")
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r")
                         for line in text.split("\n"))
    return text


async def _pump(stream: asyncio.StreamReader, capture: Capture) -> None:
    while chunk := await stream.read(65536):
        capture.feed(chunk)


async def _reap(proc: asyncio.subprocess.Process, seconds: float) -> None:
    try:
        await asyncio.wait_for(proc.wait(), seconds)
    except (TimeoutError, ProcessLookupError):
        pass


async def run_command(command: str, cwd: Path, *, timeout: float, max_chars: int) -> str:
    """Run ``command``; return its (capped) output followed by ``[exit code N]``."""
    _procs.before_spawn()
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            "bash", "-c", command,
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_procs.child_setup,
        )
    )
    try:
        # Shielded: a cancellation while the pipes connect must still kill the whole group
        # (asyncio alone would kill only the leader and orphan its children).
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        spawn.add_done_callback(_kill_spawned)
        raise
    pgid = proc.pid
    _procs.track(pgid)
    capture = Capture(max_chars)
    assert proc.stdout is not None
    reader = asyncio.ensure_future(_pump(proc.stdout, capture))
    notes: list[str] = []
    try:
        outcome = await _supervise(proc, reader, timeout)
        if outcome == "timeout":
            _procs.kill_group(pgid, signal.SIGTERM)
            await _reap(proc, TERM_GRACE)
            _procs.kill_group(pgid, signal.SIGKILL)
            await _reap(proc, 5)
            await _finish_reader(reader, 2)
            output = capture.text().rstrip("\n")
            raise ToolError(
                f"{output + chr(10) if output else ''}[timed out after {timeout:g}s; the command and its child processes "
                "were killed. Use a longer timeout or background=true for long-running commands.]"
            )
        if outcome == "lingering":
            _procs.kill_group(pgid, signal.SIGKILL)
            await _reap(proc, 5)
            await _finish_reader(reader, 2)
            notes.append(
                "[background processes started by the command still held its output and were "
                "killed; use background=true, or redirect their output to a file]"
            )
        await _finish_reader(reader, 2)
    except asyncio.CancelledError:
        _procs.kill_group(pgid, signal.SIGKILL)
        reader.cancel()
        await asyncio.shield(_reap(proc, 5))
        raise
    finally:
        if not _procs.group_alive(pgid):
            _procs.untrack(pgid)
    output = capture.text().rstrip("\n") or "(no output)"
    code = proc.returncode
    notes.append(f"[exit code {code}]" if code is None or code >= 0 else f"[killed by signal {-code}]")
    return output + "\n" + "\n".join(notes)


def _kill_spawned(spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
    if not spawn.cancelled() and spawn.exception() is None:
        _procs.kill_group(spawn.result().pid, signal.SIGKILL)


async def _supervise(proc: asyncio.subprocess.Process, reader: asyncio.Future[None], timeout: float) -> str | None:
    """Wait for the command: ``None`` when it exited and its output closed, ``"timeout"``,
    or ``"lingering"`` when it exited but its children still hold the output pipe.

    (Depending on the Python version ``Process.wait()`` returns at the leader's exit or
    only once the pipes close, so the exit is watched through ``returncode``.)
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    waiter = asyncio.ensure_future(proc.wait())
    try:
        while not waiter.done():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return "timeout"
            await asyncio.wait({waiter}, timeout=min(0.1, remaining))
            if proc.returncode is not None:
                break
        # the leader exited (on 3.11 ``wait()`` may return before the pipe closes): children
        # that still hold the output pipe past a short grace are lingering
        if not reader.done():
            await asyncio.wait({reader}, timeout=LINGER_GRACE)
            if not reader.done():
                return "lingering"
        return None
    finally:
        if not waiter.done():
            waiter.cancel()


async def _finish_reader(reader: asyncio.Future[None], seconds: float, *, cancel: bool = True) -> bool:
    """Wait for the output pipe to close; False when it is still open after ``seconds``
    (the reader is then cancelled unless ``cancel`` is False)."""
    done, _ = await asyncio.wait({reader}, timeout=seconds)
    if not done:
        if cancel:
            reader.cancel()
        return False
    return True
