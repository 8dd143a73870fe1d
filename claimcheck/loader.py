"""Read one card file: split the front matter, validate it, and scan the body for citations.

Every problem becomes a :class:`~claimcheck.errors.CardError` whose location is the exact
``path:line:col`` in the file, so the CLI prints one line and no traceback.
"""

from __future__ import annotations

import difflib
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from claimcheck.cards import (
    CLAIM_ID_PATTERN,
    SHA256_PATTERN,
    SLUG_PATTERN,
    Card,
    Claim,
    CodeLink,
    ConceptCard,
    Expect,
    PaperCard,
    Resources,
    SourcePin,
)
from claimcheck.citations import Citation, CitationProblem, scan_citations
from claimcheck.errors import CardError
from claimcheck.identifiers import (
    ARXIV_ID_PATTERN,
    DOI_PATTERN,
    OPENREVIEW_PATTERN,
    PAPER_KEY_PATTERN,
)
from claimcheck.yamlsource import Positions, YamlProblem, load_yaml

MAX_CARD_BYTES = 1_000_000
_CARD_ADAPTER: TypeAdapter[ConceptCard | PaperCard] = TypeAdapter(Card)
_PATTERN_MEANING = {
    SLUG_PATTERN: "lower-case letters and digits joined by hyphens, e.g. capsule-network",
    ARXIV_ID_PATTERN: 'an arXiv id such as "2101.12491" or "cs/0112017"',
    CLAIM_ID_PATTERN: "lower-case letters and digits joined by '-' or '_', e.g. mnist-params",
    DOI_PATTERN: "a DOI such as 10.1038/s41598-021-93977-0",
    OPENREVIEW_PATTERN: "an OpenReview id such as HJWLfGWRb",
    PAPER_KEY_PATTERN: 'an arXiv id ("2101.12491") or "doi:…", "openreview:…", "url:<slug>"',
    SHA256_PATTERN: "64 lower-case hex digits (the file's sha256)",
}
_FIELDS_BY_CONTEXT: dict[str, set[str]] = {
    "claims": set(Claim.model_fields),
    "expect": set(Expect.model_fields),
    "code": set(CodeLink.model_fields),
    "resources": set(Resources.model_fields),
    "source": set(SourcePin.model_fields),
}


@dataclass
class LoadedCard:
    """A validated card with everything needed to point back into its file."""

    path: Path
    display_path: str
    card: ConceptCard | PaperCard
    positions: Positions
    body: str
    body_offset: int
    citations: list[Citation] = field(default_factory=list)
    citation_problems: list[CitationProblem] = field(default_factory=list)

    def position(self, *path: str | int) -> tuple[int, int]:
        """File (line, col) of the front-matter value at ``path``."""
        return self.positions.value(tuple(path))

    def claim_line(self, index: int) -> int:
        """File line where the ``index``-th claim starts."""
        return self.position("claims", index)[0]


def _fail(message: str, path: str, line: int = 1, col: int = 1) -> CardError:
    return CardError(message, path, line, col)


def read_text(path: Path, display: str) -> str:
    """Read a card as UTF-8, with size and encoding errors located."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            raise _fail("not a regular file (a device, pipe or folder cannot be a card)", display)
        # Ask for the stated size plus one byte (a read of the whole limit would allocate 1 MB
        # per card); a file that grew since is read on, never past the limit.
        with path.open("rb") as handle:
            data = handle.read(min(status.st_size, MAX_CARD_BYTES) + 1)
            if len(data) > status.st_size:
                data += handle.read(MAX_CARD_BYTES + 1 - len(data))
    except OSError as exc:
        raise _fail(f"cannot read file: {exc.strerror or exc}", display) from None
    if len(data) > MAX_CARD_BYTES:
        raise _fail(f"card is larger than the limit of {MAX_CARD_BYTES:,} bytes", display)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise _fail(
            f"file is not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8",
            display, line, col,
        ) from None


def split_front_matter(text: str, display: str) -> tuple[str, str, int]:
    """Return (yaml text, body, number of lines before the body)."""
    if not text.strip():
        raise _fail("empty file: a card starts with '---', YAML front matter, then '---'", display)
    lines = text.lstrip("\ufeff").split("\n")
    if lines[0].rstrip() != "---":
        raise _fail("missing front matter: the first line must be '---'", display)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :]), index + 1
    raise _fail(
        "unterminated front matter: no closing '---' line after the opening one", display
    )


def load_card(path: Path, display: str | None = None, text: str | None = None) -> LoadedCard:
    """Load and validate one card; raise :class:`CardError` with its location on failure.

    ``text`` is the file's content when the caller has read it already (:func:`read_text`).
    """
    shown = display or str(path)
    if text is None:
        text = read_text(path, shown)
    yaml_text, body, body_offset = split_front_matter(text, shown)
    try:
        data, positions = load_yaml(yaml_text, first_line=2)
    except YamlProblem as problem:
        raise _fail(problem.message, shown, problem.line, problem.col) from None
    if data is None:
        raise _fail("front matter is empty", shown, 2)
    if not isinstance(data, dict):
        line, col = positions.value(())
        raise _fail("front matter must be a mapping of keys to values", shown, line, col)
    if "kind" not in data:
        line, col = positions.value(())
        raise _fail("missing required key 'kind' (concept or paper)", shown, line, col)
    try:
        card = _CARD_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise _validation_error(exc, data, positions, shown) from None
    citations, problems = scan_citations(body, shown, body_offset)
    return LoadedCard(path, shown, card, positions, body, body_offset, citations, problems)


def _validation_error(
    exc: ValidationError, data: dict[str, Any], positions: Positions, display: str
) -> CardError:
    """Turn pydantic's first error into one located message."""
    details = exc.errors(include_url=False)
    first = _most_specific(details)
    path = _data_path(data, first)
    kind = first["type"]
    dotted = _dotted(path)
    if kind == "missing":
        parent = path[:-1]
        line, col = positions.key(parent) if parent else positions.value(())
        message = f"missing required key '{path[-1]}'"
        if parent:
            message += f" in {_dotted(parent)}"
    elif kind == "extra_forbidden":
        line, col = positions.key(path)
        message = f"unknown key '{path[-1]}'" + _did_you_mean(path)
    elif (first.get("ctx") or {}).get("at"):
        at = str((first.get("ctx") or {})["at"])
        line, col = positions.key((*path, at))
        message = _reword([first])
    elif kind == "union_tag_invalid":
        line, col = positions.value(("kind",))
        message = f"kind must be 'concept' or 'paper', got {data.get('kind')!r}"
    else:
        line, col = positions.value(path)
        alternatives = [d for d in details if _data_path(data, d) == path]
        message = f"{dotted}: {_reword(alternatives)}" if dotted else _reword(alternatives)
    return CardError(message, display, line, col)


