"""Rules 4.1-4.12: how pieces move (manual section 4, spec R-4 and resolutions A11-A25).

Standard map landmarks: Blue's start land (4,0) has its throne on (20,-8); its neighbour
lands are (3,0) (throne (15,-6)), (4,-1) and (3,1); the chain to the centre is (3,0), (2,0)
(throne (10,-4)), (1,0) (throne (5,-2)) and the centre (0,0).
"""

from __future__ import annotations

import pytest
from helpers import (
    BLUE,
    CENTRE_PATH,
    GREEN,
    adjacent_lands,
    all_thrones,
    destinations,
    game,
    guard_cell,
    hexdist,
    king,
    knights,
    land_cells,
    land_of,
    neighbours,
    occupied,
    owner,
    play,
    snapshot,
)

from dw_env.engine import Game, IllegalActionError
from dw_env.info import PLAYER_NAMES

Cell = tuple[int, int]


# ---- independent oracles written from the spec's text ------------------------------------------
def territory_cells(g: Game, player: int) -> set[Cell]:
    cells: set[Cell] = set()
    for i in g.territory(player):
        cells |= land_cells(g.geometry.land_coord(i))
    return cells


def fast_knight_oracle(g: Game, src: Cell) -> set[Cell]:
    """Rule 4.5 as the spec words it: free path through the territory, plus outside cells touching it."""
    busy, crowns, tc = occupied(g), all_thrones(), territory_cells(g, g.turn)
    reach, todo = {src}, [src]
    while todo:
        x = todo.pop()
        for y in neighbours(x):
            if y in tc and y not in busy and y not in reach:
                reach.add(y)
                todo.append(y)
    inside = reach - {src} - crowns
    outside = {y for x in reach for y in neighbours(x) if y not in tc and y not in busy and y not in crowns}
    steps = {y for y in neighbours(src) if y not in busy and y not in crowns}
    return inside | outside | steps


def king_area_oracle(g: Game, src: Cell) -> set[Cell]:
    """Rule 4.4: free cells of the king's land and adjacent own lands, plus free outside cells touching them."""
    here = land_of(src)
    hop = {here} | {m for m in adjacent_lands(here) if owner(g, m) == PLAYER_NAMES[g.turn]}
    area = set().union(*(land_cells(m) for m in hop))
    outside = {y for x in area for y in neighbours(x) if y not in area}
    return (area | outside) - occupied(g)


def kinds_of(g: Game, src: Cell) -> dict[Cell, set[str]]:
    return destinations(g, src)


# ---- 4.1 one piece a cell -----------------------------------------------------------------------
def test_rule_4_1_no_destination_holds_a_piece_except_a_swap() -> None:
    g = game(pieces={"blue": {"king": (17, -6), "knights": [(17, -7), (19, -7)]}})
    busy = occupied(g)
    for piece in [(17, -6), (17, -7), (19, -7)]:
        for cell, kinds in kinds_of(g, piece).items():
            assert cell not in busy or kinds == {"swap"}, (piece, cell, kinds)


def test_rule_4_1_moving_onto_an_occupied_cell_is_refused_and_changes_nothing() -> None:
    g = game()
    before = snapshot(g)
    for src, dst in [((19, -8), (19, -7)), ((20, -8), (19, -8)), ((19, -8), (20, -8))]:
        with pytest.raises(IllegalActionError):
            play(g, src, dst)
    assert snapshot(g) == before


# ---- 4.2 step -------------------------------------------------------------------------------------
def test_rule_4_2_step_a_knight_outside_the_territory_steps_to_free_neighbours_only() -> None:
    # a Blue knight alone in the neutral land (2,0), far from Blue's territory
    g = game(pieces={"blue": {"king": (20, -8), "knights": [(11, -6), (19, -7)]}})
    assert kinds_of(g, (11, -6)) == {c: {"step"} for c in neighbours((11, -6))}


def test_rule_4_2_step_never_onto_an_occupied_neighbour() -> None:
    g = game(
        pieces={
            "blue": {"king": (20, -8), "knights": [(11, -6), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(12, -6), (10, -6)]},
        }
    )
    assert set(kinds_of(g, (11, -6))) == set(neighbours((11, -6))) - {(12, -6), (10, -6)}


