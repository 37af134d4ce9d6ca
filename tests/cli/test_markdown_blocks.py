"""The REPL's markdown block splitter: a block comes out once nothing later can change it,
and the blocks never depend on how the answer was chunked."""

from __future__ import annotations

import importlib
import random

import pytest

from talaria.testing import load_plugin_module

md_blocks = importlib.import_module(load_plugin_module("cli_channel").__name__ + ".md_blocks")
BlockSplitter, split_blocks = md_blocks.BlockSplitter, md_blocks.split_blocks

ANSWERS = {
    "paragraphs": "First paragraph\nstill first.\n\nSecond *one*.\n\n\nThird after two blank lines",
    "heading-then-text": "# Title\nText right under it.\n## Sub\n\nMore.",
    "fence-with-blank-lines": "Here is code:\n```python\ndef f():\n\n    return 1\n```\nAfter the code.",
    "nested-lists": "- one\n  - one.a\n\n    one.a continued\n  - one.b\n- two\n\n- three\n\nAfter the list.",
    "ordered-with-fence": "1. Install:\n   ```sh\n   pip install x\n\n   ```\n2. Run it.\n\nDone.",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nBelow the table.",
    "quote-and-rule": "> quoted\n> lines\n\n---\n\nend",
    "long-fence-markers": "````md\n```\ninner\n```\n````\ntext",
    "tilde-fence": "~~~\ncode ``` not a close\n~~~\n\nx",
    "unclosed-fence": "Look:\n```js\nlet a = 1;\n",
}


def _stream(text: str, cuts: list[int]) -> list[str]:
    splitter = BlockSplitter()
    out: list[str] = []
    start = 0
    for cut in [*cuts, len(text)]:
        out += splitter.feed(text[start:cut])
        start = cut
    return out + splitter.finish()


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_chunking_never_changes_the_blocks_and_nothing_is_lost(name: str) -> None:
    text = ANSWERS[name]
    whole = split_blocks(text)
    assert "".join(whole) == text
    assert _stream(text, list(range(1, len(text)))) == whole  # one character at a time
    rng = random.Random(name)
    for _ in range(20):
        cuts = sorted(rng.sample(range(1, len(text)), k=min(len(text) - 1, rng.randint(1, 12))))
        assert _stream(text, cuts) == whole


def test_paragraphs_end_at_blank_lines() -> None:
    blocks = split_blocks(ANSWERS["paragraphs"])
    assert [b.strip() for b in blocks] == ["First paragraph\nstill first.", "Second *one*.", "Third after two blank lines"]


def test_a_heading_is_a_block_as_soon_as_its_line_ends() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("# Tit") == []
    assert splitter.feed("le\nText") == ["# Title\n"]
    assert [b.strip() for b in split_blocks(ANSWERS["heading-then-text"])] == [
        "# Title", "Text right under it.", "## Sub", "More."]


def test_a_fence_is_one_block_blank_lines_included_and_ends_at_its_closing_line() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("Here is code:\n") == []
    assert splitter.feed("```python\ndef f():\n\n    return 1\n") == ["Here is code:\n"]  # the fence interrupts
    assert splitter.in_fence
    assert splitter.feed("```") == []  # the closing line is not complete yet
    assert splitter.feed("\n") == ["```python\ndef f():\n\n    return 1\n```\n"]
    assert not splitter.in_fence and not splitter.pending


def test_a_list_with_nested_items_and_blank_lines_stays_one_block() -> None:
    blocks = split_blocks(ANSWERS["nested-lists"])
    assert blocks == ["- one\n  - one.a\n\n    one.a continued\n  - one.b\n- two\n\n- three\n\n", "After the list."]


def test_a_list_waits_for_the_line_after_a_blank_line() -> None:
    splitter = BlockSplitter()
    assert splitter.feed("- a\n\n") == []  # a loose list may go on
    assert splitter.feed("- b\n\n") == []
    assert splitter.feed("Then") == []
    assert splitter.feed(" text\n") == ["- a\n\n- b\n\n"]


def test_a_fence_inside_a_list_item_does_not_split_the_list() -> None:
    blocks = split_blocks(ANSWERS["ordered-with-fence"])
    assert blocks[0].startswith("1. Install:") and "2. Run it." in blocks[0]
    assert blocks[1:] == ["Done."]


def test_tables_quotes_and_nested_fence_markers_stay_whole() -> None:
    assert split_blocks(ANSWERS["table"])[0] == "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
    assert [b.strip() for b in split_blocks(ANSWERS["quote-and-rule"])] == ["> quoted\n> lines", "---", "end"]
    assert split_blocks(ANSWERS["long-fence-markers"]) == ["````md\n```\ninner\n```\n````\n", "text"]
    assert split_blocks(ANSWERS["tilde-fence"])[0] == "~~~\ncode ``` not a close\n~~~\n"


def test_an_unclosed_fence_is_rendered_with_the_rest_at_the_end() -> None:
    assert split_blocks(ANSWERS["unclosed-fence"]) == ["Look:\n", "```js\nlet a = 1;\n"]


def test_the_tail_of_a_huge_block_is_bounded() -> None:
    splitter = BlockSplitter()
    splitter.feed("```text\n" + "".join(f"line {i}\n" for i in range(5000)) + "partial")
    tail = splitter.tail(3, 1000)
    assert tail == "line 4998\nline 4999\npartial"
    assert len(splitter.tail(50, 40)) == 40
    assert splitter.tail(10, 10_000).endswith("line 4999\npartial")
