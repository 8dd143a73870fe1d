"""Keep a training process's freed memory for reuse instead of handing it back to the kernel.

A training step allocates the same activation and gradient tensors every time. By default
glibc's ``malloc`` serves blocks above a sliding threshold (128 KB, growing to 32 MB) from
fresh ``mmap`` mappings and trims the top of its heap back to the kernel when it frees them,
so each step page-faults its tensors in again, zero-filled by the kernel: about 5,300 faults
and 12 ms of system time per Efficient-CapsNet training step at batch 64 on one thread
(13% of the step), 800 faults and 2.6 ms at batch 16 (``benchmarks/README.md``).

:func:`reuse_freed_memory` fixes both thresholds with ``mallopt``: blocks up to 32 MB (glibc's
ceiling for ``M_MMAP_THRESHOLD``) come from the heap, and up to 1 GiB of free heap is kept.
The process's resident memory then stays near its peak instead of breathing with each step;
nothing computed changes. It is a setting of the whole process, so it is made only where a
process exists to train (``models.training.run.train_seeds`` runs in the check's own child).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024
TRIM_THRESHOLD_BYTES = 1024 * 1024 * 1024


def reuse_freed_memory() -> bool:
    """Set the two thresholds; ``True`` when this process's C library accepted them (glibc on
    Linux), ``False`` elsewhere, where it changes nothing."""
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mmap_set: int = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    trim_set: int = mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    return mmap_set == 1 and trim_set == 1