def test_rule_4_2_step_cells_off_the_map_do_not_exist() -> None:
    # (22,-10) is a corner cell of Blue's start land on the map's edge: only 3 neighbours exist
    assert len(neighbours((22, -10))) == 3
    g = game(pieces={"blue": {"king": (20, -8), "knights": [(22, -10), (19, -7)]}})
    steps = {c for c, k in kinds_of(g, (22, -10)).items() if "step" in k}
    assert steps == set(neighbours((22, -10)))


# ---- 4.3 thrones belong to kings ------------------------------------------------------------------
def test_rule_4_3_a_knight_never_steps_onto_a_throne_but_a_king_may() -> None:
    # knight and king both next to the free throne (10,-4) of the neutral land (2,0)
    g = game(pieces={"blue": {"king": (9, -3), "knights": [(11, -4), (19, -7)]}})
    assert (10, -4) not in kinds_of(g, (11, -4))
    assert "step" in kinds_of(g, (9, -3))[(10, -4)]
    with pytest.raises(IllegalActionError):
        play(g, (11, -4), (10, -4))


def test_rule_4_3_a_fast_knight_never_ends_on_its_own_free_throne() -> None:
    g = game(pieces={"blue": {"king": (21, -9), "knights": [(19, -8), (19, -7)]}})
    assert (20, -8) not in kinds_of(g, (19, -8))
    assert (20, -8) not in kinds_of(g, (19, -7))


# ---- 4.4 king in its own territory ----------------------------------------------------------------
def test_rule_4_4_king_reaches_its_land_adjacent_own_lands_and_the_outside_cells_touching_them() -> None:
    g = game(
        pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (14, -6)]}},
        owners={"blue": [(3, 0)]},
    )
    dests = kinds_of(g, (20, -8))
    moves = {c for c, k in dests.items() if "king_move" in k}
    assert moves == king_area_oracle(g, (20, -8))
    assert (15, -6) in moves  # the throne of the adjacent own land: kings may stand on thrones
    assert (12, -5) in moves  # an outside cell of (2,0) touching (3,0)


def test_rule_4_4_king_reach_is_one_hop_not_the_whole_territory_A13() -> None:
    g = game(
        pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (14, -6), (9, -4)]}},
        owners={"blue": [(3, 0), (2, 0)]},
    )
    dests = kinds_of(g, (20, -8))
    assert (12, -5) in dests  # (2,0) cell touching (3,0): an outside cell of the hop area
    assert (10, -4) not in dests  # (2,0)'s throne is two lands away
    assert (11, -5) not in dests
    # from (3,0) the king's hop area holds both neighbours, (4,0) and (2,0)
    g2 = game(
        pieces={"blue": {"king": (15, -6), "knights": [(19, -8), (19, -7), (14, -6), (9, -4)]}},
        owners={"blue": [(3, 0), (2, 0)]},
    )
    dests2 = kinds_of(g2, (15, -6))
    assert {(10, -4), (11, -5), (22, -10), (20, -8)} <= set(dests2)


def test_rule_4_4_king_move_is_not_blocked_by_pieces_A11() -> None:
    # every neighbour of the king is occupied, yet the whole land stays within reach
    ring = neighbours((20, -8))
    g = game(
        pieces={
            "blue": {"king": (20, -8), "knights": ring[:2]},
            "red": {"king": (-8, -12), "knights": ring[2:4]},
            "green": {"king": (-12, 20), "knights": ring[4:]},
        }
    )
    dests = kinds_of(g, (20, -8))
    assert (22, -10) in dests and (17, -8) in dests and (18, -6) in dests
    assert set(dests) == king_area_oracle(g, (20, -8))


