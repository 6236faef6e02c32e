"""Rules 1.1-1.2, 2.1-2.4 and 3.1-3.3: the map, the set-up and the turn (spec R-1 to R-3, A1-A3, A35)."""

from __future__ import annotations

import random

import pytest
from helpers import (
    BLUE,
    GREEN,
    RED,
    STANDARD,
    adjacent_lands,
    game,
    hexdist,
    hold,
    king,
    knights,
    land_of,
    neighbours,
    owner,
    play,
    position,
    snapshot,
    throne,
)

from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, IllegalActionError, Move
from dw_env.position import PositionError, from_dict
from dw_env.rules import layout as lay


# ---- 1.1 nothing is captured, nobody is eliminated ------------------------------------------------
def test_rule_1_1_no_piece_is_ever_removed_in_a_random_game() -> None:
    rng = random.Random(20240611)
    g = Game.new()
    knight_counts = [len(knights(g, p)) for p in range(3)]
    for _ in range(450):
        g.play(rng.choice([m for m in g.legal_moves() if not m.is_end_request]))
        for p in range(3):
            assert int((g.board == lay.piece_code(p, lay.KING)).sum()) == 1
            assert g.board[g.king_cell(p)] == lay.piece_code(p, lay.KING)
            assert len(knights(g, p)) >= knight_counts[p]
            knight_counts[p] = len(knights(g, p))
        assert all(owner(g, s) == name for s, name in [((4, 0), "blue"), ((-4, 4), "green"), ((0, -4), "red")])
        if g.over:
            break


# ---- 1.2 lands and thrones ---------------------------------------------------------------------------
def test_rule_1_2_the_map_is_divided_into_lands_each_with_its_throne_in_the_middle() -> None:
    g = STANDARD
    seen: set[int] = set()
    for land in range(g.num_lands):
        cells = {int(c) for c in g.land_cells[land]}
        assert not cells & seen
        seen |= cells
        t = g.cell_coord(int(g.land_throne[land]))
        assert all(hexdist(g.cell_coord(c), t) <= 2 for c in cells)
        assert all(g.cell_land[c] == land for c in cells)
    assert len(seen) == g.num_cells == 61 * 19


# ---- 2.1-2.4 set-up ---------------------------------------------------------------------------------
def test_rule_2_1_each_player_owns_its_start_land_from_the_start() -> None:
    g = Game.new()
    assert [owner(g, x) for x in [(4, 0), (-4, 4), (0, -4)]] == ["blue", "green", "red"]
    assert [g.owner(i) for i in range(g.geometry.num_lands) if not g.geometry.is_start_land[i]] == [-1] * 58
    assert g.scores() == [0, 0, 0]


def test_rule_2_3_one_king_on_the_start_throne_and_two_knights_per_player() -> None:
    g = Game.new()
    expected = {
        BLUE: ((20, -8), {(19, -8), (19, -7)}),
        GREEN: ((-12, 20), {(-11, 19), (-12, 19)}),
        RED: ((-8, -12), {(-8, -11), (-7, -12)}),
    }  # spec 1.5 (A2): the two throne neighbours nearest the map centre
    for p, (k, ks) in expected.items():
        assert king(g, p) == k and knights(g, p) == ks


def test_rule_2_3_and_6_7_a_position_has_two_knights_plus_one_per_first_conquest() -> None:
    data = position(owners={"blue": [(3, 0)]}, pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7)]}})
    with pytest.raises(PositionError, match="knights"):
        from_dict(data)
    lost = position(
        first={"blue": [(3, 0)]}, pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (16, -7)]}}
    )
    assert len(knights(from_dict(lost), BLUE)) == 3  # a land conquered once and lost keeps its knight


def test_rule_2_4_standard_map_61_lands_of_19_cells_start_lands_on_border_corners_A1() -> None:
    g = STANDARD
    assert (g.num_lands, g.cells_per_land) == (61, 19)
    starts = [g.land_coord(int(s)) for s in g.start_lands]
    assert starts == [(4, 0), (-4, 4), (0, -4)]
    assert all(g.land_ring[s] == 4 for s in g.start_lands)
    assert all(len(adjacent_lands(s)) == 3 for s in starts)  # corners: 3 in-map neighbours
    assert {hexdist(a, b) for a in starts for b in starts if a != b} == {8}
    assert sum(1 for i in range(g.num_lands) if g.land_ring[i] == 1) == 6


