"""``models.training.allocator.reuse_freed_memory``: freed blocks are reused, not faulted in again.

Each measurement runs in a fresh interpreter, since the setting lasts for the whole process
(and other tests in this one may already have made it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import resource, sys
sys.path.insert(0, {root!r})
if {reuse}:
    from models.training.allocator import reuse_freed_memory
    print(reuse_freed_memory())
else:
    print(True)

def step():  # a training step's worth of 1 MB blocks, all freed at its end
    blocks = [bytearray(1 << 20) for _ in range(48)]
    del blocks

step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10)
"""


def _faults_per_step(reuse: bool) -> tuple[bool, float]:
    code = PROBE.format(root=str(ROOT), reuse=reuse)
    lines = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    return lines[0] == "True", float(lines[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_reused_memory_is_not_page_faulted_in_again_each_step() -> None:
    _, default = _faults_per_step(reuse=False)
    applied, reused = _faults_per_step(reuse=True)
    if not applied:
        pytest.skip("this C library has no mallopt (not glibc)")
    assert default > 1000  # 48 MB freed per step goes back to the kernel by default
    assert reused < default / 20
