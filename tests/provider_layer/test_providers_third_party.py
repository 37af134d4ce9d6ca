"""A provider shipped as its own pip distribution (optional-plugins/talaria-nebius)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "optional-plugins" / "talaria-nebius"

IN_VENV = r"""
import json
from importlib.metadata import entry_points

import click
from click.testing import CliRunner

from talaria.providers import CredentialPool, resolve_model
from talaria.providers.cli import add_provider_commands

eps = [ep for ep in entry_points(group="talaria") if ep.name == "nebius"]
ep = eps[0]
items = []
ep.load().register_providers(items.append)
registry = {p.name: p for p in items}
resolved = resolve_model("nebius/llama-3.3-70b", registry)
pool = CredentialPool(__import__("pathlib").Path(__import__("os").environ["TALARIA_HOME"]))
cred = pool.acquire(resolved.profile, base_url=resolved.base_url)
root = click.Group("talaria")
add_provider_commands(root, lambda: registry, lambda: {"nebius": f"installed ({ep.dist.name} {ep.dist.version})"})
listing = CliRunner().invoke(root, ["providers", "list", "--json"], obj=None)
print(json.dumps({
    "dist": ep.dist.name, "value": ep.value, "spec": resolved.spec, "window": resolved.context_window,
    "api_mode": resolved.api_mode, "base_url": resolved.base_url, "key_id_ok": cred.id != "" and cred.key == "nb-key",
    "providers": json.loads(listing.output),
}))
"""


@pytest.mark.slow
def test_nebius_distribution_pip_installs_and_registers_its_provider(tmp_path: Path) -> None:
    src = tmp_path / "talaria-nebius"
    shutil.copytree(DIST, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True, timeout=120)
    py = venv / "bin" / "python"
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         "--disable-pip-version-check", "-q", str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert install.returncode == 0, install.stderr
    env = {**os.environ, "TALARIA_HOME": str(tmp_path / "home"), "NEBIUS_API_KEY": "nb-key"}
    run = subprocess.run([str(py), "-c", IN_VENV], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["dist"] == "talaria-nebius" and got["value"] == "talaria_nebius.plugin"
    assert got["spec"] == "nebius/meta-llama/Llama-3.3-70B-Instruct" and got["window"] == 131_072
    assert got["api_mode"] == "chat_completions" and got["base_url"] == "https://api.studio.nebius.com/v1"
    assert got["key_id_ok"] is True
    row = next(r for r in got["providers"] if r["name"] == "nebius")
    assert row["origin"] == "installed (talaria-nebius 0.1.0)" and row["key_present"] is True
    # the throwaway venv is isolated: this interpreter does not see the distribution
    from importlib.metadata import entry_points

    assert "nebius" not in {ep.name for ep in entry_points(group="talaria")}

    # the real CLI in that venv lists it as installed, and a turn reaches its endpoint
    from talaria.testing.fakes import FakeLLMServer, Reply

    listed = subprocess.run([str(py), "-m", "talaria", "providers", "list", "--json"],
                            capture_output=True, text=True, timeout=120, env=env)
    assert listed.returncode == 0, listed.stderr
    row = next(r for r in json.loads(listed.stdout) if r["name"] == "nebius")
    assert row["origin"] == "installed (talaria-nebius 0.1.0)"  # the name and version pip knows it by
    assert row["api_mode"] == "chat_completions" and row["key_present"] is True
    with FakeLLMServer([Reply(text="hello from nebius")]) as fake:
        turn = subprocess.run(
            [str(py), "-m", "talaria", "run", "--model", "nebius/llama-3.3-70b", "say hi"],
            capture_output=True, text=True, timeout=180,
            env={**env, "NEBIUS_BASE_URL": fake.openai_base_url, "OPENAI_API_KEY": "sk-not-for-nebius"},
        )
        assert turn.returncode == 0, turn.stderr
        assert "hello from nebius" in turn.stdout
        sent = fake.requests[-1]
        assert sent.json["model"] == "meta-llama/Llama-3.3-70B-Instruct"
        assert sent.headers.get("authorization") == "Bearer nb-key"


@pytest.mark.slow
def test_importing_the_provider_layer_imports_no_sdk() -> None:
    code = ("import sys, talaria.providers, talaria.providers.cli; "
            "print(sorted(m for m in ('openai', 'anthropic', 'httpx', 'mcp', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def _load_nebius():
    import importlib.util

    spec = importlib.util.spec_from_file_location("nebius_plugin_under_test", DIST / "talaria_nebius" / "plugin.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nebius_registers_one_declarative_profile_with_its_own_key(monkeypatch):
    monkeypatch.delenv("NEBIUS_BASE_URL", raising=False)
    items = []
    _load_nebius().register_providers(items.append)
    (profile,) = items
    assert profile.name == "nebius" and profile.key_env == ("NEBIUS_API_KEY",) and not profile.keyless
    from talaria import Usage
    from talaria.providers import cost_of, resolve_model

    resolved = resolve_model("nebius-ai-studio/deepseek-v3", {"nebius": profile})
    assert resolved.model_id == "deepseek-ai/DeepSeek-V3-0324"
    assert cost_of(Usage(input_tokens=1_000_000, output_tokens=1_000_000), resolved.model_info) == 2.0


def test_nebius_base_url_can_point_at_another_endpoint(monkeypatch):
    monkeypatch.setenv("NEBIUS_BASE_URL", "http://127.0.0.1:8999/v1")
    items = []
    _load_nebius().register_providers(items.append)
    assert items[0].base_url == "http://127.0.0.1:8999/v1"
