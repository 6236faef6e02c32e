"""docs/ALVEOLE.md's Python examples run as written, and its perft table is the engine's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alveole_env import AlveoleGame

DOC = Path(__file__).resolve().parent.parent / "docs" / "ALVEOLE.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)


def test_the_page_has_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_example_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(BLOCKS[index], f"ALVEOLE.md example {index}", "exec"), {})
    capsys.readouterr()


def test_perft_table_matches_the_engine() -> None:
    row = re.search(r"^\| move sequences \|(.*)\|$", TEXT, flags=re.M)
    assert row is not None
    counts = [int(c.strip().replace(",", "")) for c in row.group(1).split("|")]
    game = AlveoleGame.new()
    assert counts == [game.perft(d) for d in range(1, len(counts) + 1)]
