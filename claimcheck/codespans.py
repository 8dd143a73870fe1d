"""Where a Markdown body holds code: code spans, fenced and indented code blocks.

Citations inside code are recognised (lint checks them) but never rendered as badges, so the
scanner needs the exact character ranges of code. markdown-it-py's block parser settles the
block-level cases; bodies with no block-level construct take a fast path that finds inline code
spans the way CommonMark does, without importing markdown-it at all.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from typing import Any

_CODE_HINT = re.compile(r"`|~~~|^(?: {4}|\t)", re.MULTILINE)
# Block-level constructs whose code-ness only a real Markdown parse can settle: fences, indented
# lines (code blocks, or list continuations), block quotes, HTML blocks and tables.
BLOCK_HINT = re.compile(r"^(?: {0,3}(?:```|~~~|>|<)| {4}|\t|.*\|)", re.MULTILINE)
_HEADING_OR_ITEM = re.compile(r"^ {0,3}(?:#{1,6}\s|[-+*]\s|\d{1,9}[.)]\s)")


@functools.cache
def block_parser() -> Any:
    """markdown-it's block parser, built (and imported) only when a body needs it."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


def code_regions(
    markdown: str, line_starts: list[int], tokens: Sequence[Any] | None
) -> list[tuple[int, int]]:
    """Sorted, disjoint ``(start, end)`` character ranges of code blocks and code spans."""
    if tokens is None:
        if _CODE_HINT.search(markdown) is None:
            return []
        if BLOCK_HINT.search(markdown) is None:
            return inline_code_regions(markdown, line_starts)
        tokens = block_parser().parse(markdown)

    def offset(line: int) -> int:
        return line_starts[line] if line < len(line_starts) else len(markdown)

    regions: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    for token in tokens:
        if token.map is None:
            continue
        first, last = token.map
        if token.type in ("fence", "code_block"):
            regions.append((offset(first), offset(last)))
        elif token.type == "inline" and (first, last) not in seen:
            seen.add((first, last))
            regions.extend(_code_spans(markdown, offset(first), offset(last)))
    regions.sort()
    return regions


def inline_code_regions(markdown: str, line_starts: list[int]) -> list[tuple[int, int]]:
    """Code spans of a body without block-level code: the fast path that skips markdown-it.

    Inline content is split where CommonMark would split it (blank lines, headings and list
    items each start a new inline block), then scanned like any inline token.
    """
    regions: list[tuple[int, int]] = []
    block_start: int | None = None
    for index, start in enumerate(line_starts):
        end = line_starts[index + 1] if index + 1 < len(line_starts) else len(markdown)
        line = markdown[start:end]
        blank = not line.strip()
        if block_start is not None and (blank or _HEADING_OR_ITEM.match(line)):
            regions.extend(_code_spans(markdown, block_start, start))
            block_start = None
        if not blank and block_start is None:
            block_start = start
        if block_start is not None and line.lstrip().startswith("#"):
            regions.extend(_code_spans(markdown, block_start, end))
            block_start = None
    if block_start is not None:
        regions.extend(_code_spans(markdown, block_start, len(markdown)))
    return regions


def _code_spans(markdown: str, start: int, end: int) -> list[tuple[int, int]]:
    """Code spans in ``markdown[start:end]``: a backtick run up to the next run of equal length."""
    spans: list[tuple[int, int]] = []
    pos = markdown.find("`", start, end)
    while pos != -1:
        run_end = pos
        while run_end < end and markdown[run_end] == "`":
            run_end += 1
        backslashes = 0
        while pos - backslashes - 1 >= start and markdown[pos - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 1:
            pos += 1
            if pos == run_end:
                pos = markdown.find("`", run_end, end)
            continue
        width = run_end - pos
        closing = _closing_run(markdown, run_end, end, width)
        if closing == -1:
            pos = markdown.find("`", run_end, end)
            continue
        spans.append((pos, closing + width))
        pos = markdown.find("`", closing + width, end)
    return spans


def _closing_run(markdown: str, start: int, end: int, width: int) -> int:
    """Start of the next backtick run of exactly ``width`` backticks, or -1."""
    pos = markdown.find("`", start, end)
    while pos != -1:
        run_end = pos
        while run_end < end and markdown[run_end] == "`":
            run_end += 1
        if run_end - pos == width:
            return pos
        pos = markdown.find("`", run_end, end)
    return -1


def inside(regions: list[tuple[int, int]], position: int) -> bool:
    index = bisect.bisect_right(regions, position, key=lambda region: region[0]) - 1
    return index >= 0 and position < regions[index][1]
