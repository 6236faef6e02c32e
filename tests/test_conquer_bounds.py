"""Conquer's engine refuses what the compiled kernels cannot survive: bad arrays, indices, actions, deep JSON."""

from __future__ import annotations

import numpy as np
import pytest

from conquer_env import position, record
from conquer_env.engine import ConquerGame, initial_arrays
from conquer_env.errors import IllegalActionError, PositionError, StateError
from conquer_env.options import ConquerOptions

SMALL = ConquerOptions(width=5, height=5)


def _arrays(game: ConquerGame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return game.dots.copy(), game.owner.copy(), game.scalars.copy()


def test_constructor_refuses_arrays_smaller_than_the_options_say() -> None:
    with pytest.raises(StateError, match=r"dots must be an array of dtype int8 and shape \(4096,\)"):
        ConquerGame(ConquerOptions(width=64, height=64), *initial_arrays(ConquerOptions(width=2, height=2)))


@pytest.mark.parametrize(
    "change",
    [
        lambda d, o, s: (d.astype(np.int32), o, s),
        lambda d, o, s: (d, np.repeat(o, 2)[::2], s),  # not contiguous
        lambda d, o, s: (d, o, s[:3].copy()),
        lambda d, o, s: (list(d), o, s),
    ],
)
def test_constructor_refuses_wrong_dtype_layout_or_type(change) -> None:
    with pytest.raises(StateError, match="dots|owner|scalars"):
        ConquerGame(SMALL, *change(*initial_arrays(SMALL)))


def test_constructor_refuses_values_out_of_range() -> None:
    dots, owner, scalars = initial_arrays(SMALL)
    dots[3] = 9
    with pytest.raises(StateError, match=r"dots must be 0 \(none\), 1 \(red\) or 2 \(blue\), got 9"):
        ConquerGame(SMALL, dots, owner, scalars)
    dots, owner, scalars = initial_arrays(SMALL)
    scalars[0] = 5  # TO_MOVE: the colour to place is TO_MOVE + 1
    with pytest.raises(StateError, match=r"TO_MOVE\] holds 5"):
        ConquerGame(SMALL, dots, owner, scalars)


@pytest.mark.parametrize("action", [10**20, -(10**20), np.uint64(2**63), np.int64(-1)])
def test_play_out_of_range_is_an_illegal_action_not_an_overflow(action: int) -> None:
    game = ConquerGame.new(SMALL)
    before = _arrays(game)
    with pytest.raises(IllegalActionError, match=r"is off the 5 x 5 board; allowed: .* 25 = pass"):
        game.play(action)
    assert all(np.array_equal(a, b) for a, b in zip(before, _arrays(game), strict=True))


@pytest.mark.parametrize("xy", [(-1, -1), (-1, 0), (0, -1), (5, 0), (0, 5), (10**20, 0), (1.0, 0), (True, 0)])
def test_coordinates_never_wrap(xy: tuple[object, object]) -> None:
    game = ConquerGame.new(SMALL)
    for method in (game.dot, game.owner_of, game.is_dead, game.point_action):
        with pytest.raises(ValueError, match="off the 5 x 5 board|must be integers"):
            method(*xy)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", [-1, 26, 10**20])
def test_action_point_refuses_what_is_no_action(action: int) -> None:
    with pytest.raises(ValueError, match="off the 5 x 5 board"):
        ConquerGame.new(SMALL).action_point(action)


@pytest.mark.parametrize("seat", [-1, 2, True, 0.0])
def test_seat_arguments_are_0_or_1(seat: object) -> None:
    game = ConquerGame.new(SMALL)
    for method in (game.live_mask, game.dead_mask, game.regions, game.open_bases):
        with pytest.raises(ValueError, match="seat must be 0"):
            method(seat)  # type: ignore[arg-type]


def test_deeply_nested_position_and_record_texts_are_position_errors(tmp_path) -> None:
    deep = "[" * 20_000 + "]" * 20_000  # json.loads alone: RecursionError
    with pytest.raises(PositionError, match="nested too deeply"):
        position.loads('{"dots": ' + deep + "}")
    path = tmp_path / "record.json"
    path.write_text('{"format": "conquer-record-v1", "actions": ' + deep + "}")
    with pytest.raises(PositionError, match="record.json: .*nested too deeply"):
        record.load(path)
    path.write_text(deep)
    with pytest.raises(PositionError, match="record.json: .*nested too deeply"):
        position.load(path)


def test_oversized_files_are_refused_before_parsing(tmp_path) -> None:
    path = tmp_path / "big.json"
    path.write_text(" " * (record.MAX_RECORD_BYTES + 1))
    with pytest.raises(PositionError, match="big.json is larger than"):
        record.load(path)
    with pytest.raises(PositionError, match="big.json is larger than"):
        position.load(path)


def test_files_round_trip(tmp_path) -> None:
    game = ConquerGame.new(SMALL)
    actions = [12, 13, 25, 25]
    for a in actions:
        game.play(a)
    path = tmp_path / "game.json"
    record.save(record.make_record(SMALL, ["a", "b"], actions, game), path)
    assert position.to_dict(record.replay(record.load(path))) == position.to_dict(game)
    assert position.to_dict(record.loads(path.read_text())) == position.to_dict(game)
    position.save(game, path)
    assert position.to_dict(position.load(path)) == position.to_dict(game)


def test_a_games_state_arrays_cannot_be_swapped_after_it_is_built() -> None:
    game = ConquerGame.new(ConquerOptions(width=9, height=9))
    before = game.dots.copy()
    for name in ("options", "dots", "owner", "scalars"):
        with pytest.raises(AttributeError, match=f"a ConquerGame's {name} cannot be replaced"):
            setattr(game, name, np.zeros(4, dtype=np.int8))
    assert np.array_equal(game.dots, before) and game.copy().dots.shape == before.shape
