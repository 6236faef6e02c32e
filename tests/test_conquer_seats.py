"""Conquer seats (policies/conquer): legal play to the end, determinism, capture and block, strength."""

from __future__ import annotations

import time

import numpy as np
import pytest

from conquer_env.engine import ConquerGame
from conquer_env.options import ConquerOptions
from conquer_env.position import from_text
from policies.base import Policy
from policies.conquer import SEATS, HeuristicSeat, RandomSeat


def play_game(options: ConquerOptions, red: Policy, blue: Policy) -> tuple[ConquerGame, list[int]]:
    game, seats, actions = ConquerGame.new(options), (red, blue), []
    while not game.over:
        action = seats[game.turn].act(game.copy(), game.turn)
        assert game.is_legal(action), (action, game.ply)
        game.play(action)
        actions.append(action)
    return game, actions


def test_seats_registry() -> None:
    assert {"random": RandomSeat, "heuristic": HeuristicSeat} == SEATS
    assert all(cls.name == name and cls.display_name for name, cls in SEATS.items())


@pytest.mark.parametrize("names", [("random", "random"), ("heuristic", "random"), ("heuristic", "heuristic")])
def test_seats_play_legal_games_to_the_end(names: tuple[str, str]) -> None:
    for seed in range(2):
        red, blue = (SEATS[n](seed=seed + 10 * i) for i, n in enumerate(names))
        game, actions = play_game(ConquerOptions.preset("small"), red, blue)
        assert game.end_reason in ("board_full", "two_passes") and len(actions) <= 2 * 81


def test_seats_are_deterministic_given_their_seed() -> None:
    runs = [play_game(ConquerOptions.preset("small"), HeuristicSeat(seed=3), RandomSeat(seed=4))[1] for _ in range(2)]
    assert runs[0] == runs[1]


def test_seat_refuses_to_act_out_of_turn() -> None:
    with pytest.raises(ValueError, match="not its turn"):
        HeuristicSeat(0).act(ConquerGame.new(), 1)


def test_heuristic_completes_an_enclosure() -> None:
    """Example 3: the only capturing point is the diagonal gap (2,2)."""
    game = from_text("B.....B\n...R...\n....R..\nBR.B.R.\n..R.R..\n...R...\nB.....B")
    assert HeuristicSeat(0).act(game, 0) == game.point_action(2, 2)


def test_heuristic_blocks_the_opponents_nearly_closed_ring() -> None:
    """Blue threatens to close its diamond around Red (4,4) at (4,5); Red, with no capture of its own, blocks."""
    game = from_text("""
        .........
        .........
        .........
        ....B....
        ...BRB...
        .........
        .........
        .........
        R.......R
    """)
    assert HeuristicSeat(0).act(game, 0) == game.point_action(4, 5)


def test_heuristic_avoids_the_opponents_open_base() -> None:
    game = from_text(
        """
        .......
        ...R...
        ..R.R..
        ...R...
        .......
        .......
        B.....B
        """,
        to_move="B",
    )
    assert HeuristicSeat(0).act(game, 1) != game.point_action(3, 2)


def test_heuristic_is_fast_on_15x15() -> None:
    game = ConquerGame.new()
    seats, rng = (HeuristicSeat(1), HeuristicSeat(2)), np.random.default_rng(0)
    for _ in range(60):  # a mid-game position: 60 random dots
        game.play(int(rng.choice(game.legal_points())))
    start, moves = time.perf_counter(), 0
    while not game.over and moves < 40:
        game.play(seats[game.turn].act(game, game.turn))
        moves += 1
    assert (time.perf_counter() - start) / moves < 0.020


def test_heuristic_beats_random_in_at_least_90_percent_of_40_games_on_9x9() -> None:
    wins = 0
    for i in range(40):
        heuristic, random = HeuristicSeat(seed=i), RandomSeat(seed=100 + i)
        seat = i % 2  # both colours, 20 games each
        game, _ = play_game(
            ConquerOptions.preset("small"), *((heuristic, random) if seat == 0 else (random, heuristic))
        )
        wins += game.winners == [seat]
    assert wins >= 36, f"heuristic won {wins} of 40"
