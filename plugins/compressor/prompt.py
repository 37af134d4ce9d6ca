"""What the summarizer model reads: the serialized middle and the structured template."""

from __future__ import annotations

import json
from collections.abc import Sequence

from talaria import Message

__all__ = ["SUMMARY_PREFIX", "build_prompt", "serialize", "summary_content", "strip_prefix"]

#: Starts the content of every summary message the compressor writes.
SUMMARY_PREFIX = (
    "[Summary of earlier conversation — reference only. Earlier messages were compacted "
    "into this summary to save context. Do not reply to it; respond to the latest user "
    "message below.]\n\n"
)

_SECTIONS = (
    "Goal",
    "Constraints & preferences",
    "Done",
    "Current state",
    "Open questions",
    "Relevant files",
    "Next step",
)


def summary_content(summary: str) -> str:
    """The content of the summary message for ``summary`` (prefixed with the note)."""
    return SUMMARY_PREFIX + summary.strip()


def strip_prefix(content: str) -> str:
    """The summary text of a summary message's content (the note removed)."""
    return content[len(SUMMARY_PREFIX):] if content.startswith(SUMMARY_PREFIX) else content


def _clip(text: str, cap: int) -> str:
    """Keep the start and the end of ``text`` within ``cap`` characters (2/3 head, 1/4 tail)."""
    if len(text) <= cap:
        return text
    head = cap * 2 // 3
    tail = cap // 4
    return f"{text[:head]}\n[… {len(text) - head - tail} chars omitted …]\n{text[-tail:]}"


def _render(message: Message, message_chars: int, args_chars: int, *, brief_tools: bool = False) -> str:
    if message.role == "tool":
        status = f" {message.status}" if message.status and message.status != "ok" else ""
        header = f"[tool result {message.name or ''}{status}]".replace(" ]", "]")
        if brief_tools:
            return f"{header} ({len(message.content)} chars, not shown)"
    else:
        header = f"[{message.role}]"
    parts = [header]
    if message.content:
        parts.append(_clip(message.content, message_chars))
    for call in message.tool_calls:
        args = call.raw_arguments if call.raw_arguments is not None else json.dumps(
            dict(call.arguments), ensure_ascii=False, default=str
        )
        parts.append(f"→ called {call.name}({_clip(args, args_chars)})")
    return "\n".join(parts)


def serialize(
    messages: Sequence[Message], *, message_chars: int, args_chars: int, budget_chars: int
) -> str:
    """Render ``messages`` as plain text for the summarizer, within ``budget_chars``.

    Each message is capped at ``message_chars`` (tool arguments at ``args_chars``),
    keeping its start and end. Over budget, in order: the caps are halved (down to 200
    characters a message); tool outputs shrink to a one-line mention; finally the whole
    text keeps its start and end (the middle is marked omitted).
    """
    floor = 200
    while True:
        text = "\n\n".join(_render(m, message_chars, args_chars) for m in messages)
        if len(text) <= budget_chars or message_chars <= floor:
            break
        message_chars = max(floor, message_chars // 2)
        args_chars = max(floor // 2, args_chars // 2)
    if len(text) > budget_chars:
        text = "\n\n".join(_render(m, message_chars, args_chars, brief_tools=True) for m in messages)
    return _clip(text, max(budget_chars, 1_000))


def build_prompt(
    transcript: str, *, previous_summary: str | None, focus: str | None, target_tokens: int
) -> str:
    """The instruction for the summarizer: template, earlier summary, focus, transcript."""
    sections = "\n".join(f"## {name}" for name in _SECTIONS)
    lines = [
        "You are compacting the history of a conversation between a user and an AI agent "
        "that uses tools. Write a summary that lets the agent continue the work without the "
        "original messages. Be concrete: keep names, paths, commands, numbers, decisions, "
        "errors and their fixes; drop chit-chat. Do not invent anything.",
        "",
        f"Use exactly these sections (write 'none' under an empty one), about {target_tokens} "
        f"tokens in total:",
        sections,
    ]
    if previous_summary:
        lines += [
            "",
            "An earlier part of the conversation was already summarized: the previous summary "
            "is below. UPDATE it with the new messages that follow it: keep what is still true, move finished work to "
            "'Done', replace what changed. Output one merged summary, not two.",
            "<previous-summary>",
            previous_summary.strip(),
            "</previous-summary>",
        ]
    if focus:
        lines += [
            "",
            f"The user asked to focus the summary on: {focus.strip()}. Keep everything about "
            "it in detail; shorten the rest.",
        ]
    lines += ["", "<messages>", transcript, "</messages>", "", "Write the summary now."]
    return "\n".join(lines)
