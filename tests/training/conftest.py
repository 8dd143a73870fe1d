"""The training runs (tests marked ``slow``) train in the test's own process on one torch thread.

``claimcheck verify`` runs every check on one torch thread (docs/reliability.md); a test that
calls the trainer itself would otherwise get torch's default, one thread per core. On a 2-core
machine that is busy (pytest-xdist's other worker, another job), each of torch's parallel
regions then waits for a thread that is not running: a step of a small network took 4 to 9 times
as long on two threads as on one. Results are unchanged in kind: each test compares runs made
under the same setting.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _one_torch_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("slow") is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
