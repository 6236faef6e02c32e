"""Checks off the hot path for internal callers (issue 50 item 1): copies and the scripted AIs' kernels.

A copied game builds its handle with the constructor compiled for the standard layout (no dispatcher typing
25 arrays per copy); the toolkit's kernels take the game's handle, bound once per handle type. These tests pin
that the fast path is the one taken, that it gives what the dispatcher gives, and that arrays of another
layout still go through the dispatcher (which types them, or refuses a wrong dtype) instead of being misread.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from dw_env.engine import Game
from dw_env.options import GameOptions
from dw_env.rules import handle as dw_handle
from policies.domain_wheel import kernels
from policies.domain_wheel import toolkit as tk
from policies.domain_wheel import toolkit_handle as th
from policies.domain_wheel.balanced import BalancedPolicy
from policies.domain_wheel.two_phase import TwoPhaseDriver

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)


@pytest.fixture(scope="module")
def midgame() -> Game:
    """Return a small game 12 decisions in, played by the Balanced AI (its handle bound)."""
    game, seat = Game.new(SMALL), BalancedPolicy()
    for _ in range(12):
        game.play(seat.act(game.copy(), game.turn))
    return game


def test_a_copy_builds_its_handle_with_the_compiled_constructor_not_the_dispatcher(
    midgame: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    midgame.handle()
    calls: list[int] = []
    monkeypatch.setattr(dw_handle, "new_handle", lambda *a: calls.append(1))  # the dispatcher path, if taken
    twin = midgame.copy()
    assert twin.handle()._type == midgame.handle()._type and calls == []
    assert twin._entries is midgame._entries
    twin.pass_turn()  # the copy's handle holds the copy's arrays, not the original's (rule 3.2b: a pass ends the turn)
    assert twin.turn != midgame.turn


def test_a_game_over_non_contiguous_views_gets_a_handle_of_its_own_type(midgame: Game) -> None:
    wide = np.zeros((midgame.board.size, 2), dtype=np.int8)
    wide[:, 0] = midgame.board
    view = Game.of_checked_arrays(
        SMALL, midgame.geometry, wide[:, 0], midgame.lands.copy(), midgame.scalars.copy()
    )  # a strided board: numba types it as another layout
    assert view.handle()._type != midgame.handle()._type
    assert view.movable_pieces() == midgame.movable_pieces()
    assert view.legal_moves() == midgame.legal_moves()


def test_toolkit_kernels_are_entry_points_bound_to_the_games_handle(midgame: Game) -> None:
    sit = tk.Situation(midgame.geometry).update(midgame, midgame.turn)
    assert sit.handle is midgame.handle()
    for name in ("analyse", "king_turns", "conquest_holds", "liberation_holds", "knight_toward", "knight_entries"):
        assert not isinstance(getattr(sit.kernels, name), Dispatcher), name


def test_toolkit_analysis_matches_the_dispatcher_kernels_rules_6_2_and_7_1(midgame: Game) -> None:
    sit = tk.Situation(midgame.geometry).update(midgame, midgame.turn)
    expected = [np.zeros_like(a) for a in (sit.territory, sit.dist, sit.counts, sit.scores)]
    rest = [np.zeros_like(a) for a in (sit.need, sit.libneed, sit.king_land, sit.seated)]
    g = midgame
    kernels.analyse(g._tables, g.board, g.lands, g.scalars, g._work, *expected, *rest)
    mine = (sit.territory, sit.dist, sit.counts, sit.scores, sit.need, sit.libneed, sit.king_land, sit.seated)
    for got, want in zip(mine, expected + rest, strict=True):
        np.testing.assert_array_equal(got, want)
    for land in range(midgame.geometry.num_lands):
        for p in range(3):
            assert tk.liberation_holds(sit, p, land) == bool(kernels_liberation(g, sit, p, land)), (p, land)


def kernels_liberation(game: Game, sit: tk.Situation, p: int, land: int) -> bool:
    """Return LB(p, land) through the dispatcher, as the toolkit computed it before the handle (rule 7.1)."""
    from dw_env.rules.territory import liberation_holds

    return bool(liberation_holds(game._tables, game.lands, game.scalars, sit.counts, sit.dist[p], p, land))


def test_knight_moves_from_an_allowed_mask_of_another_layout_are_the_same(midgame: Game) -> None:
    sit = tk.Situation(midgame.geometry).update(midgame, midgame.turn)
    allowed = np.ones(midgame.geometry.num_cells, dtype=np.int8)
    strided = np.ones((midgame.geometry.num_cells, 2), dtype=np.int8)[:, 0]
    moves = [tk.knight_toward(sit, land, allowed) for land in range(midgame.geometry.num_lands)]
    assert moves == [tk.knight_toward(sit, land, strided) for land in range(midgame.geometry.num_lands)]
    assert any(move is not None for move in moves)


def test_only_c_contiguous_rows_of_the_bound_dtype_and_size_take_the_bound_path() -> None:
    cells = 7
    assert th.fits(np.ones(cells, np.int8), th.INT8, cells)
    assert not th.fits(np.ones(cells, np.float64), th.INT8, cells)  # would be misread as bytes
    assert not th.fits(np.ones(cells, np.int32), th.INT8, cells)
    assert not th.fits(np.ones((cells, 2), np.int8)[:, 0], th.INT8, cells)  # strided
    assert not th.fits(np.ones(cells + 1, np.int8), th.INT8, cells)
    assert not th.fits([1] * cells, th.INT8, cells)


def test_two_phase_driver_encodes_through_the_bound_encoder_as_the_dispatcher_does(midgame: Game) -> None:
    driver = TwoPhaseDriver(SMALL)
    obs, mask = (a.copy() for a in driver.encode(midgame, midgame.turn))
    assert driver._encode is not None and not isinstance(driver._encode, Dispatcher)
    src = int(midgame.movable_cells()[0])
    phase2 = [a.copy() for a in driver.encode(midgame, midgame.turn, selected=src)]
    wide = np.zeros((midgame.board.size, 2), dtype=np.int8)
    wide[:, 0] = midgame.board
    strided = Game.of_checked_arrays(SMALL, midgame.geometry, wide[:, 0], midgame.lands, midgame.scalars)
    fresh = TwoPhaseDriver(SMALL)  # a strided board goes through the dispatcher, which types its layout
    np.testing.assert_array_equal(fresh.encode(strided, midgame.turn)[0], obs)
    np.testing.assert_array_equal(fresh.encode(strided, midgame.turn)[1], mask)
    assert fresh._encode is None
    for got, want in zip(fresh.encode(strided, midgame.turn, selected=src), phase2, strict=True):
        np.testing.assert_array_equal(got, want)
