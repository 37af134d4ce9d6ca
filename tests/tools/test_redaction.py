"""Redaction: secrets from the environment and key-shaped strings never leave a tool result."""

from __future__ import annotations

import logging

import pytest

from talaria import ToolCall, ToolResult
from talaria.testing import load_plugin_module

R = load_plugin_module("redaction")

KEYS = {
    "openai_key": "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4",
    "anthropic_key": "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2",
    "github_token": "ghp_" + "A" * 36,
    "slack_token": "xoxb-1234567890-abcdefghij",
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "google_api_key": "AIza" + "S" * 35,
}


@pytest.mark.parametrize(("kind", "secret"), KEYS.items())
def test_key_shaped_strings_are_redacted(kind: str, secret: str) -> None:
    out = R.redact(f"before {secret} after", environ={})
    assert secret not in out
    assert out == f"before [REDACTED:{kind}] after"


def test_bearer_and_url_passwords_keep_their_context() -> None:
    out = R.redact("Authorization: Bearer abcdef0123456789abcdef\nurl=postgres://app:pa55word@db:5432/x", environ={})
    assert "Authorization: Bearer [REDACTED:bearer]" in out
    assert "postgres://app:[REDACTED:url_password]@db:5432/x" in out


def test_private_keys_are_redacted_whole() -> None:
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----"
    assert R.redact(f"x\n{pem}\ny", environ={}) == "x\n[REDACTED:private_key]\ny"


def test_secret_env_values_are_redacted_by_name(monkeypatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plainvalue-123456")
    monkeypatch.setenv("DB_PASSWORD", "correct horse battery")
    monkeypatch.setenv("SHORT_KEY", "abc")  # under 8 characters: left alone
    monkeypatch.setenv("CONFIG_PATH", "/opt/app/config-file")  # not secret by name
    text = "token=plainvalue-123456 pw='correct horse battery' k=abc cfg=/opt/app/config-file"
    out = R.redact(text)
    assert out == "token=[REDACTED:env:MY_SERVICE_TOKEN] pw='[REDACTED:env:DB_PASSWORD]' k=abc cfg=/opt/app/config-file"


def test_ordinary_text_is_unchanged() -> None:
    text = "def tokenize(s):\n    return s.split()  # sk-short, ghp_x, Bearer of news\n"
    assert R.redact(text, environ={"HOME": "/root", "PWD": "/work/somewhere"}) == text


def test_post_tool_call_replaces_only_when_needed(ctx, monkeypatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", "acme-live-0123456789")
    call = ToolCall(id="c", name="terminal", arguments={"command": "env"})
    leaked = ToolResult(call_id="c", content="ACME_API_KEY=acme-live-0123456789\n[exit code 0]", untrusted=True)
    replaced = R.post_tool_call(call, leaked, ctx)
    assert replaced.content == "ACME_API_KEY=[REDACTED:env:ACME_API_KEY]\n[exit code 0]"
    assert replaced.call_id == "c" and replaced.status == "ok" and replaced.untrusted is True
    assert R.post_tool_call(call, ToolResult(call_id="c", content="nothing here"), ctx) is None


def test_extra_patterns_and_opt_out(make_ctx) -> None:
    call = ToolCall(id="c", name="x", arguments={})
    result = ToolResult(call_id="c", content="internal id CORP-123456")
    custom = make_ctx(config={"redaction": {"extra_patterns": [r"CORP-\d+"]}})
    assert R.post_tool_call(call, result, custom).content == "internal id [REDACTED:custom]"
    off = make_ctx(config={"redaction": {"enabled": False}})
    assert R.post_tool_call(call, ToolResult(call_id="c", content=KEYS["github_token"]), off) is None


def test_logging_filter_redacts_records(caplog) -> None:
    logger = logging.getLogger("talaria.test.redaction")
    logger.addFilter(R.RedactingFilter())
    with caplog.at_level(logging.INFO, logger="talaria.test.redaction"):
        logger.info("calling with %s", KEYS["openai_key"])
    assert KEYS["openai_key"] not in caplog.text and "[REDACTED:openai_key]" in caplog.text
