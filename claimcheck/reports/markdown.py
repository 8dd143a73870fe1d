"""Markdown code spans that hold any text: a DOI, a path or a check name with backticks in it.

CommonMark ends a code span at the first run of backticks as long as its opening one, so
```` `10.1234/a`b` ```` closes early and the rest of the text becomes Markdown. :func:`code_span`
opens with one backtick more than the longest run inside, pads with a space where the text
starts or ends with a backtick (CommonMark strips one such space on each side), folds line breaks
to spaces (a span cannot cross a table row) and, in a table cell, escapes ``|`` (GitHub ends a
cell at it, even inside a span). Control characters are shown escaped
(:mod:`claimcheck.core.visible`).
"""

from __future__ import annotations

import re

from claimcheck.core.visible import visible

__all__ = ["code_span"]


def code_span(text: str, in_table: bool = False) -> str:
    """``text`` as one inline code span, whatever backticks it holds (``in_table``: in a cell)."""
    text = visible(" ".join(text.split()))
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"
