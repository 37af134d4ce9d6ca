"""Child process for the two-process compression test: one turn on a long shared session.

usage: python ctx_compress_child.py TAG BARRIER_DIR   (TALARIA_HOME from the environment)

Waits until every process named in ``BARRIER_DIR/expected`` has written its ready file, then
runs one turn on the session key ``shared`` with a small context window, so the preflight
gate wants to compress the long history seeded by the test. Prints one JSON line: the turn's
end reason and session, the compression events it saw, and when it submitted / started /
finished (wall clock).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

from talaria import Event, ModelRequest
from talaria.testing import ScriptedModel, make_kernel
from talaria.turn.runtime import Runtime, TurnOptions

WINDOW = 8_000
DELAY = 0.4  # each model call holds the turn (and its lease) this long

tag, barrier = sys.argv[1], Path(sys.argv[2])
home = Path(os.environ["TALARIA_HOME"])


def answer(request: ModelRequest) -> str:
    if request.purpose == "summary":
        return f"## Goal\nkeep the shared session going\n## Done\n- summarized by {tag}"
    return f"answer {tag}"


async def main() -> None:
    model = ScriptedModel(default=None, context_window=WINDOW, delay=DELAY)
    model.default = answer  # type: ignore[assignment]
    kernel = make_kernel(home, model.plugin(), bundled=("compressor",),
                         config={"model": "scripted/test", "context": {"engine": "compressor"}})
    events: list[dict] = []
    times: dict[str, float] = {}

    def emit(event: Event) -> None:
        if event.kind == "compression":
            events.append({**dict(event.data), "at": time.time()})
        elif event.kind == "turn_started":
            times.setdefault("started", time.time())

    async with Runtime(kernel, options=TurnOptions(channel="test"), emit=emit) as runtime:
        (barrier / f"ready-{tag}").write_text("x")
        expected = (barrier / "expected").read_text().split()
        while not all((barrier / f"ready-{name}").exists() for name in expected):
            await asyncio.sleep(0.005)
        times["submitted"] = time.time()
        record = await runtime.run_turn(f"question {tag}", session_key="shared")
        times["ended"] = time.time()
    print(json.dumps({"tag": tag, "end_reason": record.end_reason, "error": record.error,
                      "session": record.session_id, "compressions": events, "times": times,
                      "summary_calls": sum(1 for r in model.requests if r.purpose == "summary")}))


asyncio.run(main())
