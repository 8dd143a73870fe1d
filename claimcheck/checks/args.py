"""The ``args`` each built-in check kind accepts, as strict models that lint applies.

A typo in a claim's ``args`` (``modle:``, a model or preset name that does not exist) used to
pass lint and fail only at ``verify``. Each built-in kind now declares its args here; lint
validates them without importing torch, names and presets come from the registry's source
(:mod:`claimcheck.checks.catalog`), and every problem is reported at the offending key with a
"did you mean". The same models feed the exported JSON Schema (:mod:`claimcheck.authoring.schema`).

======  ==================================================================================
kind    args
======  ==================================================================================
params  ``model`` + ``preset`` (registry) or ``factory: "module:callable"``; ``kwargs``;
        ``trainable_only`` (default true); ``include`` / ``exclude`` (submodule names)
shapes  the model as above; ``input: [B, C, H, W]``; ``module``; ``fill`` (randn | zeros);
        ``field`` (name or index); ``index`` (one dimension)
ratio   ``numerator`` and ``denominator``: ``{kind: K, args: {...}}``, K a built-in kind
timing  ``a`` and ``b`` (``module:factory``), ``a_args``, ``b_args``, ``repeats`` (>= 1),
        ``warmup`` (>= 0), ``number`` (>= 1)
train   ``model`` + ``preset``, ``trainer`` (another ``module:function``), and the keys the
        trainer declares in ``SPEC_KEYS`` (not judged when it declares none)
flops   the model as for ``params``; ``input: [B, ...]``; ``module``; ``per_example``
======  ==================================================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from claimcheck.cards.loader import choice_hint, did_you_mean
from claimcheck.checks.catalog import ModelCatalog, TrainerFacts

__all__ = ["ARGS_MODELS", "REFERENCE_PATTERN", "ArgsProblem", "args_problems"]

REFERENCE_PATTERN = r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"
Reference = Annotated[str, Field(pattern=REFERENCE_PATTERN, description="module.path:callable")]
Names = str | list[str]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ModelArgs(_Args):
    """A model named by the registry (``model`` + ``preset``) or by a ``factory``."""

    model: str | None = None
    preset: str | None = None
    factory: Reference | None = None
    kwargs: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_model(self) -> ModelArgs:
        if self.factory is not None and (self.model is not None or self.preset is not None):
            raise PydanticCustomError("args_model", "name the model by model + preset, or by "
                                      "factory, not both", {})
        if self.factory is None and (self.model is None or self.preset is None):
            missing = "preset" if self.model is not None else "model"
            raise PydanticCustomError(
                "args_model", "args need model and preset, or factory (module:callable); "
                "missing {missing}", {"missing": missing, "at": missing})
        return self


class ParamsArgs(ModelArgs):
    """``params``: count a model's parameters."""

    trainable_only: bool = True
    include: Names = Field(default_factory=list)
    exclude: Names = Field(default_factory=list)


class ShapesArgs(ModelArgs):
    """``shapes``: the output shape of a (sub)module for an input of a given shape."""

    input: Annotated[list[Annotated[int, Field(gt=0)]], Field(min_length=1)]
    module: str | None = None
    fill: Literal["randn", "zeros"] = "randn"
    field: str | int | None = None
    index: int | None = None


class FlopsArgs(ModelArgs):
    """``flops``: the FLOPs of one forward pass, of the model or of one submodule."""

    input: Annotated[list[Annotated[int, Field(gt=0)]], Field(min_length=1)]
    module: str | None = None
    per_example: bool = False


class Measure(_Args):
    """One side of a ``ratio``: a built-in kind and its args."""

    kind: Literal["params", "shapes", "ratio", "timing", "train", "flops"]
    args: dict[str, Any] = Field(default_factory=dict)


class RatioArgs(_Args):
    """``ratio``: ``numerator`` / ``denominator``, two built-in measurements."""

    numerator: Measure
    denominator: Measure


class TimingArgs(_Args):
    """``timing``: the median time ratio of two callables built by factories."""

    a: Reference
    b: Reference
    a_args: dict[str, Any] = Field(default_factory=dict)
    b_args: dict[str, Any] = Field(default_factory=dict)
    repeats: Annotated[int, Field(ge=1)] = 7
    warmup: Annotated[int, Field(ge=0)] = 2
    number: Annotated[int, Field(ge=1)] = 1


class TrainArgs(_Args):
    """``train``: the trainer's spec; keys beyond these are the trainer's (``SPEC_KEYS``)."""

    model_config = ConfigDict(extra="allow", strict=True)

    model: str
    preset: str
    trainer: Reference | None = None


