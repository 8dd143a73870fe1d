"""Paper identifiers: arXiv ids, DOIs, OpenReview ids and URLs, with near-miss hints.

A paper card names its paper by exactly one of ``arxiv``, ``doi``, ``openreview`` or ``url``
(a paper known only by a URL is then named by its card's slug). Each kind has a *key*, the one
string that identifies the paper across the wiki, and the prefix of its claims' global ids:

=============  ==================================  =============================================
field          key                                  global id of claim ``x``
=============  ==================================  =============================================
``arxiv``      ``2101.12491``                       ``2101.12491/x`` (unchanged since the start)
``doi``        ``doi:10.1038/s41598-021-93977-0``   ``doi:10.1038/s41598-021-93977-0/x``
``openreview`` ``openreview:HJWLfGWRb``             ``openreview:HJWLfGWRb/x``
``url``        ``url:<card slug>``                  ``url:matrix-capsules/x``
=============  ==================================  =============================================

DOIs are case-insensitive, so their key is lower case. A citation uses the same scheme names:
``[doi:10.1038/s41598-021-93977-0 tab. 2]``, ``[openreview:HJWLfGWRb §3]``, ``[url:slug §2]``.
Claim ids never contain ``/``, so the paper key is everything before a global id's last ``/``;
the results store turns a key into a safe file name (:func:`claimcheck.store.results.result_stem`).

Every checker raises :class:`IdentifierError` with a hint for the common near misses: a URL
pasted instead of an id, a ``doi:``/``arXiv:`` prefix, a version in a card's ``arxiv`` field.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = [
    "ARXIV_ID_PATTERN",
    "DOI_PATTERN",
    "OPENREVIEW_PATTERN",
    "PAPER_KEY_PATTERN",
    "SCHEMES",
    "IdentifierError",
    "PaperId",
    "arxiv_digits_problem",
    "check_arxiv",
    "check_doi",
    "check_identifier",
    "check_openreview",
    "one_edit_apart",
    "paper_label",
    "paper_link",
    "parse_paper_key",
]

SCHEMES = ("arxiv", "doi", "openreview", "url")
ARXIV_ID_PATTERN = r"^(\d{4}\.\d{4,5}|[a-z][a-z-]*(\.[A-Z]{2})?/\d{7})$"
DOI_PATTERN = r"^10\.\d{4,9}/[^\s\],]{1,200}$"
OPENREVIEW_PATTERN = r"^[A-Za-z0-9_-]{5,40}$"
_SLUG = r"[a-z0-9]+(-[a-z0-9]+)*"
PAPER_KEY_PATTERN = (
    r"^((\d{4}\.\d{4,5}|[a-z][a-z-]*(\.[A-Z]{2})?/\d{7})|doi:10\.\d{4,9}/[^\s\],]{1,200}"
    r"|openreview:[A-Za-z0-9_-]{5,40}|url:" + _SLUG + ")$"
)
"""An item of a concept card's ``papers:``: a bare arXiv id, or ``scheme:id`` for the others."""

