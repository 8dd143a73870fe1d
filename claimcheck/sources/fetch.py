"""``claimcheck papers fetch``: download what the cards pin, or pin the latest version.

Per identifier kind:

==============  ==============================================================================
``arxiv``       the e-print (LaTeX; arXiv sends the PDF when a paper has no source) of the
                pinned version, or with ``--pin`` of the latest version (asked from the arXiv
                API), whose version, kind and sha256 are then written into the card
``openreview``  the PDF at ``openreview.net/pdf?id=ID`` (no LaTeX: locators and quotes cannot
                be checked, and the tool says so)
``doi``         nothing by the DOI alone (a DOI names a landing page, not a file); a card may
                give ``source: {url: ..., sha256: ...}`` to fetch a file it trusts
``url``         ``source.url`` if set, else the card's ``url`` when it points at a file
==============  ==============================================================================

A download whose sha256 differs from the card's pin is refused: nothing is stored and the
command fails for that paper (others go on). Base addresses can be redirected for mirrors and
tests: ``CLAIMCHECK_ARXIV_URL`` (default ``https://arxiv.org``), ``CLAIMCHECK_ARXIV_API``
(``https://export.arxiv.org/api/query``), ``CLAIMCHECK_OPENREVIEW_URL``
(``https://openreview.net``).
"""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from claimcheck.cards.frontmatter import PaperCard, SourceKind
from claimcheck.cards.loader import LoadedCard
from claimcheck.core.errors import ClaimcheckError
from claimcheck.core.version import __version__
from claimcheck.sources.cache import MAX_SOURCE_BYTES, SourceCache, sha256_of
from claimcheck.sources.pins import write_pin

__all__ = ["FetchError", "FetchOutcome", "arxiv_api_entry", "fetch_card", "http_get"]

MAX_DOWNLOAD_BYTES = MAX_SOURCE_BYTES
TIMEOUT_S = 60.0
_ATOM = "{http://www.w3.org/2005/Atom}"


class FetchError(ClaimcheckError):
    """A paper's source could not be fetched, or was refused."""


@dataclass(frozen=True)
class FetchOutcome:
    """What ``papers fetch`` did for one paper."""

    key: str
    message: str
    sha256: str | None = None
    pinned: bool = False


def base_url(name: str, default: str) -> str:
    """A base address, overridable through the environment (mirrors, tests)."""
    return os.environ.get(name, default).rstrip("/")


def http_get(url: str, limit: int = MAX_DOWNLOAD_BYTES) -> bytes:
    """GET ``url`` (http or https only), at most ``limit`` bytes; raise :class:`FetchError`."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise FetchError(f"refusing to fetch {url!r}: only http and https are allowed")
    request = urllib.request.Request(url, headers={"User-Agent": f"claimcheck/{__version__}"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            data: bytes = response.read(limit + 1)
    except urllib.error.HTTPError as error:
        raise FetchError(f"{url}: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise FetchError(f"{url}: cannot connect ({reason})") from None
    if len(data) > limit:
        raise FetchError(f"{url}: larger than {limit:,} bytes")
    return data


def arxiv_api_entry(arxiv: str) -> ElementTree.Element:
    """The arXiv API's Atom entry of one paper (title, authors, dates, latest version)."""
    api = base_url("CLAIMCHECK_ARXIV_API", "https://export.arxiv.org/api/query")
    query = urllib.parse.urlencode({"id_list": arxiv, "max_results": "1"})
    try:
        feed = ElementTree.fromstring(http_get(f"{api}?{query}", limit=2_000_000))
    except ElementTree.ParseError as error:
        raise FetchError(f"arXiv API: unreadable answer for {arxiv} ({error})") from None
    entry = feed.find(f"{_ATOM}entry")
    if entry is None or entry.findtext(f"{_ATOM}title", "").strip() in ("", "Error"):
        raise FetchError(f"arXiv has no paper {arxiv}")
    return entry


def latest_arxiv_version(arxiv: str) -> int:
    """The latest version of an arXiv paper, from the API entry's ``<id>``."""
    found = re.search(r"v(\d+)$", arxiv_api_entry(arxiv).findtext(f"{_ATOM}id", "").strip())
    if found is None:
        raise FetchError(f"arXiv API: no version in the entry of {arxiv}")
    return int(found[1])


