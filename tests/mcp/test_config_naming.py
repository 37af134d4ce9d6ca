"""Config parsing, child env filtering and tool naming (no processes)."""

from __future__ import annotations

import re

import pytest

from talaria import ConfigError


@pytest.fixture
def config(mcp_mod):
    from importlib import import_module

    return import_module(mcp_mod.__name__ + ".config")


@pytest.fixture
def naming(mcp_mod):
    from importlib import import_module

    return import_module(mcp_mod.__name__ + ".naming")


def test_names_are_sanitized_and_prefixed(naming):
    assert naming.tool_name("my-server", "get.time now") == "mcp__my_server__get_time_now"


def test_long_names_are_cut_deterministically_with_a_hash(naming):
    a = naming.tool_name("srv", "x" * 100)
    b = naming.tool_name("srv", "x" * 100 + "y")
    assert len(a) <= 64 and len(b) <= 64
    assert a != b and a == naming.tool_name("srv", "x" * 100)
    assert re.fullmatch(r"mcp__srv__x+_[0-9a-f]{8}", a)


def test_colliding_names_are_both_offered_and_reported(naming):
    names, reports = naming.assign_names([("s", "a.b", "tool"), ("s", "a-b", "tool"), ("s", "c", "tool")])
    assert len(set(names.values())) == 3
    assert names[("s", "a-b", "tool")] == "mcp__s__a_b"  # sorted order: "a-b" < "a.b"
    assert names[("s", "a.b", "tool")].startswith("mcp__s__a_b_")
    assert len(reports) == 1 and "a.b" in reports[0] and "a-b" in reports[0]


def test_server_tool_keeps_its_name_over_a_utility_tool(naming):
    names, reports = naming.assign_names([("s", "list_prompts", "util"), ("s", "list_prompts", "tool")])
    assert names[("s", "list_prompts", "tool")] == "mcp__s__list_prompts"
    assert names[("s", "list_prompts", "util")] != "mcp__s__list_prompts"
    assert reports


def test_include_wins_over_exclude(config):
    cfg = config.parse_server("s", {"command": "x", "tools": {"include": ["a"], "exclude": ["a", "b"]}})
    assert cfg.wants_tool("a") and not cfg.wants_tool("b") and not cfg.wants_tool("c")
    cfg = config.parse_server("s", {"command": "x", "tools": {"exclude": ["b"]}})
    assert cfg.wants_tool("a") and not cfg.wants_tool("b")


def test_defaults_and_transports(config):
    stdio = config.parse_server("t", {"command": "mcp-server-time"})
    assert (stdio.transport, stdio.timeout, stdio.connect_timeout) == ("stdio", 120.0, 30.0)
    assert stdio.sampling.enabled and stdio.sampling.rpm > 0
    assert config.parse_server("h", {"url": "http://127.0.0.1:1/mcp"}).transport == "http"
    assert config.parse_server("h", {"url": "http://x/sse", "transport": "sse"}).transport == "sse"
    assert config.parse_server("h", {"url": "${DOCS_URL}"}).url == "${DOCS_URL}"  # expanded at connect
    off = config.parse_server("h", {"url": "http://x", "sampling": {"enabled": False}})
    assert off.sampling.enabled is False


@pytest.mark.parametrize("raw, needle", [
    ({}, "exactly one of"),
    ({"command": "a", "url": "http://x"}, "exactly one of"),
    ({"command": "a", "timeout": -1}, "timeout"),
    ({"command": "a", "args": "not-a-list"}, "args"),
    ({"command": "a", "bogus": 1}, "unknown keys"),
    ({"url": "localhost:3001/mcp"}, "must start with http:// or https://"),
])
def test_bad_entries_say_what_is_wrong(config, raw, needle):
    with pytest.raises(ConfigError, match=needle):
        config.parse_server("s", raw)


def test_one_bad_entry_does_not_hide_the_others(config):
    servers, errors = config.parse_servers({"servers": {"good": {"command": "a"}, "bad": {"url": 3, "command": "b"}}})
    assert [s.name for s in servers] == ["good"] and "bad" in errors


def test_child_env_keeps_a_safe_baseline_and_declared_vars_only(config):
    parent = {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "OPENAI_API_KEY": "sk-secret", "AWS_SECRET": "x"}
    env = config.child_env({"TOKEN": "declared"}, parent)
    assert env == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "TOKEN": "declared"}


def test_placeholders_expand_workspace_and_named_vars(config, tmp_path, monkeypatch):
    monkeypatch.setenv("DOCS_TOKEN", "t0k")
    assert config.expand("${WORKSPACE}/x", tmp_path, what="args") == f"{tmp_path}/x"
    assert config.expand("Bearer ${DOCS_TOKEN}", tmp_path, what="h") == "Bearer t0k"
    monkeypatch.delenv("NOPE_VAR", raising=False)
    with pytest.raises(ConfigError, match="NOPE_VAR"):
        config.expand("${NOPE_VAR}", tmp_path, what="env.X")


def test_rate_limiter_allows_rpm_per_rolling_minute(mcp_mod):
    from importlib import import_module

    callbacks = import_module(mcp_mod.__name__ + ".callbacks")
    now = [0.0]
    limiter = callbacks.RateLimiter(2, clock=lambda: now[0])
    assert limiter.try_acquire() and limiter.try_acquire() and not limiter.try_acquire()
    now[0] = 61.0
    assert limiter.try_acquire()
