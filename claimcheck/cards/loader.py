"""Read one card file: split the front matter, validate it, and scan the body for citations.

Every problem becomes a :class:`~claimcheck.core.errors.CardError` whose location is the exact
``path:line:col`` in the file, so the CLI prints one line and no traceback.
"""

from __future__ import annotations

import difflib
import json
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from claimcheck.cards.citations import Citation, CitationProblem, scan_citations
from claimcheck.cards.controls import BIDI_CONTROLS, NUMERIC_ENTITY, entity_char, refused_control
from claimcheck.cards.frontmatter import (
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
from claimcheck.cards.identifiers import (
    ARXIV_ID_PATTERN,
    DOI_PATTERN,
    OPENREVIEW_PATTERN,
    PAPER_KEY_PATTERN,
    PaperId,
)
from claimcheck.cards.yamlsource import Positions, YamlProblem, load_yaml, string_values
from claimcheck.core.errors import CardError

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
    front_matter: str = ""
    """The YAML between the ``---`` lines as written (comments included), from file line 2."""

    def position(self, *path: str | int) -> tuple[int, int]:
        """File (line, col) of the front-matter value at ``path``."""
        return self.positions.value(tuple(path))

    def claim_line(self, index: int) -> int:
        """File line where the ``index``-th claim starts."""
        return self.position("claims", index)[0]


@dataclass(frozen=True)
class SalvagedClaims:
    """The claims that validate on their own in a paper card that does not: lint still checks
    them (args, references, expectations), each under its index in the file."""

    display_path: str
    positions: Positions
    claims: tuple[tuple[int, Claim], ...]
    unvalidated: tuple[tuple[int, dict[str, Any]], ...] = ()
    """The claims that do not validate, as written: lint still checks their locators and the
    check they name, so that one error never hides another."""
    paper_key: str | None = None
    """The paper the card names (``arxiv:``, ``doi:`` or ``openreview:`` as written), so that
    a citation of it reads "whose card does not load", not "has no paper card"."""

    def position(self, *path: str | int) -> tuple[int, int]:
        """File (line, col) of the front-matter value at ``path``."""
        return self.positions.value(tuple(path))


class CardLoadError(CardError):
    """A card that does not validate: every error found, and the claims that still validate."""

    salvaged: SalvagedClaims | None = None


def _salvage(data: dict[str, Any], positions: Positions, display: str) -> SalvagedClaims | None:
    claims = data.get("claims")
    if data.get("kind") != "paper" or not isinstance(claims, list):
        return None
    valid, unvalidated = [], []
    for index, raw in enumerate(claims):
        try:
            valid.append((index, Claim.model_validate(raw)))
        except ValidationError:
            if isinstance(raw, dict):
                unvalidated.append((index, raw))
    key = next((PaperId(scheme, data[scheme].strip()).key for scheme in ("arxiv", "doi",
                "openreview") if isinstance(data.get(scheme), str) and data[scheme].strip()),
               None)
    return SalvagedClaims(display, positions, tuple(valid), tuple(unvalidated), key)


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
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise _fail(
            f"file is not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8",
            display, line, col,
        ) from None
    bidi = BIDI_CONTROLS.search(text)
    if bidi is not None:
        line, col = _line_col(text, bidi.start())
        raise _fail(_control_message(bidi[0]), display, line, col)
    for entity in NUMERIC_ENTITY.finditer(text):  # what a browser shows for &#x202E;
        char = entity_char(entity)
        if char is not None and refused_control(char):
            line, col = _line_col(text, entity.start())
            raise _fail(_control_message(char, f"as the HTML entity {entity[0]}"), display,
                        line, col)
    return text


def _control_message(char: str, written: str = "") -> str:
    how = f" ({written})" if written else ""
    if BIDI_CONTROLS.match(char):
        return (f"bidirectional control character U+{ord(char):04X}{how} is not allowed: it "
                "makes text display in another order than it reads (\"Trojan Source\"); "
                "right-to-left script needs none")
    return (f"control character U+{ord(char):04X}{how} is not allowed: it would reach "
            "terminals and the site as is; drop it")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _refuse_decoded_controls(data: Any, positions: Positions, display: str) -> None:
    """A front-matter string that YAML decodes to a refused control (``"\\u202E"``, ``"\\e"``),
    refused at the value's place."""
    for path, value in string_values(data):
        char = next((c for c in value if refused_control(c)), None)
        if char is not None:
            line, col = positions.value(path)
            raise _fail(_control_message(char, "as a YAML escape"), display, line, col)


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
    _refuse_decoded_controls(data, positions, shown)
    if "kind" not in data:
        line, col = positions.value(())
        raise _fail("missing required key 'kind' (concept or paper)", shown, line, col)
    try:
        card = _CARD_ADAPTER.validate_python(data)
    except ValidationError as exc:
        errors = _validation_errors(exc, data, positions, shown)
        citations, problems = scan_citations(body, shown, body_offset)
        errors += [CardError(p.message + (f" ({p.hint})" if p.hint else ""), p.path, p.line,
                             p.col) for p in problems if not p.warning]
        error = CardLoadError(errors[0].message, shown, errors[0].line, errors[0].col)
        error.also = tuple(errors[1:])
        error.salvaged = _salvage(data, positions, shown)
        raise error from None
    citations, problems = scan_citations(body, shown, body_offset)
    return LoadedCard(path, shown, card, positions, body, body_offset, citations, problems,
                      front_matter=yaml_text)


def _validation_errors(
    exc: ValidationError, data: dict[str, Any], positions: Positions, display: str
) -> list[CardError]:
    """One located error per place pydantic found wrong, in the order of the file."""
    details = exc.errors(include_url=False)
    unknown = [_data_path(data, d) for d in details if d["type"] == "extra_forbidden"]
    groups: dict[tuple[str | int, ...], list[ErrorDetails]] = {}
    for detail in details:
        path = _data_path(data, detail)
        if detail["type"] == "missing" and _misspelt(path, unknown):
            continue  # "unknown key 'statment' (did you mean 'statement'?)" says it already
        groups.setdefault(path, []).append(detail)
    errors = [_validation_error(details, data, positions, display)
              for details in groups.values()]
    unique = {(e.line, e.col, e.message): e for e in errors}
    return sorted(unique.values(), key=lambda e: (e.line or 0, e.col or 0))


def _validation_error(
    details: list[ErrorDetails], data: dict[str, Any], positions: Positions, display: str
) -> CardError:
    """One located message for the errors pydantic found at one place."""
    first = _most_specific(details)
    path = _data_path(data, first)
    kind = first["type"]
    dotted = _dotted(path)
    where, written = _written(data, path, positions)
    if _text_given_a_collection(details, path):
        line, col = positions.value(path)
        message = _not_text(dotted, first.get("input"))
    elif written is not None and any(d["type"] in _WANTS_TEXT for d in details):
        line, col = positions.value(where)
        message = (f"{_dotted(where)}: YAML reads the unquoted {written} as "
                   f"{_yaml_kind(_lookup(data, where))}, not as written; write it in quotes: "
                   f"\"{written}\"")
    elif _is_tolerance(path) and isinstance(first.get("input"), str):
        line, col = positions.value(path)
        message = (f"{dotted} is the text {first.get('input')!r}: a tolerance is a number "
                   f"(rel_tol: 0.01 for 1%)")
    elif kind == "missing":
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
        written_kind = data.get("kind")
        lowered = written_kind.lower() if isinstance(written_kind, str) else None
        message = (f"kind must be 'concept' or 'paper', got {written_kind!r}"
                   + did_you_mean(lowered, ["concept", "paper"]))
    elif path and path[-1] == "expect" and not isinstance(first.get("input"), dict):
        line, col = positions.value(path)
        message = _expect_not_a_mapping(dotted, positions.written(path), first.get("input"))
    else:
        line, col = positions.value(path)
        alternatives = [d for d in details if _data_path(data, d) == path]
        message = f"{dotted}: {_reword(alternatives)}" if dotted else _reword(alternatives)
    return CardError(message, display, line, col)


def _text_given_a_collection(details: list[ErrorDetails], path: tuple[str | int, ...]) -> bool:
    """Whether a field that takes only text got a list or mapping (``title: [1, 2]``): quoting
    its items would not help, so the advice is the one string to write."""
    return bool(path) and all(
        d["type"] == "string_type" and isinstance(d.get("input"), (list, dict))
        and d["loc"] and d["loc"][-1] == path[-1] for d in details)


def _not_text(dotted: str, value: object) -> str:
    """``title must be text (a string), not a list; write title: "1, 2"``."""
    if isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value):
        example = ", ".join(str(v) for v in value)
    else:
        example = "..."
    shape = "a list" if isinstance(value, list) else "a mapping"
    return (f"{dotted} must be text (a string), not {shape}; write it as one quoted string: "
            f"{dotted.rsplit('.', 1)[-1]}: \"{example}\"")


