"""Peer agents for ``oneshot.py``: ``llm`` and Hermes (``hermes -z``), each in a venv of its own.

The venvs live in ``benchmarks/.peers/`` (git-ignored) and are made once, with the
versions issue 8 was measured against; a peer whose install fails is skipped with the
reason. Each run gets a fresh home for the peer pointing it at the benchmark's loopback fake
server, so peers and Talaria answer the same request from the same server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["PEERS", "peer_commands"]

#: name → (pip requirement, console script)
PEERS = {"llm": ("llm==0.36", "llm"), "hermes": ("hermes-agent==0.19.0", "hermes")}

DEFAULT_ROOT = Path(__file__).with_name(".peers")


def _installed(root: Path, name: str) -> Path | None:
    """The peer's console script, installing it into ``root/name`` first if needed."""
    requirement, script = PEERS[name]
    venv = root / name
    exe = venv / "bin" / script
    if exe.exists():
        return exe
    print(f"  (installing {requirement} into {venv} — once)", flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", requirement],
                       check=True, capture_output=True, timeout=1200)
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        print(f"  {name}: not installed ({type(exc).__name__}: {detail.decode(errors='replace').strip()[-300:]})")
        return None
    return exe if exe.exists() else None


def peer_commands(base_url: str, tmp: Path, root: Path = DEFAULT_ROOT,
                  env: dict[str, str] | None = None) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name → (argv, environment) of each installable peer answering "hi" from ``base_url``.

    ``llm``: the OpenAI-compatible model ``fake`` (``extra-openai-models.yaml``), no log
    (``-n``). Hermes: a ``custom`` provider in ``config.yaml`` with the context length set,
    so it does not probe the endpoint first.
    """
    env = dict(os.environ if env is None else env)
    commands: dict[str, tuple[list[str], dict[str, str]]] = {}
    llm = _installed(root, "llm")
    if llm is not None:
        home = tmp / "llm-home"
        home.mkdir(parents=True, exist_ok=True)
        (home / "extra-openai-models.yaml").write_text(
            f'- model_id: fake\n  model_name: fake-model\n  api_base: "{base_url}/v1"\n', encoding="utf-8")
        commands["llm"] = ([str(llm), "-m", "fake", "-n", "hi"],
                           dict(env, LLM_USER_PATH=str(home), OPENAI_API_KEY="none"))
    hermes = _installed(root, "hermes")
    if hermes is not None:
        home = tmp / "hermes-home"
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.yaml").write_text(
            "model:\n  provider: custom\n  default: fake-model\n"
            f"  base_url: {base_url}/v1\n  api_key: sk-fake\n  context_length: 131072\n", encoding="utf-8")
        commands["hermes -z"] = ([str(hermes), "-z", "hi"], dict(env, HERMES_HOME=str(home)))
    return commands