def test_rule_4_4_king_outside_its_territory_has_no_fast_move_A12() -> None:
    # in the neutral land (2,0) and on the disconnected own land (2,-2): steps, double steps, no king_move
    g = game(pieces={"blue": {"king": (11, -5), "knights": [(19, -8), (19, -7)]}})
    assert all("king_move" not in k for k in kinds_of(g, (11, -5)).values())
    g2 = game(
        pieces={"blue": {"king": (7, -11), "knights": [(19, -8), (19, -7), (8, -10)]}},
        owners={"blue": [(2, -2)]},
    )
    dests = kinds_of(g2, (7, -11))
    assert all("king_move" not in k for k in dests.values())
    assert max(hexdist(c, (7, -11)) for c in dests) <= 2  # steps and double steps only


# ---- 4.5 fast knights ------------------------------------------------------------------------------
def test_rule_4_5_fast_knight_destinations_in_the_initial_position() -> None:
    g = game()
    for src in [(19, -8), (19, -7)]:
        assert set(kinds_of(g, src)) == fast_knight_oracle(g, src)


def test_rule_4_5_fast_knight_crosses_every_connected_land_of_the_territory() -> None:
    g = game(
        pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (16, -5), (9, -2)]}},
        owners={"blue": [(3, 0), (2, 0)]},
    )
    dests = kinds_of(g, (19, -7))
    assert set(dests) == fast_knight_oracle(g, (19, -7))
    assert dests[(9, -4)] == {"fast_knight"}  # deep in (2,0), two lands away
    assert dests[(7, -3)] == {"fast_knight"}  # outside cell of (1,0) touching (2,0)
    assert (10, -4) not in dests and (15, -6) not in dests  # thrones are crossed, never reached


def test_rule_4_5_outside_cells_must_touch_the_path_not_just_the_territory_A17() -> None:
    # the knight on (18,-7) is walled in: its in-territory neighbours are all occupied
    g = game(
        pieces={
            "blue": {"king": (18, -8), "knights": [(18, -7), (19, -8)]},
            "red": {"king": (-8, -12), "knights": [(19, -7), (18, -6)]},
        }
    )
    assert kinds_of(g, (18, -7)) == {(17, -7): {"step", "fast_knight"}, (17, -6): {"step", "fast_knight"}}
    # (17,-8) touches the territory (at (18,-8)) but not the knight's path


def test_rule_4_5_fast_knight_may_end_in_a_rival_owned_land_A20() -> None:
    g = game(
        pieces={"red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11)]}},
        owners={"red": [(3, 0)]},
    )
    dests = kinds_of(g, (19, -8))
    assert {(17, -8), (17, -7), (17, -6)} <= set(dests)
    assert land_of((17, -7)) == (3, 0)


def test_rule_4_5_fast_knight_may_end_in_a_rival_start_land_A20() -> None:
    # small map (R=2): Blue's territory (2,0)-(2,-1)-(2,-2)-(1,-2) touches Red's start land (0,-2)
    g = game(
        map_radius=2,
        pieces={
            "blue": {"king": (10, -4), "knights": [(9, -4), (9, -3), (3, -8), (7, -7), (6, -9)]},
            "green": {"king": (-6, 10), "knights": [(-5, 9), (-6, 9)]},
            "red": {"king": (-4, -6), "knights": [(-4, -5), (-3, -6)]},
        },
        owners={"blue": [(2, -1), (2, -2), (1, -2)]},
    )
    dests = kinds_of(g, (3, -8))
    red_start = land_cells((0, -2), g.geometry)
    reached = {c for c, k in dests.items() if c in red_start}
    assert reached and all(k == {"fast_knight"} or "step" in k for c, k in dests.items() if c in reached)


def test_rule_4_5_a_knight_outside_the_territory_only_steps_even_on_an_owned_island_A8() -> None:
    g = game(
        pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (8, -11)]}},
        owners={"blue": [(2, -2)]},
    )
    assert kinds_of(g, (8, -11)) == {c: {"step"} for c in neighbours((8, -11))}


# ---- 4.6 paths are cut by any piece; free thrones are crossed --------------------------------------
def _line_game(throne_piece: bool, **options: object) -> Game:
    """Blue's land cut along q=20 by a line of pieces; the throne (20,-8) is free unless ``throne_piece``."""
    blue_king = (20, -8) if throne_piece else (21, -10)
    return game(
        pieces={
            "blue": {"king": blue_king, "knights": [(19, -8), (20, -10) if throne_piece else (20, -9)]},
            "red": {"king": (-8, -12), "knights": [(20, -9) if throne_piece else (22, -10), (20, -7)]},
            "green": {"king": (-12, 20), "knights": [(20, -6), (-12, 19)]},
        },
        **options,
    )


