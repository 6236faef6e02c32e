"""Legality, the end of the game, scoring and truncation (spec rules R-3, R-9, R-10; A18, A22-A30)."""

from __future__ import annotations

import numpy as np
import pytest

from conquer_env.engine import ConquerGame
from conquer_env.errors import IllegalActionError
from conquer_env.layout import END_REASONS
from conquer_env.options import ConquerOptions
from conquer_env.position import from_text, summary


def place(game: ConquerGame, x: int, y: int) -> int:
    return game.play(game.point_action(x, y))


def state(game: ConquerGame) -> tuple[bytes, bytes, bytes]:
    return game.dots.tobytes(), game.owner.tobytes(), game.scalars.tobytes()


SEALED = """
    B.....B   .......
    ...R...   .......
    ..R.R..   ...R...
    BR.b.R.   ..RRR..
    ..R.R..   ...R...
    ...R...   .......
    B.....B   .......
"""


def test_rule_3_3_occupied_point_is_refused_naming_the_point_and_the_dot() -> None:
    game = from_text(SEALED)
    before = state(game)
    with pytest.raises(IllegalActionError, match=r"point \(3, 1\) is occupied by a Red dot.*allowed: an empty"):
        place(game, 3, 1)
    assert state(game) == before


@pytest.mark.parametrize("to_move", ["R", "B"])
def test_rule_3_3_sealed_point_is_closed_to_both_players_owner_included(to_move: str) -> None:
    """Resolution A18: nobody plays on sealed territory, its owner included."""
    game = from_text(SEALED, to_move=to_move)
    before = state(game)
    with pytest.raises(IllegalActionError, match=r"point \(3, 2\) is sealed territory of Red; nobody may play"):
        place(game, 3, 2)
    assert state(game) == before
    assert not game.is_legal(game.point_action(3, 2))


def test_rule_3_3_count_of_legal_points() -> None:
    """49 points - 14 dots - 4 sealed empty points = 31 legal points, plus the pass."""
    game = from_text(SEALED)
    assert len(game.legal_points()) == 31
    assert game.legal_actions()[-1] == game.pass_action == 49
    obs, mask = game.observe()
    assert int(mask.sum()) == 32 and mask[49] == 1


@pytest.mark.parametrize("action", [-1, 50, 10**9])
def test_rule_3_4_off_board_action_is_refused(action: int) -> None:
    game = from_text(SEALED)
    before = state(game)
    with pytest.raises(IllegalActionError, match=rf"action {action} is off the 7 x 7 board; allowed: .* 49 = pass"):
        game.play(action)
    assert state(game) == before


@pytest.mark.parametrize("action", ["3", 2.0, None, True])
def test_rule_3_4_non_integer_action_is_refused(action: object) -> None:
    game = ConquerGame.new(ConquerOptions.preset("small"))
    with pytest.raises(IllegalActionError, match="action must be an integer"):
        game.play(action)  # type: ignore[arg-type]
    assert game.ply == 0


def test_rule_3_2_pass_is_always_legal_while_the_game_runs() -> None:
    game = from_text(SEALED)
    assert game.is_legal(game.pass_action)
    game.play(game.pass_action)
    assert game.turn == 1 and game.passes == 1 and not game.over


def test_rule_9_2_two_passes_in_a_row_end_the_game() -> None:
    game = ConquerGame.new(ConquerOptions.preset("small"))
    game.play(game.pass_action)
    game.play(game.pass_action)
    assert game.over and game.end_reason == "two_passes" and not game.truncated
    assert game.legal_actions() == [] and game.winners == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.play(0)


def test_rule_9_2_a_pass_followed_by_a_placement_does_not_end_the_game() -> None:
    """A placement declines the offer (A22) and resets the pass count."""
    game = ConquerGame.new(ConquerOptions.preset("small"))
    game.play(game.pass_action)
    place(game, 4, 4)
    assert game.passes == 0
    game.play(game.pass_action)
    assert not game.over and game.passes == 1
    game.play(game.pass_action)
    assert game.over and game.ply == 4


def test_rule_9_1_board_fills_counting_sealed_points_as_filled() -> None:
    """The last free point is played: four sealed empty points remain, yet the board is full (A24)."""
    game = from_text("""
        BRRRRRB   .......
        RRRRRRR   .......
        RRR.RRR   ...R...
        BR.b.R.   ..RRR..
        RRR.RRR   ...R...
        RRRRRRR   .......
        BRRRRRB   .......
    """)
    assert game.legal_points().tolist() == [3 * 7 + 6]
    place(game, 6, 3)
    assert game.over and game.end_reason == "board_full"
    assert int(np.count_nonzero((game.dots == 0) & (game.owner == 1))) == 4
    assert game.winners == [0] and game.scores() == [1, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(3, 3)]},
        "dots": [1, 0],
        "territory": [5, 0],
        "legal": 0,
        "end": "board_full",
    }


