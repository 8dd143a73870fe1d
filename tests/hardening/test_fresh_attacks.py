"""Fresh red-team cases: new spellings, paths and angles for the hostile-input classes of
docs/reliability.md (refused sources, paths, output safety, honest power, the CI gate, hostile
cards). Every test asserts the SAFE behaviour, so a failing test names a hole.

Each case builds a throw-away project (:mod:`tests.hardening.hostile_project`) under
``tmp_path`` and drives claimcheck in-process (``cli``), or in a child process where the process
itself matters (an encoding error on stdout).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import textwrap
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from tests.hardening.hostile_project import ARXIV, claim, cli, hostile_project, rows

HAS_GIT = shutil.which("git") is not None
needs_git = pytest.mark.skipif(not HAS_GIT, reason="git is not installed")

# --- shared project pieces --------------------------------------------------------------------

CHECKS = '''
STATE = {"value": 1, "hog": False}
BAIT = Path(__file__).resolve().parents[1] / "PWNED"


@claim_check
def reads_state(ctx):
    """Measures a module global that the wrong variants change."""
    if STATE["hog"]:
        hoard = bytearray(6 << 30)  # far over the card's memory limit
        hoard[-1] = 1
    return Evidence(measured=STATE["value"])


@claim_check
def says(ctx):
    """Measures a fixed string."""
    return Evidence(measured="plain text", details="plain details")


@claim_check
def returns_a_set(ctx):
    return {1, 2}


@claim_check
def exits_cleanly(ctx):
    sys.exit(0)


@claim_check
def interrupts(ctx):
    raise KeyboardInterrupt


def bait(*args, **kwargs):
    """Not marked: a card must never reach it. Leaves a file behind when it runs."""
    BAIT.write_text("ran", encoding="utf-8")
    return Evidence(measured=True)
'''

VARIANTS = '''\
"""Wrong variants of the red-team project."""
from pathlib import Path

from claimcheck import wrong_variant

import tinymodels.hostile as hostile

COUNTER = Path(__file__).resolve().parents[1] / "variant-calls.txt"


@wrong_variant
def flip():
    """Measures 2 instead of 1."""
    hostile.STATE["value"] = 2


@wrong_variant
def hog():
    """Measures 2, after exhausting the check's memory."""
    hostile.STATE["value"] = 2
    hostile.STATE["hog"] = True


@wrong_variant
def boom():
    """Fails before the check runs (counted)."""
    with COUNTER.open("a", encoding="utf-8") as handle:
        handle.write("called\\n")
    raise RuntimeError("the variant broke itself")
