"""Suite-wide hermeticity: every test gets its own TALARIA_HOME and no real credentials."""

from __future__ import annotations

import os
import re

import pytest

_SECRET = re.compile(r"(_API_KEY(_\d+)?|_TOKEN|_SECRET|_PASSWORD|_BASE_URL)$")


@pytest.fixture(autouse=True)
def _hermetic_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("talaria-home")
    monkeypatch.setenv("TALARIA_HOME", str(home))
    monkeypatch.delenv("TALARIA_PLUGINS", raising=False)
    for name in list(os.environ):
        if _SECRET.search(name):
            monkeypatch.delenv(name, raising=False)
