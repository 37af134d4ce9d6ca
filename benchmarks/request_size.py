"""Benchmark: bytes of the default request of a fresh install, captured at a fake server.

Starts ``python -m talaria.testing.fakes`` as a subprocess, then for each API mode the fake
speaks (``chat_completions``, ``responses``, ``anthropic_messages``) writes a fresh temporary
``TALARIA_HOME`` whose only content is a ``config.toml`` defining a keyless provider that
points at the fake, runs ``talaria run "hi"`` in an empty workspace, and reads the request
body exactly as it reached the server (``GET /_fake/requests``: ``body_bytes`` is the raw
body's length). Prints the size with a breakdown — system prompt, tool schemas, messages,
and the envelope (model, stream flags, limits, JSON punctuation) — next to Hermes' default
request (47.6 KB, of which 40.7 KB tool schemas) and the 10 KB target of issue 7, and
compares with what ``talaria prompt-size`` predicts for the same installation.

Run: ``python benchmarks/request_size.py [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fake_llm import control, start_fake  # benchmarks/fake_llm.py (run as scripts)

TARGET = 10 * 1024
HERMES_REQUEST = 47.6 * 1024
HERMES_TOOLS = 40.7 * 1024
MODES = ("chat_completions", "responses", "anthropic_messages")


def compact(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def breakdown(mode: str, body: dict[str, Any]) -> dict[str, int]:
    """Split a captured request body into system prompt, tool schemas and messages."""
    if mode == "chat_completions":
        messages = body.get("messages", [])
        system = [m for m in messages if m.get("role") in ("system", "developer")]
        rest = [m for m in messages if m not in system]
        return {"system": compact(system), "tools": compact(body.get("tools", [])), "messages": compact(rest)}
    if mode == "responses":
        return {"system": compact(body.get("instructions", "")), "tools": compact(body.get("tools", [])),
                "messages": compact(body.get("input", []))}
    return {"system": compact(body.get("system", "")), "tools": compact(body.get("tools", [])),
            "messages": compact(body.get("messages", []))}


def talaria_command() -> list[str]:
    exe = shutil.which("talaria")
    return [exe] if exe else [sys.executable, "-m", "talaria"]


def fresh_env(home: Path) -> dict[str, str]:
    """The caller's environment minus API keys and Talaria settings, with ``home`` as home."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TALARIA_")}
    env["TALARIA_HOME"] = str(home)
    return env


def write_config(home: Path, mode: str, base: str) -> None:
    url = base if mode == "anthropic_messages" else f"{base}/v1"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "fake/fake-model"\n[providers.fake]\napi_mode = "{mode}"\nbase_url = "{url}"\nkeyless = true\n',
        encoding="utf-8")


def measure(base: str, root: Path, modes: tuple[str, ...] = MODES) -> dict[str, Any]:
    """Run ``talaria run "hi"`` once per mode against the fake at ``base``; sizes in bytes."""
    talaria = talaria_command()
    results: dict[str, Any] = {"modes": {}}
    for mode in modes:
        home, workspace = root / mode / "home", root / mode / "ws"
        workspace.mkdir(parents=True)
        write_config(home, mode, base)
        control(base, "/_fake/reset", "POST")
        run = subprocess.run([*talaria, "run", "hi"], env=fresh_env(home), cwd=workspace, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=120)
        if run.returncode != 0:
            raise SystemExit(f"talaria run ({mode}) exited {run.returncode}: {run.stderr.strip()}")
        requests = control(base, "/_fake/requests")
        if len(requests) != 1:
            raise SystemExit(f"{mode}: expected one request at the fake server, got {len(requests)}")
        captured = requests[0]
        parts = breakdown(mode, captured["json"])
        parts["envelope"] = captured["body_bytes"] - sum(parts.values())
        results["modes"][mode] = {"path": captured["path"], "body_bytes": captured["body_bytes"], "parts": parts,
                                  "tool_count": len(captured["json"].get("tools", []))}
    # what `talaria prompt-size` predicts for the same fresh installation
    home, workspace = root / modes[0] / "home", root / modes[0] / "ws"
    predicted = subprocess.run([*talaria, "prompt-size", "--json"], env=fresh_env(home), cwd=workspace,
                               capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    if predicted.returncode != 0:
        raise SystemExit(f"talaria prompt-size exited {predicted.returncode}: {predicted.stderr.strip()}")
    results["prompt_size"] = json.loads(predicted.stdout)
    return results


def kb(n: float) -> str:
    return f"{n / 1024:5.1f} KB"


def report(results: dict[str, Any]) -> None:
    print("default request of a fresh install: `talaria run \"hi\"`, body as captured at the fake server")
    print(f"{'API mode':20} {'body B':>7} {'body':>8} {'system':>8} {'tools':>8} {'messages':>8} {'envelope':>8} "
          f"{'tools':>5}  vs target / Hermes")
    for mode, row in results["modes"].items():
        p = row["parts"]
        size = row["body_bytes"]
        verdict = "within" if size <= TARGET else "OVER"
        print(f"{mode:20} {size:7,} {kb(size)} {kb(p['system'])} {kb(p['tools'])} {kb(p['messages'])} "
              f"{kb(p['envelope'])} {row['tool_count']:>5}  {verdict} 10 KB; {100 * size / HERMES_REQUEST:4.1f}% of Hermes")
    print(f"{'Hermes 0.19':20} {int(HERMES_REQUEST):7,} {kb(HERMES_REQUEST)} {'':>8} {kb(HERMES_TOOLS)}   (published reference)")
    print(f"{'target (issue 7)':20} {TARGET:7,} {kb(TARGET)}")
    ps = results["prompt_size"]
    tiers = ", ".join(f"{tier} {size:,} B" for tier, size in ps["tiers"].items())
    print(f"talaria prompt-size predicts {ps['request_total']:,} B for the default request "
          f"(tools {ps['tools_total']:,} B; system tiers: {tiers})")
    chat = results["modes"].get("chat_completions")
    if chat:
        print(f"  captured chat_completions body − prediction: {chat['body_bytes'] - ps['request_total']:+,} B "
              "(the SDK's envelope: stream options, token limit, model name)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    args = parser.parse_args(argv)
    fake, base = start_fake()
    root = Path(tempfile.mkdtemp(prefix="talaria-request-size-"))
    try:
        results = measure(base, root)
    finally:
        fake.terminate()
        fake.wait(10)
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results)
    return 0 if all(r["body_bytes"] <= TARGET for r in results["modes"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