EAST = [(21, -9), (21, -8), (21, -7), (22, -9), (22, -8)]


def test_rule_4_6_a_line_of_pieces_cuts_the_fast_knight_path_A18() -> None:
    g = _line_game(throne_piece=True)  # the Blue king on the throne is part of the line
    dests = kinds_of(g, (19, -8))
    assert not set(EAST) & set(dests)
    assert set(dests) == fast_knight_oracle(g, (19, -8))


def test_rule_4_6_a_free_throne_can_be_crossed_but_not_entered() -> None:
    g = _line_game(throne_piece=False)  # line (21,-10)K (20,-9) [free throne] (20,-7) (20,-6)
    dests = kinds_of(g, (19, -8))
    assert (20, -8) not in dests
    assert set(EAST) <= set(dests)  # reached only through the free throne
    assert set(dests) == fast_knight_oracle(g, (19, -8))


def test_rule_4_6_a_rival_king_blocks_like_any_piece_A18_A19() -> None:
    # a Red king seated on Blue's throne completes the line instead of Blue's king
    g = game(
        pieces={
            "blue": {"king": (21, -10), "knights": [(19, -8), (20, -9)]},
            "red": {"king": (20, -8), "knights": [(20, -7), (-8, -11)]},
            "green": {"king": (-12, 20), "knights": [(20, -6), (-12, 19)]},
        }
    )
    dests = kinds_of(g, (19, -8))
    assert not set(EAST) & set(dests)


# ---- 4.7 fast knights off --------------------------------------------------------------------------
def test_rule_4_7_fast_knights_off_knight_moves_like_the_king_without_thrones() -> None:
    g = game(
        fast_knights=False,
        pieces={"blue": {"king": (21, -9), "knights": [(19, -8), (19, -7), (14, -6)]}},
        owners={"blue": [(3, 0)]},
    )
    dests = kinds_of(g, (19, -8))
    expected = king_area_oracle(g, (19, -8)) - all_thrones()
    assert set(dests) == expected
    assert (20, -8) not in dests and (15, -6) not in dests


def test_rule_4_7_fast_knights_off_the_path_is_not_needed_A21() -> None:
    g = _line_game(throne_piece=True, fast_knights=False)
    assert set(EAST) <= set(kinds_of(g, (19, -8)))


def test_rule_4_7_fast_knights_off_reach_is_one_hop() -> None:
    pieces = {"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (16, -5), (9, -2)]}}
    on = game(pieces=pieces, owners={"blue": [(3, 0), (2, 0)]})
    off = game(pieces=pieces, owners={"blue": [(3, 0), (2, 0)]}, fast_knights=False)
    assert (9, -4) in kinds_of(on, (19, -7))
    assert (9, -4) not in kinds_of(off, (19, -7))
    assert (14, -6) in kinds_of(off, (19, -7))


def test_rule_4_7_fast_knights_off_knight_outside_the_territory_steps() -> None:
    g = game(fast_knights=False, pieces={"blue": {"king": (20, -8), "knights": [(11, -6), (19, -7)]}})
    assert kinds_of(g, (11, -6)) == {c: {"step"} for c in neighbours((11, -6))}


# ---- 4.8 double step -------------------------------------------------------------------------------
def test_rule_4_8_double_step_reaches_all_12_cells_at_distance_two_A14() -> None:
    # Blue's king on the free centre throne: every middle is free and unowned (the centre has no owner)
    g = game(pieces={"blue": {"king": (0, 0), "knights": [(19, -8), (19, -7)]}})
    dests = kinds_of(g, (0, 0))
    ring2 = {c for c in land_cells((0, 0)) if max(abs(c[0]), abs(c[1]), abs(c[0] + c[1])) == 2}
    assert len(ring2) == 12
    assert set(dests) == ring2 | set(neighbours((0, 0)))
    assert all("double_step" in dests[c] for c in ring2)
    # a neighbour reached through a free unowned middle is both a step and a double step ("1 o 2 celdas")
    assert all(dests[c] == {"step", "double_step"} for c in neighbours((0, 0)))


def test_rule_4_8_double_step_middle_must_be_free() -> None:
    # straight west from (0,0): the only middle of (-2,0) is (-1,0)
    g = game(
        pieces={
            "blue": {"king": (0, 0), "knights": [(19, -8), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(-1, 0), (-7, -12)]},
        }
    )
    assert (-2, 0) not in kinds_of(g, (0, 0))


def test_rule_4_8_double_step_middle_must_be_in_a_land_without_owner_A16() -> None:
    # from (17,-6) in neutral (3,0), (19,-6)'s only middle (18,-6) lies in Blue's own start land
    g = game(pieces={"blue": {"king": (17, -6), "knights": [(19, -8), (19, -7)]}})
    dests = kinds_of(g, (17, -6))
    assert (19, -6) not in dests
    assert "double_step" in dests[(15, -6)]
    # the same middle in a Red-owned land also forbids it
    g2 = game(
        pieces={
            "blue": {"king": (13, -5), "knights": [(19, -8), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11)]},
        },
        owners={"red": [(2, 0)]},
    )
    assert (11, -5) not in kinds_of(g2, (13, -5))  # only middle (12,-5) is Red's


