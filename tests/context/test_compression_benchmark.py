"""The compression benchmark stays runnable and measures what it claims."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from ctx_transcripts import assert_pairs_intact

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "compression.py"


def _load():
    spec = importlib.util.spec_from_file_location("bench_compression", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_benchmark_session_is_200_valid_messages() -> None:
    session = _load().build_session()
    assert len(session) == 200 and session[-1].role == "user"
    assert sum(1 for m in session if m.tool_calls) >= 20
    assert_pairs_intact(session)


def test_benchmark_runs_and_reports_each_engine(capsys: pytest.CaptureFixture[str]) -> None:
    _load().main(["--runs", "1"])
    out = capsys.readouterr().out
    assert "200 messages" in out and "(fires: True)" in out
    for scenario in ("compressor (auto)", "compressor (summary", "sliding-window"):
        assert scenario in out
