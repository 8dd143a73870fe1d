"""A paper's LaTeX source as one document: unpack the e-print, find the main file, expand inputs.

arXiv serves an e-print as a gzipped tar of the project, a gzipped single ``.tex`` file, or (for
PDF-only submissions) a PDF. :func:`read_source` tells them apart by content and keeps only the
``.tex`` files, in memory: nothing is extracted to disk, so a hostile archive cannot write
outside the cache (no member path is ever used as a path), and sizes are bounded.

:func:`flatten` then returns the document as one string: comments blanked (each ``%…`` becomes
spaces of the same length, so offsets and line breaks stay put and ``161,%`` + newline + ``824``
still reads ``161,824`` once white space is dropped), and every ``\\input{x}`` / ``\\include{x}``
replaced by that file's text, recursively (depth 16, cycles refused).
"""

from __future__ import annotations

import gzip
import io
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import PurePosixPath

__all__ = ["LatexProject", "SourceFormatError", "blank_comments", "flatten", "read_source"]

MAX_FILE_BYTES = 8_000_000
MAX_TOTAL_BYTES = 64_000_000
MAX_DEPTH = 16
_INPUT = re.compile(r"\\(?:input|include|subfile)\s*\{([^{}]+)\}")
_INPUT_BARE = re.compile(r"\\input\s+([A-Za-z0-9_./-]+)")


class SourceFormatError(ValueError):
    """The downloaded file is not a LaTeX source that can be read."""


@dataclass
class LatexProject:
    """The ``.tex`` files of a source, by POSIX path inside the archive; or a PDF."""

    files: dict[str, str] = field(default_factory=dict)
    is_pdf: bool = False

    def main_file(self) -> str:
        """The file with ``\\documentclass`` and ``\\begin{document}`` (shortest path first)."""
        candidates = [
            name for name, text in self.files.items()
            if "\\documentclass" in blank_comments(text)
            and "\\begin{document}" in blank_comments(text)
        ]
        if not candidates:
            raise SourceFormatError("no .tex file with \\documentclass and \\begin{document}")
        return sorted(candidates, key=lambda name: (name.count("/"), len(name), name))[0]


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _gunzip(data: bytes) -> bytes:
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
        out = handle.read(MAX_TOTAL_BYTES + 1)
    if len(out) > MAX_TOTAL_BYTES:
        raise SourceFormatError("the source unpacks to more than the size limit")
    return out


def read_source(data: bytes) -> LatexProject:
    """Read a downloaded source: a (gzipped) tar, a gzipped ``.tex`` file, a ``.tex`` file or a
    PDF. Raises :class:`SourceFormatError` for anything else."""
    if data.startswith(b"%PDF"):
        return LatexProject(is_pdf=True)
    try:
        raw = _gunzip(data) if data.startswith(b"\x1f\x8b") else data
    except (OSError, EOFError) as error:
        raise SourceFormatError(f"broken gzip data: {error}") from None
    if raw.startswith(b"%PDF"):
        return LatexProject(is_pdf=True)
    if len(raw) > 262 and raw[257:262] == b"ustar":
        return _from_tar(raw)
    if b"\x00" in raw[:4096]:
        raise SourceFormatError("not a LaTeX source, a tar archive or a PDF")
    return LatexProject({"main.tex": _decode(raw)})


def _from_tar(raw: bytes) -> LatexProject:
    project = LatexProject()
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            for member in archive:
                if not member.isreg() or not member.name.lower().endswith(".tex"):
                    continue
                if member.size > MAX_FILE_BYTES:
                    continue
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    raise SourceFormatError("the archive's .tex files exceed the size limit")
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                name = PurePosixPath(member.name.lstrip("/")).as_posix().removeprefix("./")
                project.files[name] = _decode(handle.read(MAX_FILE_BYTES))
    except tarfile.TarError as error:
        raise SourceFormatError(f"broken tar archive: {error}") from None
    if not project.files:
        raise SourceFormatError("the archive holds no .tex file")
    return project


def blank_comments(text: str) -> str:
    """Replace every comment (an unescaped ``%`` to the end of its line) by spaces."""
    if "%" not in text:
        return text
    out = list(text)
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if char == "%":
            end = text.find("\n", index)
            end = length if end == -1 else end
            out[index:end] = " " * (end - index)
            index = end
            continue
        index += 1
    return "".join(out)


def flatten(project: LatexProject) -> str:
    """The main file with comments blanked and inputs expanded (see the module docstring)."""
    main = project.main_file()
    files = {name: blank_comments(text) for name, text in project.files.items()}
    return _expand(files, main, PurePosixPath(main).parent, (main,))


def _resolve(files: dict[str, str], name: str, folder: PurePosixPath) -> str | None:
    name = name.strip()
    candidates = [name, f"{name}.tex"]
    for candidate in candidates:
        for base in (PurePosixPath(""), folder):
            path = (base / candidate).as_posix().removeprefix("./")
            if path in files:
                return path
    return None


def _expand(files: dict[str, str], name: str, folder: PurePosixPath, stack: tuple[str, ...]) -> str:
    text = files[name]

    def replace(match: re.Match[str]) -> str:
        target = _resolve(files, match[1], folder)
        if target is None or target in stack or len(stack) >= MAX_DEPTH:
            return " " * len(match[0])
        return _expand(files, target, folder, (*stack, target))

    text = _INPUT.sub(replace, text)
    return _INPUT_BARE.sub(replace, text)