@pytest.mark.parametrize("land_radius, map_radius", [(1, 2), (2, 3), (3, 4), (2, 5), (5, 5)])
def test_rule_2_4_other_sizes_start_with_the_same_scheme(land_radius: int, map_radius: int) -> None:
    g = Game.new(land_radius=land_radius, map_radius=map_radius)
    geo = g.geometry
    r = map_radius
    assert [geo.land_coord(int(s)) for s in geo.start_lands] == [(r, 0), (-r, r), (0, -r)]
    for p in range(3):
        start = geo.land_coord(int(geo.start_lands[p]))
        assert king(g, p) == throne(start, geo)
        assert len(knights(g, p)) == 2
        assert all(c in neighbours(king(g, p), geo) for c in knights(g, p))
    # the set-up is symmetric under the 120-degree rotation (spec 1.4, 1.5)
    rot = geo.cell_rotation
    for p in range(3):
        q = (p + 1) % 3
        assert rot[g.king_cell(p)] == g.king_cell(q)
        assert {int(rot[c]) for c in g.pieces(p)[1]} == set(g.pieces(q)[1])
    assert g.scores() == [0, 0, 0] and g.round == 1 and g.turn == BLUE


# ---- 3.1 turn order and rounds ----------------------------------------------------------------------
def test_rule_3_1_blue_green_red_and_a_round_ends_after_red_A3() -> None:
    g = Game.new()
    seen = []
    for _ in range(7):
        seen.append((g.turn, g.round))
        g.pass_turn()
    assert seen == [(0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2), (0, 3)]


# ---- 3.2 one action a turn -----------------------------------------------------------------------
def test_rule_3_2_you_move_one_piece_once_then_the_next_player_acts() -> None:
    g = Game.new()
    play(g, (19, -8), (18, -8))
    assert g.turn == GREEN
    before = snapshot(g)
    with pytest.raises(IllegalActionError):
        play(g, (18, -8), (17, -8))  # Blue's knight again: not Blue's turn
    assert snapshot(g) == before


def test_rule_3_2_pass_is_always_legal() -> None:
    locked = game(
        pieces={
            "blue": {
                "king": (0, 0),
                "knights": [(2, -1), (1, 1), (16, -6), (11, -4), (6, -2), (4, -5), (9, -7), (14, -9)],
            }
        },
        owners={"blue": [(3, 0), (2, 0), (1, 0), (1, -1), (2, -1), (3, -1)]},
        countdown=("blue", 4),
    )
    for g in (Game.new(), locked):
        assert PASS_MOVE in g.legal_moves()
        g.pass_turn()
        assert g.turn == GREEN


def test_rule_3_2_the_legal_moves_are_exactly_the_playable_actions() -> None:
    g = Game.new()
    moves = g.legal_moves()
    assert END_REQUEST_MOVE not in moves  # 0 points: rule 9.3
    for move in moves:
        g.copy().play(move)
    listed = {(m.src, m.dst) for m in moves}
    knight = g.geometry.cell_index(19, -8)
    for dst in range(g.geometry.num_cells):
        if (knight, dst) not in listed:
            with pytest.raises(IllegalActionError):
                g.copy().play(Move(knight, dst))


# ---- 3.3 the end of turn reviews only the acting player's positions ------------------------------
def test_rule_3_3_only_the_acting_players_positions_are_reviewed_A35() -> None:
    # Green's king sits on (-3,3) next to its start land with a knight inside: Green's position
    # holds, but only Green's own end of turn counts it
    g = game(pieces={"green": {"king": throne((-3, 3)), "knights": [(-8, 15), (-12, 19)]}})
    assert land_of((-8, 15)) == (-3, 3)
    g.pass_turn()  # Blue
    assert hold(g, GREEN, (-3, 3)) == 0
    g.pass_turn()  # Green
    assert hold(g, GREEN, (-3, 3)) == 1
    g.pass_turn()  # Red
    assert hold(g, GREEN, (-3, 3)) == 1
