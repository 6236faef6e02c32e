"""docs/CONQUER.md: its Python example runs and does what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conquer_env.engine import ConquerGame

DOC = Path(__file__).resolve().parents[1] / "docs" / "CONQUER.md"


def test_usage_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks, "docs/CONQUER.md has a python example"
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    game = namespace["game"]
    assert isinstance(game, ConquerGame)
    assert game.is_dead(2, 2) and game.dots_scores() == [1, 0]
    assert ".RbR.   ..R.." in capsys.readouterr().out


def test_every_listed_module_and_test_exists() -> None:
    root = DOC.parents[1]
    text = DOC.read_text(encoding="utf-8")
    for path in re.findall(r"`((?:conquer_env|tests|dw_cli)/[\w/]+\.py)`", text):
        assert (root / path).is_file(), path
