"""``claimcheck papers fetch [ID…] [--pin]``: bring papers' sources into the source cache."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import sys
from functools import partial
from pathlib import Path

from claimcheck.cards.frontmatter import PaperCard
from claimcheck.cards.identifiers import (
    DOI_PATTERN,
    OPENREVIEW_PATTERN,
    SCHEMES,
    IdentifierError,
    parse_paper_key,
)
from claimcheck.cards.loader import LoadedCard
from claimcheck.core.config import load_config
from claimcheck.core.errors import ClaimcheckError, UsageError
from claimcheck.core.exitcodes import ExitCode

__all__ = ["configure_papers_parser", "run_papers"]


def configure_papers_parser(parser: argparse.ArgumentParser) -> None:
    """Add ``papers fetch`` to ``parser``."""
    commands = parser.add_subparsers(dest="papers_command", required=True, metavar="fetch",
                                     parser_class=type(parser))
    fetch = commands.add_parser("fetch", help="download the papers' sources into the cache")
    fetch.add_argument("ids", nargs="*", metavar="ID",
                       help="paper keys (2101.12491, doi:…, openreview:…, url:slug) or card "
                            "slugs (default: every paper card)")
    fetch.add_argument("--pin", action="store_true",
                       help="fetch the latest version and write its pin into the card")
    fetch.add_argument("--wiki", help="wiki folder (default: the configured one)")


def _select(cards: list[LoadedCard], wanted: list[str]) -> list[LoadedCard]:
    papers = [c for c in cards if isinstance(c.card, PaperCard)]
    if not wanted:
        return papers
    chosen: list[LoadedCard] = []
    for index, text in enumerate(wanted):
        match = [c for c in papers if c.card.slug == text]
        if not match:
            _refuse_arxiv_doi(text, papers)
            try:
                key = parse_paper_key(text).key
            except IdentifierError as error:
                _refuse_two_words(text, wanted[index + 1:])
                raise UsageError(f"{text!r} is neither a card slug nor a paper key: {error}"
                                 + _suggestion(text, papers, str(error))) from None
            match = [c for c in papers if isinstance(c.card, PaperCard)
                     and c.card.paper_key == key]
        if not match:
            paper = parse_paper_key(text)
            option = (f" --{paper.scheme} {shlex.quote(paper.id)}"
                      if paper.scheme in ("arxiv", "doi", "openreview") else "")
            closest = _closest_card(text, papers)
            write = f"write one with `claimcheck new paper{option}`, then fetch it"
            raise UsageError(f"no paper card for {text!r}"
                             + (f"{closest} If not, {write}" if closest else f"; {write}"))
        chosen.extend(c for c in match if c not in chosen)
    return chosen


_ARXIV_DOI = re.compile(r"(?i)(?:doi:)?(?:https?://(?:dx\.)?doi\.org/)?10\.48550/arxiv\."
                        r"(?P<id>\S+)")
"""arXiv's own DOI of a paper, ``10.48550/arXiv.ID``: the paper is known by its arXiv id."""


def _refuse_arxiv_doi(text: str, papers: list[LoadedCard]) -> None:
    """Refuse arXiv's DOI of a paper (``doi:10.48550/arXiv.1607.06450``, any case), naming
    the arXiv key to write, and its card where the wiki has one."""
    found = _ARXIV_DOI.fullmatch(text.strip())
    if found is None:
        return
    try:
        key = parse_paper_key(found["id"]).key
    except IdentifierError as error:
        raise UsageError(f"{text!r} is arXiv's DOI of a paper, but {error}") from None
    card = next((c for c in papers if isinstance(c.card, PaperCard)
                 and c.card.paper_key == key), None)
    then = (f" (the card `{card.card.slug}`)" if card is not None
            else f", after `claimcheck new paper --arxiv {key}`")
    raise UsageError(f"{text!r} is arXiv's DOI of a paper: the wiki knows it by its arXiv id; "
                     f"write `{key}`{then}")


def _suggestion(text: str, papers: list[LoadedCard], said: str) -> str:
    """What ``text``, neither a slug nor a paper key, meant: the key of a card whose id it is
    (:func:`_other_forms`), else the closest card (:func:`_closest_card`), else the key forms
    its shape fits."""
    if _held_keys(text, papers):
        return _other_forms(text, papers, said)
    return _closest_card(text, papers) or _other_forms(text, papers, said)


