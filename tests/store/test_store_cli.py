"""``talaria sessions`` commands, driven through click with a CliContext-like ``ctx.obj``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from talaria import Message, ToolCall, Usage
from talaria.store import SessionRow, SqliteStore
from talaria.store.cli import sessions_group


def _seed(db: Path) -> None:
    async def main() -> None:
        async with SqliteStore(db) as store:
            prompt = await store.put_system_prompt("You are Talaria.")
            await store.create_session(SessionRow(id="ses_alpha1", session_key="cli:main", source="cli", provider="openai",
                                                  model="gpt-x", cwd="/ws", title="Alpha work", system_prompt_hash=prompt, created_at=1.0))
            await store.create_session(SessionRow(id="ses_alpha2", session_key="cli:main", source="telegram", created_at=2.0))
            await store.create_session(SessionRow(id="ses_beta", session_key="cli:b", created_at=3.0))
            await store.append_messages("ses_alpha1", [
                Message(role="user", content="find the ```fence``` pelican"),
                Message(role="assistant", tool_calls=(ToolCall(id="c1", name="grep", arguments={"pattern": "pelican"}),)),
                Message(role="tool", content="notes.md:1: ```pelican```", tool_call_id="c1", name="grep", status="ok"),
                Message(role="assistant", content="Found the pelican.", api_content={"x": 1}),
            ], fence=None)
            await store.record_usage("ses_alpha1", "openai", "gpt-x", Usage(input_tokens=10, output_tokens=2), 0.001)
    asyncio.run(main())


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TALARIA_HOME", str(tmp_path))
    obj = SimpleNamespace(home=tmp_path, workspace=tmp_path, config={})
    group = sessions_group()
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(group, list(args), obj=obj, input=input)

    invoke.db = tmp_path / "state.db"  # type: ignore[attr-defined]
    return invoke


def test_empty_home_lists_nothing_and_creates_no_file(cli) -> None:
    result = cli("list")
    assert result.exit_code == 0 and "No sessions" in result.output
    assert json.loads(cli("list", "--json").output) == []
    assert json.loads(cli("search", "x", "--json").output) == []
    assert not cli.db.exists()
    assert cli("show", "abc").exit_code != 0


def test_list_show_search(cli) -> None:
    _seed(cli.db)
    out = cli("list").output
    assert out.index("ses_beta") < out.index("ses_alpha2") < out.index("ses_alpha1")
    assert "Alpha work" in out and "openai/gpt-x" in out
    rows = json.loads(cli("list", "--json", "--source", "cli").output)
    assert [r["id"] for r in rows] == ["ses_alpha1"] and rows[0]["message_count"] == 4

    show = cli("show", "ses_alpha1")
    assert show.exit_code == 0
    assert "Alpha work" in show.output and "grep" in show.output and "Found the pelican." in show.output
    assert "pelican" in show.output and "1 call(s)" in show.output

    hits = json.loads(cli("search", "pelican", "--json").output)
    assert {h["session_id"] for h in hits} == {"ses_alpha1"} and len(hits) == 3
    text = cli("search", "pelican", "AND", "(").output  # hostile words are plain text
    assert "No matches." in text


def test_id_prefixes(cli) -> None:
    _seed(cli.db)
    assert cli("show", "ses_b").exit_code == 0
    ambiguous = cli("show", "ses_alpha")
    assert ambiguous.exit_code == 2 and "several sessions" in ambiguous.output
    missing = cli("show", "zzz")
    assert missing.exit_code == 2 and "no session id starts with" in missing.output


def test_export_markdown_and_jsonl(cli, tmp_path: Path) -> None:
    _seed(cli.db)
    md = cli("export", "ses_alpha1").output
    assert md.startswith("# Alpha work")
    assert "You are Talaria." in md and "## User" in md and "`grep`" in md and "Found the pelican." in md
    assert "````\nnotes.md:1: ```pelican```\n````" in md  # a longer fence around ```

    out = tmp_path / "export.jsonl"
    result = cli("export", "ses_alpha1", "--format", "jsonl", "-o", str(out))
    assert result.exit_code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["system_prompt"] == "You are Talaria."
    messages = lines[1:]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["tool_calls"][0] == {"id": "c1", "name": "grep", "arguments": {"pattern": "pelican"}, "raw_arguments": None}
    assert messages[3]["api_content"] == {"x": 1} and [m["seq"] for m in messages] == [1, 2, 3, 4]


def test_delete_asks_first(cli) -> None:
    _seed(cli.db)
    refused = cli("delete", "ses_b", input="n\n")
    assert refused.exit_code != 0
    assert cli("show", "ses_beta").exit_code == 0
    no_tty = cli("delete", "ses_b")  # no answer at all: nothing is deleted
    assert no_tty.exit_code != 0 and cli("show", "ses_beta").exit_code == 0
    assert cli("delete", "ses_b", input="y\n").exit_code == 0
    assert cli("show", "ses_beta").exit_code == 2
    assert cli("delete", "ses_alpha1", "--yes").exit_code == 0
    assert cli("search", "pelican").output.strip() == "No matches."