_ARXIV = re.compile(ARXIV_ID_PATTERN)
_NEW_ARXIV = re.compile(r"\d{2}(?P<month>\d{2})\.\d{4,5}")
_DOI = re.compile(DOI_PATTERN)
_OPENREVIEW = re.compile(OPENREVIEW_PATTERN)
_SLUG_RE = re.compile(f"^{_SLUG}$")
_ARXIV_URL = re.compile(
    r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|e-print)/(?P<id>[^?#\s]+?)"
    r"(?:\.pdf)?/?$", re.IGNORECASE)
_DOI_URL = re.compile(r"^(?:https?://)?(?:dx\.)?doi\.org/(?P<id>\S+)$", re.IGNORECASE)
_OPENREVIEW_URL = re.compile(
    r"^(?:https?://)?openreview\.net/(?:forum|pdf)\?(?:.*&)?id=(?P<id>[^&#\s]+)", re.IGNORECASE)
_VERSIONED = re.compile(r"^(?P<id>.+?)v(?P<version>\d+)$")


class IdentifierError(ValueError):
    """An identifier that does not parse; ``hint`` proposes the repaired form, if any."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message if hint is None else f"{message} ({hint})")
        self.message = message
        self.hint = hint


@dataclass(frozen=True)
class PaperId:
    """One paper's identity: ``scheme`` (arxiv, doi, openreview, url) and ``id``.

    For ``url`` papers ``id`` is the card's slug (the URL itself is not an identifier: it may
    change, and it does not fit inside a citation).
    """

    scheme: str
    id: str

    @property
    def key(self) -> str:
        """The wiki-wide key: a bare arXiv id, else ``scheme:id`` (DOIs lower-cased)."""
        if self.scheme == "arxiv":
            return self.id
        if self.scheme == "doi":
            return f"doi:{self.id.lower()}"
        return f"{self.scheme}:{self.id}"

    @property
    def label(self) -> str:
        """A reader's name for it: ``arXiv 2101.12491``, ``DOI 10.1038/...``."""
        names = {"arxiv": "arXiv", "doi": "DOI", "openreview": "OpenReview", "url": "paper"}
        return f"{names[self.scheme]} {self.id}"

    @property
    def link(self) -> str | None:
        """The paper's landing page (``None`` for ``url`` papers: the card holds the URL)."""
        if self.scheme == "arxiv":
            return f"https://arxiv.org/abs/{self.id}"
        if self.scheme == "doi":
            return f"https://doi.org/{self.id}"
        if self.scheme == "openreview":
            return f"https://openreview.net/forum?id={self.id}"
        return None


def _near_miss(text: str, noun: str, url: re.Pattern[str], prefix: str,
               alone: str = "the id") -> None:
    """Raise for a URL pasted instead of an id, or for the scheme written as a prefix."""
    token = text.strip()
    from_url = url.match(token)
    if from_url is not None:
        raise IdentifierError(f"not {noun}: {text!r}",
                              f"write {alone} alone: `{_unversioned(from_url['id'])}`")
    if token.lower().startswith(prefix):
        raise IdentifierError(f"not {noun}: {text!r}",
                              f"drop the prefix: `{token[len(prefix):].strip()}`")


def check_arxiv(text: str, *, allow_version: bool = False) -> tuple[str, int | None]:
    """Validate an arXiv id; return it without its version, and the version (or ``None``)."""
    _near_miss(text, "an arXiv id", _ARXIV_URL, "arxiv:")
    identifier, version = text.strip(), None
    versioned = _VERSIONED.match(identifier)
    if versioned is not None and _ARXIV.match(versioned["id"]):
        identifier, version = versioned["id"], int(versioned["version"])
        if not allow_version:
            raise IdentifierError(
                f"not an arXiv id: {text!r} (a card names the paper, not a version)",
                f"write `{identifier}` and pin the version under `source: {{version: "
                f"{version}}}`")
        if version == 0:
            raise IdentifierError("arXiv versions start at v1")
    if _ARXIV.match(identifier) is None:
        hint = "write a new-style id like `2101.12491` or an old-style one like `cs/0112017`"
        raise IdentifierError(f"not an arXiv id: {text!r}", hint)
    new_style = _NEW_ARXIV.fullmatch(identifier)
    if new_style is not None and not 1 <= int(new_style["month"]) <= 12:
        raise IdentifierError(f"not an arXiv id: {text!r} (month out of range)")
    digits = arxiv_digits_problem(identifier)
    if digits is not None:
        raise IdentifierError(f"malformed arXiv id {text!r}: {digits}",
                              "copy the id from the paper's arXiv page")
    return identifier, version


def arxiv_digits_problem(identifier: str) -> str | None:
    """Why a new-style arXiv id (``YYMM.NNNNN``) has the wrong number of digits after its dot:
    ids from 1501 on have five, earlier ones four; ``None`` when it has the right number (or is
    no new-style id)."""
    match = re.fullmatch(r"([0-9]{4})\.([0-9]+)", identifier)
    if match is None:
        return None
    wanted = 5 if int(match[1]) >= 1501 else 4
    if len(match[2]) == wanted:
        return None
    since = "from 1501 on" if wanted == 5 else "before 1501"
    return f"ids {since} have {wanted} digits after the dot, this one {len(match[2])}"


