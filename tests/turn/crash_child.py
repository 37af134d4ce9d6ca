"""Child process for crash tests: runs one turn and SIGKILLs itself at a chosen point.

usage: python crash_child.py MODE SESSION_KEY   (TALARIA_HOME from the environment)
MODE: after_ledger | during_tool | after_results | normal | slow:<seconds>:<tag>
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

from talaria import Tool, Verdict, hookimpl
from talaria.testing import ScriptedModel, make_kernel, reply, tool_call
from talaria.turn.runtime import Runtime, TurnOptions

mode, key = sys.argv[1], sys.argv[2]
home = Path(os.environ["TALARIA_HOME"])
marker = home / "tool-ran"


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


async def work(args, ctx):
    if mode == "during_tool":
        marker.write_text("started")
        (home / "ready").write_text("x")
        await asyncio.sleep(60)
    marker.write_text("done")
    return "work result"


class Killer:
    @hookimpl
    def pre_tool_call(self, call, ctx):
        if mode == "after_ledger":
            die()
        return Verdict.allow()


def final(request):
    if mode == "after_results":
        die()
    return "final answer"


async def main() -> None:
    if mode.startswith("slow:"):
        _, seconds, tag = mode.split(":")
        model = ScriptedModel(f"answer {tag}", delay=float(seconds))
        text = f"question {tag}"
        extra = ()
    else:
        model = ScriptedModel(reply("", tool_call("work", {}, id="call-1")), final, "recovered answer")
        text = "do the work"
        extra = (("killer", Killer()),)
    tool = Tool(name="work", description="Work.", parameters={"type": "object", "properties": {}}, handler=work)

    class Tools:
        @hookimpl
        def register_tools(self, register):
            register(tool)

    kernel = make_kernel(home, model.plugin(), ("tools", Tools()), *extra)
    async with Runtime(kernel, options=TurnOptions(channel="test")) as rt:
        started = time.time()
        record = await rt.run_turn(text, session_key=key)
        print(f"{record.end_reason} {started} {time.time()} {record.session_id}", flush=True)


asyncio.run(main())
