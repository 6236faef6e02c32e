"""Checks off the hot path (issue 50): a game's arrays go to the kernels in one compiled handle, checked once.

:class:`dw_env.engine.Game` checks its arrays when it is built and its arguments at every public call, then
calls entry points bound once to its handle's type (:mod:`dw_env.rules.handle`) instead of numba's dispatcher,
which typed 25 arrays per call. These tests pin what must not change with that: the public checks still
run after the handle exists, the handle shares the game's arrays (no copy to drift from), copies and
pickles get their own, and the AEC env steps through its own bound handle.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numba
import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from dw_env import domain_wheel_v0
from dw_env.engine import Game, IllegalActionError, StateError
from dw_env.options import GameOptions
from dw_env.rules import layout as lay

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)


def bound_game() -> Game:
    """Return a small game whose compiled handle exists (one legal move played through it)."""
    game = Game.new(SMALL)
    src = int(game.movable_cells()[0])
    game.play((src, int(game.destination_cells(src)[0][0])))
    return game


def test_decisions_call_entry_points_bound_once_not_the_dispatcher() -> None:
    game = bound_game()
    handle, entries = game._bind()
    for name in ("movable_list", "movable_mask", "destinations", "play", "can_request_end"):
        assert not isinstance(getattr(entries, name), Dispatcher), name
    game.movable_cells()
    game.pass_turn()
    assert game._bind()[0] is handle  # built once, not per call
    assert Game.new(SMALL)._bind()[1] is entries  # one binding per handle type, shared by every game


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda g: g.destination_cells(-1), IllegalActionError, "cell -1 is not on the map"),
        (lambda g: g.destination_cells(133), IllegalActionError, r"cell 133 is not on the map; allowed: 0\.\.132"),
        (lambda g: g.destinations(np.int64(10**6)), IllegalActionError, "cell 1000000 is not on the map"),
        (lambda g: g.destinations(True), IllegalActionError, "cell must be an integer cell index, got True"),
        (lambda g: g.play((10**6, 0)), IllegalActionError, "source cell 1000000 is not on the map"),
        (lambda g: g.play((0, -7)), IllegalActionError, "destination cell -7 is not on the map"),
        (lambda g: g.play((lay.PASS, 3)), IllegalActionError, "a pass has no destination"),
        (lambda g: g.play((-3, -1)), IllegalActionError, "unknown action source -3"),
        (lambda g: g.movable_mask(np.zeros(133, np.int16)), StateError, "out must be an array of dtype int8"),
        (lambda g: g.movable_mask(np.zeros(266, np.int8)[::2]), StateError, "out must be a writeable C-contiguous"),
    ],
)
def test_public_checks_still_run_once_the_handle_is_bound_rule_3_2(call: Any, error: type, message: str) -> None:
    game = bound_game()
    before = game.copy()
    with pytest.raises(error, match=message):
        call(game)
    assert game == before


def test_handle_shares_the_games_arrays_and_copies_get_their_own() -> None:
    game = bound_game()
    twin = game.copy()
    king = game.king_cell(game.turn)
    knights = game.pieces(game.turn)[1]
    game.board[knights] = 0  # a direct write (documented to bypass the checks) is what the kernels see next
    assert set(game.movable_cells().tolist()) <= {king}
    assert set(twin.movable_cells().tolist()) & set(knights)  # the copy's handle holds the copy's arrays
    twin.pass_turn()
    assert twin.turn != game.turn


def test_games_with_a_bound_handle_pickle_and_deepcopy() -> None:
    game = bound_game()
    for twin in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert twin == game and twin.board is not game.board
        twin.pass_turn()
        assert twin != game and twin.turn == (game.turn + 1) % 3


def test_a_copy_shares_the_read_only_tables_so_its_handle_has_the_originals_type() -> None:
    """A pickled or deep-copied game holds its arrays only: the geometry and the kernels' tables are the
    shared, read-only ones of its options, so the compiled kernels see the type they were compiled for (a
    copy with writeable copies of the tables made its first move compile them again, about 30 s)."""
    game = bound_game()
    arrays = game.board.nbytes + game.lands.nbytes + game.scalars.nbytes
    assert len(pickle.dumps(game)) < arrays + 2048  # no geometry inside (a pickle held 106 kB on the standard map)
    for twin in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert twin.geometry is game.geometry and twin._tables is game._tables
        assert not any(table.flags.writeable for table in twin._tables)
        assert numba.typeof(twin.handle()) == numba.typeof(game.handle())
        assert twin.board.flags.writeable and twin.board is not game.board


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("board", 99, "board"), ("scalars", -1, "TURN"), ("lands", None, "lands")],
)
def test_a_pickled_state_with_bad_arrays_is_refused_naming_them(field: str, value: Any, message: str) -> None:
    state = copy.deepcopy(bound_game().__getstate__())
    if value is None:
        state[field] = state[field][:, :-1].copy()  # a land short
    else:
        state[field][lay.TURN if field == "scalars" else 0] = value
    with pytest.raises(StateError, match=message):
        Game.__new__(Game).__setstate__(state)


def test_aec_env_steps_through_its_bound_handle_and_keeps_refusing_illegal_actions() -> None:
    env = domain_wheel_v0.raw_env(**SMALL.to_dict())
    env.reset()
    assert not isinstance(env._entries.step, Dispatcher)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} is not legal"):
        env.step(illegal)
    env.step(int(np.flatnonzero(mask)[0]))
    assert env.phase == 2 and env.game.board[env.selected_cell] != 0


def test_a_game_pickled_before_the_handle_existed_loads_and_plays() -> None:
    game = bound_game()
    skip = ("_handle", "_entries", "_num_cells")  # what a pickle of the engine before issue 50 lacks
    state = copy.deepcopy({key: value for key, value in game.__dict__.items() if key not in skip})
    old = Game.__new__(Game)
    old.__setstate__(state)  # the whole __dict__, geometry and writeable table copies included
    assert old == game and old.geometry is game.geometry and old._tables is game._tables
    old.pass_turn()
    assert old.turn == (game.turn + 1) % 3 and old.destination_cells(int(old.movable_cells()[0]))[0].size > 0
