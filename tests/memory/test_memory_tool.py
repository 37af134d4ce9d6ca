"""The built-in `memory` tool: add / replace / remove, clear errors, limits with usage."""

from __future__ import annotations

from pathlib import Path

import pytest

import talaria


@pytest.fixture
def memory(memory_mod, home):
    tools: list[talaria.Tool] = []
    memory_mod.register_tools(tools.append)
    (tool,) = tools

    def call(config=None, **arguments):
        ctx = talaria.ToolContext(
            session_id="s", session_key="k", workspace=home, home=home, config=config or {}
        )
        return tool.handler(arguments, ctx)

    call.tool = tool
    return call


def _file(home: Path, name: str = "MEMORY.md") -> str:
    return (home / "memories" / name).read_text(encoding="utf-8")


def test_schema_is_terse_and_closed(memory):
    tool = memory.tool
    assert tool.name == "memory" and len(tool.description) < 160
    assert tool.parameters["properties"]["action"] == {"enum": ["add", "replace", "remove"]}
    assert tool.parameters["properties"]["target"] == {"enum": ["memory", "user"]}


def test_add_writes_entries_separated_by_section_sign(memory, home):
    out = memory(action="add", target="memory", content="Project uses uv, not pip.")
    assert "Added to MEMORY.md (25/2,200 chars)" in out and "next session" in out
    memory(action="add", target="memory", content="Tests: pytest -q\nslow ones are marked")
    assert _file(home) == "Project uses uv, not pip.\n§\nTests: pytest -q\nslow ones are marked\n"
    memory(action="add", target="user", content="Name: Ada. Prefers short answers.")
    assert _file(home, "USER.md") == "Name: Ada. Prefers short answers.\n"
    assert "nothing changed" in memory(action="add", target="memory", content="Project uses uv, not pip.")


def test_replace_and_remove_match_a_unique_substring(memory, home):
    memory(action="add", target="memory", content="deploy: make ship")
    memory(action="add", target="memory", content="lint: ruff check")
    memory(action="replace", target="memory", match="make ship", content="deploy: make release")
    assert _file(home).split("\n§\n")[0] == "deploy: make release"
    memory(action="remove", target="memory", match="ruff")
    assert _file(home) == "deploy: make release\n"
    memory(action="remove", target="memory", match="deploy")
    assert _file(home) == ""


def test_zero_or_several_matches_are_clear_errors(memory):
    memory(action="add", target="memory", content="db: postgres 16")
    memory(action="add", target="memory", content="db backups: nightly")
    memory(action="add", target="memory", content="cache: redis")
    with pytest.raises(talaria.ToolError, match="no entry in MEMORY.md contains 'mysql' \\(3 entries\\)"):
        memory(action="remove", target="memory", match="mysql")
    with pytest.raises(talaria.ToolError) as err:
        memory(action="replace", target="memory", match="db", content="x")
    message = str(err.value)
    assert "matches 2 entries" in message
    assert "1) db: postgres 16" in message and "2) db backups: nightly" in message
    assert "longer substring" in message
    with pytest.raises(talaria.ToolError, match="'match' is required"):
        memory(action="remove", target="memory")


def test_over_the_limit_is_refused_with_current_usage(memory, home):
    config = {"memory": {"memory_char_limit": 100}}
    memory(config, action="add", target="memory", content="a" * 60)
    with pytest.raises(talaria.ToolError) as err:
        memory(config, action="add", target="memory", content="b" * 60)
    message = str(err.value)
    assert "over its limit of 100" in message and "(now 60/100 chars)" in message
    assert "remove" in message
    assert _file(home) == "a" * 60 + "\n"  # unchanged


def test_default_limits(memory):
    with pytest.raises(talaria.ToolError, match="limit of 1,375"):
        memory(action="add", target="user", content="u" * 1400)
    assert "(2,200/2,200 chars)" in memory(action="add", target="memory", content="m" * 2200)


def test_bad_content_is_refused(memory):
    with pytest.raises(talaria.ToolError, match="'content' is required"):
        memory(action="add", target="memory", content="   ")
    with pytest.raises(talaria.ToolError, match="separates entries"):
        memory(action="add", target="memory", content="one\n§\ntwo")


def test_writes_are_atomic_and_leave_no_temp_files(memory, home):
    for i in range(5):
        memory(action="add", target="memory", content=f"entry {i}")
    leftovers = [p.name for p in (home / "memories").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_bad_limit_config_names_the_key(memory_mod, home):
    with pytest.raises(talaria.ConfigError, match=r"\[memory\] user_char_limit must be a positive integer"):
        memory_mod.MemoryStore(home, {"memory": {"user_char_limit": "lots"}})
