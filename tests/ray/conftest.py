"""One real local Ray instance (two CPUs) shared by every test in this folder.

Ray is an optional extra: without it the tests that need the instance are skipped, with the
install hint as the reason. The instance is started once, because starting Ray costs seconds.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from claimcheck.engine.ray_executor import import_ray, missing_ray_message, ray_installed

RAY_CPUS = 2


@pytest.fixture(scope="package")
def ray_address() -> Iterator[str]:
    """The GCS address of a local Ray instance with two CPUs, started for this folder."""
    if not ray_installed():
        pytest.skip(f"Ray is not installed ({missing_ray_message()})")
    ray: Any = import_ray()
    ray.init(num_cpus=RAY_CPUS, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()
