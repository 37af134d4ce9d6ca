"""terminal and process: exit codes, caps, timeouts that really kill, cancellation,
background processes. These start processes, hence ``slow``."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from talaria import ToolError
from talaria.testing import load_plugin_module

pytestmark = pytest.mark.slow

PLUGIN = load_plugin_module("terminal")
T = {tool.name: tool for tool in PLUGIN.TOOLS}


async def call(tool, arguments, ctx):  # type: ignore[no-untyped-def]
    return await tool.handler(arguments, ctx)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def wait_gone(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return not alive(pid)


def test_terminal_is_policy_inspected_not_dangerous_and_serial() -> None:
    assert T["terminal"].dangerous is False and T["terminal"].parallel_safe is False


async def test_runs_in_workspace_and_reports_exit_code(workspace: Path, ctx) -> None:
    (workspace / "marker").write_text("")
    out = await call(T["terminal"], {"command": "ls; echo err >&2; exit 3"}, ctx)
    assert "marker" in out and "err" in out
    assert out.rstrip().endswith("[exit code 3]")


async def test_stdin_is_closed(ctx) -> None:
    out = await call(T["terminal"], {"command": "cat; echo done"}, ctx)
    assert "done" in out and "[exit code 0]" in out


async def test_flooding_output_keeps_head_and_tail(make_ctx) -> None:
    ctx = make_ctx(config={"tools": {"terminal": {"max_output": 2000}}})
    out = await call(T["terminal"], {"command": "echo FIRST; seq 1 200000; echo LAST"}, ctx)
    assert out.startswith("FIRST") and "LAST\n[exit code 0]" in out
    assert "cut from the middle" in out
    assert len(out) < 2600


async def test_binary_output_is_described_not_dumped(ctx) -> None:
    out = await call(T["terminal"], {"command": "head -c 3000 /dev/urandom; printf '\\0'; exit 0"}, ctx)
    assert out.startswith("[binary output: ") and "bytes, not shown" in out
    assert "\x00" not in out and "\ufffd" not in out and "[exit code 0]" in out
    text = await call(T["terminal"], {"command": "printf 'tab\\there\\nnext line\\n'"}, ctx)
    assert "tab\there" in text and "binary" not in text


async def test_timeout_kills_the_whole_process_group(workspace: Path, ctx) -> None:
    started = time.monotonic()
    with pytest.raises(ToolError, match="timed out after 1s") as err:
        await call(T["terminal"], {"command": "sleep 60 & echo $! > child.pid; echo begun; wait", "timeout": 1}, ctx)
    assert time.monotonic() - started < 5
    assert "begun" in str(err.value)
    child = int((workspace / "child.pid").read_text())
    assert await wait_gone(child), "the background child of a timed-out command survived"


async def test_cancellation_kills_the_group_and_reraises(workspace: Path, ctx) -> None:
    task = asyncio.ensure_future(
        call(T["terminal"], {"command": "sleep 60 & echo $! > child.pid; wait"}, ctx)
    )
    for _ in range(100):
        if (workspace / "child.pid").exists() and (workspace / "child.pid").read_text().strip():
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(int((workspace / "child.pid").read_text()))


async def test_children_holding_output_are_killed_after_exit(workspace: Path, ctx) -> None:
    out = await call(T["terminal"], {"command": "sleep 60 & echo $! > child.pid; echo started"}, ctx)
    assert "started" in out and "background=true" in out
    assert await wait_gone(int((workspace / "child.pid").read_text()))


async def test_timeout_is_capped_by_config(make_ctx) -> None:
    ctx = make_ctx(config={"tools": {"terminal": {"max_timeout": 1}}})
    with pytest.raises(ToolError, match="timed out after 1s"):
        await call(T["terminal"], {"command": "sleep 30", "timeout": 999}, ctx)


async def test_background_poll_log_kill(ctx) -> None:
    out = await call(
        T["terminal"],
        {"command": "echo one; sleep 0.3; echo two; sleep 60", "background": True},
        ctx,
    )
    proc_id = out.split()[3]
    pid = int(out.split("pid ")[1].split(")")[0])
    await asyncio.sleep(0.6)
    polled = await call(T["process"], {"action": "poll", "id": proc_id}, ctx)
    assert "running" in polled and "one" in polled and "two" in polled
    again = await call(T["process"], {"action": "poll", "id": proc_id}, ctx)
    assert "no new output" in again
    log = await call(T["process"], {"action": "log", "id": proc_id}, ctx)
    assert log.splitlines() == ["one", "two"]
    listing = await call(T["process"], {"action": "list"}, ctx)
    assert proc_id in listing and "running" in listing
    killed = await call(T["process"], {"action": "kill", "id": proc_id}, ctx)
    assert "killed" in killed
    assert await wait_gone(pid)


async def test_background_processes_are_private_to_their_session(make_ctx) -> None:
    mine = make_ctx(session_id="a")
    other = make_ctx(session_id="b")
    out = await call(T["terminal"], {"command": "sleep 60", "background": True}, mine)
    proc_id = out.split()[3]
    with pytest.raises(ToolError, match="no background process"):
        await call(T["process"], {"action": "kill", "id": proc_id}, other)
    assert "No background processes" in await call(T["process"], {"action": "list"}, other)
    await call(T["process"], {"action": "kill", "id": proc_id}, mine)


async def test_session_end_kills_background_processes(make_ctx, workspace: Path, home: Path) -> None:
    from talaria import SessionInfo

    ctx = make_ctx(session_id="ending")
    out = await call(T["terminal"], {"command": "sleep 60", "background": True}, ctx)
    pid = int(out.split("pid ")[1].split(")")[0])
    await PLUGIN.on_session_end(SessionInfo(id="ending", session_key="k", workspace=workspace, home=home))
    assert await wait_gone(pid)


async def test_process_bad_inputs(ctx) -> None:
    with pytest.raises(ToolError, match="needs the process id"):
        await call(T["process"], {"action": "poll"}, ctx)
    with pytest.raises(ToolError, match="no background process"):
        await call(T["process"], {"action": "log", "id": "p999"}, ctx)
    with pytest.raises(ToolError, match="empty"):
        await call(T["terminal"], {"command": "   "}, ctx)


def test_children_die_with_the_python_process(tmp_path: Path) -> None:
    """A Python process that dies (even by SIGKILL) takes its running command with it."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        import asyncio, os, sys
        from pathlib import Path
        from talaria import ToolContext
        from talaria.testing import load_plugin_module
        T = {{t.name: t for t in load_plugin_module("terminal").TOOLS}}
        ctx = ToolContext(session_id="s", session_key="k", workspace=Path({str(tmp_path)!r}), home=Path({str(tmp_path)!r}))
        async def main():
            task = asyncio.ensure_future(T["terminal"].handler({{"command": "echo $$ > leader.pid; exec sleep 60"}}, ctx))
            while not Path({str(tmp_path)!r}, "leader.pid").exists():
                await asyncio.sleep(0.02)
            print("ready", flush=True)
            await asyncio.sleep(60)
        asyncio.run(main())
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    leader = int((tmp_path / "leader.pid").read_text())
    assert alive(leader)
    proc.kill()
    proc.wait(10)
    deadline = time.monotonic() + 5
    while alive(leader) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(leader), "the command outlived the Python process that started it"