def _kind_of(data: bytes) -> SourceKind:
    return SourceKind.PDF if data.lstrip()[:4] == b"%PDF" else SourceKind.LATEX


def _where(card: PaperCard, pin: bool) -> tuple[str, int | None, SourceKind | None]:
    """The URL to fetch, the version, and the kind the pin expects (``None``: any)."""
    paper = card.paper_id
    source = card.source if not pin else None
    if paper.scheme == "arxiv":
        arxiv_base = base_url("CLAIMCHECK_ARXIV_URL", "https://arxiv.org")
        if source is not None and source.url:
            return source.url, source.version, source.kind
        version = source.version if source is not None else latest_arxiv_version(paper.id)
        kind = source.kind if source is not None else None
        path = "pdf" if kind is SourceKind.PDF else "e-print"
        return f"{arxiv_base}/{path}/{paper.id}v{version}", version, kind
    if card.source is not None and card.source.url:
        return card.source.url, None, card.source.kind if source is not None else None
    if paper.scheme == "openreview":
        base = base_url("CLAIMCHECK_OPENREVIEW_URL", "https://openreview.net")
        return f"{base}/pdf?id={urllib.parse.quote(paper.id)}", None, SourceKind.PDF
    if paper.scheme == "url" and card.url is not None:
        return card.url, None, None
    raise FetchError(
        f"{paper.label}: a DOI names a landing page, not a file, so there is no source to "
        "fetch; give the file's address under source: url (with its sha256), or cite the "
        "paper's arXiv id if it has one")


def fetch_card(loaded: LoadedCard, cache: SourceCache, pin: bool = False,
               refused: Callable[[str], str | None] | None = None) -> FetchOutcome:
    """Fetch one paper card's source into ``cache``; with ``pin`` write the pin into the card.

    ``refused`` names the refused source (``[tool.claimcheck] refused_sources``) an address is,
    however spelt, or ``None``; such an address is never downloaded. Raises
    :class:`FetchError` (nothing stored) on a refused address, a network error or a hash
    mismatch.
    """
    card = loaded.card
    if not isinstance(card, PaperCard):
        raise FetchError(f"{loaded.display_path} is not a paper card")
    key = card.paper_key
    url, version, expected_kind = _where(card, pin)
    named = refused(url) if refused is not None else None
    if named is not None:
        raise FetchError(
            f"{key}: refused {url}: it is {named}, which [tool.claimcheck] refused_sources "
            "names; nothing was downloaded", loaded.display_path, loaded.position("source")[0])
    pinned = card.source if not pin else None
    if pinned is not None and cache.blob(pinned.sha256) is not None:
        return FetchOutcome(key, f"{key}: already cached (sha256 {pinned.sha256[:12]}…)",
                            pinned.sha256)
    data = http_get(url)
    digest = sha256_of(data)
    if pinned is not None and digest != pinned.sha256:
        raise FetchError(
            f"{key}: refused {url}: its sha256 is {digest}, but the card pins "
            f"{pinned.sha256}; nothing was stored (the file changed, or the pin is wrong: "
            "re-pin with `claimcheck papers fetch --pin` after checking it)",
            loaded.display_path, loaded.position("source")[0])
    kind = _kind_of(data)
    if expected_kind is not None and kind is not expected_kind:
        raise FetchError(f"{key}: {url} sent a {kind.value} file, but the card pins "
                         f"{expected_kind.value}; nothing was stored")
    cache.store(key, version, kind, url, data)
    shown = f"v{version} " if version is not None else ""
    note = "" if kind is SourceKind.LATEX else (
        " (a PDF: locators and quotes cannot be checked against it)")
    message = f"{key}: fetched {shown}{kind.value} (sha256 {digest[:12]}…){note}"
    if pin:
        kept = card.source.url if card.source is not None else None
        write_pin(Path(loaded.path), card, version, kind, digest, kept)
        message += f", pinned in {loaded.display_path}"
    return FetchOutcome(key, message, digest, pin)
