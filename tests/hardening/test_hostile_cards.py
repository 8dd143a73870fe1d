"""Hostile cards: expansion bombs, code-running tags, huge and deeply nested files, and check
references that try to leave the project (issue 9 §1-§2).

Each test states the input, then proves the tool refused it with one located error, quickly,
and that nothing the card asked for was executed.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.cards.loader import MAX_CARD_BYTES, load_card
from claimcheck.core.errors import CardError

REPO = Path(__file__).resolve().parents[2]
HEAD = "---\nkind: concept\nslug: hostile\ntitle: T\nupdated_at: 2026-11-29\n"


def _card(tmp_path: Path, front: str, body: str = "Body.\n", name: str = "card.md") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + front + "---\n" + body, encoding="utf-8")
    return path


def _refusal(path: Path) -> CardError:
    with pytest.raises(CardError) as caught:
        load_card(path)
    error = caught.value
    assert error.path == str(path)
    assert error.line is not None and error.line >= 1
    return error


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    """The classic alias bomb: ``width ** levels`` strings from a few hundred bytes."""
    lines = ["l0: &l0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_fast_and_small(tmp_path: Path) -> None:
    path = _card(tmp_path, billion_laughs())
    tracemalloc.start()
    with _cpu_deadline(2.0):
        error = _refusal(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "aliases" in error.message
    assert error.line == 7  # the first line that uses an alias (*l0)
    assert peak < 20 * 1024**2


def test_single_alias_is_refused_too(tmp_path: Path) -> None:
    error = _refusal(_card(tmp_path, "summary: &s text\nrelated: *s\n"))
    assert "aliases" in error.message and error.line == 7


def test_python_tag_is_an_error_naming_its_line_and_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    tag = f"!!python/object/apply:os.system ['touch {marker}']"
    path = _card(tmp_path, f"summary: {tag}\n")
    error = _refusal(path)
    assert "python/object/apply" in error.message and "not allowed" in error.message
    assert (error.line, error.col) == (6, 10)
    assert not marker.exists()


@pytest.mark.parametrize("tag", [
    "!!python/name:os.system", "!!python/object/new:subprocess.Popen [['true']]",
    "!!python/module:os", "!!binary aGVsbG8=", "!!set {a, b}", "!custom value",
])
def test_every_tag_outside_the_core_schema_is_refused(tmp_path: Path, tag: str) -> None:
    error = _refusal(_card(tmp_path, f"summary: {tag}\n"))
    assert "not allowed" in error.message and error.line == 6


def test_python_tag_through_lint_and_verify_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    tag = f"!!python/object/apply:os.system ['touch {marker}']"
    (tmp_path / "wiki").mkdir()
    _card(tmp_path / "wiki", f"summary: {tag}\n")
    for command in (["lint", "wiki"], ["verify", "wiki", "--device", "cpu"]):
        result = subprocess.run(
            [sys.executable, "-m", "claimcheck.cli", *command], cwd=tmp_path,
            capture_output=True, text=True, timeout=120, env=_env(),
        )
        assert result.returncode != 0, result.stdout
        assert "Traceback" not in result.stderr
        assert "wiki/card.md:6:10" in result.stdout + result.stderr
        assert not marker.exists()


def test_card_over_the_size_limit_is_refused_without_parsing(tmp_path: Path) -> None:
    path = _card(tmp_path, "summary: " + "a" * (MAX_CARD_BYTES + 1) + "\n")
    with _cpu_deadline(2.0):
        error = _refusal(path)
    assert "limit" in error.message and f"{MAX_CARD_BYTES:,}" in error.message


@pytest.mark.parametrize("opener,closer", [("[", "]"), ("{a: ", "}")])
def test_ten_thousand_deep_flow_nesting_is_a_clear_error(
    tmp_path: Path, opener: str, closer: str
) -> None:
    depth = 10_000
    path = _card(tmp_path, "tags: " + opener * depth + "1" + closer * depth + "\n")
    error = _refusal(path)
    assert "nested deeper" in error.message
    assert error.line == 6


def test_deepest_block_nesting_that_fits_the_size_limit_is_a_clear_error(
    tmp_path: Path,
) -> None:
    depth = 1_300  # indentation grows by one per level, so ~depth**2/2 bytes: under 1 MB
    nested = "".join(" " * level + "-\n" for level in range(depth))
    path = _card(tmp_path, "tags:\n" + nested)
    assert path.stat().st_size < MAX_CARD_BYTES
    error = _refusal(path)
    assert "nested deeper" in error.message


@pytest.mark.parametrize("character", ["\x01", "\x7f", "\ufffe"])
def test_unprintable_character_is_a_located_error(tmp_path: Path, character: str) -> None:
    error = _refusal(_card(tmp_path, f"summary: a{character}b\n"))
    assert error.line == 6


def test_huge_integer_is_a_located_error(tmp_path: Path) -> None:
    error = _refusal(_card(tmp_path, "summary: " + "9" * 5000 + "\n"))
    assert error.line == 6


def test_many_open_citations_on_one_line_do_not_stall(tmp_path: Path) -> None:
    """Each ``[arxiv:`` opens a candidate; the line's one ``]`` must not be re-scanned for each."""
    path = _card(tmp_path, "", "[arxiv:" * 15_000 + "]\n")
    with _cpu_deadline(5.0):
        card = load_card(path)
    assert card.citation_problems


def test_many_valid_citations_load_in_linear_time(tmp_path: Path) -> None:
    citation = "[arxiv:2101.12491 tab. 2] "
    body = citation * ((MAX_CARD_BYTES - 200) // len(citation)) + "\n"
    path = _card(tmp_path, "", body)
    with _cpu_deadline(20.0):
        card = load_card(path)
    assert len(card.citations) == body.count("[arxiv:")


def test_deep_blockquote_body_loads(tmp_path: Path) -> None:
    card = load_card(_card(tmp_path, "", ">" * 50_000 + " `x` [arxiv:2101.12491 tab. 2]\n"))
    assert len(card.citations) == 1


@contextlib.contextmanager
def _cpu_deadline(seconds: float) -> Iterator[None]:
    """Fail the block once it has used ``seconds`` of this process's own CPU time.

    The budget counts the work the block does (ITIMER_PROF, SIGPROF), not the wall clock: other
    processes on a busy machine delay the block without spending its budget, so the test tells
    a quadratic parser from a loaded machine. Main thread only.
    """

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def _env(extra_path: Path | None = None) -> dict[str, str]:
    paths = [str(REPO)] + ([str(extra_path)] if extra_path else [])
    return {"PYTHONPATH": ":".join(paths), "PATH": "/usr/bin:/bin", "HOME": "/tmp",
            "CLAIMCHECK_MEMORY_LIMIT_GB": "0"}


def test_symlink_to_an_endless_device_is_refused(tmp_path: Path) -> None:
    """Git stores symlinks, so a pull request can add ``wiki/zero.md -> /dev/zero``."""
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "zero.md").symlink_to("/dev/zero")
    script = (
        "import resource, sys; "
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "from claimcheck.cli.main import main; sys.exit(main(['lint', 'wiki']))"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, env=_env())
    assert result.returncode == 1, result.stderr[-500:]
    assert "Traceback" not in result.stderr
    assert result.stdout.startswith("wiki/zero.md:1:1: error:")