def test_rule_10_4_full_board_without_captures_is_a_draw() -> None:
    game = ConquerGame.new(ConquerOptions(width=2, height=2))
    for action in (0, 1, 2, 3):
        game.play(action)
    assert game.over and game.end_reason == "board_full"
    assert game.dots_scores() == [0, 0] and game.territory_scores() == [0, 0]
    assert game.winners == [] and game.leaders() == [0, 1]


TWO_METHODS = """
    passes: 1
    .............   .............
    ...R.........   .............
    ..R.R....BB..   ...R.........
    .R.b.R..BrrB.   ..RRR....BB..
    ..R.R....BB..   ...R.........
    ...R.........   .............
    .............   .............
"""


def test_rule_10_4_dots_and_territory_scoring_name_different_winners() -> None:
    """Blue wins on dots 2-1 while Red wins on territory 5-2 (spec R-10.4)."""
    for scoring, winner in (("dots", 1), ("territory", 0)):
        game = from_text(TWO_METHODS, scoring=scoring)
        assert game.dots_scores() == [1, 2] and game.territory_scores() == [5, 2]
        game.play(game.pass_action)
        assert game.end_reason == "two_passes" and game.winners == [winner]
        assert summary(game) == {
            "dead": {"R": [(9, 3), (10, 3)], "B": [(3, 3)]},
            "dots": [1, 2],
            "territory": [5, 2],
            "legal": 0,
            "end": "two_passes",
        }
        assert game.scores() == (game.dots_scores() if scoring == "dots" else game.territory_scores())


def test_rule_10_3_scores_invariants_dots_at_most_territory_and_dead_dots_sum() -> None:
    game = from_text(TWO_METHODS)
    d, t = game.dots_scores(), game.territory_scores()
    assert all(a <= b for a, b in zip(d, t, strict=True))
    dead = int(game.dead_mask(0).sum() + game.dead_mask(1).sum())
    assert dead == sum(d)


def test_resolution_a25_dots_scoring_is_the_default() -> None:
    game = from_text(TWO_METHODS)
    assert game.options.scoring == "dots" and game.scores() == [1, 2] and game.leaders() == [1]


def test_resolution_a30_truncation_at_max_plies_is_not_a_rule_ending() -> None:
    game = ConquerGame.new(ConquerOptions(width=9, height=9, max_plies=3))
    place(game, 4, 4)
    game.play(game.pass_action)
    assert not game.over
    place(game, 5, 5)
    assert game.over and game.truncated and game.end_reason == "truncated" and game.winners == []
    assert END_REASONS == ("board_full", "two_passes", "truncated")


def test_resolution_a30_default_limit_is_the_rules_bound() -> None:
    options = ConquerOptions.preset("small")
    assert options.ply_limit == 2 * 81
    game = ConquerGame.new(options)
    rng = np.random.default_rng(0)
    while not game.over:
        legal = game.legal_actions()
        game.play(legal[int(rng.integers(len(legal) - 1))] if len(legal) > 1 else legal[0])
    assert game.end_reason == "board_full" and game.ply <= 81


def test_rule_2_2_cross_start() -> None:
    game = ConquerGame.new(ConquerOptions(width=9, height=9, start="cross"))
    assert [game.dot(4, 4), game.dot(5, 5), game.dot(5, 4), game.dot(4, 5)] == [1, 1, 2, 2]
    assert len(game.legal_points()) == 77 and game.turn == 0


def test_rule_2_3_red_moves_first_then_players_alternate() -> None:
    game = ConquerGame.new()
    assert game.turn == 0
    place(game, 0, 0)
    assert game.turn == 1 and game.dot(0, 0) == 1
    place(game, 1, 0)
    assert game.turn == 0 and game.dot(1, 0) == 2


def test_moves_in_the_spec_notation() -> None:
    """Spec section 7: moves are [x, y] or "pass", alternating from Red."""
    game = ConquerGame.new(ConquerOptions.preset("small"))
    for move in ([4, 4], "pass", [0, 8]):
        game.play(game.parse_action(move))
    assert game.dot(4, 4) == 1 and game.dot(0, 8) == 1 and game.ply == 3
    assert game.format_action(game.point_action(0, 8)) == [0, 8] and game.format_action(81) == "pass"
    for bad in ("a1", [1], [1.0, 2], None, [True, 2]):
        with pytest.raises(ValueError, match='a move must be \\[x, y\\] or "pass"'):
            game.parse_action(bad)
    with pytest.raises(ValueError, match=r"point \(9, 0\) is off the 9 x 9 board"):
        game.parse_action([9, 0])
