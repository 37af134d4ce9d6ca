"""Importing a provider plugin (and registering what it offers) imports no SDK."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("openai", "anthropic", "httpx", "httpx2")

PROBE = """
import json, sys
from talaria.testing import load_plugin_module
registered = []
for name in ("openai", "anthropic", "compat_providers"):
    module = load_plugin_module(name)
    module.register_providers(registered.append)
    getattr(module, "register_api_modes", lambda register: None)(registered.append)
for item in registered:
    if isinstance(item, type):
        item({})  # instantiating an API mode is cheap too
print(json.dumps(sorted(m for m in HEAVY if m in sys.modules)))
"""


@pytest.mark.slow
def test_plugins_import_no_sdk() -> None:
    out = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n" + PROBE], capture_output=True, text=True,
                         timeout=120, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
