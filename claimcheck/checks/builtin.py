"""The built-in check kinds ``params``, ``shapes``, ``ratio`` and ``timing``.

Each one measures and returns :class:`~claimcheck.checks.api.Evidence`; none decides a verdict.
torch is imported inside the functions only, so that loading the registry (``claimcheck lint``,
``claimcheck status``) never pays for it.

Models are named either by the project's registry, ``{model: NAME, preset: PRESET}`` (built with
``[tool.claimcheck] model_factory``), or by a factory marked ``@model_factory``,
``{factory: "module:callable"}``; both take optional ``kwargs`` passed on to the builder. The
factories of ``timing`` must be marked ``@timing_factory`` (:mod:`claimcheck.trust.boundary`).
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from claimcheck.checks.api import CheckContext, Evidence, Fidelity, get_builtin, register_check
from claimcheck.checks.resolve import load_callable, load_configured
from claimcheck.trust.roles import Role

if TYPE_CHECKING:
    import torch


def _mapping(args: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = args.get(key, {})
    if not isinstance(value, Mapping):
        raise ValueError(f"args.{key} must be a mapping, got {type(value).__name__}")
    return dict(value)


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"args.{key} must be a non-empty string, got {value!r}")
    return value


def _count(args: Mapping[str, Any], key: str, default: int, minimum: int) -> int:
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"args.{key} must be an integer >= {minimum}, got {value!r}")
    return value


def _names(args: Mapping[str, Any], key: str) -> list[str]:
    value = args.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"args.{key} must be a submodule name or a list of them")
    return list(value)


def build_model(args: Mapping[str, Any], ctx: CheckContext) -> torch.nn.Module:
    """The model named by ``args``: a registry ``model`` + ``preset``, or a ``factory``."""
    import torch

    kwargs = _mapping(args, "kwargs")
    if "factory" in args:
        factory = load_callable(_text(args, "factory"), ctx.config, Role.MODEL_FACTORY)
        model = factory(**kwargs)
        named = _text(args, "factory")
    elif "model" in args:
        builder = load_configured(ctx.config, "model_factory")
        model = builder(_text(args, "model"), _text(args, "preset"), **kwargs)
        named = f"{args['model']} ({args['preset']})"
    else:
        raise ValueError("args need 'model' and 'preset', or 'factory' (module:callable)")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{named} built a {type(model).__name__}, not a torch.nn.Module")
    return model


def _under(name: str, prefixes: Sequence[str]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def _require_submodules(model: torch.nn.Module, names: Sequence[str]) -> None:
    known = {name for name, _ in model.named_modules()}
    for name in names:
        if name not in known:
            raise ValueError(f"the model has no submodule {name!r}")


@register_check("params", tier="static")
def count_parameters(ctx: CheckContext) -> Evidence:
    """Count a model's parameters (trainable only by default), with submodules in or out.

    Args: the model (see module docstring), ``trainable_only`` (default true), ``include`` and
    ``exclude``: dotted submodule names such as ``decoder``. Measured: an int.
    """
    model = build_model(ctx.args, ctx)
    trainable_only = ctx.args.get("trainable_only", True)
    if not isinstance(trainable_only, bool):
        raise ValueError(f"args.trainable_only must be true or false, got {trainable_only!r}")
    include, exclude = _names(ctx.args, "include"), _names(ctx.args, "exclude")
    _require_submodules(model, include + exclude)
    counted = left_out = 0
    split: dict[str, int] = {}
    for name, parameter in model.named_parameters():
        if trainable_only and not parameter.requires_grad:
            continue
        if (include and not _under(name, include)) or _under(name, exclude):
            left_out += parameter.numel()
            continue
        counted += parameter.numel()
        top = name.split(".")[0]
        split[top] = split.get(top, 0) + parameter.numel()
    which = "trainable" if trainable_only else "all"
    details = f"{counted:,} parameters ({which}) in {type(model).__name__}"
    if include:
        details += f", only {', '.join(include)}"
    if exclude:
        details += f", excluding {', '.join(exclude)}"
    if include or exclude:
        details += f" ({left_out:,} left out)"
    if split:  # where a surplus sits, when the count is contradicted
        details += "; by top-level submodule: " + ", ".join(
            f"{top} {count:,}" for top, count in sorted(split.items(), key=lambda i: -i[1]))
    return Evidence(measured=counted, details=details)


def _parts(output: Any) -> list[tuple[str, Any]]:
    """The named parts of a module's output: a dataclass's, NamedTuple's or mapping's fields, a
    tuple's items (named by index), or the output itself (named ``""``)."""
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        return [(f.name, getattr(output, f.name)) for f in dataclasses.fields(output)]
    if isinstance(output, Mapping):
        return [(str(key), value) for key, value in output.items()]
    if isinstance(output, tuple) and hasattr(output, "_fields"):  # a NamedTuple: its names
        return [(str(name), value) for name, value in zip(output._fields, output, strict=True)]
    if isinstance(output, (tuple, list)):
        return [(str(index), value) for index, value in enumerate(output)]
    return [("", output)]


