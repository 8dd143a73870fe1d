"""Cards never choose where trusted code reads or executes (issue 22 §2).

* A path argument (``data_folder``, ``*_dir``, ``*_path``, ...) is accepted only inside a data root
  of the project, outside the results store; lint and verify refuse anything else with the same
  message, and verify never runs the claim.
* No dataset loader unpickles a file it has not verified against its published checksum, and the
  CIFAR unpickler builds arrays only.
* ``resources`` in a card only lowers the operator's limits; out-of-range values are card errors.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from claimcheck.store.portable_paths import scrub
from tests.hardening.hostile_project import ARXIV, REPO, claim, cli, hostile_project, rows
from tests.inprocess_cli import run_claimcheck
from tests.strictjson import loads_strict

CHECKS = '''
@dataclass(frozen=True)
class FolderArgs(CheckArgs):
    tag: str = "x"
    data_folder: Any = None
    kwargs: Any = None
    weights_path: Any = None
    weights: Any = None
    source: Any = None


@claim_check(args=FolderArgs)
def reads_folder(ctx):
    """Bait: were it ever run with a card-chosen folder, the marker would exist."""
    Path(os.environ.get("MARKER_DIR", ".")).joinpath("RAN-" + ctx.args.get("tag", "x")).touch()
    return Evidence(measured=True)


@claim_check
def memory_headroom(ctx):
    """The address space this check may still add, in GiB (its RLIMIT_AS soft limit)."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return Evidence(measured=-1.0)
    mapped = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    return Evidence(measured=(soft - mapped) / 2**30)