def did_you_mean(value: object, options: Iterable[str]) -> str:
    """`` (did you mean 'concept'?)`` for the one of ``options`` closest to ``value`` (a near
    miss, by :func:`difflib.get_close_matches`), else ``""``: the hint every misspelt name in
    a card gets."""
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, list(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _expect_not_a_mapping(dotted: str, written: str | None, value: object) -> str:
    """``expect: 87``: what the claim likely meant, the mapping ``{equals: 87}``, in words."""
    shown = written if written is not None else json.dumps(value, default=str)
    return (f"{dotted} is {shown}, but an expectation is a mapping that names how to compare: "
            f"write `expect: {{equals: {shown}}}` (or approx: with rel_tol:, at_least:, "
            "at_most:, between: [low, high])")


_WANTS_TEXT = ("string_type", "arxiv_not_string")
"""Errors of a value that had to be text: an unquoted scalar there lost what was written."""


def _misspelt(missing: tuple[str | int, ...], unknown: list[tuple[str | int, ...]]) -> bool:
    """Whether a missing key is the near miss of an unknown key beside it (a typo)."""
    siblings = [str(path[-1]) for path in unknown if path[:-1] == missing[:-1]]
    return bool(siblings) and bool(difflib.get_close_matches(str(missing[-1]), siblings, n=1,
                                                             cutoff=0.6))


def _written(
    data: Any, path: tuple[str | int, ...], positions: Positions
) -> tuple[tuple[str | int, ...], str | None]:
    """The unquoted scalar at ``path`` as written (or the first one in a list there)."""
    if not path:
        return path, None
    written = positions.written(path)
    value = _lookup(data, path)
    if written is None and isinstance(value, list):
        for index in range(len(value)):
            written = positions.written((*path, index))
            if written is not None:
                return (*path, index), written
    return path, written


def _lookup(data: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _yaml_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null (nothing)"
    return "a date" if type(value).__module__ == "datetime" else f"a {type(value).__name__}"


def _is_tolerance(path: tuple[str | int, ...]) -> bool:
    return len(path) >= 2 and path[-2] == "expect" and path[-1] in ("rel_tol", "abs_tol", "std")


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
    return did_you_mean(str(path[-1]), known)


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
        message += f" (got {_shown(value)})"
    return message + choice_hint(details)


def _shown(value: object) -> str:
    """A value read from YAML for a type error: ``a list``, ``a mapping``, or ``int 5``."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"{type(value).__name__} {value!r}"


def choice_hint(details: list[ErrorDetails]) -> str:
    """`` (did you mean 'draft'?)`` for a near miss of an enum or literal value, else ``""``."""
    for detail in details:
        if detail["type"] not in ("enum", "literal_error") or not isinstance(
                detail.get("input"), str):
            continue
        options = re.findall(r"'([^']*)'", str((detail.get("ctx") or {}).get("expected", "")))
        hint = did_you_mean(str(detail.get("input")), options)
        if hint:
            return hint
    return ""
