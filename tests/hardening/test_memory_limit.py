"""The per-check memory ceiling (claimcheck/engine/limits.py), exercised in child processes only."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from claimcheck.engine.limits import (
    DEFAULT_MEMORY_LIMIT_GB,
    ENV_MEMORY_LIMIT,
    MemoryLimitError,
    memory_limit_bytes,
    memory_limit_for_device,
)

REPO = Path(__file__).resolve().parents[2]
GIB = 1024**3

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no RLIMIT_AS on Windows")


def _child(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=REPO, capture_output=True,
        text=True, timeout=60, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )


def test_default_is_documented_constant() -> None:
    assert memory_limit_bytes(environ={}) == int(DEFAULT_MEMORY_LIMIT_GB * GIB)


@pytest.mark.parametrize(("text", "expected"), [
    ("2", 2 * GIB), ("0.5", GIB // 2), ("0", None), ("none", None), ("OFF", None),
])
def test_environment_overrides_default(text: str, expected: int | None) -> None:
    assert memory_limit_bytes(environ={ENV_MEMORY_LIMIT: text}) == expected


def test_claim_resources_only_lower_the_operators_limit() -> None:
    """A card is untrusted: its ``resources.memory_gb`` never lifts the operator's cap
    (issue 22 §2)."""
    assert memory_limit_bytes(3, environ={ENV_MEMORY_LIMIT: "1"}) == 1 * GIB
    assert memory_limit_bytes(0.5, environ={ENV_MEMORY_LIMIT: "1"}) == GIB // 2
    assert memory_limit_bytes(64, environ={}) == int(DEFAULT_MEMORY_LIMIT_GB * GIB)
    assert memory_limit_bytes(2, environ={}) == 2 * GIB
    assert memory_limit_bytes(3, environ={ENV_MEMORY_LIMIT: "0"}) == 3 * GIB  # no cap: it lowers


@pytest.mark.parametrize("value", [1e300, float("inf"), float("nan"), -1.0, 0.0])
def test_an_out_of_range_claim_limit_is_a_clear_error(value: float) -> None:
    with pytest.raises(MemoryLimitError, match=r"resources\.memory_gb"):
        memory_limit_bytes(value, environ={})


@pytest.mark.parametrize("text", ["lots", "-1", "nan", "inf"])
def test_malformed_environment_is_a_clear_error(text: str) -> None:
    with pytest.raises(MemoryLimitError, match=ENV_MEMORY_LIMIT):
        memory_limit_bytes(environ={ENV_MEMORY_LIMIT: text})


def test_gpu_workers_get_no_address_space_limit() -> None:
    assert memory_limit_for_device("cuda:0", GIB) is None
    assert memory_limit_for_device("cpu", GIB) == GIB


def test_allocation_past_the_limit_fails_inside_the_process_which_survives() -> None:
    """The ceiling is what this process maps plus 512 MiB, as a worker sets it: a fixed 512 MiB
    would fail wherever the interpreter and its libraries already map more (a CUDA torch)."""
    result = _child("""
        from claimcheck.engine.limits import (
            address_space, apply_memory_limit, ceiling_above_current, current_memory_limit)
        ceiling = ceiling_above_current(512 * 1024**2)
        apply_memory_limit(ceiling)
        print("headroom", current_memory_limit() - address_space() > 400 * 1024**2)
        try:
            hog = bytearray(2 * 1024**3)
        except MemoryError:
            print("stopped")
        small = bytearray(16 * 1024**2)
        print("still alive", len(small))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:3] == ["headroom True", "stopped",
                                              f"still alive {16 * 1024**2}"]


def test_limit_can_be_raised_again_for_the_next_check() -> None:
    result = _child("""
        from claimcheck.engine.limits import (
            apply_memory_limit, ceiling_above_current, current_memory_limit)
        apply_memory_limit(ceiling_above_current(512 * 1024**2))
        apply_memory_limit(None)
        print(current_memory_limit())
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "None"


def test_non_positive_limit_is_refused() -> None:
    result = _child("""
        from claimcheck.engine.limits import MemoryLimitError, apply_memory_limit
        try:
            apply_memory_limit(0)
        except MemoryLimitError as error:
            print("refused:", error)
    """)
    assert result.stdout.startswith("refused:"), result.stderr


def test_the_limit_is_headroom_above_what_the_process_already_maps() -> None:
    """A CUDA build of torch maps several GiB of libraries on import, even without a GPU. The
    stand-in here reserves 6 GiB of address space first (mapped, never touched, as a shared
    library is); a check's 512 MiB limit must still leave it 512 MiB to allocate."""
    result = _child("""
        import mmap
        from claimcheck.engine.limits import (address_space, apply_memory_limit,
                                              ceiling_above_current)
        libraries = mmap.mmap(-1, 6 * 1024**3, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
                              prot=mmap.PROT_READ)
        before = address_space()
        assert before >= 6 * 1024**3, before
        apply_memory_limit(ceiling_above_current(512 * 1024**2))
        small = bytearray(256 * 1024**2)
        try:
            hog = bytearray(2 * 1024**3)
        except MemoryError:
            print("stopped")
        print("allocated", len(small))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["stopped", f"allocated {256 * 1024**2}"]