'''

HOSTILE_PATHS = {
    "absolute": {"data_folder": "/etc"},
    "home": {"data_folder": "~/.ssh"},
    "climbs": {"data_folder": "data/../../outside"},
    "store": {"data_folder": ".claimcheck/results"},
    "store-in-root": {"data_folder": "data/../.claimcheck"},
    "outside-roots": {"data_folder": "models"},
    "through-link": {"data_folder": "data/linked"},
    "nested": {"kwargs": {"cache_dir": "/tmp"}},
    "weights": {"weights_path": "/opt/weights.pt"},
    "not-a-path": {"data_folder": ["data"]},
    # a path under an innocent name (no _path/_dir suffix) is judged by its value
    "innocent-absolute": {"weights": "/etc/passwd"},
    "innocent-home": {"source": "~/.ssh/id_rsa"},
    "innocent-climbs": {"weights": "../../outside.pt"},
    "innocent-backslash": {"source": "..\\..\\outside"},
    "innocent-nested": {"kwargs": {"load_from": ["/tmp/evil.pt"]}},
    "innocent-through-link": {"source": "data/linked/x.pt"},
    "innocent-store": {"weights": ".claimcheck/artifacts/x.pt"},
}


def _project(tmp_path: Path) -> Path:
    claims = [claim(name, "tinymodels.hostile:reads_folder", {"holds": True},
                    args={**args, "tag": name}) for name, args in HOSTILE_PATHS.items()]
    claims.append(claim("allowed", "tinymodels.hostile:reads_folder", {"holds": True},
                        args={"data_folder": "data/cifar", "tag": "allowed"}))
    root = hostile_project(tmp_path, claims, CHECKS)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + 'data_roots = ["data"]\n')
    (root / "data" / "cifar").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (root / "data" / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    return root


def _lint_errors(root: Path) -> dict[str, str]:
    """Lint's errors by claim (found through the card line of each)."""
    done = cli(root, "lint", "wiki", "--format", "json")
    card = (root / "wiki/papers/paper-0.md").read_text("utf-8").splitlines()
    owner, current = {}, ""
    for number, text in enumerate(card, start=1):
        if text.lstrip().startswith("- id: "):
            current = text.split("- id: ", 1)[1].strip()
        owner[number] = current
    errors: dict[str, str] = {}
    for finding in loads_strict(done.stdout):
        if finding["level"] == "error":
            errors[owner[finding["line"]]] = finding["message"]
    return errors


def test_lint_and_verify_refuse_card_chosen_paths_with_the_same_message(tmp_path: Path) -> None:
    root = _project(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    errors = _lint_errors(root)
    assert set(errors) == set(HOSTILE_PATHS), errors
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "CLAIMCHECK_MEMORY_LIMIT_GB": "0", "MARKER_DIR": str(markers)}
    done = run_claimcheck(root, "verify", "wiki", "--device", "cpu", "--format", "json", env=env)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    shown = rows(done.stdout)
    for name, message in errors.items():
        # verify's reason, like all stored text, holds no absolute path
        # (claimcheck.store.portable_paths)
        assert shown[name]["errored"] and shown[name]["reason"] == scrub(message, root), name
        assert "data_roots: data/" in message
    assert shown["allowed"]["verdict"] == "verified"
    assert sorted(p.name for p in markers.iterdir()) == ["RAN-allowed"]


def _bait_pickle(marker: Path) -> bytes:
    """A pickle that, unpickled with :mod:`pickle`, creates ``marker``."""

    class Bait:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (f"touch {marker}",))

    return pickle.dumps({b"data": Bait(), b"labels": [0]})


def test_a_cifar_folder_of_forged_batches_is_never_unpickled(tmp_path: Path) -> None:
    from models.data import load_dataset

    marker = tmp_path / "PWNED"
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    for member in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        (folder / member).write_bytes(_bait_pickle(marker))
    with pytest.raises(ValueError, match="never unpickled"):
        load_dataset("cifar10", folder=tmp_path)
    assert not marker.exists()


def test_the_cifar_unpickler_builds_arrays_only_even_for_a_matching_checksum(
    tmp_path: Path
) -> None:
    from models.data import cifar

    marker = tmp_path / "PWNED"
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    payload = _bait_pickle(marker)
    for member in cifar.CIFAR10.member_md5:
        (folder / member).write_bytes(payload)
    digest = hashlib.md5(payload, usedforsecurity=False).hexdigest()
    layout = dataclasses.replace(cifar.CIFAR10,
                                 member_md5=dict.fromkeys(cifar.CIFAR10.member_md5, digest))
    with pytest.raises(pickle.UnpicklingError, match=r"refusing (posix|os)\.system"):
        cifar._load_layout(layout, tmp_path)
    assert not marker.exists()


@pytest.mark.parametrize("value", ["1.0e+300", ".inf", ".nan", "-1", "0", "2.0e+6"])
def test_out_of_range_resources_are_card_errors_for_lint_and_verify(
    tmp_path: Path, value: str
) -> None:
    root = hostile_project(tmp_path, [
        claim("hog", "tinymodels.hostile:memory_headroom", {"at_least": 0},
              resources={"memory_gb": 1.0}),
    ], CHECKS)
    card = root / "wiki/papers/paper-0.md"
    text = card.read_text()
    card.write_text(text.replace("memory_gb: 1.0", f"memory_gb: {value}"))
    line = next(number for number, row in enumerate(card.read_text().splitlines(), start=1)
                if "memory_gb:" in row)
    for command in (("lint", "wiki"), ("verify", "wiki", "--device", "cpu")):
        done = cli(root, *command)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
        assert f"wiki/papers/paper-0.md:{line}:" in done.stdout + done.stderr, command


def test_a_card_cannot_lift_the_operators_memory_limit(tmp_path: Path) -> None:
    root = hostile_project(tmp_path, [
        claim("greedy", "tinymodels.hostile:memory_headroom", {"at_least": 0},
              resources={"memory_gb": 64}),
        claim("modest", "tinymodels.hostile:memory_headroom", {"at_least": 0},
              resources={"memory_gb": 0.5}),
    ], CHECKS)
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "CLAIMCHECK_MEMORY_LIMIT_GB": "2"}
    done = run_claimcheck(root, "verify", "wiki", "--device", "cpu", "--format", "json", env=env)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    shown = rows(done.stdout)
    assert 0 < shown["greedy"]["measured"] <= 2.0, shown["greedy"]
    assert 0 < shown["modest"]["measured"] <= 0.5, shown["modest"]
    assert ARXIV in shown["greedy"]["claim"]
