"""``claimcheck verify --executor ray`` usage errors: one line each, exit code 2, no traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from claimcheck.cli.main import main
from claimcheck.core.exitcodes import ExitCode
from claimcheck.engine.ray_executor import missing_ray_message, ray_installed
from tests.engine.conftest import claim
from tests.executor_contract import write_contract_project


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    root = write_contract_project(tmp_path / "project", [
        claim("holds", "tinymodels.checks:holds", {"holds": True}),
    ])
    return root / "wiki"


def test_without_ray_the_command_prints_the_install_hint(
    wiki: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    code = main(["verify", str(wiki), "--executor", "ray"])
    captured = capsys.readouterr()
    assert code == ExitCode.USAGE
    assert captured.err == f"error: {missing_ray_message()}\n"
    assert captured.out == ""
    assert not (wiki.parent / ".claimcheck" / "results").exists()


def test_a_ray_address_needs_the_ray_executor(
    wiki: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", str(wiki), "--ray-address", "auto"])
    assert code == ExitCode.USAGE
    assert capsys.readouterr().err == "error: --ray-address needs --executor ray\n"


@pytest.mark.skipif(not ray_installed(), reason=f"Ray is not installed ({missing_ray_message()})")
def test_an_unreachable_cluster_is_one_line(wiki: Path) -> None:
    with socket.socket() as probe:  # a port that nobody listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "claimcheck.cli", "verify", str(wiki), "--executor", "ray",
               "--ray-address", f"127.0.0.1:{port}", "--device", "cpu"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == ExitCode.USAGE
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot reach Ray at 127.0.0.1:{port}")