def _held_keys(text: str, papers: list[LoadedCard]) -> list[str]:
    """The paper cards' keys whose id is ``text`` (any case): ``openreview:ID`` for ``ID``."""
    keys = [str(c.card.paper_key) for c in papers if isinstance(c.card, PaperCard)]
    return [key for key in keys if key.split(":", 1)[-1].lower() == text.lower()]


def _closest_card(text: str, papers: list[LoadedCard]) -> str:
    """``; did you mean the card `layer-norm` (`1607.06450`)?`` for the paper card whose slug
    or key is closest to ``text`` (difflib), or ``""`` when none is close."""
    names: dict[str, LoadedCard] = {}
    for loaded in papers:
        if isinstance(loaded.card, PaperCard):
            key = str(loaded.card.paper_key)
            for name in (loaded.card.slug, key, key.split(":", 1)[-1]):
                names.setdefault(name.lower(), loaded)
    written = text.strip().lower().replace("_", "-")
    close = difflib.get_close_matches(written, list(names), n=1, cutoff=0.75)
    if not close:
        return ""
    card = names[close[0]]
    assert isinstance(card.card, PaperCard)
    return f"; did you mean the card `{card.card.slug}` (`{card.card.paper_key}`)?"


def _refuse_two_words(text: str, after: list[str]) -> None:
    """Refuse a scheme's name (any case, a colon or not) followed by an id as the next word
    (``papers fetch openreview ID``), naming the one-word key meant (``openreview:ID``)."""
    scheme = text.lower().rstrip(":")
    if scheme in SCHEMES and after:
        raise UsageError(f"{text!r} {after[0]!r} are two words: a paper key is one; did you "
                         f"mean `{scheme}:{after[0]}`?")


def _other_forms(text: str, papers: list[LoadedCard], said: str = "") -> str:
    """The keys ``text`` may have meant: a paper card's key that ends with it, else the
    ``openreview:``/``doi:`` forms its shape fits (a bare id is read as arXiv's). A form the
    error already names (``said``) is not said again."""
    forms = _held_keys(text, papers) or [f"{scheme}:{text}" for scheme, pattern in (
        ("doi", DOI_PATTERN), ("openreview", OPENREVIEW_PATTERN)) if re.match(pattern, text)]
    if not forms:
        return "" if "(write `" in said else (
            "; a key is an arXiv id, `doi:10.…`, `openreview:ID` or `url:SLUG`")
    new = [form for form in forms if f"`{form}`" not in said]
    if not new:
        return ""
    return "; did you mean " + " or ".join(f"`{form}`" for form in new) + "?"


def run_papers(ns: argparse.Namespace) -> int:
    """Fetch each selected paper; one line each; exit 1 if any failed."""
    from claimcheck.authoring.refused_spelling import refused_one
    from claimcheck.cards.wiki import load_wiki
    from claimcheck.sources.cache import SourceCache
    from claimcheck.sources.fetch import fetch_card

    target = Path(ns.wiki) if ns.wiki else None
    config = load_config(target)
    wiki = load_wiki(config, target)
    for problem in wiki.load_errors:
        print(problem.one_line(), file=sys.stderr)
    cache = SourceCache.for_config(config)
    selected = _select(wiki.cards, list(ns.ids))
    if os.environ.get("CLAIMCHECK_OFFLINE"):
        print(f"nothing was fetched: CLAIMCHECK_OFFLINE is set, so the {len(selected)} "
              "paper(s) asked for were not downloaded", file=sys.stderr)
        return ExitCode.CHECK_ERRORS
    failed = 0
    for loaded in selected:
        try:
            print(fetch_card(loaded, cache, pin=ns.pin,
                             refused=partial(refused_one, refused=config.refused_sources)
                             ).message)
        except ClaimcheckError as error:
            failed += 1
            print(error.one_line(), file=sys.stderr)
    print(fetch_summary(len(selected), failed, str(cache.folder)), file=sys.stderr)
    return ExitCode.CHECK_ERRORS if failed or wiki.load_errors else ExitCode.OK


def fetch_summary(asked: int, failed: int, folder: str) -> str:
    """The last line of ``papers fetch``: what is in the cache now, and never more than that."""
    if asked == 0:
        return "nothing to fetch: no paper card was selected"
    if failed == asked:
        return (f"nothing was fetched: all {asked} download(s) failed (the reasons are above); "
                "the cache is unchanged")
    done = asked - failed
    tail = f"; {failed} failed (the reasons are above)" if failed else ""
    return f"{done} of {asked} source(s) in the cache ({folder}){tail}"
