"""The schedules' optimisers: fused where torch has a kernel for the device, and the same
update as PyTorch's per-tensor loop up to rounding (``Schedule.make_optimizer``)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from models.training.schedules import Schedule, resolve_schedule


def _flat(net: nn.Module) -> torch.Tensor:
    return torch.cat([parameter.detach().flatten() for parameter in net.parameters()])


def _trajectory(schedule: Schedule, fused: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Parameters before and after six steps of a small float64 net on fixed data."""
    generator = torch.Generator().manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3)).double()
    for parameter in net.parameters():
        with torch.no_grad():
            parameter.copy_(torch.randn(parameter.shape, generator=generator, dtype=torch.float64))
    start = _flat(net)
    optimizer = (schedule.make_optimizer(net.parameters()) if fused
                 else schedule._optimizer(list(net.parameters())))
    for _ in range(6):
        x = torch.randn(8, 6, generator=generator, dtype=torch.float64)
        loss = net(x).sin().sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return start, _flat(net)


@pytest.mark.parametrize(("model", "name"), [
    ("efficient_capsnet", "official"), ("capsnet", "paper"), ("inverted_capsnet", "official"),
])
def test_fused_optimizer_takes_the_loops_steps(model: str, name: str) -> None:
    schedule = resolve_schedule(model, name, None)
    (_, fused), (start, loop) = _trajectory(schedule, fused=True), _trajectory(schedule, False)
    assert (loop - start).abs().max() > 1e-3  # the steps did move the parameters
    torch.testing.assert_close(fused, loop, rtol=1e-12, atol=1e-12)


def test_cpu_optimizer_is_fused_where_this_torch_has_the_kernel() -> None:
    schedule = resolve_schedule("efficient_capsnet", "official", None)
    optimizer = schedule.make_optimizer(nn.Linear(2, 2).parameters())
    try:
        torch.optim.Adam(nn.Linear(2, 2).parameters(), fused=True)
    except RuntimeError:
        assert not optimizer.defaults.get("fused")
    else:
        assert optimizer.defaults["fused"] is True
