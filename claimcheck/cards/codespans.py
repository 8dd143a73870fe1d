"""Where a Markdown body holds code: code spans, fenced and indented code blocks.

Citations inside code are recognised (lint checks them) but never rendered as badges, so the
scanner needs the exact character ranges of code. markdown-it-py's block parser settles the
block-level cases; bodies with no block-level construct take a fast path that finds inline code
spans the way CommonMark does, without importing markdown-it at all.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Sequence
from typing import Any

# Block-level constructs whose code-ness only a real Markdown parse can settle: fences, indented
# lines (code blocks, or list continuations), block quotes and HTML blocks (and tables, which
# need a "|"). The pattern starts with a newline so that the regex engine can skip to candidate
# lines; the text is searched with a newline in front, so its first line counts too.
_BLOCK_LINE = re.compile(r"\n(?: {0,3}(?:```|~~~|>|<)| {4}|\t)")


def may_hold_code(markdown: str) -> bool:
    """Whether a body has a backtick, a ``~~~`` fence or an indented line (plain substring
    tests: a body without any of them holds no code at all)."""
    if "`" in markdown or "~~~" in markdown:
        return True
    lines = "\n" + markdown
    return "\n    " in lines or "\n\t" in lines


def has_block_hint(markdown: str) -> bool:
    """Whether a body has a line that may open block-level code, a quote, HTML or a table."""
    return "|" in markdown or _BLOCK_LINE.search("\n" + markdown) is not None
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
        if not may_hold_code(markdown):
            return []
        if not has_block_hint(markdown):
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
    items each start a new inline block), then scanned like any inline token. Only the blocks
    that hold a backtick are delimited and scanned, so a long body with one code span costs a
    few lines of work, not one step per line.
    """
    regions: list[tuple[int, int]] = []
    count = len(line_starts)

    def line(index: int) -> str:
        end = line_starts[index + 1] if index + 1 < count else len(markdown)
        return markdown[line_starts[index] : end]

    def starts_block(index: int) -> bool:  # for a non-blank line
        if index == 0 or _HEADING_OR_ITEM.match(line(index)):
            return True
        before = line(index - 1)
        return not before.strip() or before.lstrip().startswith("#")

    def ends_block(index: int) -> bool:  # for a non-blank line
        if index + 1 == count or line(index).lstrip().startswith("#"):
            return True
        after = line(index + 1)
        return not after.strip() or _HEADING_OR_ITEM.match(after) is not None

    tick = markdown.find("`")
    while tick != -1:
        first = last = bisect.bisect_right(line_starts, tick) - 1
        while not starts_block(first):
            first -= 1
        while not ends_block(last):
            last += 1
        block_end = line_starts[last + 1] if last + 1 < count else len(markdown)
        regions.extend(_code_spans(markdown, line_starts[first], block_end))
        tick = markdown.find("`", block_end)
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
    # the last region starting at or before position: (start, end) <= (position, inf)
    index = bisect.bisect_right(regions, (position, math.inf)) - 1
    return index >= 0 and position < regions[index][1]