ARGS_MODELS: Mapping[str, type[_Args]] = {
    "params": ParamsArgs,
    "shapes": ShapesArgs,
    "ratio": RatioArgs,
    "timing": TimingArgs,
    "train": TrainArgs,
    "flops": FlopsArgs,
}

ArgsPath = tuple[str | int, ...]


@dataclass(frozen=True)
class ArgsProblem:
    """One problem in a claim's args: ``path`` inside ``args``, whether it is a key, why."""

    path: ArgsPath
    message: str
    at_key: bool = False
    warning: bool = False
    """Likely wrong, not certainly: lint warns (a name no registration and no string of the
    model factory's source holds)."""


def _hint(word: str, options: list[str] | tuple[str, ...]) -> str:
    """:func:`did_you_mean`, or else the options known when they are few."""
    close = did_you_mean(word, options)
    if close:
        return close
    return f" (known: {', '.join(sorted(options))})" if len(options) <= 12 else ""


def args_problems(
    kind: str, args: Mapping[str, Any], catalog: ModelCatalog, trainer: TrainerFacts,
    depth: int = 0,
) -> list[ArgsProblem]:
    """Every problem in ``args`` of built-in ``kind`` (empty for an unknown kind)."""
    model = ARGS_MODELS.get(kind)
    if model is None:
        return []
    problems = list(_schema_problems(model, args))  # and the rest too: no error hides another
    if kind in ("params", "shapes", "train", "flops") and isinstance(args.get("model"), str):
        overrides = "overrides" if kind == "train" else "kwargs"
        problems += _names(args, catalog, overrides)
    if kind == "shapes":
        problems += _field(args, catalog)
    if kind == "train":
        problems += _train(args, trainer)
    if kind == "ratio" and depth < 4:
        for side in ("numerator", "denominator"):
            spec = args.get(side)
            if not isinstance(spec, Mapping) or not isinstance(spec.get("kind"), str):
                continue
            nested = spec.get("args") or {}
            if not isinstance(nested, Mapping):
                continue
            for problem in args_problems(spec["kind"], nested, catalog, trainer, depth + 1):
                path = (side, "args", *problem.path)
                problems.append(ArgsProblem(path, problem.message, problem.at_key))
    return problems


def _schema_problems(model: type[_Args], args: Mapping[str, Any]) -> Iterator[ArgsProblem]:
    try:
        model.model_validate(dict(args))
    except ValidationError as error:
        seen: set[ArgsPath] = set()
        for detail in error.errors(include_url=False):
            path = tuple(p for p in detail["loc"] if isinstance(p, (str, int)))
            context = detail.get("ctx") or {}
            if detail["type"] == "extra_forbidden":
                known = _known_fields(model, path[:-1])
                message = f"unknown key '{path[-1]}'" + _hint(str(path[-1]), known)
                at_key = True
            elif detail["type"] == "missing":
                message = f"missing required key '{path[-1]}'"
                path, at_key = path[:-1], True
            elif context.get("at"):
                message, at_key = detail["msg"], True
                path = (*path, str(context["at"])) if str(context["at"]) in args else path
            else:
                message = f"{'.'.join(map(str, path)) or 'args'}: {_lower(detail['msg'])}"
                at_key = False
                if detail["type"] == "literal_error":
                    message += f", got {detail.get('input')!r}" + choice_hint([detail])
            if path in seen:
                continue
            seen.add(path)
            yield ArgsProblem(path, message, at_key)


def _lower(text: str) -> str:
    return text[0].lower() + text[1:] if text else text


def _known_fields(model: type[_Args], path: ArgsPath) -> list[str]:
    current: Any = model
    for part in path:
        annotation = getattr(current, "model_fields", {}).get(part)
        if annotation is None or not isinstance(annotation.annotation, type):
            break
        current = annotation.annotation
    return list(getattr(current, "model_fields", {}))


def _names(args: Mapping[str, Any], catalog: ModelCatalog, overrides: str) -> list[ArgsProblem]:
    if not catalog.known:
        return _unregistered(args, catalog)
    name, preset = str(args["model"]), args.get("preset")
    if name not in catalog.presets and catalog.unread:
        return [ArgsProblem(("model",), f"model {name!r} is not among the registrations lint "
                            f"can read, but lint could not see every registration "
                            f"({len(catalog.unread)} register_model call(s) in a loop or with "
                            "computed arguments); verify will say whether it exists"
                            + _hint(name, list(catalog.presets)), warning=True)]
    if name not in catalog.presets:
        return [ArgsProblem(("model",), f"unknown model {name!r}" + _hint(name, list(
            catalog.presets)))]
    presets = catalog.presets[name]
    problems = []
    if isinstance(preset, str) and preset not in presets:
        problems.append(ArgsProblem(
            ("preset",), f"unknown preset {preset!r} for model {name!r}" + _hint(preset, presets)))
    fields = catalog.fields.get(name)
    given = args.get(overrides)
    if fields and isinstance(given, Mapping):
        for key in given:
            if key not in fields:
                problems.append(ArgsProblem(
                    (overrides, key), f"{name} has no config field {key!r}" + _hint(
                        str(key), fields), at_key=True))
    return problems


