"""Check references: the trust boundary as a table of accepted and refused names; local imports."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from claimcheck.core.errors import CheckReferenceError
from claimcheck.trust.boundary import resolve_reference
from claimcheck.trust.references import is_reference, local_imports, parse_reference

if TYPE_CHECKING:
    from conftest import MiniProject


def test_valid_reference_resolves_to_the_def_line(project: MiniProject) -> None:
    ref = resolve_reference("models.checks.alpha_checks:width_is_eight", project.config)
    assert ref.module == "models.checks.alpha_checks"
    assert ref.function == "width_is_eight"
    assert ref.file == project.root / "models/checks/alpha_checks.py"
    assert ref.line == 5


# (reference, substring of the error message)
REFUSED = [
    ("os:system", "names the standard-library module 'os'"),
    ("subprocess:run", "names the standard-library module 'subprocess'"),
    ("json:loads", "names the standard-library module 'json'"),
    ("sys:exit", "names the standard-library module 'sys'"),
    ("yaml:safe_load", "names the installed package 'yaml'"),
    ("../x:y", "is a file path"),
    ("models/checks/alpha_checks:width_is_eight", "is a file path"),
    ("/etc/passwd:f", "is a file path"),
    ("models..checks:f", "is a file path"),
    ("models.checks.alpha_checks", "is not a module.path:function name"),
    ("models.checks.alpha_checks:", "expected module.path:function"),
    ("models.checks.alpha checks:f", "expected module.path:function"),
    ("models.checks.nope:f",
     "names module 'models.checks.nope', not found under the import roots (models)"),
    (
        "models.checks.alpha_checks:width_is_eigth",
        "names function 'width_is_eigth', not found in models/checks/alpha_checks.py "
        "(did you mean 'width_is_eight'?)",
    ),
    (
        "models.checks.alpha_checks:zzz",
        "names function 'zzz', not found in models/checks/alpha_checks.py "
        "(its top-level functions: _helper, alpha_timer, width_is_eight)",
    ),
    ("models.unrelated:NOTE", "(it defines no top-level functions)"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_refused_references(project: MiniProject, text: str, message: str) -> None:
    with pytest.raises(CheckReferenceError) as caught:
        resolve_reference(text, project.config)
    assert message in caught.value.message


def test_nested_function_and_class_are_not_checks(project: MiniProject) -> None:
    project.write(
        "models/checks/shapes.py",
        """
        class Probe:
            pass

        async def later(ctx):
            pass

        def outer(ctx):
            def inner(ctx):
                pass
        """,
    )
    for name, message in [("Probe", "is a class"), ("later", "is an async def"),
                          ("inner", "its top-level functions: outer")]:
        with pytest.raises(CheckReferenceError, match=message):
            resolve_reference(f"models.checks.shapes:{name}", project.config)


def test_symlink_out_of_the_root_is_refused(project: MiniProject) -> None:
    outside = project.root.parent / "outside.py"
    outside.write_text("def evil(ctx):\n    pass\n")
    (project.root / "models/checks/evil.py").symlink_to(outside)
    with pytest.raises(CheckReferenceError, match="not found under the import roots"):
        resolve_reference("models.checks.evil:evil", project.config)


def test_syntax_error_is_located(project: MiniProject) -> None:
    project.write("models/checks/broken.py", "def f(ctx):\n    return (\n")
    with pytest.raises(CheckReferenceError, match=r"cannot parse models/checks/broken.py"):
        resolve_reference("models.checks.broken:f", project.config)


def test_nothing_is_imported(project: MiniProject) -> None:
    project.write("models/checks/loud.py",
                  "raise SystemExit('imported!')\n@claim_check\ndef f(ctx):\n    pass\n")
    assert resolve_reference("models.checks.loud:f", project.config).line == 3


@pytest.mark.parametrize(
    ("text", "parts"),
    [("models.checks.x:f", ("models.checks.x", "f")), ("m:g", ("m", "g"))],
)
def test_parse_reference(text: str, parts: tuple[str, str]) -> None:
    assert is_reference(text)
    assert parse_reference(text) == parts


def test_builtin_kind_is_not_a_reference() -> None:
    assert not is_reference("params")


def rel(project: MiniProject, paths: list[Path]) -> list[str]:
    return [str(path.relative_to(project.root)) for path in paths]


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        ("models/checks/alpha_checks.py",
         ["models/__init__.py", "models/alpha_net.py", "models/layers.py"]),
        ("models/checks/beta_checks.py",
         ["models/__init__.py", "models/beta_net.py", "models/layers.py"]),
        # The registry imports its families by name (string literals), not by import statement.
        ("models/registry.py",
         ["models/__init__.py", "models/alpha_net.py", "models/beta_net.py", "models/layers.py"]),
        ("models/training.py",
         ["models/__init__.py", "models/alpha_net.py", "models/beta_net.py", "models/layers.py",
          "models/registry.py"]),
        ("models/unrelated.py", []),
    ],
)
def test_local_imports(project: MiniProject, file: str, expected: list[str]) -> None:
    assert rel(project, local_imports(project.root / file, project.config)) == expected


def test_relative_imports_and_cycles(project: MiniProject) -> None:
    project.write("models/nets/__init__.py", "from . import head\n")
    project.write("models/nets/head.py", "from ..layers import squash\nfrom . import tail\n")
    project.write("models/nets/tail.py", "from .head import x\nimport numpy, os.path\n")
    found = rel(project, local_imports(project.root / "models/nets/tail.py", project.config))
    assert found == [
        "models/__init__.py", "models/layers.py", "models/nets/__init__.py", "models/nets/head.py",
    ]


def test_local_imports_follow_edits(project: MiniProject) -> None:
    file = project.root / "models/checks/alpha_checks.py"
    assert "models/beta_net.py" not in rel(project, local_imports(file, project.config))
    project.append("models/checks/alpha_checks.py", "\nfrom models import beta_net\n")
    assert "models/beta_net.py" in rel(project, local_imports(file, project.config))


def test_every_built_in_kind_that_calls_a_named_function_is_in_the_slot_table() -> None:
    """A built-in kind that builds a model or loads a function from its args must list the arg
    in ``claimcheck.trust.boundary.BUILTIN_CALLABLE_ARGS``; otherwise lint would not see the name
    that verify calls (found with ast, so a kind added later is held to it too)."""
    import ast

    from claimcheck.trust.boundary import BUILTIN_CALLABLE_ARGS

    checks = Path(__file__).resolve().parents[2] / "claimcheck" / "checks"
    calling: set[str] = set()
    for module in checks.glob("*.py"):
        for node in ast.parse(module.read_text("utf-8")).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            kinds = [d.args[0].value for d in node.decorator_list
                     if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "register_check"
                     and isinstance(d.args[0], ast.Constant)]
            called = {getattr(c.func, "id", getattr(c.func, "attr", ""))
                      for c in ast.walk(node) if isinstance(c, ast.Call)}
            if kinds and called & {"build_model", "load_callable"}:
                calling.add(str(kinds[0]))
    assert calling == {"params", "shapes", "flops", "timing", "train"}
    assert calling <= set(BUILTIN_CALLABLE_ARGS)
