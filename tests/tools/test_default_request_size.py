"""The default request of a fresh install stays small (issue 7: ≤ 10 KB; Hermes sends 47.6 KB).

A size contract, not a timing: a real ``talaria run "hi"`` process with an empty home (only a
config-defined provider pointing at the loopback fake server) and an empty workspace; the body
is measured as it reached the server, for each API mode the fake speaks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from talaria.testing.fakes import FakeLLMServer

LIMIT = 10 * 1024


def _config(mode: str, fake: FakeLLMServer) -> str:
    url = fake.anthropic_base_url if mode == "anthropic_messages" else fake.openai_base_url
    return f'model = "fake/fake-model"\n[providers.fake]\napi_mode = "{mode}"\nbase_url = "{url}"\nkeyless = true\n'


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["chat_completions", "responses", "anthropic_messages"])
def test_default_request_of_a_fresh_install_is_at_most_10_kb(tmp_path: Path, mode: str) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TALARIA_")}
    env["TALARIA_HOME"] = str(home)
    with FakeLLMServer() as fake:
        (home / "config.toml").write_text(_config(mode, fake), encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "talaria", "run", "hi"], env=env, cwd=workspace,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert run.returncode == 0, run.stderr
        [sent] = fake.requests
    body = sent.json
    assert body["tools"], "a fresh install offers its core tools"
    user_turns = body["input"] if mode == "responses" else body["messages"]
    assert any("hi" in json.dumps(m) for m in user_turns), "the one user message is in the body"
    assert len(sent.body) <= LIMIT, f"{mode}: default request is {len(sent.body):,} B (limit {LIMIT:,} B)"
    if mode != "chat_completions":
        return
    predicted = subprocess.run([sys.executable, "-m", "talaria", "prompt-size", "--json"], env=env, cwd=workspace,
                               capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert predicted.returncode == 0, predicted.stderr
    total = json.loads(predicted.stdout)["request_total"]
    assert total <= LIMIT
    # prompt-size describes the same request: within the SDK envelope (model, stream flags, limits)
    assert abs(len(sent.body) - total) < 1024, (len(sent.body), total)
