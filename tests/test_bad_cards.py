"""Every bad card gives exactly one located line, exit code 1, and no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.cli.main import main

BAD = Path(__file__).parent / "cards" / "bad"
GOLDEN = {
    line.split(" => ", 1)[0]: line.split(" => ", 1)[1]
    for line in (BAD / "expected.txt").read_text(encoding="utf-8").splitlines()
    if line.strip()
}


def test_corpus_has_a_golden_line_for_every_card() -> None:
    assert sorted(GOLDEN) == sorted(p.name for p in BAD.glob("*.md"))
    assert len(GOLDEN) >= 15


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_bad_card_gives_one_located_line(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(BAD.parents[2])
    code = main(["lint", f"tests/cards/bad/{name}"])
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert code == 1, out + err
    assert lines == [f"tests/cards/bad/{name}:{GOLDEN[name]}"]
    assert "Traceback" not in err
