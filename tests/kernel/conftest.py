from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def home() -> Path:
    return Path(os.environ["TALARIA_HOME"])