def one_edit_apart(first: str, second: str) -> bool:
    """Whether ``second`` is ``first`` with one character inserted, deleted or replaced."""
    if abs(len(first) - len(second)) > 1 or first == second:
        return False
    if len(first) == len(second):
        return sum(a != b for a, b in zip(first, second, strict=True)) == 1
    short, long = sorted((first, second), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _unversioned(token: str) -> str:
    versioned = _VERSIONED.match(token)
    return versioned["id"] if versioned and _ARXIV.match(versioned["id"]) else token


def check_doi(text: str) -> str:
    """Validate a DOI (``10.<registrant>/<suffix>``) and return it."""
    _near_miss(text, "a DOI", _DOI_URL, "doi:", "the DOI")
    if _DOI.match(text.strip()) is None:
        raise IdentifierError(
            f"not a DOI: {text!r}", "a DOI starts with '10.', e.g. `10.1038/s41598-021-93977-0`")
    return text.strip()


def check_openreview(text: str) -> str:
    """Validate an OpenReview note id (the ``id=`` of its forum URL) and return it."""
    _near_miss(text, "an OpenReview id", _OPENREVIEW_URL, "openreview:")
    if _OPENREVIEW.match(text.strip()) is None:
        raise IdentifierError(
            f"not an OpenReview id: {text!r}",
            "an OpenReview id is the `id=` of the forum URL, e.g. `HJWLfGWRb`")
    return text.strip()


def check_identifier(scheme: str, text: str) -> str:
    """Validate ``text`` as an id of ``scheme`` (``url`` ids are card slugs)."""
    if scheme == "arxiv":
        return check_arxiv(text)[0]
    if scheme == "doi":
        return check_doi(text)
    if scheme == "openreview":
        return check_openreview(text)
    if scheme == "url":
        if _SLUG_RE.match(text) is None:
            raise IdentifierError(f"not a card slug: {text!r}",
                                  "a paper known by its URL is named by its card's slug")
        return text
    raise IdentifierError(f"unknown scheme {scheme!r}", f"use one of {', '.join(SCHEMES)}")


def paper_label(key: str) -> str:
    """A paper key in citation form: ``arxiv:2101.12491``, ``doi:10.1038/...``."""
    return key if ":" in key else f"arxiv:{key}"


def paper_link(key: str) -> str:
    """The landing page of the paper with this key (``#`` when it has none, a ``url`` paper)."""
    try:
        return parse_paper_key(key).link or "#"
    except IdentifierError:
        return "#"


@functools.lru_cache(maxsize=4096)
def parse_paper_key(text: str) -> PaperId:
    """``2101.12491``, ``doi:10.1/x``, ``openreview:ID`` or ``url:slug`` as a :class:`PaperId`.

    Also accepts ``arxiv:ID`` (the citation form). Raises :class:`IdentifierError`.
    """
    scheme, colon, rest = text.strip().partition(":")
    if colon and scheme.lower() in SCHEMES and not rest.startswith("//"):
        if scheme != scheme.lower():
            raise IdentifierError(f"scheme must be lower case: {scheme!r}",
                                  f"write `{scheme.lower()}:{rest}`")
        return PaperId(scheme, check_identifier(scheme, rest))
    for pattern, name in ((_DOI_URL, "doi"), (_OPENREVIEW_URL, "openreview")):
        found = pattern.match(text.strip())
        if found is not None:
            raise IdentifierError(f"not a paper key: {text!r}",
                                  f"write `{name}:{found['id']}`")
    if _DOI.match(text.strip()):
        raise IdentifierError(f"not a paper key: {text!r}", f"write `doi:{text.strip()}`")
    return PaperId("arxiv", check_arxiv(text)[0])