def test_rule_4_8_double_step_may_pass_over_a_free_throne_A15() -> None:
    g = game(pieces={"blue": {"king": (11, -4), "knights": [(19, -8), (19, -7)]}})
    assert "double_step" in kinds_of(g, (11, -4))[(9, -4)]  # the only middle is the throne (10,-4)


def test_rule_4_8_only_the_middle_matters_the_destination_may_be_owned() -> None:
    # from (13,-5), (12,-3) lies in Red's (2,0); the middle (13,-4) is in neutral (3,0)
    g = game(
        pieces={
            "blue": {"king": (13, -5), "knights": [(19, -8), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11)]},
        },
        owners={"red": [(2, 0)]},
    )
    assert "double_step" in kinds_of(g, (13, -5))[(12, -3)]


# ---- 4.9 jump --------------------------------------------------------------------------------------
def test_rule_4_9_jump_to_any_free_cell_around_an_adjacent_own_knight_A22() -> None:
    g = game(
        pieces={
            "blue": {"king": (17, -6), "knights": [(16, -6), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12), (-7, -11)]},
        },
        owners={"red": [(3, 0)]},
    )
    dests = kinds_of(g, (17, -6))
    around = set(neighbours((16, -6))) - {(17, -6)}
    assert all("jump" in dests[c] for c in around)
    assert dests[(15, -6)] == {"jump"}  # a throne in a Red-owned land: no double step there


def test_rule_4_9_no_jump_over_a_rival_knight() -> None:
    g = game(
        pieces={
            "blue": {"king": (17, -6), "knights": [(19, -8), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(16, -6), (-7, -12), (-7, -11)]},
        },
        owners={"red": [(3, 0)]},
    )
    dests = kinds_of(g, (17, -6))
    assert (15, -6) not in dests
    assert all("jump" not in k and "swap" not in k for k in dests.values())


# ---- 4.10 swap ------------------------------------------------------------------------------------
def test_rule_4_10_swap_with_an_adjacent_own_knight() -> None:
    g = game(pieces={"blue": {"king": (17, -6), "knights": [(16, -6), (19, -7)]}})
    assert "swap" in kinds_of(g, (17, -6))[(16, -6)]
    assert play(g, (17, -6), (16, -6)) == {"swap"}
    assert king(g, BLUE) == (16, -6)
    assert (17, -6) in knights(g, BLUE) and (16, -6) not in knights(g, BLUE)


def test_rule_4_10_no_swap_from_a_throne() -> None:
    g = game()
    dests = kinds_of(g, (20, -8))
    assert (19, -8) not in dests and (19, -7) not in dests
    with pytest.raises(IllegalActionError):
        play(g, (20, -8), (19, -8))


