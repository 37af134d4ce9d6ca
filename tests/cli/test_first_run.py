"""First run: no provider configured → the message says what to set, exit 2, no prompt shown."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from cli_helpers import talaria, write_config

from talaria.testing import load_plugin_module

pytestmark = pytest.mark.slow


def test_chat_without_provider_explains_and_exits_2(tmp_path: Path) -> None:
    proc = talaria(["chat"], home=tmp_path / "home", cwd=tmp_path)
    assert proc.returncode == 2
    assert "No model is configured" in proc.stderr
    assert "OPENAI_API_KEY" in proc.stderr
    assert "›" not in proc.stdout and "Traceback" not in proc.stderr


def test_bare_talaria_is_chat(tmp_path: Path) -> None:
    proc = talaria([], home=tmp_path / "home", cwd=tmp_path)
    assert proc.returncode == 2
    assert "No model is configured" in proc.stderr


def test_doctor_reports_the_model_or_what_to_set(tmp_path: Path) -> None:
    doctor = importlib.import_module(load_plugin_module("cli_channel").__name__ + ".doctor")
    from talaria.testing import make_kernel

    kernel = make_kernel(tmp_path, bundled=("openai",), config={})
    [failed] = doctor.model_check(kernel)
    assert not failed.ok and "No model is configured" in failed.detail
    assert "OPENAI_API_KEY" in failed.hint

    write_config(tmp_path / "h2", "http://127.0.0.1:9/v1")
    import tomllib

    config = tomllib.loads((tmp_path / "h2" / "config.toml").read_text())
    kernel = make_kernel(tmp_path / "h2", bundled=("openai",), config=config)
    [ok] = doctor.model_check(kernel)
    assert ok.ok and "fake/fake-model" in ok.detail and "chat_completions" in ok.detail


def test_doctor_detects_a_key_in_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doctor = importlib.import_module(load_plugin_module("cli_channel").__name__ + ".doctor")
    from talaria.testing import make_kernel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    kernel = make_kernel(tmp_path, bundled=("openai",), config={})
    [ok] = doctor.model_check(kernel)
    assert ok.ok and ok.detail.startswith("openai/")
