"""Citations in card bodies: ``[arxiv:2101.12491 §3.1, tab. 2]``.

Grammar (EBNF; ``locator`` is defined in :mod:`claimcheck.cards.locators`)::

    citation  = "[" , paper-ref , " " , locator , { ", " , locator } , { " #" , claim-name } ,
                [ " " , quote ] , "]" ;
    claim-name = lower-or-digit , { lower-or-digit } , { ( "-" | "_" ) , lower-or-digit ,
                 { lower-or-digit } } ;   (* a claim id of the cited paper's card *)
    paper-ref = arxiv-ref | doi-ref | openreview-ref | url-ref ;
    arxiv-ref = "arxiv:" , arxiv-id , [ "v" , number ] ;   (* version >= 1 *)
    doi-ref   = "doi:" , doi-id ;
    openreview-ref = "openreview:" , or-char , { or-char } ;   (* 5 to 40 of A-Z a-z 0-9 _ - *)
    url-ref   = "url:" , slug ;                (* a paper known by its URL: its card's slug *)
    quote     = '"' , quote-char , { quote-char } , '"' ;   (* at most 300 characters *)
    quote-char = ? any character except '"', "[" and "]" ? ;
    arxiv-id  = new-id | old-id ;
    new-id    = 4 * digit , "." , 4 * digit , [ digit ] ;  (* 2101.12491; month 01-12;
                                     5 digits after the dot from 1501 on, 4 before *)
    old-id    = archive , [ "." , subject ] , "/" , 7 * digit ;   (* cs/0112017, math.GT/0309136 *)
    archive   = lower , { lower } , [ "-" , lower , { lower } ] ;
    subject   = letter , { letter | "-" } ;
    doi-id    = "10." , digit , { digit } , "/" , doi-char , { doi-char } ;
    doi-char  = ? any character except white space, "," and "]" ? ;

A quote is a short verbatim passage of the paper inside the cited locator; it is checked against
the paper's cached source like a claim's quote (:mod:`claimcheck.sources`).

A claim name says which of the claims at the locator the sentence states:
``[arxiv:2101.12491 tab. 2 #mnist-params]``. A broad locator (``p. 1``, ``tab. 1``, ``§4``)
covers many claims; the named ones are the citation's badge, the others stay in its hover card.
Lint reports a name that is not a claim of the paper, or not at the cited locator, as an error
(with "did you mean"), and a locator covering more than five claims with no name as a warning.

Where a citation counts: an opening ``[`` followed by a scheme (``arxiv``, ``doi``,
``openreview`` or ``url``, any case) and then ``:`` (or white space and a digit).
 Everything else in brackets is prose. A candidate that is a
Markdown link (``[...](url)``), a reference link (``[...][ref]``), a link definition
(``[...]: url``), an image, or escaped (``\\[``) is never a citation. A candidate that breaks the
grammar is reported as a :class:`CitationProblem` whose column points at the offending token.
Citations inside code spans and code blocks are returned with ``in_code=True``.

A citation is plain ASCII outside its quote: one with a full-width ``：`` or digit (anything
NFKC normalisation changes) is reported with its ASCII form, never silently accepted.

Lines and columns are 1-based and count characters (a tab is one column).
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from claimcheck.cards.claims import CLAIM_ID_PATTERN
from claimcheck.cards.codespans import code_regions, inside
from claimcheck.cards.identifiers import (
    SCHEMES,
    IdentifierError,
    PaperId,
    arxiv_digits_problem,
    check_identifier,
)
from claimcheck.cards.locators import Locator, LocatorError, parse_locator

__all__ = [
    "Citation",
    "CitationProblem",
    "CitationSyntaxError",
    "near_misses",
    "parse_citation",
    "scan_citations",
]

_COLONS = ":\uff1a\ufe55\ufe13"
"""``:`` and the colons NFKC makes it (full-width, small, vertical)."""
_CANDIDATE = re.compile(
    rf"\[[ \t]*(?i:arxiv|doi|openreview|url)(?:[ \t]*[{_COLONS}]|[ \t]+\d)")
_SCHEME = re.compile(r"[A-Za-z]+")
_NEW_ARXIV = re.compile(r"\d{2}(?P<month>\d{2})\.\d{4,5}")
_OLD_ARXIV = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z][A-Za-z-]*)?/\d{7}")
_VERSION = re.compile(r"(?P<id>.+?)v(?P<version>\d+)")
_CLAIM_NAME = re.compile(CLAIM_ID_PATTERN.strip("^$"))
MAX_QUOTE_LENGTH = 300
MAX_CITATION_LENGTH = 600
"""A candidate with no ``]`` within this many characters is unclosed (bounds the scan's work)."""
_CLOSED_CANDIDATE = re.compile(
    _CANDIDATE.pattern + rf"(?:[^\[\]\n]{{0,{MAX_CITATION_LENGTH}}}\])?"
)
"""A candidate and, when the same line closes it before any other ``[``, the rest of it."""


class CitationSyntaxError(ValueError):
    """A citation that breaks the grammar; ``col`` is 1-based within the citation text."""

    def __init__(self, message: str, col: int, hint: str | None = None,
                 bad_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.col = col
        self.hint = hint
        self.bad_id = bad_id
        """A malformed arXiv id as written, which a wiki's own cards may repair."""


class Citation(NamedTuple):
    """One citation, where it was written, and what it points at.

    An immutable named tuple rather than a frozen dataclass: a wiki holds tens of thousands of
    citations, and a tuple is built about three times faster (issue 12 §6).
    """

    scheme: str
    id: str
    version: int | None
    locators: tuple[Locator, ...]
    path: str
    line: int
    col: int
    in_code: bool
    text: str
    quote: str | None = None
    claims: tuple[str, ...] = ()
    """The claim ids the citation names (``#mnist-params``), in the order written."""

    @property
    def key(self) -> str:
        """The cited work without its version, e.g. ``"arxiv:2101.12491"``."""
        return f"{self.scheme}:{self.id}"

    @property
    def paper_key(self) -> str:
        """The cited paper's wiki key: ``2101.12491``, ``doi:10.1038/...`` (lower case)."""
        return self.id if self.scheme == "arxiv" else PaperId(self.scheme, self.id).key

    @property
    def end_col(self) -> int:
        """The column just after the closing ``]``."""
        return self.col + len(self.text)

    def __str__(self) -> str:
        version = "" if self.version is None else f"v{self.version}"
        locators = ", ".join(str(locator) for locator in self.locators)
        quote = "" if self.quote is None else f' "{self.quote}"'
        names = "".join(f" #{name}" for name in self.claims)
        return f"[{self.scheme}:{self.id}{version} {locators}{names}{quote}]"


@dataclass(frozen=True)
class CitationProblem:
    """An attempted citation that does not parse, with the place of the offending token."""

    path: str
    line: int
    col: int
    message: str
    hint: str | None = None
    warning: bool = False
    """A near miss (:func:`near_misses`): bracketed text that looks like a citation and is
    none, so it reads as prose; lint warns instead of failing."""
    bad_id: str | None = None
    """A malformed arXiv id as written (``1607.0645``): lint suggests the one paper card whose
    id is one edit away, in :attr:`repair`."""
    repair: str | None = None
    """The whole citation repaired but for :attr:`bad_id` (:func:`_repaired_citation`)."""


def parse_citation(
    text: str, *, path: str = "<string>", line: int = 1, col: int = 1, in_code: bool = False
) -> Citation:
    """Parse one citation such as ``"[arxiv:2101.12491 tab. 2]"``.

    Raises :class:`CitationSyntaxError` with a 1-based column inside ``text``.
    """
    scheme, identifier, version, locators, quote, names = _parse_parts(text)
    return Citation(scheme, identifier, version, locators, path, line, col, in_code, text, quote,
                    names)


_Parts = tuple[str, str, int | None, tuple[Locator, ...], str | None, tuple[str, ...]]


@functools.lru_cache(maxsize=4096)
def _parse_parts(text: str) -> _Parts:
    """The scheme, id, version, locators, quote and claim names of a citation (cached).

    A citation is plain ASCII outside its quote: one that has a full-width ``：`` or digit, or
    another character NFKC normalises, is refused (with the column of the first one), though it
    would parse once normalised."""
    normal = _nfkc(text)
    if normal != text:
        col = next(i for i, (a, b) in enumerate(zip(text, normal, strict=False)) if a != b) + 1
        raise CitationSyntaxError(
            f"look-alike character {text[col - 1]!r} (U+{ord(text[col - 1]):04X}): a citation "
            "is written in plain ASCII", col)
    return _parse_ascii(text)


def _nfkc(text: str) -> str:
    """``text`` in NFKC up to its first ``"`` (a quote is the paper's text, kept as written)."""
    head, mark, quote = text.partition('"')
    return unicodedata.normalize("NFKC", head) + mark + quote


def _parse_ascii(text: str) -> _Parts:
    """:func:`_parse_parts` of a citation without look-alike characters."""
    if not (text.startswith("[") and text.endswith("]")) or len(text) < 2:
        raise CitationSyntaxError("a citation is enclosed in '[' and ']'", 1)
    inner_end = len(text) - 1
    pos = 1
    if text[pos : pos + 1].isspace():
        raise CitationSyntaxError("unexpected space after '['", pos + 1)
    scheme_match = _SCHEME.match(text, pos)
    if scheme_match is None:
        raise CitationSyntaxError("expected a scheme ('arxiv' or 'doi')", pos + 1)
    scheme = scheme_match[0]
    if scheme not in SCHEMES:
        if scheme.lower() in SCHEMES:
            hint = f"did you mean `{scheme.lower()}`"
            raise CitationSyntaxError(f"scheme must be lower case: {scheme!r}", pos + 1, hint)
        known = ", ".join(f"`{name}`" for name in SCHEMES)
        raise CitationSyntaxError(f"unknown scheme {scheme!r}", pos + 1, f"use one of {known}")
    pos = scheme_match.end()
    if text[pos : pos + 1] != ":":
        raise CitationSyntaxError(f"expected ':' after {scheme!r}", pos + 1)
    pos += 1
    if text[pos : pos + 1].isspace():
        fixed = f"[{scheme}:" + text[pos:].lstrip()
        raise CitationSyntaxError(
            f"unexpected space after '{scheme}:'", pos + 1, f"write `{fixed}`"
        )
    id_end = _token_end(text, pos, inner_end)
    identifier, version = _parse_id(scheme, text[pos:id_end], pos + 1)
    if id_end == inner_end:
        example = f"[{scheme}:{text[pos:id_end]} §3.1]"
        raise CitationSyntaxError(
            "citation has no locator", id_end + 1, f"add one after a space, e.g. `{example}`"
        )
    if text[id_end] != " " or text[id_end + 1 : id_end + 2].isspace():
        raise CitationSyntaxError("expected one space between the id and the locator", id_end + 1)
    quote, names_end = _parse_quote(text, id_end + 1, inner_end)
    names, locators_end = _parse_names(text, id_end + 1, names_end)
    locators = _parse_locators(text, id_end + 1, locators_end)
    return scheme, identifier, version, locators, quote, names


def _parse_names(text: str, start: int, stop: int) -> tuple[tuple[str, ...], int]:
    """The ``#claim-name`` words before ``stop``, and where the locators end."""
    first = text.find(" #", start, stop)
    if first == -1:
        if "#" in text[start:stop]:
            raise CitationSyntaxError(
                "a claim name follows the locators after one space", text.index("#", start) + 1,
                "write it like `[arxiv:2101.12491 tab. 2 #mnist-params]`")
        return (), stop
    names: list[str] = []
    pos = first + 1
    while pos < stop:
        end = text.find(" ", pos, stop)
        end = stop if end == -1 else end
        word = text[pos:end]
        if not word.startswith("#") or _CLAIM_NAME.fullmatch(word[1:]) is None:
            raise CitationSyntaxError(
                f"not a claim name: {word!r}", pos + 1,
                "claim names are a card's claim ids after '#', separated by one space")
        if word[1:] in names:
            raise CitationSyntaxError(f"claim {word} is named twice", pos + 1)
        names.append(word[1:])
        pos = end + 1
    return tuple(names), first


def _parse_quote(text: str, start: int, stop: int) -> tuple[str | None, int]:
    """The quote at the end of a citation, if any, and where the locators end."""
    opening = text.find(' "', start, stop)
    if opening == -1:
        if '"' in text[start:stop]:
            raise CitationSyntaxError(
                "a quote follows the locators after one space", text.index('"', start) + 1,
                'write it like `[arxiv:2101.12491 tab. 2 "161K parameters"]`')
        return None, stop
    body_start = opening + 2
    if text[stop - 1] != '"' or stop - 1 < body_start:
        raise CitationSyntaxError("unclosed quote: end it with '\"' before ']'", opening + 2)
    quote = text[body_start : stop - 1]
    if not quote.strip():
        raise CitationSyntaxError("empty quote", opening + 2)
    if '"' in quote:
        raise CitationSyntaxError(
            "a quote cannot contain '\"'", body_start + quote.index('"') + 1,
            "quote a shorter passage, or use typographic quotes inside it")
    if len(quote) > MAX_QUOTE_LENGTH:
        raise CitationSyntaxError(
            f"quote is longer than {MAX_QUOTE_LENGTH} characters", opening + 2,
            "cards hold short quotes only")
    return quote, opening


def _token_end(text: str, start: int, stop: int) -> int:
    """End of the id token: the first space, comma or closing bracket."""
    end = start
    while end < stop and text[end] not in " ,\t":
        end += 1
    return end


def _parse_id(scheme: str, token: str, col: int) -> tuple[str, int | None]:
    """Validate an id token; return the bare id and its version."""
    if not token:
        raise CitationSyntaxError(f"missing id after '{scheme}:'", col)
    if scheme != "arxiv":
        try:
            return check_identifier(scheme, token), None
        except IdentifierError as error:
            raise CitationSyntaxError(error.message, col, error.hint) from None
    identifier, version = token, None
    versioned = _VERSION.fullmatch(token)
    if versioned is not None:
        identifier, version = versioned["id"], int(versioned["version"])
    new_style = _NEW_ARXIV.fullmatch(identifier)
    if new_style is None and _OLD_ARXIV.fullmatch(identifier) is None:
        hint = "write a new-style id like `2101.12491` or an old-style one like `cs/0112017`"
        raise CitationSyntaxError(f"not an arXiv id: {token!r}", col, hint, bad_id=identifier)
    if new_style is not None and not 1 <= int(new_style["month"]) <= 12:
        raise CitationSyntaxError(f"not an arXiv id: {token!r} (month out of range)", col,
                                  bad_id=identifier)
    digits = arxiv_digits_problem(identifier)
    if digits is not None:
        raise CitationSyntaxError(f"malformed arXiv id {identifier!r}: {digits}", col,
                                  "copy the id from the paper's arXiv page", bad_id=identifier)
    if version == 0:
        raise CitationSyntaxError("arXiv versions start at v1", col + len(identifier))
    return identifier, version


def _parse_locators(text: str, start: int, stop: int) -> tuple[Locator, ...]:
    """Parse ``locator { ", " locator }`` between ``start`` and ``stop``."""
    locators: list[Locator] = []
    pos = start
    while True:
        comma = text.find(",", pos, stop)
        piece_end = stop if comma == -1 else comma
        try:
            locator = parse_locator(text[pos:piece_end])
        except LocatorError as error:
            hint = _missing_comma_hint(text[pos:piece_end]) or error.hint
            raise CitationSyntaxError(error.message, pos + error.col_offset + 1, hint) from None
        if locator in locators:
            raise CitationSyntaxError(f"duplicate locator '{locator}'", pos + 1)
        locators.append(locator)
        if comma == -1:
            return tuple(locators)
        if text[comma + 1 : comma + 2] != " " or text[comma + 2 : comma + 3].isspace():
            raise CitationSyntaxError("locators are separated by ', '", comma + 1)
        pos = comma + 2


def _missing_comma_hint(piece: str) -> str | None:
    """A hint when ``piece`` is two valid locators joined by a space, as in ``§3.1 tab. 2``."""
    for index, char in enumerate(piece):
        if char != " ":
            continue
        try:
            first, second = parse_locator(piece[:index]), parse_locator(piece[index + 1 :])
        except LocatorError:
            continue
        return f"separate locators with ', ': `{first}, {second}`"
    return None


def scan_citations(
    markdown: str,
    path: str,
    line_offset: int = 0,
    tokens: Sequence[Any] | None = None,
) -> tuple[list[Citation], list[CitationProblem]]:
    """Find every citation and every malformed attempt in a Markdown body.

    ``line_offset`` is the number of file lines before the body (the front matter), so that the
    reported lines are file lines. ``tokens`` may pass block tokens that markdown-it-py already
    produced for this body, to spare a second parse.

    One regular-expression pass finds each candidate with its closing bracket; lines are counted
    between candidates, and only closed candidates reach the grammar's parser.
    """
    citations: list[Citation] = []
    problems: list[CitationProblem] = []
    code: list[tuple[int, int]] | None = None
    line, line_start, counted = line_offset + 1, 0, 0
    for match in _CLOSED_CANDIDATE.finditer(markdown):
        start, end = match.span()
        newlines = markdown.count("\n", counted, start)
        if newlines:
            line += newlines
            line_start = markdown.rfind("\n", counted, start) + 1
        counted = start
        col = start - line_start + 1
        # a head ends with ':' or a digit, so a match that ends with ']' holds the rest
        if markdown[end - 1] != "]" or end - start > MAX_CITATION_LENGTH:
            problems.append(
                CitationProblem(
                    path,
                    line,
                    col,
                    "unclosed citation: no ']' after it on this line",
                    "a citation must not break across lines",
                )
            )
            continue
        if _is_not_citation(markdown, start, end - 1, line_start):
            continue
        if code is None:
            line_starts = [0, *(m.end() for m in re.finditer("\n", markdown))]
            code = code_regions(markdown, line_starts, tokens)
        text = match[0]
        try:
            scheme, identifier, version, locators, quote, names = _parse_parts(text)
            citations.append(Citation(scheme, identifier, version, locators, path, line, col,
                                      bool(code) and inside(code, start), text, quote, names))
        except CitationSyntaxError as error:
            problems.append(
                CitationProblem(path, line, col + error.col - 1, error.message,
                                _repaired_hint(text, error.message) or error.hint,
                                bad_id=error.bad_id,
                                repair=_repaired_citation(text) if error.bad_id else None)
            )
    if _NEAR_MISS_HINT.search(markdown) or _PARENTHESISED.search(markdown):
        if code is None:
            line_starts = [0, *(m.end() for m in re.finditer("\n", markdown))]
            code = code_regions(markdown, line_starts, tokens)
        problems.extend(near_misses(markdown, path, line_offset, code))
        problems.extend(_parenthesised(markdown, path, line_offset, code))
        problems.sort(key=lambda problem: (problem.line, problem.col))
    return citations, problems


_PARENTHESISED = re.compile(
    rf"(?<![\]\w])\((?P<inner>[ \t]*(?i:arxiv|doi|openreview|url)[ \t]*[{_COLONS}]"
    r"[^()\[\]\n]{1,300})\)")


def _parenthesised(
    markdown: str, path: str, line_offset: int = 0, code: list[tuple[int, int]] | None = None
) -> list[CitationProblem]:
    """Citations written in parentheses instead of brackets, ``(arxiv:1607.06450 eq. 3)``,
    outside code and links: prose with no badge; each is a warning with the bracketed form."""
    found: list[CitationProblem] = []
    for match in _PARENTHESISED.finditer(markdown):
        start = match.start()
        if code and inside(code, start):
            continue
        bracketed = f"[{match['inner']}]"
        try:
            _parse_parts(bracketed)
            hint: str | None = f"did you mean `{bracketed}`?"
        except CitationSyntaxError as error:
            hint = _repaired_hint(bracketed, error.message)
        if hint is None or "(and the id" in hint:
            continue
        line = line_offset + 1 + markdown.count("\n", 0, start)
        col = start - (markdown.rfind("\n", 0, start) + 1) + 1
        found.append(CitationProblem(
            path, line, col, f"{match[0]!r} is a citation in parentheses: a citation is written "
            "in brackets (in parentheses it renders as plain text, with no badge)", hint,
            warning=True))
    return found


_NEAR_MISS = re.compile(
    r"\[(?:(?P<scheme>[A-Za-z]{2,12})(?P<sep>[ \t]*[:=/|][ \t]*|[ \t]*[.\-_][ \t]*|[ \t]+))?"
    r"(?P<id>[^\s\[\],]+)(?P<rest>[^\[\]\n]{0,300})\]"
)
_NEAR_MISS_HINT = re.compile(r"\[[ \t]*(?:[A-Za-z]{2,12}[ \t:=/|.\-_]|\d{4}\.\d{4}|10\.\d|"
                             r"[A-Za-z0-9_-]{8,12}[ \t])")
_LOCATOR_LIKE = re.compile(
    r"(?:§|\b(?:tab|table|fig|figure|eq|eqs|equation|alg|algorithm|app|appendix|p|pp|page|sec|"
    r"section)\.?)[ \t]*\(?[0-9A-Z]", re.IGNORECASE)


def near_misses(
    markdown: str, path: str, line_offset: int = 0, code: list[tuple[int, int]] | None = None
) -> list[CitationProblem]:
    """Bracketed text outside code that looks like a citation but is not one: a scheme with a
    space or another mark instead of ``:`` (``[openreview HJWLfGWRb §3.1]``), a misspelt scheme
    (``[arxv:2101.12491 §3]``) or a bare arXiv id (``[2101.12491 tab. 2]``), each followed by a
    locator. Such text renders as prose with no badge; each is a warning with the citation meant.
    """
    found: list[CitationProblem] = []
    for match in _NEAR_MISS.finditer(markdown):
        start, close = match.start(), match.end() - 1
        if _CANDIDATE.match(markdown, start) or _is_not_citation(
                markdown, start, close, markdown.rfind("\n", 0, start) + 1):
            continue
        if code and inside(code, start):
            continue
        identifier, rest = match["id"], match["rest"]
        meant = _meant_scheme(match["scheme"], match["sep"], identifier)
        if meant is None and match["scheme"] and not match["sep"].strip():
            # no scheme at all: the word the pattern took for one is the id ([HJWLfGWRb §3.1])
            identifier, rest = match["scheme"], match["id"] + match["rest"]
            meant = _meant_scheme(None, None, identifier)
        if meant is None or not _LOCATOR_LIKE.search(rest):
            continue
        line = line_offset + 1 + markdown.count("\n", 0, start)
        col = start - (markdown.rfind("\n", 0, start) + 1) + 1
        hint = _repair_hint(meant, identifier, rest)
        if hint is None:
            hint = f"a citation is written `[{meant}:ID LOCATOR]`"
        found.append(CitationProblem(
            path, line, col, f"{match[0]!r} looks like a citation but is not one (it renders as "
            "plain text, with no badge)", hint, warning=True))
    return found


_REPAIR_HEAD = re.compile(r"\[(?P<scheme>[A-Za-z]{2,12})[ \t]*[:=/|.\-_]{0,3}[ \t]*"
                          r"(?P<id>[^\s,;]+)[ \t]*[,;]?[ \t]*(?P<rest>.*)\]", re.DOTALL)
_BARE_OPENREVIEW = re.compile(r"(?=(?:[^A-Z]*[A-Z]){2})(?=[^a-z]*[a-z])[A-Za-z0-9_-]{8,12}")


def _repaired_hint(text: str, said: str = "") -> str | None:
    """``did you mean `...`?`` with the citation a malformed one meant, when small repairs
    (a lower-case scheme, ``:`` for the mark or space after it, no comma before the locator,
    each locator in its canonical form: ``tab. 2`` for ``Table 2`` or ``tab 2``) make it parse,
    or leave only its id wrong (said too, unless ``said`` says it already); else ``None``."""
    match = _repair_head(text)
    if match is None:
        return None
    scheme = match["scheme"].lower()
    hint = _repair_hint(scheme, _repaired_id(scheme, match["id"]), match["rest"], text)
    if hint is not None and said and said in hint:
        hint = hint.split(" (", 1)[0]
    return hint


def _repair_head(text: str) -> re.Match[str] | None:
    """The scheme, id and rest of a bracketed citation-like ``text``, once normalised (NFKC)
    and with the spaces just inside its brackets dropped; ``None`` when it has no such head."""
    normal = _nfkc(text)
    if not (normal.startswith("[") and normal.endswith("]")):
        return None
    return _REPAIR_HEAD.fullmatch(f"[{normal[1:-1].strip()}]")


def _repaired_citation(text: str) -> str | None:
    """The whole citation ``text`` meant with every small repair made (as in the hint of
    :func:`_repaired_hint`), whether or not it parses; ``None`` without a citation's head."""
    match = _repair_head(text)
    if match is None:
        return None
    scheme = match["scheme"].lower()
    return f"[{scheme}:{_repaired_id(scheme, match['id'])} {_repaired_rest(match['rest'])}]"


def _repaired_id(scheme: str, identifier: str) -> str:
    """An arXiv id written without its dot (``160706450``) with it; any other id as written."""
    bare = re.fullmatch(r"(?P<month>[0-9]{4})(?P<number>[0-9]{4,5})(?P<version>v[0-9]+)?",
                        identifier)
    if scheme != "arxiv" or bare is None:
        return identifier
    return f"{bare['month']}.{bare['number']}{bare['version'] or ''}"


def _repair_hint(scheme: str, identifier: str, rest: str, written: str = "") -> str | None:
    """``did you mean `[scheme:id locators]`?`` for a citation written with ``scheme``,
    ``identifier`` and the ``rest`` after the id, each locator repaired
    (:func:`_repaired_rest`); when only the id is still wrong, the repair is given with the
    reason (``not a DOI``). ``None`` when the repair does not parse, or is ``written`` itself."""
    fixed = f"[{scheme}:{identifier} {_repaired_rest(rest)}]"
    if fixed == written:
        return None
    try:
        _parse_parts(fixed)
    except CitationSyntaxError as error:
        id_col = len(scheme) + 3  # 1-based, after "[scheme:"
        if not id_col <= error.col <= id_col + len(identifier):
            return None
        return f"did you mean `{fixed}`? (and the id: {error.message})"
    return f"did you mean `{fixed}`?"


_TAIL = re.compile(r"(?P<locators>[^#\"]*?)(?P<tail>[ \t]+[#\"].*)?", re.DOTALL)
_SUGGESTED = re.compile(r"did you mean `(?P<form>[^`]+)`")


def _repaired_rest(rest: str) -> str:
    """The locators of ``rest`` (after the id) in canonical form where the locator grammar
    suggests one (``Table 2`` → ``tab. 2``, ``fig 1`` → ``fig. 1``, ``sec 3`` → ``§3``),
    then the claim names and quote as written."""
    parts = _TAIL.fullmatch(rest.strip().lstrip(",;").strip())
    if parts is None:
        return rest.strip()
    pieces: list[str] = []
    for piece in re.split(r"[ \t]*[,;][ \t]*", parts["locators"].strip()):
        pieces.extend(_repaired_locators(piece.strip()))
    return ", ".join(pieces) + _repaired_tail(parts["tail"] or "")


def _repaired_locators(piece: str) -> list[str]:
    """One written locator in canonical form (``Table 2`` → ``tab. 2``, ``§3.`` → ``§3``), or
    two where a space joins two (``§3 eq. 3``); as written when nothing repairs it."""
    for candidate in (piece, piece.rstrip(".")):
        try:
            return [str(parse_locator(candidate))]
        except LocatorError as error:
            suggested = _SUGGESTED.fullmatch(error.hint or "")
            if suggested:
                return [suggested["form"]]
    for index, char in enumerate(piece):
        if char != " ":
            continue
        try:
            return [str(parse_locator(piece[:index])), str(parse_locator(piece[index + 1:]))]
        except LocatorError:
            continue
    return [piece]


def _repaired_tail(tail: str) -> str:
    """The claim names and quote after the locators, with ``# name`` written ``#name``."""
    names, mark, quote = tail.partition('"')
    return re.sub(r"#[ \t]+", "#", names) + mark + quote


def _meant_scheme(scheme: str | None, sep: str | None, identifier: str) -> str | None:
    """The scheme a near miss meant, or ``None`` when the text is prose: with no scheme, an
    arXiv id, a DOI (``10.``) or an OpenReview-looking id (mixed case, two capitals)."""
    if scheme is None:
        if _NEW_ARXIV.fullmatch(identifier.split("v")[0]):
            return "arxiv"
        if re.fullmatch(r"10\.\d{4,9}/\S+", identifier):
            return "doi"
        return "openreview" if _BARE_OPENREVIEW.fullmatch(identifier) else None
    close = difflib.get_close_matches(scheme.lower(), SCHEMES, n=1, cutoff=0.75)
    if not close:
        return None
    if close[0] == scheme.lower():  # the scheme itself, in any case: whatever the id looks like
        return None if (sep or "").strip() == ":" else close[0]  # with ':', a real candidate
    if close[0] == "arxiv" and not (_NEW_ARXIV.fullmatch(identifier.split("v")[0])
                                    or _OLD_ARXIV.fullmatch(identifier)):
        return None
    if close[0] == "doi" and not identifier.startswith("10."):
        return None
    if close[0] == "openreview" and not re.fullmatch(r"[A-Za-z0-9_-]{5,40}", identifier):
        return None
    return close[0]


def _is_not_citation(markdown: str, start: int, close: int, line_start: int) -> bool:
    """Whether the bracket is an image, a link, a link definition or an escaped bracket."""
    before = markdown[start - 1] if start > 0 else ""
    if before in ("!", "\\"):
        return True
    after = markdown[close + 1 : close + 2]
    if after == "(":
        return True
    if after == "[":
        return _CANDIDATE.match(markdown, close + 1) is None
    return after == ":" and not markdown[line_start:start].strip(" >")
