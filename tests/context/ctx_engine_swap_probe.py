"""Probe run by the venv's python: one scripted long session per TALARIA_HOME given.

usage: python ctx_engine_swap_probe.py HOME [HOME ...]

The same code for every home — only each home's ``config.toml`` differs (its ``[context]
engine``). The kernel is loaded by the real loader (config read from the home, plugins from
every tier including pip-installed entry points); the only explicit plugin is the scripted
model. Prints one JSON object per home: how the plugin that provided the engine was found,
the compression events, how many summary calls the model got, and the final session's
messages.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from talaria import Event, ModelRequest
from talaria.kernel import load_kernel
from talaria.testing import ScriptedModel
from talaria.turn.runtime import Runtime, TurnOptions

WINDOW = 12_000
TURNS = 12


def answer(request: ModelRequest) -> str:
    if request.purpose == "summary":
        return "## Goal\nkeep chatting (summary by the model)\n## Done\n- many turns"
    return "r" * 4_000


async def session(home: Path) -> dict:
    model = ScriptedModel(default=None, context_window=WINDOW)
    model.default = answer  # type: ignore[assignment]
    workspace = home / "ws"
    workspace.mkdir(exist_ok=True)
    kernel = load_kernel(home=home, workspace=workspace, explicit=[model.plugin()])
    engine = kernel.config.get("context", {}).get("engine", "compressor")
    registration = kernel.registries.context_engines.registration(engine)
    plugin = registration.plugin if registration else ""
    record = kernel.plugins.records.get(plugin)
    events: list[dict] = []

    def emit(event: Event) -> None:
        if event.kind in ("compression", "warning"):
            events.append({"kind": event.kind, **dict(event.data)})

    async with Runtime(kernel, options=TurnOptions(channel="test"), emit=emit) as runtime:
        for i in range(TURNS):
            turn = await runtime.run_turn(f"turn {i}: " + "q" * 1_000, session_key="swap")
            assert turn.end_reason == "completed", turn
        messages = await runtime.store.get_messages(turn.session_id)
    return {
        "engine": engine, "plugin": plugin, "tier": record.tier if record else "", "origin": record.origin if record else "",
        "events": events, "summary_calls": sum(1 for r in model.requests if r.purpose == "summary"),
        "messages": [{"role": m.role, "content": m.content if m.meta.get("summary") else m.content[:120], "summary": bool(m.meta.get("summary")),
                      "tool_calls": [c.id for c in m.tool_calls], "tool_call_id": m.tool_call_id} for m in messages],
    }


async def main() -> None:
    for home in sys.argv[1:]:
        print(json.dumps(await session(Path(home))))


asyncio.run(main())
