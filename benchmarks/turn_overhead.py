"""Kernel time per turn with the scripted model (no network, no SDK).

Runs 200 turns each of: no tools; one tool call; five parallel tool calls — and prints
the median kernel time per turn and per extra tool call. The scripted model answers
instantly, so the time is the kernel's: admission, lease, store writes, prompt, tool round.

    python benchmarks/turn_overhead.py [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from talaria import Tool, hookimpl
from talaria.testing import ScriptedModel, make_kernel, reply, tool_call
from talaria.turn.runtime import Runtime, TurnOptions


def _tools_plugin():
    tool = Tool(name="noop", description="No-op.", parameters={"type": "object", "properties": {}}, handler=lambda a, c: "ok")

    class P:
        @hookimpl
        def register_tools(self, register):
            register(tool)

    return "bench_tools", P()


async def scenario(calls: int, turns: int) -> tuple[list[float], list[float]]:
    home = Path(tempfile.mkdtemp(prefix="talaria-bench-"))
    os.environ["TALARIA_HOME"] = str(home)

    def script(request):
        if request.messages[-1].role == "user" and calls:
            return reply("", *[tool_call("noop", {}) for _ in range(calls)])
        return "done"

    model = ScriptedModel(default=None)
    model.default = script  # type: ignore[assignment]
    kernel = make_kernel(home, model.plugin(), _tools_plugin())
    times, cpu = [], []
    async with Runtime(kernel, options=TurnOptions(channel="bench", max_api_calls=10_000, max_iterations=10_000)) as rt:
        for i in range(turns):
            started, started_cpu = time.perf_counter(), time.process_time()
            record = await rt.run_turn(f"turn {i}", session_key=f"bench-{calls}")
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
            assert record.end_reason == "completed", record
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    results, cpus = {}, {}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall time suffers on a busy machine; "
          "CPU time of the process, all threads, much less)")
    for calls in (0, 1, 5):
        times, cpu = asyncio.run(scenario(calls, args.turns))
        results[calls] = statistics.median(times[10:] or times) * 1000
        cpus[calls] = statistics.median(cpu[10:] or cpu) * 1000
        print(f"{calls} tool call(s): median {results[calls]:.2f} ms wall, {cpus[calls]:.2f} ms CPU per turn "
              f"over {args.turns} turns")
    print(f"extra cost per tool call: {(results[5] - results[0]) / 5:.2f} ms wall, "
          f"{(cpus[5] - cpus[0]) / 5:.2f} ms CPU (from the 5-call scenario)")
    print("targets: <= 3 ms per turn, <= 1 ms per extra tool call")


if __name__ == "__main__":
    main()
