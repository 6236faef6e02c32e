"""Bad input at the command line and the environments (issue 8): one clear line, bounded time and memory.

``dw show`` replays records instead of holding every position, ``dw bench`` refuses times that
never end, render sizes are bounded, and the AEC env answers protocol misuse with a message
instead of a KeyError.
"""

from __future__ import annotations

import io
import json
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from dw_cli.commands.show import RecordCursor
from dw_cli.main import main
from dw_env import domain_wheel_v0, position
from dw_env.engine import Game
from dw_env.record import GameRecord
from dw_env.render_image import render_image

SMALL = {"land_radius": 1, "map_radius": 2}


def passes_record(path: Path, rounds: int, **options: object) -> GameRecord:
    """Write a record of a game where everyone passes until truncation (A57) and return it."""
    record = GameRecord.from_game(Game.new(max_rounds=rounds, **options))  # type: ignore[arg-type]
    for _ in range(3 * rounds):
        record.append("pass")
    record.save(path)
    return record


# ---- finding 5: dw show keeps bounded memory ---------------------------------------------------------------
def test_show_of_a_long_record_keeps_bounded_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """3,000 standard-map positions took ~90 MB as a list of games; replaying keeps a few snapshots."""
    path = tmp_path / "long.json"
    passes_record(path, 1000)
    passes_record(tmp_path / "short.json", 2)
    assert main(["show", str(tmp_path / "short.json")]) == 0  # imports and compiled kernels load outside the count
    tracemalloc.start()
    try:
        assert main(["show", str(path)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "[3000/3000] after move 3000: pass" in capsys.readouterr().out
    assert peak < 15e6, f"dw show peaked at {peak / 1e6:.0f} MB"


def test_record_cursor_steps_back_and_forth_like_a_replay(tmp_path: Path) -> None:
    record = passes_record(tmp_path / "r.json", 200, **SMALL)
    cursor = RecordCursor(record, every=16)
    expected = list(record.positions())
    for n in (0, 5, 600, 599, 17, 16, 15, 300, 0, 600):
        assert cursor.seek(n) == expected[n], n
    assert len(cursor._snapshots) <= 600 // 16 + 1
    with pytest.raises(ValueError, match=r"position 601 is out of range; allowed: 0\.\.600"):
        cursor.seek(601)


def test_show_interactive_steps_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "r.json"
    passes_record(path, 2, **SMALL)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nb\nb\nb\nq\n"))
    assert main(["show", str(path), "--interactive"]) == 0
    headers = [line.split("]")[0] + "]" for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert headers == ["[0/6]", "[1/6]", "[2/6]", "[1/6]", "[0/6]", "[0/6]"]


# ---- finding 6: tracebacks where a message belongs ----------------------------------------------------------
def test_show_a_directory_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is a directory; give a position or game record JSON file" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "nested too deeply"),
        ("9" * 5000, "not valid JSON"),
        ('{"format": ["x"]}', r"format \['x'\] is neither"),
        ('{"format": "domain-wheel-game", "version": 1, "initial": {}, "moves": [1]}', "bad.json: initial: missing"),
    ],
)
def test_show_bad_files_are_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dw show: error: ") and err.count("\n") == 1
    assert re.search(message, err), err


def test_show_position_with_bad_winners_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = position.to_dict(Game.new(**SMALL))  # type: ignore[arg-type]
    data["result"] = {"end_reason": "truncation", "winners": [1, "blue"]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    assert main(["show", str(path)]) == 2
    assert "p.json: result.winners[0] must be a player name" in capsys.readouterr().err
    data["result"], data["version"] = None, True
    path.write_text(json.dumps(data))
    assert main(["show", str(path)]) == 2
    assert "p.json: unsupported version True" in capsys.readouterr().err


# ---- finding 5: bench options ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "0", "1e9", "٥", "five", "0.001"])
def test_bench_refuses_seconds_that_never_end_or_make_no_measurement(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "engine", "--seconds", seconds]) == 2
    assert "--seconds must be a number in 0.1..3600" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["engine", "env", "ai"])
def test_bench_run_functions_refuse_nan(module: str) -> None:
    run = __import__(f"dw_cli.bench.{module}", fromlist=["run"]).run
    with pytest.raises(ValueError, match="seconds must be in 0.1..3600"):
        run(seconds=float("nan"))


# ---- finding 5: render sizes ----------------------------------------------------------------------------------
@pytest.mark.parametrize("width", [200_000, 199, 4001, 1000.0, True, "1000"])
def test_render_width_is_bounded(width: object) -> None:
    with pytest.raises(ValueError, match=r"200\.\.4000"):
        domain_wheel_v0.raw_env(render_mode="rgb_array", render_width=width, **SMALL)
    with pytest.raises(ValueError, match=r"200\.\.4000"):
        render_image(Game.new(**SMALL), width=width)  # type: ignore[arg-type]


@pytest.mark.parametrize(("selected", "destinations"), [(True, ()), (133, ()), (0, (1.5,)), (0, (-2,)), (0, ("3",))])
def test_render_highlights_are_cells(selected: object, destinations: object) -> None:
    with pytest.raises(ValueError, match=r"selected and destinations must be cells 0\.\.132"):
        render_image(Game.new(**SMALL), width=200, selected=selected, destinations=destinations)  # type: ignore[arg-type]


def test_render_width_in_range_still_renders() -> None:
    assert render_image(Game.new(**SMALL), width=np.int64(240)).shape[1] == 240  # type: ignore[arg-type]


@pytest.mark.parametrize("reward", [float("nan"), float("inf"), 2.0, "0", True])
def test_truncation_reward_is_a_finite_number_in_the_reward_range(reward: object) -> None:
    with pytest.raises(ValueError, match="truncation_reward"):
        domain_wheel_v0.raw_env(truncation_reward=reward, **SMALL)


# ---- finding 6: the AEC env's protocol -------------------------------------------------------------------------
def test_reset_options_must_be_a_dict() -> None:
    env = domain_wheel_v0.raw_env(**SMALL)
    with pytest.raises(ValueError, match="reset options must be a dict .* got 'x'"):
        env.reset(options="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an integer or None, got 'x'"):
        env.reset(seed="x")  # type: ignore[arg-type]
    env.reset(seed=np.int64(3), options={"unrelated": 1})  # PettingZoo's api_test passes other keys


def test_step_before_reset_is_a_clear_error() -> None:
    env = domain_wheel_v0.raw_env(**SMALL)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(0)


def test_step_after_every_agent_is_done_is_a_clear_error() -> None:
    """PettingZoo: each done agent steps None and leaves ``agents``; a step after that names the problem."""
    env = domain_wheel_v0.raw_env(max_rounds=1, **SMALL)
    env.reset()
    pass_action = domain_wheel_v0.pass_action(env.geometry)
    for _ in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else pass_action)
    assert env.agents == []
    with pytest.raises(RuntimeError, match=r"every agent has been removed.*call reset\(\)"):
        env.step(None)
    wrapped = domain_wheel_v0.env(max_rounds=1, **SMALL)
    wrapped.reset()
    for _ in wrapped.agent_iter():
        _, _, terminated, truncated, _ = wrapped.last()
        wrapped.step(None if terminated or truncated else pass_action)
    wrapped.step(None)  # the wrapper chain keeps PettingZoo's warning, as its classic envs do
