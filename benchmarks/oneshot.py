"""Benchmark: a cold ``talaria run "hi"`` against a loopback fake OpenAI-compatible server.

Starts ``python -m talaria.testing.fakes`` as a subprocess, writes a temporary
``TALARIA_HOME`` whose config points ``model`` at it (a config-defined provider
``[providers.fake] api_mode = "chat_completions"``), then runs ``talaria run "hi"`` as a fresh
process N times (default 10). Reports medians of: wall time, time from spawn to the first
request reaching the server (the fake records arrival times), peak RSS and CPU time
(user+sys, less sensitive to a busy machine than wall time) of the child; and separately
the cold ``import openai`` time (the import statement alone, timed inside a fresh
interpreter) and bare interpreter start-up, interleaved with the Talaria runs so a busy
machine's drift hits all alike; Talaria's own share is wall − SDK import (and the same in
CPU time): everything else, interpreter start and exit included, is Talaria's. Targets (issue 8): wall ≤ 1.0 s, own share ≤ 0.2 s.
It also times the bare SDK making the same streamed request (``SDK_REQUEST``): the SDK's
work after its import (client, HTTP stack, TLS context, the call) is paid by every SDK
program, so "Talaria over the bare SDK" is what Talaria itself adds.

Children run with bytecode writing enabled (``PYTHONDONTWRITEBYTECODE`` is removed from
their environment) and one uncounted warm-up run writes the ``.pyc`` caches first: a real
install has them (pip compiles on install, Python writes them on first run otherwise), so
compiling ~120 modules from source on every run is not what a user pays. The child is the
``talaria`` console script beside this interpreter (no PATH shim in between).

Peers: ``llm`` 0.36 (an OpenAI-compatible model, no tools, no log) and Hermes 0.19
(``hermes -z``) run the same one-shot request against the same server, interleaved with the
Talaria runs, each from a venv of its own in ``benchmarks/.peers/`` (made on first use; a peer
that does not install is skipped). The ratios Talaria / peer are printed; issue 8's target is
Talaria at or below llm's time.

Run: ``python benchmarks/oneshot.py [--runs N] [--no-peers]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fake_llm import control, start_fake  # benchmarks/fake_llm.py (run as scripts)
from peers import peer_commands  # benchmarks/peers.py


def run_child(argv: list[str], env: dict[str, str], cwd: str) -> dict[str, float]:
    """Spawn, wait with ``wait4`` (for this child's own rusage) and time it."""
    start = time.time()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    end = time.time()
    proc.returncode = os.waitstatus_to_exitcode(status)
    out = proc.stdout.read().decode() if proc.stdout else ""
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {err.strip()}")
    return {"start": start, "wall": end - start, "rss_mb": usage.ru_maxrss / 1024,
            "cpu": usage.ru_utime + usage.ru_stime, "out": out}  # type: ignore[dict-item]


#: Times the SDK's import inside a fresh interpreter: wall and CPU of the import statement
#: alone (interpreter start-up and exit are the same for any Python program and are counted
#: as Talaria's own).
SDK_PROBE = (
    "import time; w, c = time.perf_counter(), time.process_time(); import openai; "
    "print(time.perf_counter() - w, time.process_time() - c)"
)


#: The floor any OpenAI-SDK program pays for the same request: interpreter, ``import openai``,
#: the client (its HTTP stack and TLS context), one streamed chat completion, exit. What
#: Talaria adds on top of it is the kernel, store, plugins, tools and CLI. It freezes the
#: garbage collector before exiting, as Talaria does: without that, collecting the SDK's
#: objects at interpreter exit alone costs ~0.3 s here, and "Talaria over the bare SDK" would
#: credit Talaria with it.
SDK_REQUEST = (
    "import sys, gc, openai; client = openai.OpenAI(base_url=sys.argv[1], api_key='none'); "
    "stream = client.chat.completions.create(model='fake-model', messages=[{'role': 'user', 'content': 'hi'}], "
    "stream=True); print(''.join(c.choices[0].delta.content or '' for c in stream if c.choices)); gc.freeze()"
)


#: The leanest SDK program for the same request, taking the path the bundled mode takes: the
#: async client with a plaintext HTTP client, the SDK's generic ``post`` with a JSON body,
#: events as plain JSON, GC frozen at exit. Its time minus ``import openai`` is the floor of
#: "own share" for anything that makes this request through the SDK.
SDK_MINIMAL = (
    "import sys, gc, asyncio, openai\n"
    "async def main():\n"
    "    client = openai.AsyncOpenAI(base_url=sys.argv[1], api_key='none', max_retries=0,\n"
    "                                http_client=openai.DefaultAsyncHttpxClient(verify=False))\n"
    "    body = {'model': 'fake-model', 'messages': [{'role': 'user', 'content': 'hi'}], 'stream': True}\n"
    "    stream = await client.post('/chat/completions', body=body, cast_to=object, stream=True,\n"
    "                               stream_cls=openai.AsyncStream[object])\n"
    "    print(''.join([(c.get('delta') or {}).get('content') or '' async for e in stream for c in e.get('choices') or []]))\n"
    "asyncio.run(main()); gc.freeze()\n"
)


def child_env() -> dict[str, str]:
    """The children's environment: no API keys, and bytecode caches written and used."""
    return {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "PYTHONDONTWRITEBYTECODE"}


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--no-peers", action="store_true", help="do not run llm and hermes -z for comparison")
    args = parser.parse_args()

    # The console script next to this interpreter, not whatever ``talaria`` is first on PATH:
    # a version-manager shim (pyenv's is a bash script running ``pyenv exec``) would add its
    # own start-up to every run, while ``import openai`` below is timed without one.
    exe = Path(sys.executable).with_name("talaria")
    talaria = [str(exe)] if exe.exists() else [sys.executable, "-m", "talaria"]
    fake, base = start_fake()
    tmp = Path(tempfile.mkdtemp(prefix="talaria-oneshot-"))
    try:
        home, workspace = tmp / "home", tmp / "ws"
        home.mkdir()
        workspace.mkdir()
        (home / "config.toml").write_text(
            'model = "fake/fake-model"\n[providers.fake]\napi_mode = "chat_completions"\n'
            f'base_url = "{base}/v1"\nkeyless = true\n', encoding="utf-8")
        env = child_env()
        env["TALARIA_HOME"] = str(home)

        peers = {} if args.no_peers else peer_commands(base, tmp, env=child_env())
        # not counted: warms the page cache and writes the .pyc files (bytecode writing is on)
        run_child([*talaria, "run", "warm the page cache"], env, str(workspace))
        run_child([sys.executable, "-c", SDK_PROBE], env, str(workspace))
        for argv, peer_env in peers.values():
            run_child(argv, peer_env, str(workspace))
        run_child([sys.executable, "-c", SDK_MINIMAL, f"{base}/v1"], env, str(workspace))
        walls, firsts, rss, cpus, sdk, bare, floor, minimal = [], [], [], [], [], [], [], []
        peer_walls: dict[str, list[float]] = {name: [] for name in peers}
        for _ in range(args.runs):
            # interleaved with the reference runs, so load on a shared machine drifts alike for all
            control(base, "/_fake/reset", "POST")
            result = run_child([*talaria, "run", "hi"], env, str(workspace))
            requests = control(base, "/_fake/requests")
            if not requests:
                raise SystemExit("the fake server received no request")
            walls.append(result["wall"])
            firsts.append(requests[0]["received_at"] - result["start"])
            rss.append(result["rss_mb"])
            cpus.append(result["cpu"])
            sdk.append(run_child([sys.executable, "-c", SDK_PROBE], env, str(workspace)))
            bare.append(run_child([sys.executable, "-c", "pass"], env, str(workspace)))
            floor.append(run_child([sys.executable, "-c", SDK_REQUEST, f"{base}/v1"], env, str(workspace)))
            minimal.append(run_child([sys.executable, "-c", SDK_MINIMAL, f"{base}/v1"], env, str(workspace)))
            for name, (argv, peer_env) in peers.items():
                peer_walls[name].append(run_child(argv, peer_env, str(workspace))["wall"])
    finally:
        fake.terminate()
        fake.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)

    sdk_import = median([float(r["out"].split()[0]) for r in sdk])
    sdk_cpu = median([float(r["out"].split()[1]) for r in sdk])
    wall = median(walls)
    load = os.getloadavg()[0]
    print(f"talaria run 'hi' — cold, median of {args.runs} runs (load average {load:.1f} on {os.cpu_count()} CPUs)")
    print("  (children write and use .pyc caches, as a real install does; one warm-up run not counted)")
    print(f"  wall time                      {wall:6.3f} s   (min {min(walls):.3f}, max {max(walls):.3f})")
    print(f"  spawn → first request byte     {median(firsts):6.3f} s")
    print(f"  CPU time (user+sys)            {median(cpus):6.3f} s")
    print(f"  peak RSS                       {median(rss):6.1f} MB")
    print(f"  python -c pass                 {median([r['wall'] for r in bare]):6.3f} s")
    print(f"  import openai (in a fresh process)  {sdk_import:6.3f} s   (CPU {sdk_cpu:.3f} s)")
    print(f"  Talaria's own share (wall − SDK import)  {wall - sdk_import:6.3f} s   (target ≤ 0.2 s)")
    print(f"  the same in CPU time (less load-sensitive) {median(cpus) - sdk_cpu:6.3f} s")
    sdk_floor = median([r["wall"] for r in floor])
    print(f"  the bare SDK doing the same request     {sdk_floor:6.3f} s   (CPU {median([r['cpu'] for r in floor]):.3f} s): "
          "interpreter, import, client, one streamed call, GC frozen at exit")
    print(f"  Talaria over the bare SDK               {wall - sdk_floor:6.3f} s   (CPU {median(cpus) - median([r['cpu'] for r in floor]):.3f} s)")
    lean = median([r["wall"] for r in minimal])
    print(f"  the leanest SDK program, same request   {lean:6.3f} s: async client, generic post, plain JSON events")
    print(f"    its own share (wall − SDK import)     {lean - sdk_import:6.3f} s   (the floor of Talaria's own share)")
    for name, times in peer_walls.items():
        print(f"  {name:<37}  {median(times):6.3f} s   (Talaria / {name}: {wall / median(times):.2f})")
    llm_wall = median(peer_walls["llm"]) if peer_walls.get("llm") else None
    if llm_wall is not None:
        print(f"  target: at or below llm's time, measured side by side: {'met' if wall <= llm_wall else 'NOT met'}")
    print(f"  target wall ≤ 1.0 s (llm's time on the reference machine): {'met' if wall <= 1.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
