"""The REPL's slash commands, driven through its dispatcher against a scripted model.

Each test runs the real ``Repl`` object's ``dispatch`` on a live runtime and reads what it
printed; the tmux test covers the terminal side (streaming, approvals, Ctrl-C, Ctrl-D).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import talaria
from talaria import Runtime, SlashCommand, TurnOptions
from talaria.testing import ScriptedModel, load_plugin_module, make_kernel

_PKG = load_plugin_module("cli_channel").__name__
repl_mod = importlib.import_module(_PKG + ".repl")
slash = importlib.import_module(_PKG + ".slash")


class _SlashPlugin:
    """A plugin adding /echo (sync), /shout (async) and /broken (raises)."""

    @talaria.hookimpl
    def register_slash_commands(self, register: Any) -> None:
        register(SlashCommand(name="echo", description="Repeat the arguments.", args_hint="TEXT",
                              handler=lambda args, ctx: f"echo: {args} (key {ctx.session_key})"))

        async def shout(args: str, ctx: Any) -> None:
            ctx.print(args.upper())

        register(SlashCommand(name="shout", description="Print the arguments loudly.", handler=shout))

        def broken(args: str, ctx: Any) -> str:
            raise RuntimeError("plugin bug")

        register(SlashCommand(name="broken", description="Always fails.", handler=broken))


def _model() -> ScriptedModel:
    def script(request: Any) -> str:
        if request.purpose == "summary":
            return "SUMMARY: the user asked numbered questions."
        return f"answer to {request.messages[-1].content[:12]} " + "detail " * 60

    model = ScriptedModel(default=None, context_window=200_000)
    model.default = script  # type: ignore[assignment]
    return model


@dataclass
class Chat:
    repl: Any
    out: list[str]

    async def __call__(self, line: str) -> bool:
        self.out.clear()
        return await slash.dispatch(self.repl, line)

    @property
    def text(self) -> str:
        return "\n".join(self.out)

    async def turn(self, text: str) -> Any:
        record = await self.repl.runtime.run_turn(text, session_key=self.repl.session_key)
        assert record.end_reason == "completed", record
        return record


@pytest.fixture()
async def chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Chat]:
    monkeypatch.setenv("TALARIA_HOME", str(tmp_path / "home"))
    kernel = make_kernel(tmp_path / "home", _model().plugin(), ("slashy", _SlashPlugin()),
                         bundled=("compressor", "files", "skills"), workspace=tmp_path)
    repl = repl_mod.Repl(state=None)
    out: list[str] = []
    repl.say = out.append  # type: ignore[method-assign]
    async with Runtime(kernel, options=TurnOptions(channel="cli")) as runtime:
        repl.runtime = runtime
        yield Chat(repl, out)


async def test_help_lists_every_builtin_and_plugin_command(chat: Chat) -> None:
    assert await chat("/help")
    for name in ("help", "new", "resume", "sessions", "model", "compress", "usage", "tools", "mcp", "plugins",
                 "skills", "exit", "echo", "shout"):
        assert f"/{name}" in chat.text, name
    assert "Repeat the arguments." in chat.text


async def test_plugin_commands_run_through_the_hook(chat: Chat) -> None:
    assert await chat("/echo hello there")
    assert chat.out == [f"echo: hello there (key {chat.repl.session_key})"]
    assert await chat("/shout quiet")
    assert chat.out == ["QUIET"]
    assert await chat("/broken")  # a plugin's bug is reported; the conversation goes on
    assert "/broken failed: RuntimeError: plugin bug" in chat.text
    assert await chat("/nope")
    assert "unknown command /nope" in chat.text


async def test_exit_and_quit_leave(chat: Chat) -> None:
    assert await chat("/exit") is False
    assert await chat("/quit") is False


async def test_compress_rotates_the_session_and_says_what_changed(chat: Chat) -> None:
    assert await chat("/compress")
    assert chat.text.startswith("Nothing compressed: this session has no history yet")
    for i in range(30):
        await chat.turn(f"question {i} " + "words " * 40)
    store = chat.repl.runtime.store
    parent = await store.current_session(chat.repl.session_key)

    assert await chat("/compress the numbered questions")

    child = await store.current_session(chat.repl.session_key)
    assert child.id != parent.id and child.parent_session_id == parent.id
    match = re.fullmatch(r"compressed (\d+) → (\d+) messages, ([\d.]+k?) → ([\d.]+k?) tokens \(compressor\); "
                         r"now in session (\S+)", chat.text)
    assert match, chat.text
    assert int(match[1]) == 60 and int(match[2]) < 60
    assert match[5] == child.id
    record = await chat.turn("and now?")  # the conversation goes on in the child
    assert record.session_id == child.id


async def test_model_shows_and_switches(chat: Chat) -> None:
    assert await chat("/model")
    assert chat.text == "Model: scripted/test"
    assert await chat("/model scripted/backup")
    assert "scripted/backup" in chat.text
    record = await chat.turn("hi")
    assert record.model == "backup"
    assert await chat("/model nosuch/model")
    assert chat.text.startswith("/model: ") and chat.repl.runtime.options.model == "scripted/backup"


async def test_usage_sessions_new_and_resume(chat: Chat) -> None:
    assert await chat("/usage")
    assert "No model calls" in chat.text
    first = await chat.turn("remember the pelican")
    assert await chat("/usage")
    assert "scripted/test: 1 calls · 10 in · 5 out" in chat.text
    assert await chat("/sessions")
    assert any(line.startswith(f"* {first.session_id[:14]}") for line in chat.text.splitlines())

    old_key = chat.repl.session_key
    assert await chat("/new")
    assert chat.repl.session_key != old_key and "New session started." in chat.text
    assert await chat("/usage")
    assert "No model calls" in chat.text

    assert await chat("/resume pelican")
    assert chat.repl.session_key == old_key
    assert chat.text.startswith(f"Resumed {first.session_id[:14]}") and "2 messages" in chat.text


async def test_tools_plugins_mcp_and_skills(chat: Chat) -> None:
    assert await chat("/tools")
    assert "read_file:" in chat.text
    assert await chat("/plugins")
    assert "compressor" in chat.text and "slashy" in chat.text
    assert await chat("/mcp")
    assert "No MCP servers configured" in chat.text
    assert await chat("/skills")
    assert chat.text and "not loaded" not in chat.text
