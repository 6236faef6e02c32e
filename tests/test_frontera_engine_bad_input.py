"""Bad input to the engine: every refusal names what was wrong, the value received and what is allowed."""

from __future__ import annotations

import pytest

from frontera_env.actions import Attack, Deploy, Place, Regroup
from frontera_env.engine import Game
from frontera_env.rules_errors import IllegalAction
from tests.frontera_helpers import line_map, position


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"players": 7, "seed": 1}, "2 to 6 players .*got 7"),
        ({"players": "3", "seed": 1}, "got '3'"),
        ({"players": True, "seed": 1}, "got True"),
        ({"players": 2, "seed": -5}, "0..2\\*\\*64-1"),
        ({"players": 2, "seed": 1, "max_turns": -1}, "max_turns must be an integer >= 0"),
    ],
)
def test_game_new_refuses_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Game.new(line_map(12), **kwargs)  # type: ignore[arg-type]


def test_R2_1_a_map_needs_two_territories_per_player() -> None:
    with pytest.raises(ValueError, match="at least 8 \\(R-2.1\\)"):
        Game.new(line_map(6), 4, seed=1)


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (42, "spec 6.2: not a Frontera action: 42"),
        (Deploy("3", 1), "the territory must be an integer in 0..7, got '3'"),  # type: ignore[arg-type]
        (Deploy(0, 99), "the count must be an integer in 1..3, got 99"),
        (Deploy(1, 1), "territory 1 is not the current player's"),
        (Attack(0, 1), "R-4.3"),
        (Regroup(0, 2, 1), "R-7: regroup and END_TURN come after END_ATTACK"),
        (Place(0, 0, 1), "R-2.7: .* belongs to the deployment; the phase is reinforce"),
    ],
)
def test_illegal_actions_name_the_rule_and_leave_the_state_unchanged(action: object, match: str) -> None:
    game = position(line_map(8), [0, 1] * 4)
    before = game.state.copy()
    with pytest.raises(IllegalAction, match=match):
        game.apply(action)  # type: ignore[arg-type]
    assert game.state.equals(before)


def test_engine_calls_refuse_bad_seats_and_wrong_moments() -> None:
    game = position(line_map(8), [0, 1] * 4)
    for seat, match in ((5, "0..1, got 5"), ("0", "got '0'")):
        with pytest.raises(IllegalAction, match=match):
            game.abandon(seat)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="R-12.3"):
        game.deployment_timeout()
    game.abandon(1)
    for call in (game.timeout, lambda: game.abandon(0)):
        with pytest.raises(IllegalAction, match="R-1[02]"):
            call()
