"""The third-party engine fixture: its behaviour, that pip installs its entry point, and that
selecting it (or a bundled engine) by config alone changes how a session compresses."""

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
PROBE = Path(__file__).with_name("ctx_engine_swap_probe.py")


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


@pytest.fixture(scope="module")
def fixture_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throwaway venv (system site-packages: talaria itself) with the fixture pip-installed.

    Returns the venv's python. Built once per module: ``--no-deps --no-build-isolation
    --no-index`` keeps it offline and fast.
    """
    if not _can_build_offline():
        pytest.skip("building the fixture offline needs the `wheel` package (or setuptools >= 70.1)")
    tmp_path = tmp_path_factory.mktemp("engine-fixture")
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
    return python


@pytest.mark.slow
def test_pip_installs_the_fixture_and_exposes_its_entry_point(fixture_venv: Path, tmp_path: Path) -> None:
    python = fixture_venv
    venv = python.parent.parent

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


@pytest.mark.slow
def test_swapping_the_engine_in_config_changes_how_a_session_compresses(fixture_venv: Path, tmp_path: Path) -> None:
    """``compressor``, ``sliding-window`` and the pip-installed ``fixture-engine``: one probe
    (the real loader, the installed tier), three homes that differ only in ``[context] engine``."""
    engines = ["compressor", "sliding-window", "fixture-engine"]
    homes = []
    for engine in engines:
        home = tmp_path / engine
        home.mkdir()
        (home / "config.toml").write_text(f'model = "scripted/test"\n\n[context]\nengine = "{engine}"\n',
                                          encoding="utf-8")
        homes.append(str(home))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TALARIA_")}
    run = subprocess.run([str(fixture_venv), str(PROBE), *homes], capture_output=True, text=True, cwd=tmp_path,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    reports = {r["engine"]: r for r in map(json.loads, run.stdout.splitlines())}
    assert list(reports) == engines

    for engine, report in reports.items():
        rotations = [e for e in report["events"] if e["kind"] == "compression" and e["ok"]]
        assert rotations and {e["engine"] for e in rotations} == {engine}, report["events"]
        assert not [e for e in report["events"] if e["kind"] == "warning"], "the configured engine was used"
        messages = report["messages"]
        assert messages[0]["content"].startswith("turn 0:"), "the head is kept verbatim"
        assert messages[-2]["content"].startswith("turn 11:") and messages[-1]["role"] == "assistant"
        assert len([m for m in messages if m["summary"]]) == 1, "one summary/note, never stacked"

    compressor, sliding, fixture = (reports[e] for e in engines)
    assert compressor["tier"] == sliding["tier"] == "bundled"
    assert fixture["plugin"] == "engine_fixture" and fixture["tier"] == "installed"
    assert fixture["origin"].startswith("talaria-engine-fixture 0.1.0")

    def note(report: dict) -> str:
        return next(m["content"] for m in report["messages"] if m["summary"])

    # compressor: the model wrote the summary
    assert compressor["summary_calls"] >= 1 and "summary by the model" in note(compressor)
    # sliding-window: no model call, a drop note
    assert sliding["summary_calls"] == 0 and "earlier messages were dropped" in note(sliding)
    # fixture-engine: no model call, its own note, and its own shape — first message, note, last two
    assert fixture["summary_calls"] == 0 and note(fixture).startswith("[compacted by fixture-engine:")
    assert {e["kept"] for e in fixture["events"] if e["kind"] == "compression"} == {4}
    assert fixture["messages"][1]["summary"] is True
