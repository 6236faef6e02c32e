"""A move from the destination table is played without computing its destinations again (issue 50 item 1).

``Game.destination_cells(src)`` (and ``destinations``) leave a memo in the game's handle: the table's kinds and
the position it was computed from. ``Game.play((src, dst))`` with ``dst`` from that table, in that very
position, skips the second move generation that ``apply_action`` runs to check it (rule 4: legality depends
on the position only). These tests pin that the shortcut is taken, that it plays exactly what the full check
plays, and that nothing else reaches it: another source, a destination outside the table, a direct write to
the arrays, another game over the same arrays, or a caller writing into the returned ``kinds``.
"""

from __future__ import annotations

import copy
import pickle
import random
from typing import Any

import numpy as np
import pytest

from dw_env.engine import PASS_MOVE, Game, IllegalActionError
from dw_env.options import GameOptions
from dw_env.rules import handle
from dw_env.rules import layout as lay

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)


def position_with_a_step() -> tuple[Game, int, int]:
    """Return a bound game at its initial position, a movable piece's cell and an empty cell it steps to."""
    game = Game.new(SMALL)
    for src in game.movable_cells().tolist():
        cells, kinds = game.destination_cells(src)
        for dst in cells.tolist():
            if kinds[dst] & lay.STEP and game.board[dst] == 0:
                return game, src, dst
    raise AssertionError("the initial position has a step")


def test_a_move_from_the_table_skips_the_second_move_generation_rule_4() -> None:
    game, src, dst = position_with_a_step()
    twin = game.copy()  # a copy starts without a table
    checked = game._work[7]  # apply_action's full check lists the piece's destinations here
    checked[:] = 0
    game.destination_cells(src)
    game.play((src, dst))
    assert not checked.any()  # the memo's shortcut ran
    twin.play((src, dst))
    assert twin._work[7].any() and twin == game  # the full check ran, to the same position


def test_the_table_plays_exactly_what_the_full_check_plays_rules_3_to_9() -> None:
    rng = random.Random(7)
    for _ in range(3):
        fast, full = Game.new(SMALL), Game.new(SMALL)
        while not fast.over:
            pieces = fast.movable_cells().tolist()
            if not pieces:
                assert fast.play(PASS_MOVE) == full.play(PASS_MOVE) == 0
                continue
            src = rng.choice(pieces)
            cells, _ = fast.destination_cells(src)
            outside = [c for c in range(fast.geometry.num_cells) if c not in set(cells.tolist())]
            if rng.random() < 0.2:  # a destination outside the table takes the full check and is refused
                before = fast.copy()
                with pytest.raises(IllegalActionError, match="cannot move to"):
                    fast.play((src, rng.choice(outside)))
                assert fast == before
                fast.destination_cells(src)
            dst = int(rng.choice(cells.tolist()))
            assert fast.play((src, dst)) == full.play((src, dst))
            assert fast == full


def test_a_table_for_another_piece_does_not_make_a_move_legal_rule_4() -> None:
    game = Game.new(SMALL)
    src, dst, other = next(
        (src, dst, other)
        for src in game.movable_cells().tolist()
        for dst in game.destinations(src)
        for other in game.movable_cells().tolist()
        if dst not in game.destinations(other)
    )
    game.destination_cells(src)
    before = game.copy()
    with pytest.raises(IllegalActionError, match="cannot move to"):
        game.play((other, dst))
    assert game == before


def test_a_direct_write_after_the_table_takes_the_full_check_rule_4_2() -> None:
    game, src, dst = position_with_a_step()
    game.destination_cells(src)
    rival_knight = lay.piece_code((game.turn + 1) % 3, lay.KNIGHT)
    game.board[dst] = rival_knight  # documented to bypass the checks; the table is now stale
    before = game.copy()
    with pytest.raises(IllegalActionError, match="cannot move to"):
        game.play((src, dst))
    assert game == before and game.board[dst] == rival_knight


def test_another_game_over_the_same_arrays_makes_the_table_stale_rule_3_2() -> None:
    game, src, dst = position_with_a_step()
    view = Game.of_checked_arrays(game.options, game.geometry, game.board, game.lands, game.scalars)
    game.destination_cells(src)
    view.pass_turn()  # the vector env's games share their arrays like this
    with pytest.raises(IllegalActionError, match="holds no piece of"):
        game.play((src, dst))
    assert game == view


def test_writing_into_the_returned_kinds_does_not_make_a_move_legal_rule_4() -> None:
    game, src, _ = position_with_a_step()
    cells, kinds = game.destination_cells(src)
    far = int(np.flatnonzero((kinds == 0) & (game.board == 0))[-1])
    kinds[far] = lay.STEP  # the buffer is the caller's to read; the memo keeps its own copy
    before = game.copy()
    with pytest.raises(IllegalActionError, match="cannot move to"):
        game.play((src, far))
    assert game == before


def test_a_game_over_strided_arrays_plays_from_the_table_like_the_standard_one_rule_4() -> None:
    game, src, dst = position_with_a_step()
    wide = np.zeros((game.geometry.num_cells, 2), dtype=np.int8)
    wide[:, 0] = game.board
    strided = Game.of_checked_arrays(SMALL, game.geometry, wide[:, 0], game.lands.copy(), game.scalars.copy())
    strided.destination_cells(src)
    strided.board[dst] = lay.piece_code((game.turn + 1) % 3, lay.KNIGHT)  # stale for this layout too
    with pytest.raises(IllegalActionError, match="cannot move to"):
        strided.play((src, dst))
    strided.board[dst] = 0
    strided.destination_cells(src)
    assert strided.play((src, dst)) == game.play((src, dst)) and strided == game


@pytest.mark.parametrize("marks", [[], [0], [7, 8], [1151, 1152], [5, 64, 1158], list(range(0, 1159, 3))])
def test_movable_cells_lists_every_marked_cell_in_order(marks: list[int]) -> None:
    mask = np.zeros(1159, dtype=np.int8)  # the standard map's cell count: 144 words and 7 cells more
    mask[marks] = 1
    cells = np.full(1159, -1, dtype=np.int32)
    assert handle._list_marked(mask, cells) == len(marks)
    assert cells[: len(marks)].tolist() == marks


def test_movable_cells_agrees_with_the_movable_mask_rule_3_2() -> None:
    rng = random.Random(3)
    game = Game.new(GameOptions(max_rounds=12))
    while not game.over:
        assert game.movable_cells().tolist() == np.flatnonzero(game.movable_mask()).tolist()
        pieces = game.movable_cells().tolist()
        if not pieces:
            game.pass_turn()
            continue
        src = rng.choice(pieces)
        game.play((src, rng.choice(game.destination_cells(src)[0].tolist())))


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g)), Game.copy])
def test_a_copy_lists_cells_from_its_own_buffers_not_the_originals_views(clone: Any) -> None:
    game = Game.new(SMALL)
    for _ in range(6):  # fill the game's cached result views with a few lengths
        src = int(game.movable_cells()[0])
        game.play((src, int(game.destination_cells(src)[0][-1])))
    twin = clone(game)
    for _ in range(6):
        cells = twin.movable_cells()
        assert cells.tolist() == np.flatnonzero(twin.movable_mask()).tolist()
        src = int(cells[-1])
        dests, kinds = twin.destination_cells(src)
        assert sorted(dests.tolist()) == sorted(twin.destinations(src)) and kinds is twin._kinds
        twin.play((src, int(dests[0])))
    assert twin != game
