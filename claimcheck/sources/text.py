"""Canonical text: LaTeX and copied PDF text reduced to one comparable form, with offsets.

A quote is matched against the paper's source after both are canonicalised the same way:

* markup goes: braces, ``$``, ``\\(…\\)``, ``\\[…\\]``, ``&``, ``~``, ``\\\\``, spacing commands
  (``\\,``, ``\\;``, ``\\quad``), ``^`` and ``_``; a command's own name goes and its argument
  stays (``\\textbf{x}`` reads ``x``); ``\\label``, ``\\cite`` and their like go with their
  arguments; ``\\multicolumn{2}{c}{x}`` reads ``x``; a ``tabular``'s column spec goes;
* ``\\ref{x}``, ``\\eqref{x}``, ``\\autoref{x}`` and ``\\cref{x}`` read as the number LaTeX
  prints (``2``, ``(5)``, ``Table 2``); a macro without arguments that the document defines
  reads as its body (:func:`macros`);
* ``\\%``, ``\\&``, ``\\$``, ``\\#``, ``\\_`` are their characters; Greek letters and common
  symbols (``\\lambda``, ``\\times``, ``\\leq``, ``\\sqrt``) their Unicode characters; accents
  (``\\'e``) compose;
* then, on both sides: Unicode NFKC (ligatures, superscripts), case folding, all white space
  dropped (so a quote may cross a line break, and math spacing never matters), quote marks
  dropped (````…''``, “…”), runs of dashes read as one ``-``, and a comma between a digit and
  exactly three digits dropped (``161{,}824``, ``161,824`` and ``161\\,824`` all read
  ``161824``).

:func:`canonical` returns the text and, for each of its characters, the offset in the input that
produced it, so a match maps back to a place in the document.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from claimcheck.sources.lexing import read_command, read_group, skip_optional

__all__ = ["CanonicalText", "canonical"]

SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "times": "×",
    "cdot": "·", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠",
    "approx": "≈", "sim": "∼", "pm": "±", "infty": "∞", "sum": "∑", "prod": "∏", "in": "∈",
    "rightarrow": "→", "to": "→", "leftarrow": "←", "Rightarrow": "⇒", "ldots": "…",
    "dots": "…", "cdots": "⋯", "sqrt": "√", "partial": "∂", "nabla": "∇", "propto": "∝",
    "circ": "∘", "odot": "⊙", "otimes": "⊗", "oplus": "⊕", "|": "‖", "Vert": "‖",
    "lVert": "‖", "rVert": "‖", "ell": "ℓ", "forall": "∀", "exists": "∃", "log": "log",
    "exp": "exp", "max": "max", "min": "min", "arg": "arg", "softmax": "softmax",
    "%": "%", "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", "S": "§",
    "textbackslash": "\\", "textasciitilde": "~", "textdegree": "°", "euro": "€",
}
# Commands dropped together with this many brace arguments (optional [...] ones skipped too).
DROPPED = {
    "label": 1, "cite": 1, "citep": 1, "citet": 1, "citealp": 1, "citeauthor": 1,
    "citeyear": 1, "nocite": 1, "includegraphics": 1, "vspace": 1, "vspace*": 1, "hspace": 1,
    "hspace*": 1, "bibliographystyle": 1, "bibliography": 1, "usepackage": 1, "begin": 1,
    "end": 1, "cline": 1, "cmidrule": 1, "color": 1, "textcolor": 1, "colorbox": 1,
    "href": 1, "pagestyle": 1, "thispagestyle": 1, "setcounter": 2, "setlength": 2,
    "addtolength": 2, "multicolumn": 2, "multirow": 2, "resizebox": 2, "scalebox": 1,
    "rule": 2, "raisebox": 1, "tag": 1, "tag*": 1, "numberwithin": 2, "captionsetup": 1,
    "newcommand": 2, "renewcommand": 2, "addcontentsline": 3, "hypersetup": 1, "input": 1,
    "definecolor": 3, "label*": 1, "footnotemark": 0, "pageref": 1,
}
_TABULARS = {"tabular": 1, "tabular*": 2, "tabularx": 2, "array": 1, "longtable": 1,
             "tabulary": 2, "supertabular": 1, "alignat": 1, "alignat*": 1}
_REFS = {"ref", "eqref", "autoref", "cref", "Cref", "autoref*", "ref*", "cref*", "Cref*"}
_REF_NAMES = {"section": "Section", "table": "Table", "figure": "Figure",
              "algorithm": "Algorithm", "equation": "Equation"}
_ACCENTS = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303",
            "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
            "H": "\u030b", "r": "\u030a", "k": "\u0328"}
_DROPPED_CHARS = set("{}$&~^_\"'`“”„‘’«»") | {"\u00ad"}
_DASHES = set("-‐‑‒–—―−")
_ASCII_KEPT = re.compile(r"[^\s{}$&~^_\"'`]+")
_DASH_RUN = re.compile(r"-{2,}")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
Piece = tuple[str, int, bool]
"""Text, the input offset it starts at, and whether its characters map to consecutive offsets
(a run of the input) or all to that one offset (what a command produced)."""


@dataclass(frozen=True)
class CanonicalText:
    """Canonical characters and, for each, the input offset it came from."""

    text: str
    offsets: tuple[int, ...]

    def find_all(self, needle: str) -> list[tuple[int, int]]:
        """Input spans ``(start, end)`` of every occurrence of canonical ``needle``."""
        spans: list[tuple[int, int]] = []
        if not needle:
            return spans
        index = self.text.find(needle)
        while index != -1:
            spans.append((self.offsets[index], self.offsets[index + len(needle) - 1] + 1))
            index = self.text.find(needle, index + 1)
        return spans


_DEFINITION = re.compile(
    r"\\(?:(?:re|provide)?newcommand\*?\s*(?:\{\s*\\(?P<braced>[A-Za-z@]+)\s*\}|\\(?P<bare>[A-Za-z@]+))"
    r"|def\s*\\(?P<defined>[A-Za-z@]+))\s*(?=\{)")
MAX_MACRO_BODY = 500
MAX_MACRO_DEPTH = 4


def macros(document: str) -> dict[str, str]:
    """Macros without arguments that a document defines (``\\newcommand{\\ours}{Caps}``,
    ``\\def\\ours{Caps}``), so that a quote of the typeset text matches where the source wrote the
    macro. Macros with arguments, and bodies over 500 characters, are left out."""
    found: dict[str, str] = {}
    for match in _DEFINITION.finditer(document):
        group = read_group(document, match.end())
        if group is not None and group[1] - group[0] <= MAX_MACRO_BODY:
            name = match["braced"] or match["bare"] or match["defined"]
            found.setdefault(name, document[group[0] : group[1]])
    return found


def canonical(
    text: str, labels: Mapping[str, tuple[str, str]] | None = None, start: int = 0,
    end: int | None = None, defined: Mapping[str, str] | None = None,
) -> CanonicalText:
    """Canonicalise ``text[start:end]`` (see the module docstring); ``defined`` maps macro
    names to their bodies (:func:`macros`), read in place of the macro."""
    reader = _Reader(text, labels or {}, defined or {})
    return _finish(reader.read(start, len(text) if end is None else end))


class _Reader:
    def __init__(self, text: str, labels: Mapping[str, tuple[str, str]],
                 defined: Mapping[str, str], depth: int = 0) -> None:
        self.text = text
        self.labels = labels
        self.defined = defined
        self.depth = depth

    def read(self, start: int, end: int) -> list[Piece]:
        text = self.text
        out: list[Piece] = []
        index = start
        while index < end:
            command = text.find("\\", index, end)
            if command == -1:
                out.append((text[index:end], index, True))
                break
            if command > index:
                out.append((text[index:command], index, True))
            index = self.command(command, end, out)
        return out

    def command(self, index: int, end: int, out: list[Piece]) -> int:
        text = self.text
        name, after = read_command(text, index)
        if name in SYMBOLS:
            out.append((SYMBOLS[name], index, False))
            return after
        if name in _ACCENTS and after < end:
            group = read_group(text, after) if text[after] in " {" else None
            letter_at = group[0] if group else after
            if letter_at < end and text[letter_at].isalpha():
                out.append((text[letter_at] + _ACCENTS[name], letter_at, False))
                return group[2] if group else letter_at + 1
            return after
        if name in _REFS:
            group = read_group(text, after)
            if group is None:
                return after
            out.append((self.reference(name, text[group[0] : group[1]]), index, False))
            return group[2]
        if name in DROPPED:
            return self.drop(name, after)
        if name == "def":  # \def\name{body}: the definition is not text
            macro_end = read_command(text, after)[1] if text[after : after + 1] == "\\" else after
            group = read_group(text, macro_end)
            return group[2] if group else macro_end
        if name in self.defined and self.depth < MAX_MACRO_DEPTH:
            body = self.defined[name]
            inner = _Reader(body, self.labels, self.defined, self.depth + 1)
            out.extend((piece, index, False) for piece, _, _ in inner.read(0, len(body)))
        return after

    def drop(self, name: str, after: int) -> int:
        text = self.text
        position = skip_optional(text, after)
        for _ in range(DROPPED[name]):
            group = read_group(text, position)
            if group is None:
                break
            if name == "begin":
                environment = text[group[0] : group[1]].strip()
                position = skip_optional(text, group[2])
                for _ in range(_TABULARS.get(environment, 0)):
                    column = read_group(text, position)
                    position = column[2] if column else position
                return position
            position = skip_optional(text, group[2])
        return position

    def reference(self, name: str, keys: str) -> str:
        shown = []
        for key in keys.split(","):
            kind, number = self.labels.get(key.strip(), ("", "??"))
            if name.startswith("eqref"):
                shown.append(f"({number})")
            elif name.rstrip("*") in ("autoref", "cref", "Cref"):
                word = _REF_NAMES.get(kind, "")
                shown.append(f"{word} {number}".strip())
            else:
                shown.append(number)
        return ", ".join(shown)


def _finish(pieces: list[Piece]) -> CanonicalText:
    chars: list[str] = []
    offsets: list[int] = []
    for piece, offset, spread in pieces:
        if spread and piece.isascii():  # the common case, a run of plain text: no per-character
            for run in _ASCII_KEPT.finditer(piece):  # Unicode work, runs kept in one step
                chars.append(run[0].lower())
                offsets.extend(range(offset + run.start(), offset + run.end()))
            continue
        for position, raw in enumerate(piece):
            where = offset + position if spread else offset
            for char in unicodedata.normalize("NFKC", raw).casefold():
                if char.isspace() or char in _DROPPED_CHARS:
                    continue
                chars.append("-" if char in _DASHES else char)
                offsets.append(where)
    text = "".join(chars)
    # A run of dashes reads as one; a thousands separator between digits goes (161,824 ->
    # 161824), on both sides alike.
    dropped = {i for m in _DASH_RUN.finditer(text) for i in range(m.start() + 1, m.end())}
    dropped.update(m.start() for m in _THOUSANDS.finditer(text))
    if not dropped:
        return CanonicalText(text, tuple(offsets))
    runs: list[str] = []
    kept: list[int] = []
    previous = 0
    for index in sorted(dropped):
        runs.append(text[previous:index])
        kept.extend(offsets[previous:index])
        previous = index + 1
    runs.append(text[previous:])
    kept.extend(offsets[previous:])
    return CanonicalText("".join(runs), tuple(kept))
