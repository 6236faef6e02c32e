"""The Alveole seats (policies/alveole): legal games to the end, determinism, strength and speed."""

from __future__ import annotations

import time

import pytest

from alveole_env import AlveoleGame, AlveoleOptions
from alveole_env.position import from_dict
from policies.alveole import SEATS, HeuristicSeat, RandomSeat
from policies.base import Policy


def _game(seats: list[Policy], options: AlveoleOptions | None = None) -> AlveoleGame:
    game = AlveoleGame.new(options)
    while not game.over:
        action = seats[game.turn].act(game, game.turn)
        assert action in game.legal_actions()
        game.play(action)
    return game


def test_seats_registry() -> None:
    assert set(SEATS) == {"random", "heuristic"}
    for name, cls in SEATS.items():
        assert cls.name == name and cls.display_name and issubclass(cls, Policy)


@pytest.mark.parametrize("names", [("random", "random"), ("heuristic", "random"), ("random", "heuristic")])
def test_seats_play_legal_games_to_the_end(names: tuple[str, str]) -> None:
    game = _game([SEATS[names[0]](seed=1), SEATS[names[1]](seed=2)])
    assert game.over and (game.winners or game.truncated)


def test_heuristic_is_deterministic_given_its_seed() -> None:
    runs = []
    for _ in range(2):
        game = _game([HeuristicSeat(seed=5), RandomSeat(seed=6)])
        runs.append((game.ply, game.board.tolist()))
    assert runs[0] == runs[1]


def test_heuristic_beats_random_in_90_percent_of_40_games_both_colours() -> None:
    wins = 0
    for i in range(40):
        heuristic = i % 2
        seats: list[Policy] = [RandomSeat(seed=i), RandomSeat(seed=i)]
        seats[heuristic] = HeuristicSeat(seed=i)
        wins += _game(seats).winners == [heuristic]
    assert wins >= 36, f"heuristic won {wins} of 40"


def test_heuristic_takes_a_winning_move_and_avoids_an_immediate_loss() -> None:
    # player 1 connects with (2,-1) -> (1,0)
    game = from_dict({"to_move": 1, "pieces": [[0, 0, 1], [2, -1, 1], [-3, -1, 2], [3, 1, 2]]})
    for depth in (1, 2):
        action = HeuristicSeat(seed=0, depth=depth).act(game, 0)
        child = game.copy()
        child.play(action)
        assert child.winners == [0]


def test_heuristic_moves_fast_enough() -> None:
    seat = HeuristicSeat(seed=0)
    game = AlveoleGame.new()
    seat.act(game, 0)  # compile
    times = []
    rival = RandomSeat(seed=1)
    while not game.over and game.ply < 60:
        start = time.perf_counter()
        action = seat.act(game, game.turn) if game.turn == 0 else rival.act(game, 1)
        if game.turn == 0:
            times.append(time.perf_counter() - start)
        game.play(action)
    times.sort()
    assert times[len(times) // 2] < 0.020, f"median {times[len(times) // 2] * 1e3:.1f} ms a move"


def test_seats_refuse_a_seat_not_to_move_and_bad_options() -> None:
    game = AlveoleGame.new()
    for seat in (RandomSeat(0), HeuristicSeat(0)):
        with pytest.raises(ValueError, match="seat 1 is not to move; seat 0 is"):
            seat.act(game, 1)
    with pytest.raises(ValueError, match="depth must be 1 or 2"):
        HeuristicSeat(depth=3)


def test_two_heuristic_seats_do_not_loop_to_the_ply_limit() -> None:
    for seed in range(6):
        game = _game([HeuristicSeat(seed=seed), HeuristicSeat(seed=seed + 50)])
        assert not game.truncated and game.winners, f"seed {seed}: {game.end_reason} at ply {game.ply}"


def test_heuristic_state_round_trips_and_reset_forgets() -> None:
    seat = HeuristicSeat(seed=3)
    game = AlveoleGame.new()
    for _ in range(6):
        game.play(seat.act(game, game.turn) if game.turn == 0 else game.legal_actions()[0])
    state = seat.state_dict()
    assert len(state["seen"]) == 3 and state["last_ply"] == 4
    other = HeuristicSeat(seed=99)
    other.load_state_dict(state)
    assert other.seen == seat.seen and other.act(game.copy(), 0) == seat.act(game.copy(), 0)
    with pytest.raises(ValueError, match="seen"):
        other.load_state_dict({**state, "seen": [1]})
    seat.reset()
    assert seat.seen == set() and seat.last_ply == -1