def _field(args: Mapping[str, Any], catalog: ModelCatalog) -> list[ArgsProblem]:
    """A whole model whose ``forward`` returns several tensors needs ``field:`` (verify refuses
    to pick one in silence: :func:`claimcheck.checks.builtin.select_tensor`)."""
    if args.get("module") is not None:
        return []
    field = args.get("field")
    if field is not None and str(args.get("model")) in catalog.single:
        return [ArgsProblem(("field",), f"field: {field!r} is given, but the output of "
                            f"{args['model']!r} is one tensor (its forward is annotated to "
                            "return a Tensor): there is nothing to choose; remove field:")]
    parts = catalog.outputs.get(str(args.get("model")))
    if not parts:
        return []
    choices = ", ".join(parts)
    if field is None:
        return [ArgsProblem(("model",), f"model {args['model']!r} returns {len(parts)} tensors: "
                            f"give field:, one of {choices}")]
    if isinstance(field, bool) or not isinstance(field, (str, int)):
        return []  # the schema refuses it already
    if _selects(field, parts, catalog.indexed.get(str(args["model"]))):
        return []
    said = "index" if isinstance(field, int) else "tensor field"
    return [ArgsProblem(("field",), f"the output of {args['model']!r} has no {said} {field!r}: "
                        f"give field:, one of {choices}"
                        + did_you_mean(field, parts))]


def _selects(field: str | int, parts: tuple[str, ...], items: int | None) -> bool:
    """Whether ``field:`` picks one of the output's tensor ``parts`` as verify selects it
    (:func:`claimcheck.checks.builtin.select_tensor`): a tuple's parts are its indices (an
    ``int``, negative from the end, or its digits as text); a dataclass's or dict's are names;
    a ``NamedTuple``'s (``items`` long) are names, or an index of one of its items."""
    if parts[0].isdigit():
        size = int(parts[-1]) + 1
        if isinstance(field, int):
            return -size <= field < size and str(field % size) in parts
        return field in parts
    if isinstance(field, int):
        return items is not None and -items <= field < items
    return field in parts


def _unregistered(args: Mapping[str, Any], catalog: ModelCatalog) -> list[ArgsProblem]:
    """With no ``@register_model`` readable, names that appear nowhere in the factory's source."""
    if catalog.mentioned is None:
        return []
    return [ArgsProblem((key,), f"{key} {args[key]!r} appears nowhere in the model factory's "
                        "source (no @register_model names it, and no string there holds it): "
                        "nothing may build it", warning=True)
            for key in ("model", "preset")
            if isinstance(args.get(key), str) and args[key] not in catalog.mentioned]


def _train(args: Mapping[str, Any], trainer: TrainerFacts) -> list[ArgsProblem]:
    problems = []
    allowed = set(trainer.spec_keys) | {"trainer"}
    if trainer.spec_keys:
        for key in args:
            if key not in allowed:
                problems.append(ArgsProblem(
                    (key,), f"unknown key {key!r} for the trainer" + _hint(
                        str(key), sorted(allowed)), at_key=True))
        budgets = args.get("budgets")
        if isinstance(budgets, Mapping):
            for budget, spec in budgets.items():
                if budget not in ("smoke", "short", "full"):
                    problems.append(ArgsProblem(("budgets", budget), f"unknown budget {budget!r}"
                                                + _hint(str(budget), ["smoke", "short", "full"]),
                                                at_key=True))
                elif isinstance(spec, Mapping):
                    problems += [
                        ArgsProblem(("budgets", budget, key), f"unknown key {key!r} for the "
                                    "trainer" + _hint(str(key), sorted(allowed)), at_key=True)
                        for key in spec if key not in allowed
                    ]
    metric = args.get("metric")
    if trainer.metrics and metric is not None and metric not in trainer.metrics:
        problems.append(ArgsProblem(("metric",), f"unknown metric {metric!r}" + _hint(
            str(metric), trainer.metrics)))
    return problems
