"""The routing-alone factory of the ``flops`` claims runs Procedure 1 as the layer does."""

from __future__ import annotations

import pytest
import torch

from models.checks import cost
from models.dynamic.routing import dynamic_routing


def test_repeated_routing_returns_the_poses_of_procedure_1() -> None:
    u_hat = torch.randn(2, 10, 32, 16, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        poses = cost.dynamic_routing_alone(iterations=3, times=2)(u_hat)
    assert torch.equal(poses, dynamic_routing(u_hat, 3).poses)


def test_repeated_routing_rejects_no_run() -> None:
    with pytest.raises(ValueError):
        cost.dynamic_routing_alone(iterations=1, times=0)
