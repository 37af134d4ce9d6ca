"""The optional talaria-memory-sqlite provider: facts persist across sessions and are recalled."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import talaria
from talaria.testing import ScriptedModel, make_kernel, reply, run_turn, tool_call

DIST = Path(__file__).resolve().parents[2] / "optional-plugins" / "talaria-memory-sqlite"


@pytest.fixture
def sqlite_pkg(monkeypatch):
    monkeypatch.syspath_prepend(str(DIST))
    import talaria_memory_sqlite.plugin as plugin
    import talaria_memory_sqlite.provider as provider

    return provider, plugin


def _session(home: Path, sid: str) -> talaria.SessionInfo:
    return talaria.SessionInfo(id=sid, session_key="k", home=home, workspace=home)


def _ctx(home: Path) -> talaria.ToolContext:
    return talaria.ToolContext(session_id="s", session_key="k", workspace=home, home=home)


async def _started(provider_mod, home: Path, sid: str, config=None):
    provider = provider_mod.SqliteMemoryProvider(config or {})
    await provider.start(_session(home, sid))
    return provider


def test_entry_point_module_registers_the_sqlite_provider(sqlite_pkg):
    provider_mod, plugin = sqlite_pkg
    registered = []
    plugin.register_memory_providers(registered.append)
    assert registered == [provider_mod.SqliteMemoryProvider]
    cls = registered[0]
    assert cls.name == "sqlite"
    assert isinstance(cls({}), talaria.MemoryProvider)  # satisfies the protocol


async def test_fact_saved_in_one_session_is_recalled_in_a_later_one(sqlite_pkg, home):
    provider_mod, _ = sqlite_pkg
    first = await _started(provider_mod, home, "s1")
    (tool,) = first.tools()
    assert tool.name == "fact_store"
    assert "Saved fact #1" in await tool.handler(
        {"action": "save", "text": "The staging database runs PostgreSQL 16 on port 5433."}, _ctx(home)
    )
    await tool.handler({"action": "save", "text": "The user prefers tabs over spaces."}, _ctx(home))
    await first.stop()

    later = await _started(provider_mod, home, "s2")  # a new instance on the same file
    try:
        recalled = await later.prefetch("Which port does the staging database use?")
        assert recalled is not None
        assert "PostgreSQL 16 on port 5433" in recalled
        assert "tabs" not in recalled  # only relevant facts
        assert await later.prefetch("What is the weather like?") is None
        assert (home / "memory_sqlite.db").is_file()
    finally:
        await later.stop()


async def test_recall_ranks_by_relevance_and_respects_the_limit(sqlite_pkg, home):
    provider_mod, _ = sqlite_pkg
    provider = await _started(provider_mod, home, "s", {"recall_limit": 2})
    (tool,) = provider.tools()
    for text in ("deploys run from the deploy branch", "deploy needs the VPN", "deploy on Fridays is banned",
                 "coffee machine is on floor 2"):
        await tool.handler({"action": "save", "text": text}, _ctx(home))
    recalled = await provider.prefetch("how do I deploy to production")
    assert recalled.count("\n- ") == 2 and "coffee" not in recalled
    await provider.stop()


async def test_search_forget_and_duplicates(sqlite_pkg, home):
    provider_mod, _ = sqlite_pkg
    provider = await _started(provider_mod, home, "s")
    (tool,) = provider.tools()
    ctx = _ctx(home)
    await tool.handler({"action": "save", "text": "Release train leaves every Tuesday."}, ctx)
    assert "Already stored as fact #1" in await tool.handler(
        {"action": "save", "text": "Release  train leaves every Tuesday."}, ctx
    )
    assert "#1: Release train" in await tool.handler({"action": "search", "text": "releases"}, ctx)  # stemmed
    assert "#1" in await tool.handler({"action": "search"}, ctx)  # no words: latest facts
    assert "Forgot fact #1" in await tool.handler({"action": "forget", "id": 1}, ctx)
    assert await tool.handler({"action": "search", "text": "release"}, ctx) == "No matching facts."
    with pytest.raises(talaria.ToolError, match="no fact #1"):
        await tool.handler({"action": "forget", "id": 1}, ctx)
    with pytest.raises(talaria.ToolError, match="'id' is required"):
        await tool.handler({"action": "forget"}, ctx)
    with pytest.raises(talaria.ToolError, match="'text' is required"):
        await tool.handler({"action": "save"}, ctx)
    with pytest.raises(talaria.ToolError, match="one short fact"):
        await tool.handler({"action": "save", "text": "x" * 600}, ctx)
    await provider.stop()


async def test_hooks_are_honest_no_ops_and_path_is_configurable(sqlite_pkg, home, tmp_path):
    provider_mod, _ = sqlite_pkg
    provider = await _started(provider_mod, home, "s", {"path": "facts/my.db"})
    assert (home / "facts" / "my.db").is_file()
    assert "fact_store" in provider.prompt_block()
    assert await provider.on_turn_end(None, []) is None
    assert await provider.on_pre_compress([]) is None
    assert await provider.prefetch("anything at all") is None  # nothing was extracted
    await provider.stop()
    unstarted = provider_mod.SqliteMemoryProvider({})
    with pytest.raises(talaria.ToolError, match="not started"):
        await unstarted.tools()[0].handler({"action": "search"}, _ctx(home))


async def test_selected_by_config_in_a_scripted_session(sqlite_pkg, home):
    _, plugin = sqlite_pkg
    model = ScriptedModel(
        reply("", tool_call("fact_store", {"action": "save", "text": "Project codename is BLUEFIN."})),
        "Saved.",
        "It is BLUEFIN.",
    )
    config = {"model": "scripted/test", "memory": {"provider": "sqlite"}}
    kernel = make_kernel(home, model.plugin(), ("memory_sqlite", plugin), config=config)
    first, _ = await run_turn(kernel, "Remember the project codename BLUEFIN.", session_key="cli:a")
    assert first.end_reason == "completed", first.error
    assert "fact_store" in [t.name for t in model.requests[0].tools]
    second, _ = await run_turn(kernel, "What is the project codename?", session_key="cli:b")
    assert second.end_reason == "completed" and second.session_id != first.session_id
    last_user = [m for m in model.requests[-1].messages if m.role == "user"][-1]
    assert "BLUEFIN" in last_user.content  # recalled into the turn
    assert "Fact store" in model.requests[-1].system_text


@pytest.mark.slow
def test_pip_install_into_a_venv_exposes_the_entry_point(tmp_path):
    venv, src = tmp_path / "venv", tmp_path / "src"
    shutil.copytree(DIST, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    # No pip inside the venv (fast): this interpreter's pip installs into it. Offline:
    # talaria, aiosqlite and setuptools come from the system site-packages.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install",
         "--no-index", "--no-build-isolation", "-q", str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert install.returncode == 0, install.stderr
    probe = textwrap.dedent(
        """
        from importlib.metadata import entry_points, version
        (ep,) = [e for e in entry_points(group="talaria") if e.name == "memory_sqlite"]
        got = []
        ep.load().register_memory_providers(got.append)
        print(ep.value, version("talaria-memory-sqlite"), got[0].name)
        """
    )
    out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["talaria_memory_sqlite.plugin", "0.1.0", "sqlite"]