def test_rule_4_10_no_swap_with_a_rival_knight() -> None:
    g = game(
        pieces={
            "blue": {"king": (17, -6), "knights": [(19, -8), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(16, -6), (-7, -12)]},
        }
    )
    assert (16, -6) not in kinds_of(g, (17, -6))


# ---- 4.11 variant: the king is not left alone -----------------------------------------------------
ALONE_OFF = {"king_may_be_alone": False}


def test_rule_4_11_king_may_not_enter_a_land_without_an_own_knight() -> None:
    pieces = {"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7)]}}
    strict = game(pieces=pieces, **ALONE_OFF)
    default = game(pieces=pieces)
    assert (17, -7) in kinds_of(default, (20, -8))
    assert not {c for c in kinds_of(strict, (20, -8)) if land_of(c) != (4, 0)}
    # with an own knight in (3,0) the king may go there
    with_knight = game(pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (16, -7)]}}, **ALONE_OFF)
    assert (17, -7) in kinds_of(with_knight, (20, -8))
    assert (18, -9) not in kinds_of(with_knight, (20, -8))  # (4,-1) holds no Blue knight


def test_rule_4_11_the_last_knight_may_not_leave_the_kings_land() -> None:
    pieces = {"blue": {"king": (15, -6), "knights": [(17, -7), (19, -7)]}}
    dests = kinds_of(game(pieces=pieces, **ALONE_OFF), (17, -7))
    assert dests and all(land_of(c) == (3, 0) for c in dests)
    assert (18, -7) in kinds_of(game(pieces=pieces), (17, -7))
    # with two knights beside the king, either may leave
    two = game(pieces={"blue": {"king": (15, -6), "knights": [(17, -7), (14, -6)]}}, **ALONE_OFF)
    assert (18, -7) in kinds_of(two, (17, -7))


def test_rule_4_11_a_lonely_king_may_still_move_inside_its_land_A24() -> None:
    g = game(pieces={"blue": {"king": (11, -5), "knights": [(19, -8), (19, -7)]}}, **ALONE_OFF)
    dests = kinds_of(g, (11, -5))
    assert dests and all(land_of(c) == (2, 0) for c in dests)
    assert (10, -4) in dests


def test_rule_4_11_a_swap_that_leaves_the_new_land_without_knight_is_illegal() -> None:
    # king on (18,-7) in its start land; its only knight in (3,0) is on (17,-7)
    pieces = {"blue": {"king": (18, -7), "knights": [(17, -7), (19, -8)]}}
    strict = game(pieces=pieces, **ALONE_OFF)
    dests = kinds_of(strict, (18, -7))
    assert (17, -7) not in dests  # the swap would leave (3,0) with no Blue knight
    assert "jump" in dests[(16, -7)]  # a jump into (3,0) keeps the knight there
    assert "swap" in kinds_of(game(pieces=pieces), (18, -7))[(17, -7)]


def test_rule_4_11_is_checked_when_a_move_is_played() -> None:
    g = game(pieces={"blue": {"king": (15, -6), "knights": [(16, -7), (19, -7)]}}, **ALONE_OFF)
    before = snapshot(g)
    with pytest.raises(IllegalActionError):
        play(g, (16, -7), (18, -7))
    assert snapshot(g) == before


# ---- 4.12 lock ----------------------------------------------------------------------------------


def test_rule_4_12_the_holders_king_is_locked_during_the_countdown_its_knights_are_not() -> None:
    g = game(
        pieces={
            "blue": {"king": (0, 0), "knights": [(2, -1), (1, 1)] + [guard_cell(x) for x in CENTRE_PATH]},
            "green": {"king": (-12, 20), "knights": [(-2, 1), (-12, 19)]},
        },
        owners={"blue": CENTRE_PATH},
        countdown=("blue", 7),
    )
    assert kinds_of(g, (0, 0)) == {}
    movable = {g.geometry.cell_coord(c) for c in g.movable_pieces()}
    assert (0, 0) not in movable and (2, -1) in movable
    with pytest.raises(IllegalActionError):
        play(g, (0, 0), (1, 0))
    play(g, (2, -1), (2, 0))  # knights move normally (A48)
    assert g.turn == GREEN
    assert kinds_of(g, (-12, 20))  # other kings are not locked
