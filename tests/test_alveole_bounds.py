"""Alveole's engine refuses what the compiled kernels cannot survive: bad arrays, indices, actions, deep JSON."""

from __future__ import annotations

import numpy as np
import pytest

from alveole_env import position, record
from alveole_env.engine import AlveoleGame
from alveole_env.errors import IllegalActionError, PositionError, StateError
from alveole_env.options import AlveoleOptions


def _arrays(game: AlveoleGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return game.board.copy(), game.lines.copy(), game.scalars.copy()


@pytest.mark.parametrize(
    "change",
    [
        lambda b, l, s: (b[:3].copy(), l, s),  # too short
        lambda b, l, s: (b, l[:3].copy(), s),
        lambda b, l, s: (b, l, s[:3].copy()),
        lambda b, l, s: (b.astype(np.int64), l, s),  # wrong dtype
        lambda b, l, s: (np.repeat(b, 2)[::2], l, s),  # not contiguous
        lambda b, l, s: (list(b), l, s),  # not an array
    ],
)
def test_constructor_refuses_arrays_of_the_wrong_shape_dtype_or_layout(change) -> None:
    board, lines, scalars = change(*_arrays(AlveoleGame.new()))
    with pytest.raises(StateError, match="board|lines|scalars"):
        AlveoleGame(AlveoleOptions(), board, lines, scalars)


def test_constructor_refuses_values_the_kernels_would_index_with() -> None:
    board, lines, scalars = _arrays(AlveoleGame.new())
    lines[0] = 100  # a line count is a distance: RAYS[src, d, 100] is past the table
    with pytest.raises(StateError, match="line counts"):
        AlveoleGame(AlveoleOptions(), board, lines, scalars)
    board, lines, scalars = _arrays(AlveoleGame.new())
    board[0] = 7
    with pytest.raises(StateError, match="board cells must be 0, 1 or 2, got 7"):
        AlveoleGame(AlveoleOptions(), board, lines, scalars)


def test_constructor_refuses_options_that_are_not_options() -> None:
    with pytest.raises(StateError, match="options must be an AlveoleOptions"):
        AlveoleGame({"max_plies": 600}, *_arrays(AlveoleGame.new()))  # type: ignore[arg-type]


@pytest.mark.parametrize("action", [10**20, -(10**20), np.int64(-1), 486])
def test_play_out_of_range_is_an_illegal_action_naming_the_range(action: int) -> None:
    game = AlveoleGame.new()
    before = _arrays(game)
    with pytest.raises(IllegalActionError, match=r"action must be an integer in 0\.\.485"):
        game.play(action)
    assert all(np.array_equal(a, b) for a, b in zip(before, _arrays(game), strict=True))


@pytest.mark.parametrize("cell", [-1, 61, 10**20, 1.0, True])
def test_cell_arguments_never_wrap(cell: object) -> None:
    game = AlveoleGame.new()
    with pytest.raises(IllegalActionError, match=r"in 0\.\.60"):
        game.destinations(cell)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match=r"in 0\.\.60"):
        game.move_between(cell, 0)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match=r"in 0\.\.60"):
        game.why_illegal(cell, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("direction", [-1, 6, 10**20])
def test_why_illegal_refuses_a_direction_off_0_to_5(direction: int) -> None:
    game = AlveoleGame.new()
    with pytest.raises(IllegalActionError, match=r"direction must be an integer in 0\.\.5"):
        game.why_illegal(game.legal_moves()[0].src, direction)


def test_deeply_nested_position_and_record_texts_are_position_errors() -> None:
    deep = "[" * 20_000 + "]" * 20_000  # json.loads alone: RecursionError
    with pytest.raises(PositionError, match="nested too deeply"):
        position.loads(deep)
    with pytest.raises(PositionError, match="nested too deeply"):
        position.loads('{"to_move": 1, "pieces": ' + deep + "}")
    with pytest.raises(PositionError, match="nested too deeply"):
        record.loads('{"format": "alveole-record-v1", "actions": ' + deep + "}")


def test_oversized_texts_and_files_are_refused_before_parsing(tmp_path) -> None:
    with pytest.raises(PositionError, match="at most"):
        position.loads(" " * (position.MAX_POSITION_BYTES + 1))
    big = tmp_path / "big.json"
    big.write_text(" " * (record.MAX_RECORD_BYTES + 1))
    with pytest.raises(PositionError, match="big.json is larger than"):
        record.load(big)


def test_files_round_trip(tmp_path) -> None:
    game = AlveoleGame.new()
    actions = [game.play(game.legal_actions()[0]).action for _ in range(3)]
    path = tmp_path / "record.json"
    path.write_text(record.dumps(record.make_record(game, actions)))
    assert position.to_dict(record.load(path)) == position.to_dict(game)
    path.write_text(position.dumps(game))
    assert position.to_dict(position.load(path)) == position.to_dict(game)


def _truncated_after(plies: int) -> tuple[AlveoleGame, AlveoleGame]:
    """Return (a game truncated after ``plies`` plies, the same moves played without a limit)."""
    short, free = AlveoleGame.new(AlveoleOptions(max_plies=plies)), AlveoleGame.new()
    for _ in range(plies):
        action = short.legal_actions()[0]
        short.play(action)
        free.play(action)
    return short, free


def test_r_4_6_truncation_never_changes_perft_or_divide() -> None:
    short, free = _truncated_after(3)
    assert short.truncated and not free.over
    for depth in (1, 2, 3):
        assert short.perft(depth) == free.perft(depth) > 0
    assert short.divide(2) == free.divide(2)


def test_r_4_6_a_truncated_game_takes_no_more_moves() -> None:
    short, _ = _truncated_after(3)
    assert short.legal_moves() == [] and short.legal_actions() == []
    assert not short.observe()[1].any()
    with pytest.raises(IllegalActionError, match="the game is over"):
        short.play(0)
    assert short.truncated  # perft looked at a copy


def test_r_4_6_perft_ignores_a_loaded_position_at_the_limit() -> None:
    game = position.from_dict(position.to_dict(AlveoleGame.new()) | {"ply": 600})
    assert game.truncated and game.perft(2) == AlveoleGame.new().perft(2)


def test_a_games_state_arrays_cannot_be_swapped_after_it_is_built() -> None:
    game = AlveoleGame.new()
    before = game.board.copy()
    for name in ("options", "board", "lines", "scalars", "_moves"):
        with pytest.raises(AttributeError, match=f"an AlveoleGame's {name} cannot be replaced"):
            setattr(game, name, np.zeros(3, dtype=np.int8))
    assert np.array_equal(game.board, before) and game.copy().board.shape == before.shape