def select_tensor(output: Any, field: str | int | None) -> tuple[torch.Tensor, str]:
    """The tensor ``field`` names in a module's output, and how it was selected.

    Without ``field`` the output must hold exactly one tensor: a tuple, dataclass or mapping of
    several is refused with the choices named (measuring its first part in silence once gave a
    false verdict). ``field`` is a field or key name, or an index into a tuple.
    """
    import torch

    if field is None:
        if isinstance(output, torch.Tensor):
            return output, "the output tensor"
        tensors = [(name, value) for name, value in _parts(output)
                   if isinstance(value, torch.Tensor)]
        if len(tensors) == 1:
            return tensors[0][1], f"field {tensors[0][0]}, the one tensor of the output"
        if not tensors:
            raise TypeError(f"the module output ({type(output).__name__}) holds no tensor")
        choices = ", ".join(f"{name} {list(value.shape)}" for name, value in tensors)
        raise ValueError(f"the module output ({type(output).__name__}) has {len(tensors)} "
                         f"tensors: give args.field, one of {choices}")
    if isinstance(field, bool) or not isinstance(field, (str, int)):
        raise ValueError(f"args.field must be a name or a tuple index, got {field!r}")
    named = dict(_parts(output))
    if isinstance(field, int) and isinstance(output, (tuple, list)):
        if not -len(output) <= field < len(output):
            raise ValueError(f"args.field {field} is out of range for {len(output)} outputs")
        value = output[field]
    elif "" not in named and str(field) in named:
        value = named[str(field)]
    elif isinstance(field, str) and not isinstance(output, torch.Tensor) and hasattr(output,
                                                                                   field):
        value = getattr(output, field)
    else:
        raise ValueError(f"the module output ({type(output).__name__}) has no field {field!r}; "
                         f"its parts: {', '.join(named) or 'none'}")
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"field {field!r} of the module output is a {type(value).__name__}, "
                        "not a tensor")
    return value, f"field {field} of the {type(output).__name__} output"


@register_check("shapes", tier="static")
def trace_shape(ctx: CheckContext) -> Evidence:
    """The output shape of a (sub)module for an input of a given shape.

    Args: the model, ``input: [B, C, H, W]``, ``module`` (dotted name; default the whole model),
    ``fill`` (``randn`` seeded with the run's seed, or ``zeros``), ``field`` (a field name of a
    dataclass/dict output or an index into a tuple output; required when the output holds
    several tensors, see :func:`select_tensor`),
    ``index`` (report one dimension). Measured: a list of ints, or one int with ``index``.
    """
    import torch

    shape = ctx.args.get("input")
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape
    ):
        raise ValueError(f"args.input must be a list of positive ints, got {shape!r}")
    fill = ctx.args.get("fill", "randn")
    if fill not in ("randn", "zeros"):
        raise ValueError(f"args.fill must be 'randn' or 'zeros', got {fill!r}")
    model = build_model(ctx.args, ctx).to(ctx.device).eval()
    name = ctx.args.get("module")
    target = model if name is None else model.get_submodule(_text(ctx.args, "module"))
    generator = torch.Generator().manual_seed(ctx.seed)
    x = torch.zeros(shape) if fill == "zeros" else torch.randn(shape, generator=generator)
    captured: list[Any] = []
    handle = target.register_forward_hook(lambda _m, _i, output: captured.append(output))
    try:
        with torch.no_grad():
            model(x.to(ctx.device))
    finally:
        handle.remove()
    if not captured:
        raise RuntimeError(f"submodule {name!r} was not called by the model's forward")
    tensor, selected = select_tensor(captured[0], ctx.args.get("field"))
    dims = list(tensor.shape)
    where = f"{name or type(model).__name__} output for input {shape}: {dims} ({selected})"
    if len(captured) > 1:
        where += f" (first of {len(captured)} calls)"
    if "index" in ctx.args:
        index = ctx.args["index"]
        if isinstance(index, bool) or not isinstance(index, int) or not -len(dims) <= index < len(
            dims
        ):
            raise ValueError(f"args.index must be an int within the {len(dims)} dims")
        return Evidence(measured=dims[index], details=f"{where}, dim {index} = {dims[index]}")
    return Evidence(measured=dims, details=where)


