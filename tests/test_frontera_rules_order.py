"""Turn order (R-3): rotating openers, skipping players who left, and strict alternation between two."""

from __future__ import annotations

import random

import pytest

from frontera_env.engine import Game
from frontera_env.rules.order import turns_until
from frontera_env.state import ACTIVE, ELIMINATED, OVER, SETUP
from tests.frontera_helpers import line_map, position


def turns(game: Game, count: int) -> list[int]:
    """Return the seats of the next ``count`` turns, each ended by a timeout (which only places the pool)."""
    seq = []
    for _ in range(count):
        game.timeout()
        seq.append(game.current)
    return seq


def eliminate(game: Game, seat: int, by: int) -> None:
    """Hand every territory of ``seat`` to ``by`` and mark ``seat`` eliminated, as a conquest would."""
    st = game.state
    st.owner[st.owner == seat] = by
    st.status[seat] = ELIMINATED


def test_worked_example_4_1_three_players_rotate_the_opener() -> None:
    game = position(line_map(12), [0, 1, 2] * 4)
    assert [0] + turns(game, 11) == [0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_R3_2_table_of_rounds_each_opened_by_the_next_seat(players: int) -> None:
    game = position(line_map(12), [t % players for t in range(12)])
    seq = [0] + turns(game, players * players - 1)
    expected = [(r + i) % players for r in range(players) for i in range(players)]
    assert seq == expected


def test_worked_example_4_1_four_players_with_an_elimination() -> None:
    game = position(line_map(12), [0, 1, 2, 3] * 3)  # A, B, C, D = 0, 1, 2, 3
    assert [0] + turns(game, 5) == [0, 1, 2, 3, 1, 2]  # round 1, then round 2 B, C, ...
    eliminate(game, 3, by=2)  # C eliminates D during C's turn
    assert turns(game, 7) == [0, 2, 0, 1, 0, 1, 2]  # round 2 ends with A; round 3 C, A, B; round 4 A, B, C


def test_worked_example_4_1_three_down_to_two_alternates_at_once() -> None:
    game = position(line_map(12), [0, 1, 2] * 4)
    assert turns(game, 6) == [1, 2, 1, 2, 0, 2]  # round 3 is C, A, B; C is playing
    game.timeout()  # C -> A
    game.timeout()  # A -> B
    eliminate(game, 2, by=1)  # B eliminates C
    assert turns(game, 4) == [0, 1, 0, 1]


def test_R3_3_two_players_alternate_from_the_start() -> None:
    game = position(line_map(8), [0, 1] * 4)
    assert turns(game, 6) == [1, 0, 1, 0, 1, 0]


def test_R3_A13_no_double_turn_under_random_leave_schedules() -> None:
    """Abandonments at random moments and positions, on and off turn: nobody ever plays twice in a row."""
    rng = random.Random(47)
    for trial in range(40):
        players = rng.randint(3, 6)
        game = position(line_map(12), [t % players for t in range(12)])
        seq = [game.current]
        while not game.over:
            if rng.random() < 0.25:
                active = game.state.active_seats()
                game.abandon(rng.choice(active))
            else:
                game.timeout()
            if not game.over and game.state.turn_index > len(seq):
                seq.append(game.current)
                assert game.state.status[game.current] == ACTIVE
        assert all(a != b for a, b in zip(seq, seq[1:], strict=False)), (trial, seq)
        assert game.winner is not None


def _predicted_by_later_turns(game: Game, ahead: int) -> list[tuple[list[int], list[int]]]:
    """Return, for ``ahead`` turns, the gaps turns_until gave and the gaps the turns played afterwards show."""
    players = game.state.players
    gaps, seq = [], [game.current]
    for _ in range(ahead + 2 * players):
        gaps.append(turns_until(game.state))
        game.timeout()
        seq.append(game.current)
    pairs = []
    for at in range(ahead):
        later = seq[at:]
        shown = [later.index(s) if game.state.status[s] == ACTIVE else 0 for s in range(players)]
        pairs.append((gaps[at], shown))
    return pairs


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_R3_turns_until_names_when_every_seat_plays_next(players: int) -> None:
    game = position(line_map(12), [t % players for t in range(12)])
    for said, shown in _predicted_by_later_turns(game, 3 * players):
        assert said == shown


def test_R3_2_with_four_players_a_seat_waits_7_3_3_3_turns_as_the_opener_rotates() -> None:
    # rounds 0 1 2 3 | 1 2 3 0 | 2 3 0 1 | 3 0 1 2 | 0 1 2 3: seat 0 plays turns 0, 7, 10, 13 and 16
    game = position(line_map(12), [0, 1, 2, 3] * 3)
    at_seat_0 = []
    for turn in range(17):
        if game.current == 0:
            at_seat_0.append((turn, turns_until(game.state)))
        game.timeout()
    assert [turn for turn, _ in at_seat_0] == [0, 7, 10, 13, 16]
    assert [gaps for _, gaps in at_seat_0[:4]] == [[0, 1, 2, 3], [0, 4, 1, 2], [0, 1, 5, 2], [0, 1, 2, 6]]


def test_worked_example_4_1_turns_until_skips_the_eliminated_seat() -> None:
    game = position(line_map(12), [0, 1, 2, 3] * 3)
    turns(game, 5)  # round 2, C playing
    eliminate(game, 3, by=2)
    assert turns_until(game.state) == [1, 4, 0, 0]  # A closes round 2; round 3 is C, A, B
    assert turns(game, 3) == [0, 2, 0]


def test_R3_3_two_players_wait_one_turn_each() -> None:
    game = position(line_map(8), [0, 1] * 4)
    assert turns_until(game.state) == [0, 1]
    game.timeout()
    assert turns_until(game.state) == [1, 0]


def test_R3_1_in_the_deployment_a_seat_waits_for_its_place_in_round_1_and_after_the_end_for_nothing() -> None:
    game = Game.new(line_map(12), 4, seed=5)
    st = game.state
    assert st.phase == SETUP
    st.order0[:] = [2, 0, 3, 1]
    assert turns_until(st) == [2, 4, 1, 3]
    st.status[0] = ELIMINATED  # a seat that left during the deployment has no place
    assert turns_until(st) == [0, 3, 1, 2]
    st.phase = OVER
    assert turns_until(st) == [0, 0, 0, 0]
