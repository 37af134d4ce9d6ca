"""Secrets never reach log output or log files once the redaction plugin is loaded."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from talaria.testing import load_plugin_module

R = load_plugin_module("redaction")

OPENAI_KEY = "sk-proj-" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4"
ENV_SECRET = "plain-env-secret-98765"


@pytest.fixture()
def log_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A file handler on the root logger (as a user's logging config would add), DEBUG on ``talaria``."""
    monkeypatch.setenv("ACME_SERVICE_TOKEN", ENV_SECRET)
    path = tmp_path / "talaria.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root, talaria_logger = logging.getLogger(), logging.getLogger("talaria")
    level = talaria_logger.level
    root.addHandler(handler)
    talaria_logger.setLevel(logging.DEBUG)
    try:
        yield path
    finally:
        root.removeHandler(handler)
        handler.close()
        talaria_logger.setLevel(level)


def _read(path: Path) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return path.read_text(encoding="utf-8")


def test_loading_the_plugin_installs_log_redaction() -> None:
    assert R.log_redaction_installed()
    assert R.install_log_redaction() is False  # idempotent: never wrapped twice


def test_child_loggers_messages_are_redacted_in_log_files(log_file: Path) -> None:
    logging.getLogger("talaria.turn").warning("calling with key %s and token %s", OPENAI_KEY, ENV_SECRET)
    logging.getLogger("talaria.plugins.deep.child").debug("Authorization: Bearer %s", "abcdef0123456789abcdef")
    logging.getLogger("talaria.turn").info("an ordinary line: 42 tokens used")

    text = _read(log_file)
    assert OPENAI_KEY not in text and ENV_SECRET not in text and "abcdef0123456789abcdef" not in text
    assert "talaria.turn WARNING calling with key [REDACTED:openai_key] and token " \
           "[REDACTED:env:ACME_SERVICE_TOKEN]" in text
    assert "Authorization: Bearer [REDACTED:bearer]" in text
    assert "talaria.turn INFO an ordinary line: 42 tokens used" in text


def test_exception_text_and_third_party_loggers_are_redacted(log_file: Path) -> None:
    try:
        raise RuntimeError(f"provider rejected {OPENAI_KEY}")
    except RuntimeError:
        logging.getLogger("talaria.hooks").exception("a hook failed")
    logging.getLogger("httpx").warning("request to https://user:hunter2secret@api.example/v1")

    text = _read(log_file)
    assert "a hook failed" in text and "RuntimeError: provider rejected [REDACTED:openai_key]" in text
    assert OPENAI_KEY not in text
    assert "hunter2secret" not in text and "https://user:[REDACTED:url_password]@api.example/v1" in text


def test_handlers_added_before_installation_are_covered(tmp_path: Path) -> None:
    original = logging.getLogRecordFactory()
    path = tmp_path / "early.log"
    handler = logging.FileHandler(path, encoding="utf-8")
    logger = logging.getLogger("talaria.early")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logging.setLogRecordFactory(logging.LogRecord)  # as if the plugin had not loaded yet
        assert not R.log_redaction_installed()
        assert R.install_log_redaction() is True
        logger.error("key=%s", OPENAI_KEY)
        handler.flush()
        assert path.read_text(encoding="utf-8") == "key=[REDACTED:openai_key]\n"
    finally:
        logging.setLogRecordFactory(original)
        logger.removeHandler(handler)
        logger.propagate = True
        handler.close()


@pytest.mark.slow
def test_a_kernel_that_loads_the_plugin_redacts_its_logs(tmp_path: Path) -> None:
    script = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "from talaria.testing import make_kernel\n"
        "logging.basicConfig(stream=sys.stderr, format='%(name)s: %(message)s')\n"
        "make_kernel(Path(sys.argv[1]), bundled=('redaction',))\n"
        "logging.getLogger('talaria.turn').warning('key %s', sys.argv[2])\n"
    )
    env = {**os.environ, "TALARIA_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", script, str(tmp_path), OPENAI_KEY], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "talaria.turn: key [REDACTED:openai_key]" in proc.stderr
    assert OPENAI_KEY not in proc.stderr
