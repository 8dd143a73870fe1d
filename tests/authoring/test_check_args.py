"""Custom checks declare their args (issue 24 §2): one typed dataclass per check, read by lint
from the source and by verify before the check runs; a misspelled key is never a silent default.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest

from claimcheck import CheckArgs, CheckArgsError, claim_check
from claimcheck.checks.declared import (
    ARGS_ATTRIBUTE,
    ArgsDeclarationError,
    checked_call,
    content_module_finder,
    declared_fields,
    field_problems,
    static_declaration,
)
from claimcheck.checks.markers import marker_of
from claimcheck.core.config import load_config

ROOT = Path(__file__).resolve().parents[2]
CHECK_FILES = sorted((ROOT / "models" / "checks").glob("*.py"))


def _marked_checks() -> list[tuple[Path, str]]:
    found = []
    for path in CHECK_FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and any(
                    "claim_check" in ast.unparse(d) for d in node.decorator_list):
                found.append((path, node.name))
    return found


CHECKS = _marked_checks()


def test_the_content_has_custom_checks() -> None:
    assert len(CHECKS) >= 30


@pytest.mark.parametrize(("path", "name"), CHECKS, ids=[f"{p.stem}:{n}" for p, n in CHECKS])
def test_lint_reads_the_declaration_verify_imports(path: Path, name: str) -> None:
    """The fields read with ast are the fields of the imported class: one source of truth."""
    module = importlib.import_module(f"models.checks.{path.stem}")
    function = getattr(module, name)
    assert marker_of(function) == "claim_check"
    static = static_declaration(path, name, content_module_finder(load_config(ROOT)))
    assert static.error is None
    runtime = declared_fields(getattr(function, ARGS_ATTRIBUTE, None))
    assert [(f.name, f.required) for f in static.fields] == [
        (f.name, f.required) for f in runtime]
    assert [f.annotation for f in static.fields] == [f.annotation for f in runtime]


@pytest.mark.parametrize("path", CHECK_FILES, ids=lambda p: p.stem)
def test_checks_read_args_only_through_their_declaration(path: Path) -> None:
    """No ``ctx.args`` in the content's checks: ``XArgs.of(ctx)`` is the only way in."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    reads = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute)
             and node.attr == "args" and isinstance(node.value, ast.Name)
             and node.value.id == "ctx"]
    assert reads == [], f"{path.name} reads ctx.args at lines {reads}"


@dataclass(frozen=True)
class _Example(CheckArgs):
    iterations: int
    preset: str = "mnist"
    scale: float = 1.0
    family: Literal["dynamic", "inverted"] = "dynamic"
    sizes: list[int] = field(default_factory=list)
    folder: str | None = None


def _ctx(**args: Any) -> Any:
    return SimpleNamespace(args=args)


def test_of_returns_typed_args_with_defaults() -> None:
    args = _Example.of(_ctx(iterations=3, scale=2))
    assert (args.iterations, args.preset, args.scale, args.sizes) == (3, "mnist", 2, [])


@pytest.mark.parametrize(("args", "message"), [
    ({"iterations": 3, "kwrags": {}}, "unknown key 'kwrags'"),
    ({"iterations": 3, "preet": "x"}, "did you mean 'preset'?"),
    ({}, "missing required key 'iterations'"),
    ({"iterations": "3"}, "iterations must be int, got str '3'"),
    ({"iterations": 3.5}, "iterations must be int"),
    ({"iterations": True}, "iterations must be int"),
    ({"iterations": 3, "family": "dynamc"}, "did you mean 'dynamic'?"),
    ({"iterations": 3, "sizes": [1, "2"]}, "sizes must be list[int]"),
    ({"iterations": 3, "folder": 7}, "folder must be str | None"),
])
def test_a_misspelled_or_mistyped_arg_is_an_error_never_a_default(
        args: dict[str, Any], message: str) -> None:
    with pytest.raises(CheckArgsError) as caught:
        _Example.of(_ctx(**args))
    assert message in caught.value.message


def test_verify_refuses_undeclared_args_before_the_check_runs() -> None:
    ran: list[int] = []

    @claim_check(args=_Example)
    def check(ctx: Any) -> int:
        ran.append(1)
        return 0

    @claim_check
    def takes_none(ctx: Any) -> int:
        ran.append(2)
        return 0

    with pytest.raises(CheckArgsError, match="unknown key 'iteration'"):
        checked_call(check)(_ctx(iteration=3))
    with pytest.raises(CheckArgsError, match="this check takes no args"):
        checked_call(takes_none)(_ctx(preset="mnist"))
    assert ran == []
    assert checked_call(check)(_ctx(iterations=3)) == 0 and ran == [1]


def test_a_declaration_must_be_a_checkargs_dataclass() -> None:
    class NotArgs:
        pass

    with pytest.raises(ArgsDeclarationError):
        claim_check(args=NotArgs)(lambda ctx: None)


def test_an_annotation_lint_cannot_read_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "checks.py"
    source.write_text(
        "from dataclasses import dataclass\nfrom claimcheck import CheckArgs, claim_check\n\n"
        "@dataclass(frozen=True)\nclass A(CheckArgs):\n    model: torch.nn.Module\n\n"
        "@claim_check(args=A)\ndef f(ctx):\n    pass\n\n"
        "@claim_check(args=Missing)\ndef g(ctx):\n    pass\n", encoding="utf-8")
    assert "cannot read the annotation 'torch.nn.Module'" in str(
        static_declaration(source, "f").error)
    assert "not a class defined at the top level" in str(static_declaration(source, "g").error)


def test_a_declaration_imported_from_another_content_module_is_read() -> None:
    finder = content_module_finder(load_config(ROOT))
    static = static_declaration(ROOT / "models" / "checks" / "init.py", "inverted_capsnet_init",
                                finder)
    assert static.name == "InvertedPresetArgs"
    assert [(f.name, f.required) for f in static.fields] == [("preset", False)]


def test_problems_name_every_key_at_once() -> None:
    fields = declared_fields(_Example)
    problems = field_problems(fields, {"iteratons": 3, "scale": "1%"})
    assert {p.key for p in problems} == {"iteratons", "iterations", "scale"}
