"""The arena's varied openings (issue 11 item 8): pure, paired across seatings and line-ups, never ending the
game; and the distinct-game counts, effective sample size and worst seat reported next to every win rate."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dw_cli.main import main
from dw_env.engine import Game, Move
from dw_env.options import GameOptions
from policies import registry
from policies.base import Policy
from training.evaluation.arena import game_hash, opening_moves, play_all, play_game, schedule
from training.evaluation.arena_config import DEFAULT_OPENING_PLIES, MAX_OPENING_PLIES, ArenaConfig, check_opening_plies
from training.evaluation.arena_stats import summarize

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=30)


class FirstMoveSeat(Policy):
    """Test seat: always the first legal piece move (or a pass): fully deterministic, as Balanced nearly is."""

    name = "first"

    def act(self, game: Game, seat: int) -> Move:
        return game.legal_moves()[0]


class LastMoveSeat(FirstMoveSeat):
    """Test seat: always the last legal piece move."""

    name = "last"

    def act(self, game: Game, seat: int) -> Move:
        moves = [m for m in game.legal_moves() if not (m.is_pass or m.is_end_request)]
        return moves[-1] if moves else game.legal_moves()[0]


@pytest.fixture
def deterministic(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.setitem(registry._REGISTRY, "first", (f"{__name__}:FirstMoveSeat", "First"))
    monkeypatch.setitem(registry._REGISTRY, "last", (f"{__name__}:LastMoveSeat", "Last"))
    return "first", "last"


# ---- openings --------------------------------------------------------------------------------------------
def test_an_opening_is_a_pure_function_of_options_seed_and_index() -> None:
    first = opening_moves(SMALL, 7, 3, 4)
    opening_moves.cache_clear()
    assert opening_moves(SMALL, 7, 3, 4) == first and len(first) == 4
    assert opening_moves(SMALL, 7, 3, 2) != opening_moves(SMALL, 7, 4, 2)  # 29 x 29 two-ply openings
    assert opening_moves(SMALL, 8, 3, 4) != first
    assert opening_moves(SMALL, 7, 3, 0) == ()


def test_openings_are_legal_piece_moves_and_never_end_the_game() -> None:
    for index in range(20):
        moves = opening_moves(SMALL, 0, index, 6)
        game = Game.new(SMALL)
        for move in moves:
            assert not (move.is_pass or move.is_end_request)  # rule 3.2b/9.3: a pass only when forced
            assert move in game.legal_moves()
            game.play(move)
            assert not game.over
    # the longest opening the round limit allows still leaves the game running (A57: truncation is an ending)
    tight = GameOptions(land_radius=1, map_radius=2, max_rounds=1)
    moves = opening_moves(tight, 0, 0, 2)
    game = Game.new(tight)
    for move in moves:
        game.play(move)
    assert len(moves) == 2 and not game.over


def test_opening_length_is_bounded_with_a_clear_message() -> None:
    assert DEFAULT_OPENING_PLIES == 3  # one random ply per colour (docs/ARENA.md, "Openings")
    check_opening_plies(MAX_OPENING_PLIES, SMALL)
    for bad, needle in [(-1, "0..30"), (MAX_OPENING_PLIES + 1, "0..30"), (2.0, "integer"), (True, "integer")]:
        with pytest.raises(ValueError, match="--opening-plies") as exc:
            check_opening_plies(bad, SMALL)
        assert needle in str(exc.value)
    with pytest.raises(ValueError, match=r"--opening-plies must be 0\.\.2 \(max rounds 1"):
        ArenaConfig((("random",) * 3,), options=GameOptions(max_rounds=1), opening_plies=3)


def test_game_j_of_every_seating_and_lineup_shares_opening_j() -> None:
    config = ArenaConfig((("a", "b", "c"), ("a", "d", "d")), games_per_lineup=14)
    tasks = schedule(config)
    for lineup in (0, 1):
        for seating in range(6):
            openings = [t.opening for t in tasks if t.lineup == lineup and t.seating == seating]
            assert openings == ([0, 1, 2] if seating < 2 else [0, 1])
    assert Counter(t.opening for t in tasks) == {0: 12, 1: 12, 2: 4}


def test_play_game_starts_with_the_opening_and_hashes_every_move(deterministic: tuple[str, str]) -> None:
    first, last = deterministic
    config = ArenaConfig(((first, last, last), (last, first, first)), games_per_lineup=6, options=SMALL)
    tasks = schedule(config)
    played: dict[int, list[Move]] = {}
    rows = [play_game(t, SMALL, 5, on_move=played.setdefault(t.index, []).append, opening_plies=3) for t in tasks[::5]]
    opening = list(opening_moves(SMALL, 5, 0, 3))
    for row in rows:
        assert played[row["game"]][:3] == opening  # paired: the same opening in both line-ups, every seating
        assert row["opening"] == 0 and row["game_hash"] == game_hash(row["strategies"], played[row["game"]])
    plain = play_game(tasks[0], SMALL, 5)  # the default: no opening, the seats play from the first ply
    assert plain["game_hash"] != rows[0]["game_hash"]


def test_openings_turn_repeated_games_into_distinct_ones(deterministic: tuple[str, str]) -> None:
    """Two deterministic seats repeat one game per seating without openings; openings make each game new."""
    first, last = deterministic
    counts = {}
    for plies in (0, 3):
        config = ArenaConfig(((first, last, last),), games_per_lineup=24, options=SMALL, opening_plies=plies)
        summary = summarize(config, play_all(config, workers=1, progress=False))
        counts[plies] = summary
    repeated, varied = counts[0], counts[3]
    # without openings: first in Blue, Green or Red gives three games, each played 8 times
    assert (repeated["overall"]["distinct_games"], repeated["overall"]["max_repeats"]) == (3, 8)
    agent = repeated["strategies"][0]
    assert agent["distinct_games"] == 3 and agent["ess"] == pytest.approx(3.0)
    assert agent["ci95_ess"][1] - agent["ci95_ess"][0] > agent["ci95"][1] - agent["ci95"][0]
    assert varied["overall"]["distinct_games"] == 12  # 4 openings x 3 seats; the swapped copies are one game
    assert varied["strategies"][0]["distinct_games"] == 12
    assert repeated["lineups"][0]["distinct_games"] == 3 and varied["lineups"][0]["distinct_games"] == 12


# ---- distinct games, effective size, worst seat ----------------------------------------------------------
def _row(game: int, seats: list[str], winners: list[str], key: str, scores: list[int] | None = None) -> dict[str, Any]:
    scores = scores or [10, 5, 1]
    return {
        "game": game,
        "lineup": 0,
        "seating": 0,
        "opening": 0,
        "game_hash": key,
        "seeds": [0, 0, 0],
        "strategies": seats,
        "scores": scores,
        "winners": winners,
        "leaders": ["blue"],
        "end_reason": "centre" if winners else "truncation",
        "rounds": 20,
        "plies": 60,
        "mid_round": 10,
        "lands_mid": [1, 1, 1],
        "lands_end": [1, 1, 1],
    }


def test_distinct_counts_effective_size_and_worst_seat() -> None:
    config = ArenaConfig((("x", "y", "y"),), games_per_lineup=6, bootstrap=0)
    rows = [_row(i, ["y", "x", "y"], ["blue"], "lost-again", [20, 2, 1]) for i in range(4)]  # x loses one game 4x
    rows += [
        _row(4, ["x", "y", "y"], ["blue"], "a"),
        _row(5, ["y", "y", "x"], ["red"], "b", [1, 2, 30]),
    ]
    s = summarize(config, rows)
    x = next(e for e in s["strategies"] if e["name"] == "x")
    assert (x["n"], x["wins"], x["distinct_games"], x["distinct_outcomes"]) == (6, 2, 3, 3)
    assert x["ess"] == pytest.approx(36 / (16 + 1 + 1)) and x["max_repeated_loss"] == 4 and x["max_repeats"] == 4
    assert x["worst_seat"]["seat"] == "green" and x["worst_seat"]["win_rate"] == 0.0
    assert x["worst_seat"]["n"] == 4 and x["worst_seat"]["distinct_games"] == 1
    assert x["by_seat"]["blue"]["win_rate"] == 1.0
    assert s["overall"]["distinct_games"] == 3 and s["overall"]["ess"] == pytest.approx(2.0)
    (lineup,) = s["lineups"]
    assert lineup["lineup"] == ["x", "y", "y"] and lineup["games"] == 6
    assert lineup["strategies"][0]["name"] == "x" and lineup["strategies"][0]["worst_seat"]["seat"] == "green"
    # the same moves with the copies of y swapped are one game, and rows without a hash fall back to outcomes
    del rows[4]["game_hash"]
    assert summarize(config, rows)["strategies"][0]["distinct_games"] == 3


# ---- the command -----------------------------------------------------------------------------------------
TINY = ["--land-radius", "1", "--map-radius", "2", "--max-rounds", "30", "--no-progress", "--workers", "1"]


def test_cli_reports_distinct_games_worst_seat_and_opening(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], deterministic: tuple[str, str]
) -> None:
    first, last = deterministic
    out = tmp_path / "run"
    argv = ["arena", "--players", first, last, "--mode", "gauntlet", "--games", "12", "--bootstrap", "5"]
    assert main([*argv, *TINY, "--out", str(out)]) == 0
    table = capsys.readouterr().out
    header = next(line for line in table.splitlines() if line.startswith("strategy"))
    assert header.split()[:8] == ["strategy", "seat-games", "win", "rate", "95%", "CI", "distinct", "outcomes"]
    assert "Worst seat of each strategy" in table and "3 random opening plies" in table
    assert "line-up" in table and "CI(ess)" in table
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["opening_plies"] == 3 and data["overall"]["opening_plies"] == 3
    assert data["overall"]["distinct_games"] == 6  # 2 openings x 3 seats of the challenger
    assert {"distinct_games", "distinct_outcomes", "ess", "ci95_ess", "worst_seat"} <= set(data["strategies"][0])
    header_csv = (out / "results.csv").read_text().splitlines()[0].split(",")
    assert header_csv[:5] == ["game", "lineup", "seating", "opening", "game_hash"]

    assert main([*argv, *TINY, "--opening-plies", "0"]) == 0
    table = capsys.readouterr().out
    assert "no random opening" in table and "(3 distinct, 3 distinct outcomes, the most repeated outcome 4" in table


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--opening-plies", "31"], "0..30"),
        (["--opening-plies", "-1"], "0..30"),
        (["--games", "1000001"], "1..1000000"),
        (["--workers", "257"], "1..256"),
        (["--seed", str(2**64)], "0..9223372036854775807"),
        (["--bootstrap", "100001"], "0..100000"),
    ],
)
def test_out_of_range_options_are_refused_by_the_parser(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["arena", "--players", "random", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert argv[0] in err and needle in err


def test_opening_longer_than_the_round_limit_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--players", "random", *TINY, "--max-rounds", "1", "--opening-plies", "4"])
    assert code == 2 and "--opening-plies must be 0..2 (max rounds 1" in capsys.readouterr().err


def test_cli_opening_defaults_match_the_config() -> None:
    from dw_cli.commands import arena

    assert (arena.DEFAULT_OPENING_PLIES, arena.MAX_OPENING_PLIES) == (DEFAULT_OPENING_PLIES, MAX_OPENING_PLIES)


def test_repeated_losses_are_counted_by_outcome() -> None:
    """A sampling agent that loses the same way again differs only in idle moves: still the same loss."""
    config = ArenaConfig((("x", "y", "y"),), games_per_lineup=3, bootstrap=0)
    rows = [_row(i, ["x", "y", "y"], ["green"], f"moves-{i}", [2, 20, 1]) for i in range(3)]
    x = summarize(config, rows)["strategies"][0]
    assert (x["distinct_games"], x["distinct_outcomes"], x["max_repeated_loss"]) == (3, 1, 3)
