"""Two processes adding memory entries at the same time lose none."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import talaria
    from talaria.testing import load_plugin_module

    plugin, home, tag, go = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
    mod = load_plugin_module(plugin)
    tools = []
    mod.register_tools(tools.append)
    (tool,) = tools
    ctx = talaria.ToolContext(session_id=tag, session_key=tag, workspace=home, home=home,
                              config={"memory": {"memory_char_limit": 100_000}})
    while not go.exists():  # start both writers at the same moment
        time.sleep(0.001)
    for i in range(50):
        tool.handler({"action": "add", "target": "memory", "content": f"{tag} entry {i}"}, ctx)
    """
)


@pytest.mark.slow
def test_two_processes_adding_concurrently_lose_no_entry(memory_mod, home, tmp_path):
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(REPO / "plugins" / "memory"), str(home), tag, str(go)],
            stderr=subprocess.PIPE, text=True,
        )
        for tag in ("alpha", "beta")
    ]
    go.touch()
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err

    entries = memory_mod.MemoryStore(home).read("memory")
    expected = {f"{tag} entry {i}" for tag in ("alpha", "beta") for i in range(50)}
    assert len(entries) == 100 and set(entries) == expected
    # Each writer's own entries stay in the order it wrote them.
    for tag in ("alpha", "beta"):
        mine = [e for e in entries if e.startswith(tag)]
        assert mine == [f"{tag} entry {i}" for i in range(50)]
