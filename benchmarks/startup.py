"""Cold-start time of `talaria --version` and `talaria plugins list`.

Median of several cold runs (each a new process), also with 20 extra trivial plugins
installed as entry points (``pip install --target`` into a temporary folder on ``PYTHONPATH``).
Targets on a 2-core machine: --version <= 80 ms, plugins list <= 200 ms.

Children run with bytecode writing enabled (``PYTHONDONTWRITEBYTECODE`` is removed from
their environment) after an uncounted warm-up run of each command that writes the ``.pyc``
caches: a real install has them, so compiling every module from source on each run is not
what a user pays.

    python benchmarks/startup.py [--runs 10] [--skip-extra]
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


def talaria_bin(python: str) -> list[str]:
    exe = Path(python).with_name("talaria")
    return [str(exe)] if exe.exists() else [python, "-m", "talaria"]


def measure(cmd: list[str], runs: int, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def make_extra_plugins(root: Path, count: int) -> Path:
    """``count`` trivial entry-point plugins installed into a folder of their own (``pip install
    --target``); put it on ``PYTHONPATH`` and the same interpreter sees them as installed.

    Same interpreter, same site-packages, same ``.pth`` files: the only difference from the
    plain runs is the extra plugins (a venv seeing the system site-packages would also time
    whatever ``.pth`` files the system has)."""
    target = root / "site"
    for i in range(count):
        pkg = root / f"talaria-bench-{i}"
        (pkg / f"talaria_bench_{i}").mkdir(parents=True)
        (pkg / f"talaria_bench_{i}" / "__init__.py").write_text(
            "from talaria import hookimpl\n\n@hookimpl\ndef on_turn_end(turn):\n    pass\n")
        (pkg / "pyproject.toml").write_text(
            f'[build-system]\nrequires=["setuptools>=61"]\nbuild-backend="setuptools.build_meta"\n'
            f'[project]\nname="talaria-bench-{i}"\nversion="0.1"\n'
            f'[project.entry-points.talaria]\nbench{i}="talaria_bench_{i}"\n')
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                    "--target", str(target), *[str(root / f"talaria-bench-{i}") for i in range(count)]], check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--skip-extra", action="store_true")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="talaria-startup-")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TALARIA_HOME"] = home
    base = talaria_bin(sys.executable)
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; children write and use .pyc caches)")
    for warm in (["--version"], ["plugins", "list"]):  # not counted: page cache and .pyc files
        measure(base + warm, 2, env)
    print(f"talaria --version      median {measure(base + ['--version'], args.runs, env):6.1f} ms (target <= 80)")
    print(f"talaria plugins list   median {measure(base + ['plugins', 'list'], args.runs, env):6.1f} ms (target <= 200)")
    if args.skip_extra:
        return
    root = Path(tempfile.mkdtemp(prefix="talaria-startup-plugins-"))
    try:
        extra = dict(env, PYTHONPATH=str(make_extra_plugins(root, 20)))
        measure(base + ["plugins", "list"], 2, extra)  # not counted: writes the new plugins' .pyc
        print("  with 20 extra installed plugins:")
        print(f"talaria --version      median {measure(base + ['--version'], args.runs, extra):6.1f} ms")
        print(f"talaria plugins list   median {measure(base + ['plugins', 'list'], args.runs, extra):6.1f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