def _most_specific(details: list[ErrorDetails]) -> ErrorDetails:
    for preferred in ("extra_forbidden", "missing"):
        for detail in details:
            if detail["type"] == preferred:
                return detail
    return details[0]


def _data_path(data: Any, detail: ErrorDetails) -> tuple[str | int, ...]:
    """Keep the parts of pydantic's ``loc`` that exist in the input (drop union tags)."""
    loc = detail["loc"]
    out: list[str | int] = []
    current = data
    for position, item in enumerate(loc):
        last = position == len(loc) - 1
        present = (isinstance(current, dict) and item in current) or (
            isinstance(current, list) and isinstance(item, int) and 0 <= item < len(current)
        )
        if present:
            out.append(item)
            current = current[item]
        elif last and detail["type"] in ("missing", "extra_forbidden"):
            out.append(item)
    return tuple(out)


def _dotted(path: tuple[str | int, ...]) -> str:
    text = ""
    for item in path:
        text += f"[{item}]" if isinstance(item, int) else (f".{item}" if text else str(item))
    return text


def _did_you_mean(path: tuple[str | int, ...]) -> str:
    context = next((item for item in reversed(path[:-1]) if isinstance(item, str)), None)
    if context in _FIELDS_BY_CONTEXT:
        known = _FIELDS_BY_CONTEXT[context]
    else:
        known = set(ConceptCard.model_fields) | set(PaperCard.model_fields)
    close = difflib.get_close_matches(str(path[-1]), sorted(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _reword(details: list[ErrorDetails]) -> str:
    """One readable message for the errors at one place (a union gives several)."""
    first = details[0]
    value = first.get("input")
    if first["type"] == "string_pattern_mismatch":
        pattern = str((first.get("ctx") or {}).get("pattern", ""))
        meaning = _PATTERN_MEANING.get(pattern, f"text matching {pattern}")
        return f"{value!r} is not valid: expected {meaning}"
    messages: list[str] = []
    for detail in details:
        text = detail["msg"]
        if text.startswith(("Value error, ", "Assertion failed, ")):
            text = text.split(", ", 1)[1]
        text = text[0].lower() + text[1:] if text else text
        if text not in messages:
            messages.append(text)
    message = " or ".join(messages[:1] + [m.removeprefix("input should be ") for m in
                                           messages[1:]])
    if any(d["type"].endswith("_type") for d in details):
        shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
        message += f" (got {type(value).__name__} {shown})"
    return message + choice_hint(details)


def choice_hint(details: list[ErrorDetails]) -> str:
    """`` (did you mean 'draft'?)`` for a near miss of an enum or literal value, else ``""``."""
    for detail in details:
        if detail["type"] not in ("enum", "literal_error") or not isinstance(
                detail.get("input"), str):
            continue
        options = re.findall(r"'([^']*)'", str((detail.get("ctx") or {}).get("expected", "")))
        close = difflib.get_close_matches(str(detail.get("input")), options, n=1, cutoff=0.6)
        if close:
            return f" (did you mean '{close[0]}'?)"
    return ""
