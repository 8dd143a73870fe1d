"""The markdown-it-free fast path finds the same code spans as the full block parse."""

from __future__ import annotations

import re

import pytest

from claimcheck.cards import codespans

BODIES = [
    "Plain `code [arxiv:2101.12491 §1]` and text [arxiv:2101.12491 §1].\n",
    "# Heading with `a\nparagraph` continues\n\nNew `para` here.\n",
    "- item `one\n- item` two [arxiv:2101.12491 tab. 2]\n",
    "Text ``double `tick` span`` then [arxiv:2101.12491 eq. 5].\n\n`unclosed\n",
    "1. first `x`\n2) second `y [arxiv:2101.12491 §3]`\n",
    "Escaped \\`not code [arxiv:2101.12491 §3]\\` here.\n",
]


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


@pytest.mark.parametrize("body", BODIES)
def test_fast_path_matches_markdown_it(body: str) -> None:
    assert not codespans.has_block_hint(body)
    starts = _line_starts(body)
    fast = codespans.inline_code_regions(body, starts)
    full = codespans.code_regions(body, starts, codespans.block_parser().parse(body))
    assert fast == full
