"""Reach and self-containment, observed in-process (no worker): what a check executes, what a
variant changes, whether the two meet, and whether a variant calls what it replaced."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from claimcheck.engine.power_trace import (
    Change,
    Recorder,
    Trace,
    Watcher,
    diff,
    reaches,
    snapshot,
)

CONTENT = {
    "pkg/__init__.py": "",
    "pkg/model.py": '''
        import math

        SCALE = 2.0
        UNUSED = 0.0


        def helper(x):
            return SCALE * x


        def never(x):
            return x


        class Layer:
            EPS = 1e-8

            def forward(self, x):
                return math.sqrt(helper(x))
        ''',
    "pkg/variants/__init__.py": "",
    "pkg/variants/wrong.py": '''
        import math

        from pkg import model


        def scale_three():
            model.SCALE = 3.0


        def unused():
            model.UNUSED = 1.0


        def wrapped_helper():
            original = model.helper
            model.helper = lambda x: original(x) + 1


        def written_out_helper():
            model.helper = lambda x: 3.0 * x


        def layer_forward():
            model.Layer.forward = lambda self, x: x


        def other_math():
            model.math = None


        def never_called():
            model.never = lambda x: -x
        ''',
}


@pytest.fixture
def content(tmp_path: Path) -> Iterator[tuple[ModuleType, ModuleType, list[str]]]:
    for name, text in CONTENT.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        model = importlib.import_module("pkg.model")
        wrong = importlib.import_module("pkg.variants.wrong")
        yield model, wrong, [str(tmp_path / "pkg")]
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
            del sys.modules[name]


CATALOGUE = ["pkg.variants"]


def _trace(model: ModuleType, folders: list[str]) -> Trace:
    recorder = Recorder(folders, CATALOGUE)
    recorder.start()
    try:
        model.Layer().forward(4.0)
    finally:
        trace = recorder.stop()
    return Trace.from_json(trace.to_json())  # what crosses the process boundary


def _changes(model: ModuleType, variant: object, folders: list[str]) -> list[Change]:
    before = snapshot(folders, CATALOGUE)
    saved = {name: dict(vars(model)) for name in ("model",)}
    layer = dict(vars(model.Layer))
    variant()  # type: ignore[operator]
    found = diff(before, snapshot(folders, CATALOGUE), folders)
    for name, value in saved["model"].items():  # undo, for the next case
        setattr(model, name, value)
    for name, value in layer.items():
        if name not in ("__dict__", "__weakref__"):
            setattr(model.Layer, name, value)
    return found


@pytest.mark.parametrize(("variant", "reached"), [
    ("scale_three", True),  # helper looks SCALE up
    ("unused", False),  # nothing looks UNUSED up
    ("wrapped_helper", True),  # helper ran
    ("layer_forward", True),  # a method of the class ran
    ("other_math", True),  # forward looks math up
    ("never_called", False),  # never is defined, never run
])
def test_reach_follows_what_ran(content: tuple[ModuleType, ModuleType, list[str]],
                                variant: str, reached: bool) -> None:
    model, wrong, folders = content
    trace = _trace(model, folders)
    changes = _changes(model, getattr(wrong, variant), folders)
    assert changes, "every variant here rebinds something a snapshot shows"
    assert bool(reaches(changes, trace)) is reached


def test_a_variant_whose_changes_cannot_be_seen_reaches_everything() -> None:
    assert reaches([], Trace())


def test_a_module_the_variant_imported_is_reached_when_its_code_ran() -> None:
    trace = Trace(names={"pkg.model": {"helper"}})
    assert reaches([Change("pkg.model", "")], trace)
    assert not reaches([Change("pkg.other", "")], trace)


@pytest.mark.parametrize(("variant", "called"), [
    ("wrapped_helper", "pkg.model.helper"),
    ("written_out_helper", ""),
])
def test_a_variant_that_calls_what_it_replaced_is_seen(
        content: tuple[ModuleType, ModuleType, list[str]], variant: str, called: str) -> None:
    model, wrong, folders = content
    before = snapshot(folders, CATALOGUE)
    getattr(wrong, variant)()
    changes = diff(before, snapshot(folders, CATALOGUE), folders)
    watcher = Watcher(changes, [str(Path(folders[0]) / "variants")])
    watcher.start()
    try:
        model.Layer().forward(4.0)
    finally:
        assert watcher.stop() == called


def test_the_original_called_by_content_code_is_not_the_variants_doing(
        content: tuple[ModuleType, ModuleType, list[str]]) -> None:
    model, wrong, folders = content
    original = model.helper
    before = snapshot(folders, CATALOGUE)
    wrong.written_out_helper()
    changes = diff(before, snapshot(folders, CATALOGUE), folders)
    watcher = Watcher(changes, [str(Path(folders[0]) / "variants")])
    watcher.start()
    try:
        original(1.0)  # content code (here: the test) still holding the original
    finally:
        assert watcher.stop() == ""


def test_a_stand_in_for_a_library_module_is_reached_only_through_what_it_changes(
        content: tuple[ModuleType, ModuleType, list[str]]) -> None:
    model, _, folders = content
    trace = _trace(model, folders)  # forward looks up math and sqrt together

    class StandIn:
        def __init__(self, base: ModuleType, **functions: object) -> None:
            self._base, self._functions = base, functions

        def __getattr__(self, name: str) -> object:
            return self._functions.get(name) or getattr(self._base, name)

    def with_stand_in(**functions: object) -> list[Change]:
        before = snapshot(folders, CATALOGUE)
        original = model.math
        model.math = StandIn(original, **functions)
        try:
            return diff(before, snapshot(folders, CATALOGUE), folders, members=True)
        finally:
            model.math = original

    sqrt_changed = with_stand_in(sqrt=lambda x: x)
    assert sqrt_changed[0].members == ("sqrt",)
    assert reaches(sqrt_changed, trace)
    assert not reaches(with_stand_in(floor=lambda x: x), trace)  # math.floor never looked up


def test_a_module_body_run_by_an_import_is_not_what_a_check_reaches(
        content: tuple[ModuleType, ModuleType, list[str]]) -> None:
    _, _, folders = content
    (Path(folders[0]) / "late.py").write_text("from pkg import model\nHELPER = model.helper\n")
    recorder = Recorder(folders, CATALOGUE)
    recorder.start()
    try:
        importlib.import_module("pkg.late")
    finally:
        trace = recorder.stop()
    assert not reaches([Change("pkg.late", "HELPER")], trace)
    assert not reaches([Change("pkg.model", "helper")], trace)
