"""A paper's title, authors and year from its identifier, for ``claimcheck new paper``.

arXiv answers through its API (Atom), a DOI through Crossref's REST API, an OpenReview id through
OpenReview's notes API. A ``url`` names no metadata service. Every lookup is best effort: without
a network, or with an answer that cannot be read, :func:`lookup` returns what it has and the
reason, and the card gets clear placeholders instead (which lint points out).

Base addresses: ``CLAIMCHECK_ARXIV_API``, ``CLAIMCHECK_CROSSREF_API``
(``https://api.crossref.org``), ``CLAIMCHECK_OPENREVIEW_API`` (``https://api.openreview.net``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from claimcheck.cards.identifiers import PaperId
from claimcheck.sources.fetch import FetchError, arxiv_api_entry, base_url, http_get

__all__ = ["Metadata", "lookup"]

_ATOM = "{http://www.w3.org/2005/Atom}"
_LIMIT = 5_000_000


@dataclass(frozen=True)
class Metadata:
    """What a metadata service said (empty fields: unknown) and why anything is missing."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str = ""
    problem: str = ""


def _clean(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text or "")).strip()


def _arxiv(identifier: str) -> Metadata:
    entry = arxiv_api_entry(identifier)
    published = entry.findtext(f"{_ATOM}published", "")
    year = int(published[:4]) if published[:4].isdigit() else None
    authors = [_clean(a.findtext(f"{_ATOM}name", "")) for a in entry.findall(f"{_ATOM}author")]
    return Metadata(_clean(entry.findtext(f"{_ATOM}title", "")), [a for a in authors if a], year)


def _json(url: str) -> Any:
    try:
        return json.loads(http_get(url, limit=_LIMIT))
    except ValueError as error:
        raise FetchError(f"{url}: unreadable answer ({error})") from None


def _crossref(doi: str) -> Metadata:
    api = base_url("CLAIMCHECK_CROSSREF_API", "https://api.crossref.org")
    message = _json(f"{api}/works/{urllib.parse.quote(doi, safe='/')}").get("message") or {}
    titles = message.get("title") or [""]
    authors = [
        _clean(f"{a.get('given', '')} {a.get('family', '')}") or _clean(a.get("name"))
        for a in message.get("author") or [] if isinstance(a, dict)
    ]
    parts = ((message.get("issued") or {}).get("date-parts") or [[None]])[0]
    year = parts[0] if parts and isinstance(parts[0], int) else None
    venue = _clean((message.get("container-title") or [""])[0])
    return Metadata(_clean(titles[0]), [a for a in authors if a], year, venue)


def _value(content: dict[str, Any], key: str) -> Any:
    """OpenReview API 2 wraps each field as ``{"value": ...}``; API 1 does not."""
    item = content.get(key)
    return item.get("value") if isinstance(item, dict) else item


def _openreview(identifier: str) -> Metadata:
    api = base_url("CLAIMCHECK_OPENREVIEW_API", "https://api.openreview.net")
    notes = _json(f"{api}/notes?{urllib.parse.urlencode({'id': identifier})}").get("notes") or []
    if not notes:
        raise FetchError(f"OpenReview has no note {identifier}")
    note = notes[0]
    content = note.get("content") or {}
    authors = _value(content, "authors") or []
    stamp = note.get("pdate") or note.get("cdate") or note.get("tcdate")
    year = dt.datetime.fromtimestamp(stamp / 1000, dt.timezone.utc).year if isinstance(
        stamp, (int, float)) else None
    return Metadata(_clean(_value(content, "title")), [_clean(a) for a in authors if a], year,
                    _clean(_value(content, "venue")))


def lookup(paper: PaperId) -> Metadata:
    """Ask the paper's metadata service; on any failure return the reason in ``problem``."""
    readers = {"arxiv": _arxiv, "doi": _crossref, "openreview": _openreview}
    reader = readers.get(paper.scheme)
    if reader is None:
        return Metadata(problem="a URL names no metadata service")
    try:
        return reader(paper.id)
    except FetchError as error:
        return Metadata(problem=error.message)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        return Metadata(problem=f"unexpected answer from the metadata service ({error})")