'''


def project(tmp_path: Path, claims: list[dict[str, Any]], config: str = "") -> Path:
    """The tiny project with the red-team checks and variants; ``config`` is appended to its
    ``[tool.claimcheck]`` table."""
    root = hostile_project(tmp_path, claims, CHECKS)
    (root / "tinymodels" / "variants.py").write_text(VARIANTS, encoding="utf-8")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text("utf-8") + 'variants = ["tinymodels.variants"]\n'
                         + config, encoding="utf-8")
    return root


def set_config(root: Path, key: str, value: str) -> None:
    """Replace (or add) ``key = value`` (TOML text) in the project's table."""
    pyproject = root / "pyproject.toml"
    lines = [line for line in pyproject.read_text("utf-8").splitlines()
             if not line.startswith(f"{key} =")]
    lines.append(f"{key} = {value}")
    pyproject.write_text("\n".join(lines) + "\n", encoding="utf-8")


def result_path(root: Path, claim_id: str, store: str = ".claimcheck") -> Path:
    return root / store / "results" / f"{ARXIV}__{claim_id}.json"


def edit_result(path: Path, **fields: Any) -> None:
    data = json.loads(path.read_text("utf-8"))
    data.update(fields)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def verify(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    done = cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1", *extra)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return done


def status_rows(root: Path) -> dict[str, dict[str, Any]]:
    done = cli(root, "status", "wiki", "--format", "json")
    assert done.returncode == 0, done.stderr
    return rows(done.stdout)


def outside_files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=red", "-c", "user.email=red@team.invalid",
         "-c", "commit.gpgsign=false", *args],
        check=True, capture_output=True, text=True)
    return done.stdout.strip()


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


HOLDS_FALSE = claim("h", "tinymodels.checks:holds", {"holds": True}, args={"value": False},
                    basis="wiki")
"""A property that does not hold: honestly ``contradicted, measured false``."""


# =============================================================================================
# 1. Refused sources, however they are spelt
# =============================================================================================

REFUSED = "mirror.invalid/evil-team/copies"


def refused_lint(tmp_path: Path, body: str = "", front: str = "") -> str:
    """Lint a concept card holding ``body`` (Markdown) and ``front`` (front-matter lines) in a
    project whose refused list names :data:`REFUSED`; return lint's whole output."""
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")],
                   f'refused_sources = ["{REFUSED}"]\n')
    card = root / "wiki" / "concepts" / "rt-source.md"
    card.parent.mkdir(parents=True, exist_ok=True)
    summary = "" if front.startswith("summary:") else "summary: One paragraph.\n"
    card.write_text(
        f"---\nkind: concept\nslug: rt-source\ntitle: A source\n{summary}"
        f"tags: [routing]\nstatus: draft\nupdated_at: 2026-11-29\n{front}---\n"
        f"## Overview\n\n{body}\n", encoding="utf-8")
    done = cli(root, "lint", "wiki")
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout + done.stderr


def assert_refused(output: str) -> None:
    assert "is a refused source" in output, output


# Each a spelling of the refused address that a reader sees as that address.
REFUSED_SPELLINGS = {
    # a dot encoded twice, a slash as a hex entity, a letter as a decimal entity without ';'
    "layered percent and entities":
        "The copy at https://mirror%252Einvalid&#x2F;evil-team%2fcop&#105es was used.",
    "fullwidth, upper case, named entities":
        "Copy: ＭＩＲＲＯＲ&period;INVALID&sol;Evil-Team&sol;ＣＯＰＩＥＳ",
    # &hyphen; is U+2010 HYPHEN, drawn as the '-' of the address (NFKC keeps it apart)
    "hyphen entity": "Copy: https://mirror.invalid/evil&hyphen;team/copies",
    # U+0585 ARMENIAN SMALL LETTER OH is drawn as a Latin 'o', like the Cyrillic one
    "armenian oh": "Copy: https://mirr\u0585r.invalid/evil-team/c\u0585pies",
    # U+0251 LATIN SMALL LETTER ALPHA is drawn as a Latin 'a'
    "latin alpha": "Copy: https://mirror.inv\u0251lid/evil-te\u0251m/copies",
    # U+3164 HANGUL FILLER renders as nothing visible, like the zero-width space
    "hangul filler": "Copy: https://mirror.inv\u3164alid/evil-team/co\u3164pies",
}


@pytest.mark.parametrize("case", sorted(REFUSED_SPELLINGS))
def test_a_refused_source_in_a_card_body_however_spelt(tmp_path: Path, case: str) -> None:
    assert_refused(refused_lint(tmp_path, body=REFUSED_SPELLINGS[case]))


def test_refused_source_in_mixed_yaml_escapes_across_one_value(tmp_path: Path) -> None:
    # \x, \u and \U escapes, each for a different character of the same address
    front = 'summary: "Read at mirror\\x2Einvalid\\u002Fevil\\x2Dteam\\U0000002Fcop\\x69es."\n'
    assert_refused(refused_lint(tmp_path, front=front))


def test_refused_source_with_a_yaml_escaped_entity(tmp_path: Path) -> None:
    # YAML's \u0026 is '&': the value decodes to an entity, which decodes to '/'
    front = 'summary: "mirror.invalid\\u0026#47;evil-team\\u0026#x2f;copies"\n'
    assert_refused(refused_lint(tmp_path, front=front))


def test_refused_source_spelt_as_punycode_of_a_lookalike_host(tmp_path: Path) -> None:
    # The Cyrillic spelling "mirrоr.invalid" is refused; its ASCII (IDNA) form is what a
    # browser shows as that same host.
    host = "mirr\u043er.invalid".encode("idna").decode("ascii")
    assert host.startswith("xn--")
    body = f"Copy: https://{host}/evil-team/copies"
    assert_refused(refused_lint(tmp_path, body=body))


def test_papers_fetch_refuses_to_download_a_refused_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = b"\\documentclass{article}\\begin{document}x\\end{document}\n"
    digest = hashlib.sha256(payload).hexdigest()
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")],
                   f'refused_sources = ["{REFUSED}"]\n')
    card = root / "wiki" / "papers" / "paper-0.md"
    text = card.read_text("utf-8").replace(
        "year: 2021\n",
        "year: 2021\nsource: {version: 1, kind: latex, sha256: '" + digest + "', "
        "url: 'https://MIRROR.invalid/evil-team/copies/p.tar'}\n", 1)
    card.write_text(text, encoding="utf-8")
    asked: list[str] = []

    def fake_get(url: str, limit: int = 0) -> bytes:
        asked.append(url)
        return payload

    monkeypatch.setattr("claimcheck.sources.fetch.http_get", fake_get)
    done = cli(root, "papers", "fetch")
    cache = tmp_path / ".cache" / "claimcheck" / "sources"
    assert asked == [], f"downloaded from a refused source: {asked}; {done.stderr}"
    assert done.returncode != 0
    assert not (cache / "blobs" / digest).exists()


# =============================================================================================
# 2. Paths: writers and loaders stay inside the project
# =============================================================================================


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def test_schema_output_through_a_nested_linked_folder_is_refused(
    tmp_path: Path, outside: Path
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    (root / "docs" / "editor").mkdir(parents=True)
    (root / "docs" / "editor" / "deep").symlink_to(outside, target_is_directory=True)
    done = cli(root, "schema", "-o", "docs/editor/deep/card.schema.json")
    assert done.returncode != 0, done.stdout[-500:]
    assert outside_files(outside) == []


def test_report_output_onto_a_dangling_link_out_of_the_project(
    tmp_path: Path, outside: Path
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    (root / "report.md").symlink_to(outside / "planted.md")
    done = cli(root, "report", "--format", "markdown", "-o", "report.md")
    assert "Traceback" not in done.stderr, done.stderr
    assert outside_files(outside) == [], "the report was written through a dangling link"
    if done.returncode == 0:
        assert not (root / "report.md").is_symlink()


def test_init_never_writes_through_a_dangling_link_in_the_new_project(
    tmp_path: Path, outside: Path
) -> None:
    target = tmp_path / "fresh"
    target.mkdir()
    (target / "pyproject.toml").symlink_to(outside / "planted.toml")
    (target / "mkdocs.yml").symlink_to(outside / "planted.yml")
    done = cli(tmp_path, "init", "fresh")
    assert "Traceback" not in done.stderr, done.stderr
    assert outside_files(outside) == [], done.stdout + done.stderr


def test_a_wiki_configured_outside_the_project_is_refused(
    tmp_path: Path, outside: Path
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    shutil.copytree(root / "wiki", outside / "wiki")
    shutil.rmtree(root / "wiki")
    set_config(root, "wiki", '"../outside/wiki"')
    linted = cli(root, "lint")
    verified = cli(root, "verify", "--device", "cpu", "--jobs", "1")
    assert linted.returncode == 2, linted.stdout[-800:]
    assert verified.returncode == 2, verified.stdout[-800:]
    assert not (root / ".claimcheck" / "results").exists() or not any(
        (root / ".claimcheck" / "results").iterdir()), "ran cards from outside the project"


def test_new_card_into_a_wiki_configured_outside_is_refused(
    tmp_path: Path, outside: Path
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    (outside / "wiki").mkdir()
    set_config(root, "wiki", '"sub/../../outside/wiki"')
    done = cli(root, "new", "concept", "planted", "--offline")
    assert done.returncode != 0
    assert outside_files(outside) == ["wiki"]


@pytest.mark.parametrize("arguments", [
    ("concept", "../../outside/escape"),
    ("concept", "..%2F..%2Foutside%2Fescape"),
    ("paper", "--arxiv", "2101.00099", "--title", "../../outside/escape"),
    ("paper", "--url", "https://x.invalid/../../outside/escape", "--title", "../../../x"),
], ids=["concept-dots", "concept-encoded", "paper-title", "paper-url"])
def test_new_never_writes_a_card_outside_the_wiki(
    tmp_path: Path, outside: Path, arguments: tuple[str, ...]
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    before = set(outside_files(tmp_path))
    done = cli(root, "new", *arguments, "--offline")
    assert "Traceback" not in done.stderr, done.stderr
    created = set(outside_files(tmp_path)) - before
    assert all(name.startswith("project/wiki/") for name in created), created


@pytest.mark.parametrize("value", ['"sub/../../outside/store"', '"./../outside/store"'])
def test_a_results_store_configured_outside_is_refused(
    tmp_path: Path, outside: Path, value: str
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    set_config(root, "results", value)
    for command in (("verify", "wiki", "--device", "cpu", "--jobs", "1"), ("status", "wiki")):
        done = cli(root, *command)
        assert done.returncode == 2, (command, done.stdout[-500:], done.stderr[-500:])
    assert outside_files(outside) == []


def test_a_data_root_that_is_a_link_out_of_the_project_is_never_used(
    tmp_path: Path, outside: Path
) -> None:
    (outside / "mnist").mkdir()
    root = project(tmp_path, [claim("d", "tinymodels.hostile:says", {"equals": "plain text"},
                                    args={"data_folder": "datalink/mnist"}, basis="wiki")],
                   'data_roots = ["datalink"]\n')
    (root / "datalink").symlink_to(outside, target_is_directory=True)
    linted = cli(root, "lint", "wiki")
    assert linted.returncode == 1 and "symbolic link" in linted.stdout, linted.stdout
    _code, found = verify_json(root)
    assert found["d"]["verdict"] == "unverified" and found["d"]["errored"], found["d"]
    assert "symbolic link" in found["d"]["reason"]


def verify_json(root: Path, *extra: str) -> tuple[int, dict[str, dict[str, Any]]]:
    done = verify(root, "--format", "json", *extra)
    return done.returncode, rows(done.stdout)


def test_mnist_loader_never_follows_a_linked_torchvision_layout(
    tmp_path: Path, outside: Path
) -> None:
    from models.data import mnist

    raw = outside / "raw"
    raw.mkdir()
    for stem in mnist.IDX_FILES.values():
        (raw / stem).write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x01\x07")
    data = tmp_path / "data"
    (data / "MNIST").mkdir(parents=True)
    (data / "MNIST" / "raw").symlink_to(raw, target_is_directory=True)
    with pytest.raises(ValueError, match="symbolic link"):
        mnist.load_mnist(data)


def test_papers_fetch_never_writes_through_a_linked_blobs_folder(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = b"\\documentclass{article}\\begin{document}y\\end{document}\n"
    digest = hashlib.sha256(payload).hexdigest()
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")], 'sources = "paper-cache"\n')
    card = root / "wiki" / "papers" / "paper-0.md"
    card.write_text(card.read_text("utf-8").replace(
        "year: 2021\n", "year: 2021\nsource: {version: 1, kind: latex, sha256: '"
        + digest + "'}\n", 1), encoding="utf-8")
    (root / "paper-cache").mkdir()
    (root / "paper-cache" / "blobs").symlink_to(outside, target_is_directory=True)
    monkeypatch.setattr("claimcheck.sources.fetch.http_get", lambda url, limit=0: payload)
    done = cli(root, "papers", "fetch")
    assert "Traceback" not in done.stderr, done.stderr
    assert outside_files(outside) == []
    assert done.returncode != 0


def test_verify_power_never_writes_through_a_linked_power_folder(
    tmp_path: Path, outside: Path
) -> None:
    root = project(tmp_path, [claim("p", "tinymodels.hostile:reads_state", {"equals": 1},
                                    catches=["flip"], basis="wiki")])
    assert verify(root).returncode == 0
    power = root / ".claimcheck" / "power"
    if power.is_dir():
        shutil.rmtree(power)
    power.symlink_to(outside, target_is_directory=True)
    done = cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1", "--power",
               "--power-scope", "listed")
    assert "Traceback" not in done.stderr, done.stderr
    assert outside_files(outside) == []
    assert done.returncode != 0


# =============================================================================================
# 3. Output safety
# =============================================================================================

HOSTILE_TEXT = ("ok\x1b]8;;https://evil.invalid\x07link\x1b]8;;\x07 \x9b2J \x90dcs\x9c "
                "\u2067iso\u2069 \u200fmark \x85next \u2028sep \x0bvt \x1b[31mred")
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                          "\u2066-\u2069]")


def forged_text_project(tmp_path: Path, text: str) -> Path:
    """A verified string claim whose stored result is edited to show ``text`` as its
    measurement, details, reason and environment (contradicted, consistently)."""
    root = project(tmp_path, [claim("s", "tinymodels.hostile:says", {"equals": "plain text"},
                                    basis="wiki")])
    assert verify(root).returncode == 0
    path = result_path(root, "s")
    data = json.loads(path.read_text("utf-8"))
    data["environment"]["torch"] = "2.0" + text
    edit_result(path, verdict="contradicted", measured=text, details=text,
                reason=f"measured {text!r}", environment=data["environment"])
    return root


def test_status_and_verify_text_show_stored_controls_escaped(tmp_path: Path) -> None:
    root = forged_text_project(tmp_path, HOSTILE_TEXT)
    outputs = {
        "status": cli(root, "status", "wiki"),
        "status -v": cli(root, "status", "wiki", "--verbose"),
        "verify": cli(root, "verify", "wiki", "--device", "cpu"),
        "verify -v": cli(root, "verify", "wiki", "--device", "cpu", "--verbose"),
    }
    for name, done in outputs.items():
        shown = done.stdout + done.stderr
        raw = RAW_CONTROLS.findall(shown)
        assert not raw, f"{name}: raw control characters {raw!r} in\n{shown[-1500:]}"
        assert "\\x1b" in shown, f"{name}: the stored text is not shown at all:\n{shown}"


def test_github_annotations_keep_one_command_per_line(tmp_path: Path) -> None:
    text = ("a\n::error file=.github/workflows/ci.yml,line=1::forged\r::warning::x"
            "\x85::notice::nel\u2028::error::ls %0A::error::encoded")
    root = forged_text_project(tmp_path, text)
    for command in (("status", "wiki", "--format", "github"),
                    ("verify", "wiki", "--device", "cpu", "--format", "github")):
        done = cli(root, *command)
        lines = done.stdout.splitlines()
        assert lines, done.stderr
        for line in lines:
            assert re.match(r"::(error|warning|notice) file=[^:]*::", line), (command, line)
            properties = line.split("::")[1]
            assert properties.endswith("file=wiki/papers/paper-0.md,line=11"), line
            assert not RAW_CONTROLS.search(line), (command, line)
        assert len(lines) == len({*lines}) and len(lines) <= 2, lines


def forged_error_project(tmp_path: Path, text: str) -> Path:
    """A claim whose check raised, its stored reason and traceback edited to hold ``text``
    (an errored result is shown with its stored reason, not a re-judged one)."""
    root = project(tmp_path, [claim("r", "tinymodels.checks:raises", {"holds": True},
                                    basis="wiki")])
    verify(root)
    path = result_path(root, "r")
    data = json.loads(path.read_text("utf-8"))
    assert data["error"], data
    edit_result(path, reason=f"check raised RuntimeError: {text}",
                error=f"Traceback (most recent call last):\nRuntimeError: {text}\n")
    return root


@pytest.mark.parametrize("stored", ["measured", "error"])
@pytest.mark.parametrize("char", ["\ufffe", "\uffff", "\x1b", "\x0c"])
def test_junit_stays_well_formed_xml_whatever_the_stored_text(
    tmp_path: Path, char: str, stored: str
) -> None:
    make = forged_text_project if stored == "measured" else forged_error_project
    root = make(tmp_path, f"bad{char}text")
    done = cli(root, "status", "wiki", "--format", "junit")
    assert done.returncode == 0, done.stderr
    ElementTree.fromstring(done.stdout.encode("utf-8"))  # raises on a character XML forbids


@pytest.mark.parametrize("stored", ["measured", "error"])
def test_a_lone_surrogate_in_a_stored_result_does_not_crash_status(
    tmp_path: Path, stored: str
) -> None:
    make = forged_text_project if stored == "measured" else forged_error_project
    root = make(tmp_path, "half \ud800 pair")
    crashed = []
    for command in (("status", "wiki"), ("status", "wiki", "--format", "github"),
                    ("status", "wiki", "--format", "junit"), ("report", "--format", "markdown")):
        done = cli(root, *command, child=True, timeout=120)
        if "Traceback" in done.stderr or done.returncode != 0:
            crashed.append((" ".join(command), done.returncode,
                            done.stderr.strip().splitlines()[-1:]))
    assert not crashed, crashed


def test_lint_shows_invisible_marks_in_a_quoted_value_escaped(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("ok", "tinymodels.checks:holds", {"holds": True},
                                    basis="wiki")])
    card = root / "wiki" / "concepts" / "rt-marks.md"
    card.parent.mkdir(parents=True, exist_ok=True)
    card.write_text(
        "---\nkind: concept\nslug: rt-marks\ntitle: Marks\nsummary: One paragraph.\n"
        'tags: [routing]\nrelated: ["evil\u200fslug\u2028x"]\nstatus: draft\n'
        "updated_at: 2026-11-29\n---\n## Overview\n\nText.\n", encoding="utf-8")
    for fmt in ("text", "github"):
        done = cli(root, "lint", "wiki", "--format", fmt)
        assert "Traceback" not in done.stderr, done.stderr
        assert not RAW_CONTROLS.search(done.stdout), (fmt, done.stdout)
        assert "rt-marks.md" in done.stdout, (fmt, done.stdout)


def code_spans(line: str) -> list[str]:
    """The contents of the CommonMark code spans of one line (backslash escapes do not apply
    inside them; a backtick run with no closing run of the same length is literal text)."""
    spans, index = [], 0
    while index < len(line):
        if line[index] != "`":
            index += 1
            continue
        run = re.match(r"`+", line[index:]).group()
        closing = re.compile(rf"(?<!`){run}(?!`)")
        found = closing.search(line, index + len(run))
        if found is None:
            index += len(run)
            continue
        content = line[index + len(run):found.start()]
        if len(content) > 1 and content.startswith(" ") and content.endswith(" ") \
                and content.strip():
            content = content[1:-1]
        spans.append(content)
        index = found.end()
    return spans


def test_markdown_report_code_spans_survive_backtick_runs_in_a_wiki_path(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, [HOLDS_FALSE])
    odd = "w``i`k```i`"
    (root / "wiki").rename(root / odd)
    set_config(root, "wiki", json.dumps(odd))
    done = cli(root, "report", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("Generated"))
    assert odd in code_spans(line), line


def test_markdown_report_code_spans_survive_backticks_in_a_check_name(tmp_path: Path) -> None:
    odd = "`tinymodels.checks:``holds|x```"
    root = project(tmp_path, [claim("odd", odd, {"holds": True}, basis="wiki")])
    done = cli(root, "report", "--format", "markdown")
    assert "Traceback" not in done.stderr, done.stderr
    row = next((line for line in done.stdout.splitlines() if line.startswith("| `odd`")), None)
    assert row is not None, done.stdout[-1500:]
    assert odd.replace("|", "\\|") in code_spans(row), row


# =============================================================================================
# 4. Honest power and honest reruns
# =============================================================================================


def test_a_variant_listed_under_two_spellings_counts_once(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("p", "tinymodels.hostile:reads_state", {"equals": 1},
                                    catches=["flip", "tinymodels.variants:flip"],
                                    basis="wiki")])
    done = verify(root, "--power", "--power-scope", "listed")
    assert done.returncode == 0, done.stdout[-1500:]
    power = status_rows(root)["p"]["power"]
    assert power["listed"] == 1, power
    assert power["caught"] == 1, power
    assert "catches 1 of 1" in power["summary"], power


def test_memory_exhaustion_under_a_variant_is_never_caught(tmp_path: Path) -> None:
    pytest.importorskip("resource")  # where there is no memory limit, nothing is exhausted
    root = project(tmp_path, [claim("p", "tinymodels.hostile:reads_state", {"equals": 1},
                                    catches=["hog"], resources={"memory_gb": 0.25},
                                    basis="wiki")])
    verify(root, "--power", "--power-scope", "listed")
    power = status_rows(root)["p"]["power"]
    states = {v["name"]: v["state"] for v in power["variants"]}
    assert states.get("hog") != "caught", power
    assert power["caught"] == 0, power


def test_a_card_sharing_a_paper_cards_slug_leaves_no_verdict_and_no_power(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, [claim("p", "tinymodels.hostile:reads_state", {"equals": 1},
                                    catches=["flip"], basis="wiki")])
    assert verify(root, "--power", "--power-scope", "listed").returncode == 0
    assert status_rows(root)["p"]["power"]["caught"] == 1
    concept = root / "wiki" / "concepts" / "same-slug.md"
    concept.parent.mkdir(parents=True)
    concept.write_text("---\nkind: concept\nslug: paper-0\ntitle: Clash\nsummary: One.\n"
                       "tags: [routing]\nstatus: draft\nupdated_at: 2026-11-29\n---\nText.\n",
                       encoding="utf-8")
    row = status_rows(root)["p"]
    assert row["verdict"] == "unverified", row
    assert "slug" in row["reason"], row
    assert row["measured"] is None, row
    power = row["power"] or {}
    assert not power.get("caught") and "catches 1" not in str(power.get("summary")), power
    done = verify(root, "--format", "json")
    assert rows(done.stdout)["p"]["verdict"] == "unverified"
    report = cli(root, "report", "--format", "markdown")
    row_line = next(line for line in report.stdout.splitlines() if line.startswith("| `p`"))
    assert "catches" not in row_line and "verified" not in row_line.replace("unverified", ""), \
        row_line


@pytest.mark.parametrize("check", ["returns_a_set", "exits_cleanly", "interrupts"])
def test_an_errored_run_is_never_current(tmp_path: Path, check: str) -> None:
    root = project(tmp_path, [claim("e", f"tinymodels.hostile:{check}", {"holds": True},
                                    basis="wiki")])
    first = cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1", "--format", "json")
    assert "Traceback" not in first.stderr, first.stderr[-2000:]
    if first.returncode == 130:
        pytest.fail("an exception raised inside a check interrupted the whole verify run")
    row = rows(first.stdout)["e"]
    assert row["verdict"] != "verified" and row["errored"], row
    again = verify(root, "--format", "json")
    assert rows(again.stdout)["e"]["ran"], "the errored result was taken as current"


def test_an_errored_variant_run_is_retried(tmp_path: Path) -> None:
    root = project(tmp_path, [claim("p", "tinymodels.hostile:reads_state", {"equals": 1},
                                    catches=["boom"], basis="wiki")])
    verify(root, "--power", "--power-scope", "listed")
    verify(root, "--power", "--power-scope", "listed")
    calls = (root / "variant-calls.txt").read_text("utf-8").splitlines()
    assert len(calls) == 2, calls
    power = status_rows(root)["p"]["power"]
    assert power["caught"] == 0, power


# =============================================================================================
# 5. The CI gate
# =============================================================================================


def gate_project(tmp_path: Path) -> tuple[Path, str]:
    """A git project whose base commit holds the honest ``contradicted`` result of ``h``."""
    root = project(tmp_path, [HOLDS_FALSE])
    assert verify(root).returncode == 0
    git(root, "init", "-q")
    return root, commit_all(root, "base: honest results")


def forge(path: Path) -> None:
    """The forgery of every gate test: ``verified, measured true`` (consistent with itself)."""
    edit_result(path, verdict="verified", measured=True, reason="", details="as told")


def recheck(root: Path, base: str) -> subprocess.CompletedProcess[str]:
    return cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1",
               "--recheck-results-changed-since", base)


def moved_store(root: Path, name: str) -> Path:
    shutil.move(root / ".claimcheck", root / name)
    set_config(root, "results", json.dumps(name))
    return root / name


@needs_git
@pytest.mark.parametrize("name", ["résultats", "store\tfolder", 'store"q', ":(attr:nothing)store"],
                         ids=["non-ascii", "tab", "quote", "pathspec-magic"])
def test_gate_fails_on_a_forgery_in_a_store_git_quotes_or_reads_as_magic(
    tmp_path: Path, name: str
) -> None:
    root, base = gate_project(tmp_path)
    store = moved_store(root, name)
    forge(store / "results" / f"{ARXIV}__h.json")
    commit_all(root, "PR: move the store and forge a result")
    done = recheck(root, base)
    assert done.returncode != 0, done.stdout[-800:] + done.stderr[-800:]


@needs_git
def test_gate_fails_on_a_forgery_in_a_store_committed_as_a_gitlink(tmp_path: Path) -> None:
    root, base = gate_project(tmp_path)
    store = moved_store(root, "store")
    forge(store / "results" / f"{ARXIV}__h.json")
    git(store, "init", "-q")
    commit_all(store, "forged store")
    commit_all(root, "PR: the store as a nested repository")
    assert git(root, "ls-files", "-s", "store").startswith("160000")
    done = recheck(root, base)
    assert done.returncode != 0, done.stdout[-800:] + done.stderr[-800:]


@needs_git
def test_gate_fails_on_a_forged_result_of_a_renamed_claim(tmp_path: Path) -> None:
    root, base = gate_project(tmp_path)
    card = root / "wiki" / "papers" / "paper-0.md"
    card.write_text(card.read_text("utf-8").replace("- id: h\n", "- id: h-renamed\n"),
                    encoding="utf-8")
    assert verify(root).returncode == 0
    result_path(root, "h").unlink()
    forge(result_path(root, "h-renamed"))
    commit_all(root, "PR: rename the claim, forge its new result")
    done = recheck(root, base)
    assert done.returncode == 4, done.stdout[-800:] + done.stderr[-800:]


@needs_git
def test_gate_fails_on_a_forgery_with_a_forged_fingerprint(tmp_path: Path) -> None:
    root, base = gate_project(tmp_path)
    path = result_path(root, "h")
    forge(path)
    edit_result(path, fingerprint="f" * 64)
    commit_all(root, "PR: forged result and fingerprint")
    done = recheck(root, base)
    assert done.returncode == 4, done.stdout[-800:] + done.stderr[-800:]


@needs_git
def test_a_deleted_result_is_remade_honestly_by_the_gate(tmp_path: Path) -> None:
    root, base = gate_project(tmp_path)
    result_path(root, "h").unlink()
    commit_all(root, "PR: drop the contradicted result")
    done = recheck(root, base)
    assert done.returncode in (0, 4), done.stderr[-800:]
    row = status_rows(root)["h"]
    assert row["verdict"] == "contradicted" and not row["stale"], row


# =============================================================================================
# 6. A hostile card never runs code
# =============================================================================================


def bait_ran(root: Path) -> bool:
    return (root / "PWNED").exists()


def hostile_card(tmp_path: Path, claims_yaml: str) -> Path:
    """The project with its paper card's claims replaced by ``claims_yaml`` (raw YAML)."""
    root = project(tmp_path, [HOLDS_FALSE])
    card = root / "wiki" / "papers" / "paper-0.md"
    text = card.read_text("utf-8")
    head = text[: text.index("claims:\n")]
    card.write_text(head + "claims:\n" + textwrap.dedent(claims_yaml) + "---\nBody.\n",
                    encoding="utf-8")
    return root


def assert_no_code_ran(root: Path) -> None:
    linted = cli(root, "lint", "wiki")
    assert "Traceback" not in linted.stderr, linted.stderr
    assert linted.returncode != 0, linted.stdout
    done = cli(root, "verify", "wiki", "--device", "cpu", "--jobs", "1")
    assert "Traceback" not in done.stderr, done.stderr[-1500:]
    assert done.returncode != 0, done.stdout[-800:]
    assert not bait_ran(root)


@pytest.mark.parametrize("tag", [
    "!<tag:yaml.org,2002:python/object/apply:tinymodels.hostile.bait>",
    "!!python/object/apply:tinymodels%2Ehostile%2Ebait",
    "!<tag:yaml.org,2002:python/name:tinymodels.hostile.bait>",
], ids=["verbatim", "uri-escaped", "verbatim-name"])
def test_yaml_tags_in_any_spelling_are_refused(tmp_path: Path, tag: str) -> None:
    root = hostile_card(tmp_path, f"""\
        - id: t
          cite: tab. 1
          basis: wiki
          statement: A statement.
          check: tinymodels.checks:holds
          args: {{value: {tag} [1]}}
          expect: {{holds: true}}
        """)
    assert_no_code_ran(root)


def test_a_merge_key_cannot_smuggle_a_check(tmp_path: Path) -> None:
    root = hostile_card(tmp_path, """\
        - id: m
          cite: tab. 1
          basis: wiki
          statement: A statement.
          <<: {check: "tinymodels.hostile:bait"}
          expect: {holds: true}
        """)
    assert_no_code_ran(root)


def test_a_duplicate_check_key_cannot_swap_the_function(tmp_path: Path) -> None:
    root = hostile_card(tmp_path, """\
        - id: d
          cite: tab. 1
          basis: wiki
          statement: A statement.
          check: tinymodels.checks:holds
          expect: {holds: true}
          check: tinymodels.hostile:bait
        """)
    assert_no_code_ran(root)


@pytest.mark.parametrize("reference", [
    "tinymodels.hostile:subprocess.run",
    "tinymodels.hostile:Path.touch",
    "tinymodels.hostile:bait.__call__",
    " tinymodels.hostile:bait",
    "tinymodels.hostile:builtins.exec",
], ids=["imported-module-attr", "imported-class-attr", "dunder", "leading-space", "builtins"])
def test_attribute_paths_through_content_modules_are_refused(
    tmp_path: Path, reference: str
) -> None:
    root = hostile_card(tmp_path, f"""\
        - id: a
          cite: tab. 1
          basis: wiki
          statement: A statement.
          check: {json.dumps(reference)}
          expect: {{holds: true}}
        """)
    assert_no_code_ran(root)
    _code, found = verify_json(root)
    assert "check raised" not in found["a"]["reason"], found["a"]


def test_factory_naming_builtins_exec_is_refused(tmp_path: Path) -> None:
    root = hostile_card(tmp_path, """\
        - id: f
          cite: tab. 1
          basis: wiki
          statement: A statement.
          check: params
          args: {factory: "builtins:exec", kwargs: {source: "open('PWNED', 'w').write('x')"}}
          expect: {equals: 1}
        """)
    assert_no_code_ran(root)


def test_a_package_folder_linked_in_from_outside_is_not_content(
    tmp_path: Path, outside: Path
) -> None:
    package = outside / "ext"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "evil.py").write_text(textwrap.dedent('''\
        from pathlib import Path
        from claimcheck import claim_check
        from claimcheck.checks.api import Evidence


        @claim_check
        def touch(ctx):
            Path("PWNED").write_text("ran", encoding="utf-8")
            return Evidence(measured=True)
        '''), encoding="utf-8")
    root = hostile_card(tmp_path, """\
        - id: x
          cite: tab. 1
          basis: wiki
          statement: A statement.
          check: tinymodels.ext.evil:touch
          expect: {holds: true}
        """)
    (root / "tinymodels" / "ext").symlink_to(package, target_is_directory=True)
    assert_no_code_ran(root)


def test_import_roots_climbing_out_of_the_project_are_refused(
    tmp_path: Path, outside: Path
) -> None:
    (outside / "pkg").mkdir()
    (outside / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    root = project(tmp_path, [HOLDS_FALSE])
    set_config(root, "import_roots", '["tinymodels", "tinymodels/../../outside/pkg"]')
    for command in (("lint", "wiki"), ("verify", "wiki", "--device", "cpu")):
        done = cli(root, *command)
        assert done.returncode == 2, (command, done.stdout[-500:], done.stderr[-500:])
        assert "outside" in done.stderr, done.stderr
