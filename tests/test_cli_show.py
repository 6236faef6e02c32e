"""Smoke tests of the ``dw`` command line: help, ``dw show`` and ``dw bench engine``, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dw_cli.main import main
from dw_env import position
from dw_env.engine import Game
from dw_env.record import Recorder
from policies import make


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    recorder = Recorder(Game.new(land_radius=1, map_radius=2, max_rounds=4))
    player = make("random", seed=3)
    while not recorder.game.over:
        recorder.play(player.act(recorder.game, recorder.game.turn))
    path = tmp_path / "game.json"
    recorder.record.save(path)
    return path


def test_help_lists_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in ("show", "bench"):
        assert command in out


def test_show_position_prints_board_and_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pos.json"
    position.save(Game.new(), path)
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "To act: blue" in out
    board = out.split("\n\n")[1]
    assert board.count("^") == 61 - 3  # every throne but the three occupied start thrones (rule 2.3)
    assert "B" in out and "G" in out and "R" in out


def test_show_record_steps(record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = json.loads(record_file.read_text())["moves"]
    assert main(["show", str(record_file), "--step", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"[2/{len(moves)}] after move 2: {moves[1]}")
    assert main(["show", str(record_file), "--all"]) == 0
    assert capsys.readouterr().out.count("] ") == len(moves) + 1


def test_show_errors_name_the_problem(tmp_path: Path, record_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "chess"}')
    assert main(["show", str(bad)]) == 2
    assert "neither 'domain-wheel-position' nor 'domain-wheel-game'" in capsys.readouterr().err
    assert main(["show", str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["show", str(record_file), "--step", "999"]) == 2
    assert "--step 999 is out of range" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["show", str(broken)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_bench_engine_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "standard (n=2, R=4)" in out and "µs/decision" in out
    assert "median of 5 interleaved slices" in out and "compiled loop" in out
    assert main(["bench", "engine", "--seconds", "0"]) == 2