def _nested(ctx: CheckContext, key: str) -> tuple[str, Evidence]:
    spec = _mapping(ctx.args, key)
    kind = _text(spec, "kind")
    function = get_builtin(kind).function
    return kind, function(dataclasses.replace(ctx, args=_mapping(spec, "args")))


@register_check("ratio", tier="static")
def measure_ratio(ctx: CheckContext) -> Evidence:
    """The quotient of two built-in measurements: ``numerator`` / ``denominator``.

    Args: ``numerator: {kind: K, args: {...}}`` and the same for ``denominator``; any built-in
    kind. The evidence is a proxy if either side is. Measured: a float.
    """
    top_kind, top = _nested(ctx, "numerator")
    bottom_kind, bottom = _nested(ctx, "denominator")
    for side, evidence in (("numerator", top), ("denominator", bottom)):
        value = evidence.measured
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"the {side} measured {value!r}, not a number")
    if bottom.measured == 0:
        raise ZeroDivisionError("the denominator measured 0")
    proxy = Fidelity.PROXY in (top.fidelity, bottom.fidelity)
    return Evidence(
        measured=float(top.measured) / float(bottom.measured),  # type: ignore[arg-type]
        details=(
            f"numerator ({top_kind}) = {top.measured}: {top.details}; "
            f"denominator ({bottom_kind}) = {bottom.measured}: {bottom.details}"
        ),
        fidelity=Fidelity.PROXY if proxy else Fidelity.EXACT,
        timings={**top.timings, **{f"denominator_{k}": v for k, v in bottom.timings.items()}},
    )


def _synchronizer(device: str) -> Callable[[], None]:
    if device.startswith("cuda"):
        import torch

        return torch.cuda.synchronize
    return lambda: None


def _timed(function: Callable[[], Any], number: int, sync: Callable[[], None]) -> float:
    start = time.perf_counter()
    for _ in range(number):
        function()
    sync()
    return (time.perf_counter() - start) / number


@register_check("timing", tier="bench")
def time_ratio(ctx: CheckContext) -> Evidence:
    """The median time ratio a/b of two callables, measured interleaved after a warm-up.

    Args: ``a`` and ``b`` name factories (``module:callable``) that, called with ``a_args`` /
    ``b_args``, return the zero-argument callables to time; ``repeats`` (default 7), ``warmup``
    (default 2), ``number`` (calls per timing, default 1). Repeats alternate which side runs
    first, so drift in the machine's speed falls on both. Measured: median of per-repeat ratios.
    """
    sides = []
    for key in ("a", "b"):
        factory = load_callable(_text(ctx.args, key), ctx.config, Role.TIMING_FACTORY)
        candidate = factory(**_mapping(ctx.args, f"{key}_args"))
        if not callable(candidate):
            raise TypeError(f"factory {ctx.args[key]!r} returned {type(candidate).__name__}")
        sides.append(candidate)
    run_a, run_b = sides
    repeats = _count(ctx.args, "repeats", 7, 1)
    warmup = _count(ctx.args, "warmup", 2, 0)
    number = _count(ctx.args, "number", 1, 1)
    sync = _synchronizer(ctx.device)
    for _ in range(warmup):
        _timed(run_a, number, sync)
        _timed(run_b, number, sync)
    times_a: list[float] = []
    times_b: list[float] = []
    for repeat in range(repeats):
        if repeat % 2 == 0:
            times_a.append(_timed(run_a, number, sync))
            times_b.append(_timed(run_b, number, sync))
        else:
            times_b.append(_timed(run_b, number, sync))
            times_a.append(_timed(run_a, number, sync))
        ctx.progress(f"repeat {repeat + 1}/{repeats}", (repeat + 1) / repeats)
    if min(times_b) <= 0:
        raise ZeroDivisionError("b ran too fast for the clock; raise args.number")
    ratios = [ta / tb for ta, tb in zip(times_a, times_b, strict=True)]
    median_a, median_b = statistics.median(times_a), statistics.median(times_b)
    return Evidence(
        measured=statistics.median(ratios),
        details=(
            f"median a/b over {repeats} interleaved repeats; ratio min {min(ratios):.3g}, "
            f"max {max(ratios):.3g}; median a {median_a * 1e3:.3g} ms, b {median_b * 1e3:.3g} ms"
        ),
        timings={"a_median_s": median_a, "b_median_s": median_b},
    )
