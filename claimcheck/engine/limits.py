"""Per-check resource limits: a memory ceiling for each worker process.

A check that allocates without bound must cost only its own verdict, not the machine. Every
worker lowers its address-space limit (``RLIMIT_AS``) before it runs a check; an allocation past
the limit then fails inside the check (``MemoryError`` in Python, a ``RuntimeError`` from torch's
allocator), the worker reports "check raised MemoryError", and the other checks go on.

The limit, per check:

* ``CLAIMCHECK_MEMORY_LIMIT_GB`` in the environment (a positive number of GiB, or ``0`` /
  ``none`` / ``off`` for no limit), else
* :data:`DEFAULT_MEMORY_LIMIT_GB` (8 GiB).

A claim's ``resources: {memory_gb: N}`` can only lower that limit, never raise it: a card is
untrusted input, the operator's setting is not (see :func:`memory_limit_bytes`).

The limit is headroom: it counts the address space a check *adds* to what its process had
mapped when the check started (:func:`ceiling_above_current`), so the libraries already loaded
do not eat it. That matters for torch: a CUDA build of torch maps several GiB of CUDA libraries
on import, even on a machine without a GPU, and an absolute 2 GiB ceiling would leave a check
nothing at all.

Caveats, by design of ``RLIMIT_AS``: it counts *virtual* memory, so it is an upper bound on what
a check can touch, not on its resident size. CUDA's driver reserves tens of GiB of virtual address
space when it initialises, so the limit must not be applied to a worker that will use a GPU
(:func:`memory_limit_for_device` returns ``None`` there). On platforms without ``resource``
(Windows) the limit is not applied.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

try:
    import resource
except ImportError:  # pragma: no cover - Windows has no resource module
    resource = None  # type: ignore[assignment]

from claimcheck.cards.claims import MAX_MEMORY_GB

__all__ = [
    "DEFAULT_MEMORY_LIMIT_GB",
    "ENV_MEMORY_LIMIT",
    "MAX_MEMORY_GB",
    "MemoryLimitError",
    "address_space",
    "apply_memory_limit",
    "ceiling_above_current",
    "current_memory_limit",
    "memory_limit_bytes",
    "memory_limit_for_device",
]

DEFAULT_MEMORY_LIMIT_GB = 8.0
"""Address-space ceiling of one check's worker when nothing else is configured, in GiB."""

ENV_MEMORY_LIMIT = "CLAIMCHECK_MEMORY_LIMIT_GB"
"""Environment variable that overrides :data:`DEFAULT_MEMORY_LIMIT_GB` (``0`` disables)."""

_GIB = 1024**3
_DISABLED = {"0", "none", "off", "no", "unlimited"}


class MemoryLimitError(ValueError):
    """A memory limit that is not a positive number of GiB."""


def _gib_to_bytes(value: float, source: str) -> int:
    if not 0 < value <= MAX_MEMORY_GB:
        raise MemoryLimitError(f"{source}: memory limit must be a positive number of GiB, at "
                               f"most {MAX_MEMORY_GB:,}")
    return int(value * _GIB)


def memory_limit_bytes(
    claim_memory_gb: float | None = None, environ: Mapping[str, str] | None = None
) -> int | None:
    """The memory ceiling of one check in bytes, or ``None`` for no limit.

    The operator's limit is the environment's, else :data:`DEFAULT_MEMORY_LIMIT_GB`.
    ``claim_memory_gb`` (a claim's ``resources.memory_gb``) applies only where it is lower (a
    card may lower the operator's limit, never raise or lift it). Raises
    :class:`MemoryLimitError` for a malformed value.
    """
    operator = _operator_limit(os.environ if environ is None else environ)
    if claim_memory_gb is None:
        return operator
    claimed = _gib_to_bytes(float(claim_memory_gb), "resources.memory_gb")
    return claimed if operator is None else min(claimed, operator)


def _operator_limit(env: Mapping[str, str]) -> int | None:
    text = env.get(ENV_MEMORY_LIMIT, "").strip()
    if not text:
        return _gib_to_bytes(DEFAULT_MEMORY_LIMIT_GB, "default")
    if text.lower() in _DISABLED:
        return None
    try:
        value = float(text)
    except ValueError:
        raise MemoryLimitError(
            f"{ENV_MEMORY_LIMIT}={text!r}: expected a number of GiB, or 0 for no limit"
        ) from None
    if value == 0:
        return None
    return _gib_to_bytes(value, ENV_MEMORY_LIMIT)


def memory_limit_for_device(device: str, limit_bytes: int | None) -> int | None:
    """``limit_bytes`` for a CPU worker; ``None`` for a GPU one (CUDA reserves virtual memory)."""
    return None if device.startswith("cuda") else limit_bytes


def apply_memory_limit(limit_bytes: int | None) -> None:
    """Set this process's address-space soft limit to ``limit_bytes`` (``None``: no limit).

    Only the soft limit changes, up to the hard limit, so a reused worker can set a different
    ceiling for its next check. Call it in the worker, never in the parent process.
    """
    if resource is None:
        return
    if limit_bytes is not None and limit_bytes <= 0:
        raise MemoryLimitError(f"memory limit must be positive, got {limit_bytes} bytes")
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = resource.RLIM_INFINITY if limit_bytes is None else limit_bytes
    if hard != resource.RLIM_INFINITY and (wanted == resource.RLIM_INFINITY or wanted > hard):
        wanted = hard
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def address_space() -> int:
    """This process's mapped address space in bytes (``/proc/self/statm``; 0 where unknown)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            pages = int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def ceiling_above_current(headroom: int | None) -> int | None:
    """The absolute address-space limit that leaves ``headroom`` bytes beyond what this process
    maps now (``None``: no limit)."""
    return None if headroom is None else address_space() + headroom


def current_memory_limit() -> int | None:
    """This process's address-space soft limit in bytes, or ``None`` when unlimited."""
    if resource is None:
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft
