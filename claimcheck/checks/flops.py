"""The built-in ``flops`` kind: floating-point operations of one forward pass, counted by torch.

``torch.utils.flop_counter.FlopCounterMode`` counts the matrix products a forward pass dispatches
(``mm``, ``bmm``, ``addmm``, the contractions ``einsum`` lowers to, convolutions, attention) at
two FLOPs per multiply-add, and nothing for elementwise work (softmax, norms, activations). A
count is therefore the analytic cost of a model's linear algebra, the same on every machine and
under any load: unlike a timing it can be compared with a formula exactly, and a claim about
"cheaper" or "grows with the number of iterations" can state the expected figure.

Args: the model as for ``params`` (``model`` + ``preset``, or ``factory``; optional ``kwargs``);
``input``: the input shape ``[B, ...]`` (filled with seeded normal values); ``module``: a dotted
submodule name, to count only the FLOPs dispatched inside it; ``per_example``: divide by B
(default false). The forward runs on the CPU in eval mode without autograd: FLOP counts do not
depend on the device. Measured: an int.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claimcheck.checks.api import CheckContext, Evidence, register_check
from claimcheck.checks.builtin import build_model


def _shape(value: Any) -> list[int]:
    if not isinstance(value, list) or not value or not all(
        isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in value
    ):
        raise ValueError(f"args.input must be a non-empty list of positive ints, got {value!r}")
    return list(value)


def _breakdown(counts: Mapping[Any, int]) -> str:
    parts = sorted(((str(op).removeprefix("aten."), n) for op, n in counts.items()),
                   key=lambda item: -item[1])
    return ", ".join(f"{op} {n:,}" for op, n in parts) or "no counted operations"


def _module_counts(counts: Mapping[str, Mapping[Any, int]], key: str) -> dict[Any, int] | None:
    """Per-operation counts of module ``key``; a container that is never called itself (a
    ``ModuleList``) gets the sum of its direct children, which are."""
    if key in counts:
        return dict(counts[key])
    depth = key.count(".") + 1
    children = [k for k in counts if k.startswith(key + ".") and k.count(".") == depth]
    if not children:
        return None
    merged: dict[Any, int] = {}
    for child in children:
        for op, n in counts[child].items():
            merged[op] = merged.get(op, 0) + n
    return merged


@register_check("flops", tier="static")
def count_flops(ctx: CheckContext) -> Evidence:
    """FLOPs of one forward pass of a model (or of one of its submodules); see the module doc."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    shape = _shape(ctx.args.get("input"))
    per_example = ctx.args.get("per_example", False)
    if not isinstance(per_example, bool):
        raise ValueError(f"args.per_example must be true or false, got {per_example!r}")
    model = build_model(ctx.args, ctx).eval()
    name = ctx.args.get("module")
    if name is not None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"args.module must be a dotted submodule name, got {name!r}")
        if name not in dict(model.named_modules()):
            raise ValueError(f"the model has no submodule {name!r}")
    x = torch.randn(shape, generator=torch.Generator().manual_seed(ctx.seed))
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        model(x)
    counts = counter.get_flop_counts()
    key = "Global" if name is None else f"{type(model).__name__}.{name}"
    ops = _module_counts(counts, key)
    if ops is None:
        raise RuntimeError(f"submodule {name!r} dispatched no counted operation in the forward")
    total = sum(ops.values())
    where = name or type(model).__name__
    details = f"{total:,} FLOPs in {where} for input {shape} ({_breakdown(ops)})"
    if per_example:
        if total % shape[0]:
            raise ValueError(f"{total} FLOPs do not divide by the batch size {shape[0]}")
        total //= shape[0]
        details += f"; {total:,} per example"
    return Evidence(measured=total, details=details)
