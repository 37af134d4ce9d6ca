"""The third-party engine fixture: its behaviour, and that pip installs its entry point."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ctx_transcripts import ScriptedSummarizer, check_compaction, exchange, tool_round, user

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "talaria-engine-fixture"


def _can_build_offline() -> bool:
    """setuptools builds wheels offline only with ``wheel`` installed or setuptools >= 70.1."""
    if importlib.util.find_spec("wheel") is not None:
        return True
    import setuptools

    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


async def test_fixture_engine_keeps_first_and_last_two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FIXTURE))
    monkeypatch.setitem(sys.modules, "talaria_engine_fixture", None)  # restored after the test
    del sys.modules["talaria_engine_fixture"]
    module = importlib.import_module("talaria_engine_fixture")
    items: list[type] = []
    module.register_context_engines(items.append)
    engine = items[0]({})
    assert engine.name == "fixture-engine"

    messages = [user("first")] + exchange([[100]] * 3) + [user("q")] + tool_round([10, 10])
    summarizer = ScriptedSummarizer(error=AssertionError("no model call expected"))
    out = await engine.compress(messages, context_window=1_000, summarize=summarizer)
    check_compaction(messages, out, head=1)
    assert out.messages[1].content.startswith("[compacted by fixture-engine")
    assert list(out.messages[2:]) == messages[-3:]  # last two, extended back to their call


@pytest.mark.slow
def test_pip_installs_the_fixture_and_exposes_its_entry_point(tmp_path: Path) -> None:
    if not _can_build_offline():
        pytest.skip("building the fixture offline needs the `wheel` package (or setuptools >= 70.1)")
    source = tmp_path / "src"
    shutil.copytree(FIXTURE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
         "--no-build-isolation", "--no-index", str(source)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr

    probe = textwrap.dedent(
        """
        import asyncio, json
        from importlib.metadata import entry_points
        from talaria import Message
        [ep] = [e for e in entry_points(group="talaria") if e.name == "engine_fixture"]
        module = ep.load()
        items = []
        module.register_context_engines(items.append)
        engine = items[0]({})
        msgs = [Message(role="user", content=str(i)) for i in range(6)]
        async def never(prompt, max_tokens=0):
            raise AssertionError("no model call")
        out = asyncio.run(engine.compress(msgs, context_window=100, summarize=never))
        print(json.dumps({"dist": ep.dist.name, "value": ep.value, "file": module.__file__,
                          "engine": engine.name, "contents": [m.content for m in out.messages]}))
        """
    )
    run = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["dist"] == "talaria-engine-fixture" and report["value"] == "talaria_engine_fixture"
    assert Path(report["file"]).is_relative_to(venv), "the module must come from the installed copy"
    assert report["engine"] == "fixture-engine"
    assert report["contents"] == ["0", "[compacted by fixture-engine: 3 messages dropped]", "4", "5"]
