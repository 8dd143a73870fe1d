"""The locator index: where each section, table, figure, algorithm and equation of a LaTeX
document lies, numbered the way LaTeX numbers them.

:func:`build_regions` walks a flattened, comment-free document (:mod:`claimcheck.sources.latex`)
once and returns :class:`Region` spans (offsets into that text) and the ``\\label`` numbers:

* sections: ``\\section``, ``\\subsection``, ``\\subsubsection`` (and ``\\chapter``, whose number
  then leads: ``§3.1`` is chapter 3, section 1); starred headings are unnumbered; after
  ``\\appendix`` (or inside ``appendices``) sections are lettered, ``app. B``, ``app. B.2``;
* floats: ``table``, ``figure`` and ``algorithm`` (starred, ``wrap…``, ``sideways…`` too) take
  their number at each ``\\caption`` (not those inside ``subfigure``/``subtable``); a caption
  inside a ``minipage`` numbers only that minipage, so two tables side by side stay apart;
* equations: ``equation`` and ``multline`` take one number, ``align``, ``gather``, ``flalign``,
  ``alignat`` and ``eqnarray`` one per line (``\\\\`` at their own level only: not inside
  ``aligned``, ``cases``, ``split`` or braces); ``\\nonumber``/``\\notag`` skip a number, ``\\tag``
  replaces it without stepping the counter; starred forms and ``\\[…\\]``/``$$…$$`` are unnumbered
  unless tagged; ``subequations`` take one number for the group;
* ``\\numberwithin{equation}{section}`` (and the same for figures and tables) gives ``eq. 3.2``;
* the ``abstract`` and everything before the first section form the front matter, the only
  place a ``p.`` locator can be checked (``p. 1``); LaTeX has no other page numbers.

A ``\\label`` takes the number of the last numbered thing before it, as LaTeX's
``\\refstepcounter`` does; inside a display it takes its line's number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claimcheck.sources.lexing import read_command, read_group, skip_optional
from claimcheck.sources.regions import Region, Structure, letters, locator_of

__all__ = ["Region", "Structure", "build_regions"]

_LEVELS = {"chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3}
_FLOATS = {
    "table": "table", "table*": "table", "wraptable": "table", "sidewaystable": "table",
    "figure": "figure", "figure*": "figure", "wrapfigure": "figure", "sidewaysfigure": "figure",
    "algorithm": "algorithm", "algorithm*": "algorithm",
}
_SUBFLOATS = {"subfigure", "subtable", "subfloat"}
_PER_LINE = {"align", "flalign", "alignat", "gather", "eqnarray", "xalignat"}
_SINGLE = {"equation", "multline"}
_UNNUMBERED_MATH = {"displaymath", "math"}
_INTERESTING = re.compile(r"[\\{}$]")


@dataclass
class _Env:
    name: str
    start: int
    brace_depth: int
    line_start: int = 0
    skip: bool = False
    tag: str | None = None
    pending: list[str] = field(default_factory=list)
    captions: list[tuple[str, str]] = field(default_factory=list)


class _Walker:
    """One pass over the document; see the module docstring for the rules."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out = Structure()
        self.counters: dict[str, int] = dict.fromkeys(
            ("chapter", "section", "subsection", "subsubsection", "equation", "figure",
             "table", "algorithm"), 0)
        self.within: dict[str, str] = {}
        self.appendix = False
        self.chapters = False
        self.open_sections: list[tuple[int, Region]] = []
        self.envs: list[_Env] = []
        self.depth = 0
        self.last_number: tuple[str, str] = ("", "")
        self.sub_equation: tuple[str, int] | None = None

    # --- numbering -------------------------------------------------------------------------
    def step(self, counter: str) -> str:
        self.counters[counter] += 1
        for child, parent in self.within.items():
            if parent == counter:
                self.counters[child] = 0
        index = _LEVELS.get(counter)
        if index is not None:
            for name, level in _LEVELS.items():
                if level > index:
                    self.counters[name] = 0
        return self.printed(counter)

    def printed(self, counter: str) -> str:
        value = self.counters[counter]
        if counter in _LEVELS:
            top = "chapter" if self.chapters else "section"
            parts = []
            for name, level in _LEVELS.items():
                if level < _LEVELS[top] or level > _LEVELS[counter]:
                    continue
                count = self.counters[name]
                parts.append(letters(count) if self.appendix and name == top else str(count))
            return ".".join(parts)
        parent = self.within.get(counter)
        if parent is not None:
            return f"{self.printed(parent)}.{value}"
        return str(value)

    # --- regions ---------------------------------------------------------------------------
    def add(self, kind: str, number: str, start: int, end: int, title: str = "") -> None:
        appendix = self.appendix and kind == "section"
        self.out.regions.append(
            Region(kind, number, start, end, locator_of(kind, number, appendix), title))

    def close_sections(self, level: int, at: int) -> None:
        while self.open_sections and self.open_sections[-1][0] >= level:
            _, region = self.open_sections.pop()
            self.out.regions.append(Region(region.kind, region.number, region.start, at,
                                           region.locator, region.title))

    def heading(self, command: str, at: int, end: int) -> int:
        starred = command.endswith("*")
        name = command.rstrip("*")
        after = skip_optional(self.text, end)
        group = read_group(self.text, after)
        title = self.text[group[0] : group[1]].strip() if group else ""
        level = _LEVELS[name]
        if name == "chapter":
            self.chapters = True
        self.close_sections(level, at)
        if level <= 1 or (name == "section" and not self.chapters):
            self.close_front(at)
        number = "" if starred else self.step(name)
        if number:
            self.last_number = ("section", number)
        appendix = self.appendix and not starred
        region = Region("section" if number else "unnumbered section", number, at, at,
                        locator_of("section", number, appendix), title)
        self.open_sections.append((level, region))
        return group[2] if group else after

    def close_front(self, at: int) -> None:
        front = [r for r in self.out.regions if r.kind == "front"]
        if not front and not self.open_sections:
            self.add("front", "", self.out.start, at)

    # --- environments ----------------------------------------------------------------------
    def begin(self, name: str, at: int, end: int) -> None:
        env = _Env(name, at, self.depth, line_start=end)
        self.envs.append(env)
        if name == "subequations":
            self.sub_equation = (self.step("equation"), 0)
            self.last_number = ("equation", self.sub_equation[0])
        elif name == "appendices":
            self.start_appendix(at)

    def end(self, name: str, at: int, end: int) -> None:
        index = next((i for i in range(len(self.envs) - 1, -1, -1)
                      if self.envs[i].name == name), None)
        if index is None:
            return
        env = self.envs[index]
        del self.envs[index:]
        bare = name.rstrip("*")
        if bare in _PER_LINE or bare in _SINGLE:
            self.end_line(env, at, final=True)
        elif name in _FLOATS or name == "minipage":
            for kind, number in env.captions:
                self.add(kind, number, env.start, end)
        elif name == "abstract":
            self.add("abstract", "", env.start, end)
        elif name == "subequations" and self.sub_equation is not None:
            self.add("equation", self.sub_equation[0], env.start, end)
            self.sub_equation = None

    def math_env(self) -> _Env | None:
        for env in reversed(self.envs):
            bare = env.name.rstrip("*")
            if bare in _PER_LINE or bare in _SINGLE or bare in _UNNUMBERED_MATH:
                return env
        return None

    def end_line(self, env: _Env, at: int, final: bool) -> None:
        bare = env.name.rstrip("*")
        starred = env.name.endswith("*") or bare in _UNNUMBERED_MATH
        empty = not self.text[env.line_start : at].strip()
        number = ""
        if env.tag is not None:
            number = env.tag
        elif not (starred or env.skip or (empty and bare in _PER_LINE)):
            if self.sub_equation is not None:
                parent, count = self.sub_equation
                self.sub_equation = (parent, count + 1)
                number = f"{parent}{letters(count + 1).lower()}"
            else:
                number = self.step("equation")
        if number:
            self.add("equation", number, env.line_start if bare in _PER_LINE else env.start,
                     at)
            self.last_number = ("equation", number)
        for label in env.pending:
            self.out.labels[label] = ("equation", number) if number else self.last_number
        env.pending, env.tag, env.skip = [], None, False
        if not final:
            env.line_start = at + 2

    def caption(self, command_end: int, counter: str | None = None) -> int:
        target = next((e for e in reversed(self.envs)
                       if e.name in _FLOATS or e.name in _SUBFLOATS or e.name == "minipage"),
                      None)
        if counter is None:
            float_env = next((e for e in reversed(self.envs) if e.name in _FLOATS), None)
            if target is None or target.name in _SUBFLOATS or float_env is None:
                return command_end
            counter = _FLOATS[float_env.name]
        if target is None or target.name in _SUBFLOATS:
            return command_end
        number = self.step(counter)
        self.last_number = (counter, number)
        target.captions.append((counter, number))
        return command_end

    def start_appendix(self, at: int) -> None:
        top = "chapter" if self.chapters else "section"
        self.close_sections(_LEVELS[top], at)
        self.appendix = True
        for name in _LEVELS:
            if _LEVELS[name] >= _LEVELS[top]:
                self.counters[name] = 0

    # --- the walk --------------------------------------------------------------------------
    def run(self) -> Structure:
        text = self.text
        begin = text.find("\\begin{document}")
        self.out.start = 0 if begin == -1 else begin + len("\\begin{document}")
        finish = text.find("\\end{document}", self.out.start)
        self.out.end = len(text) if finish == -1 else finish
        self.preamble(text[: self.out.start])
        index = self.out.start
        while index < self.out.end:
            found = _INTERESTING.search(text, index, self.out.end)
            if found is None:
                break
            index = found.start()
            char = text[index]
            if char == "{":
                self.depth += 1
            elif char == "}":
                self.depth -= 1
            elif char == "\\":
                index = self.command(index)
                continue
            elif char == "$" and text.startswith("$$", index):
                index = self.display_dollars(index)
                continue
            index += 1
        self.close_sections(0, self.out.end)
        self.close_front(self.out.end)
        self.out.regions.sort(key=lambda r: (r.start, -r.end))
        return self.out

    def preamble(self, text: str) -> None:
        if re.search(r"\\documentclass(\[[^\]]*\])?\{(report|book|memoir)\}", text):
            for counter in ("equation", "figure", "table"):
                self.within[counter] = "chapter"
        for match in re.finditer(r"\\numberwithin\s*\{(\w+)\}\s*\{(\w+)\}", text):
            if match[1] in self.counters and match[2] in self.counters:
                self.within[match[1]] = match[2]

    def display_dollars(self, index: int) -> int:
        close = self.text.find("$$", index + 2, self.out.end)
        return self.out.end if close == -1 else close + 2

    def command(self, index: int) -> int:
        text = self.text
        name, end = read_command(text, index)
        bare = name.rstrip("*")
        if bare in _LEVELS:
            return self.heading(name, index, end)
        if name in ("begin", "end"):
            group = read_group(text, end)
            if group is None:
                return end
            environment = text[group[0] : group[1]].strip()
            if name == "begin":
                self.begin(environment, index, group[2])
            else:
                self.end(environment, index, group[2])
            return group[2]
        if name == "appendix":
            self.start_appendix(index)
        elif name in ("bibliography", "printbibliography"):
            self.close_sections(1, index)
        elif name == "caption":
            return self.caption(end)
        elif name == "captionof":
            group = read_group(text, end)
            if group is not None and text[group[0] : group[1]] in ("table", "figure"):
                return self.caption(group[2], text[group[0] : group[1]])
        elif name == "label":
            return self.label(end)
        elif name in ("tag", "tag*"):
            group = read_group(text, end)
            env = self.math_env()
            if group is not None and env is not None:
                env.tag = text[group[0] : group[1]].strip()
            return group[2] if group else end
        elif name in ("nonumber", "notag"):
            env = self.math_env()
            if env is not None:
                env.skip = True
        elif name == "\\":
            env = self.math_env()
            if (env is not None and env.name.rstrip("*") in _PER_LINE and self.envs[-1] is env
                    and self.depth == env.brace_depth):
                self.end_line(env, index, final=False)
        elif name == "[":
            close = text.find("\\]", end, self.out.end)
            return self.out.end if close == -1 else close + 2
        return end

    def label(self, end: int) -> int:
        group = read_group(self.text, end)
        if group is None:
            return end
        key = self.text[group[0] : group[1]].strip()
        env = self.math_env()
        if env is not None and env.name.rstrip("*") not in _UNNUMBERED_MATH:
            env.pending.append(key)
        else:
            self.out.labels[key] = self.last_number
        return group[2]


def build_regions(text: str) -> Structure:
    """The regions and labels of a flattened LaTeX document (see the module docstring)."""
    return _Walker(text).run()
