"""Rules 5.1-5.4: the exile law (manual section 5, spec R-5 and resolutions A26-A31).

Landmarks: Blue's start land (4,0) (throne (20,-8)); the neutral land (3,0) next to it
(throne (15,-6)); (2,0) beyond (throne (10,-4)).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    BLUE,
    GREEN,
    RED,
    all_thrones,
    destinations,
    game,
    hexdist,
    hold,
    king,
    knights,
    land_cells,
    land_of,
    occupied,
    play,
    territory,
    throne,
)

from dw_env.engine import Game, Move, initial_arrays
from dw_env.geometry import build_geometry
from dw_env.options import GameOptions
from dw_env.rules import layout as lay

Cell = tuple[int, int]
START_THRONES = {BLUE: (20, -8), GREEN: (-12, 20), RED: (-8, -12)}


def red_king_at(cell: Cell, knights: int = 2) -> dict[str, object]:
    """Return Red's pieces with its king on ``cell``; 3 knights when Red owns a conquered land."""
    return {"king": cell, "knights": [(-8, -11), (-7, -12), (-7, -11)][:knights]}


def exile_oracle(g: Game, q: int, expelled_from: tuple[int, int]) -> Cell:
    """Rule 5.3 / A28 from the spec's text: nearest, own territory, nearest to the start throne, r, q."""
    x = king(g, q)
    own = territory(g, q)
    other_king_lands = {land_of(king(g, o)) for o in range(3) if o != q}
    busy, crowns = occupied(g), all_thrones()
    geometry = g.geometry
    cells = [geometry.cell_coord(i) for i in range(geometry.num_cells)]
    candidates = [
        y
        for y in cells
        if y not in busy and y not in crowns and land_of(y) != expelled_from and land_of(y) not in other_king_lands
    ]
    return min(
        candidates,
        key=lambda y: (hexdist(x, y), 0 if land_of(y) in own else 1, hexdist(y, START_THRONES[q]), y[1], y[0]),
    )


def lands_reached(g: Game, src: Cell) -> set[tuple[int, int]]:
    return {land_of(c) for c in destinations(g, src)}


# ---- 5.1 entry ban ------------------------------------------------------------------------------
def test_rule_5_1_no_king_enters_a_land_whose_throne_holds_a_rival_king() -> None:
    # Red's king sits on the throne of neutral (3,0); Blue's king at (18,-7) could otherwise
    # reach (3,0) by its fast move, by a jump over (17,-7) or by a swap with it
    g = game(
        pieces={
            "blue": {"king": (18, -7), "knights": [(17, -7), (19, -7)]},
            "red": {"king": (15, -6), "knights": [(-8, -11), (-7, -12)]},
        }
    )
    assert (3, 0) not in lands_reached(g, (18, -7))
    free_game = game(pieces={"blue": {"king": (18, -7), "knights": [(17, -7), (19, -7)]}})
    assert (3, 0) in lands_reached(free_game, (18, -7))
    # knights are never restricted by the exile law
    assert (3, 0) in lands_reached(g, (19, -7))


def test_rule_5_1_no_king_enters_a_rival_land_that_holds_its_owners_king() -> None:
    g = game(
        pieces={"blue": {"king": (18, -7), "knights": [(17, -7), (19, -7)]}, "red": red_king_at((14, -5), 3)},
        owners={"red": [(3, 0)]},
    )
    assert (3, 0) not in lands_reached(g, (18, -7))


def test_rule_5_1_a_rival_king_inside_but_not_seated_and_not_owner_does_not_close_the_land_A27() -> None:
    # neutral (3,0) with Red's king inside, off the throne: Blue may enter
    g = game(pieces={"blue": {"king": (18, -7), "knights": [(19, -8), (19, -7)]}, "red": red_king_at((14, -5))})
    assert (17, -7) in destinations(g, (18, -7))
    # (3,0) owned by Green, Red's king inside: Red is not the owner, so Blue may enter
    g2 = game(
        pieces={
            "blue": {"king": (18, -7), "knights": [(19, -8), (19, -7)]},
            "green": {"king": (-12, 20), "knights": [(-11, 19), (-12, 19), (-11, 18)]},
            "red": {"king": (14, -5), "knights": [(-8, -11), (-7, -12)]},
        },
        owners={"green": [(3, 0)]},
    )
    assert (17, -7) in destinations(g2, (18, -7))


def test_rule_5_1_your_king_may_enter_your_own_land_even_with_a_rival_seated_on_its_throne_A26() -> None:
    g = game(
        pieces={
            "blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (16, -5)]},
            "red": red_king_at((15, -6)),
        },
        owners={"blue": [(3, 0)]},
    )
    assert (17, -7) in destinations(g, (20, -8))
    play(g, (20, -8), (17, -7))
    assert land_of(king(g, RED)) != (3, 0)  # and entering expels it (5.2)


def test_rule_5_1_moving_inside_a_land_is_not_entering_it() -> None:
    # Blue's king is already in (3,0) where Red's king is seated: it may move within (3,0)
    g = game(pieces={"blue": {"king": (17, -7), "knights": [(19, -8), (19, -7)]}, "red": red_king_at((15, -6))})
    dests = destinations(g, (17, -7))
    assert (16, -7) in dests and (16, -8) in dests
    play(g, (17, -7), (16, -7))
    assert king(g, RED) == (15, -6)  # not entering, not the throne: no expulsion


# ---- 5.2 expulsion -------------------------------------------------------------------------------
def test_rule_5_2_entering_your_own_land_expels_every_rival_king_there() -> None:
    g = game(
        pieces={
            "blue": {"king": (18, -7), "knights": [(19, -8), (19, -7), (16, -5)]},
            "red": red_king_at((14, -5)),
        },
        owners={"blue": [(3, 0)]},
    )
    expected = exile_oracle_after(g, (18, -7), (17, -7), RED)
    play(g, (18, -7), (17, -7))
    assert king(g, RED) == expected
    assert land_of(expected) != (3, 0)


def test_rule_5_2_reaching_the_throne_of_any_land_expels_rival_kings_there() -> None:
    # neutral (3,0): entering beside Red's king does nothing, reaching the throne expels it
    g = game(pieces={"blue": {"king": (17, -6), "knights": [(19, -8), (19, -7)]}, "red": red_king_at((14, -5))})
    expected = exile_oracle_after(g, (17, -6), (15, -6), RED)
    assert "double_step" in destinations(g, (17, -6))[(15, -6)]
    play(g, (17, -6), (15, -6))
    assert king(g, RED) == expected


def test_rule_5_2_entering_a_land_you_do_not_own_expels_nobody() -> None:
    g = game(pieces={"blue": {"king": (18, -7), "knights": [(19, -8), (19, -7)]}, "red": red_king_at((14, -5))})
    play(g, (18, -7), (17, -7))
    assert king(g, RED) == (14, -5) and king(g, BLUE) == (17, -7)


def test_rule_5_2_moving_inside_your_own_land_off_the_throne_expels_nobody() -> None:
    g = game(
        pieces={
            "blue": {"king": (16, -7), "knights": [(19, -8), (19, -7), (16, -5)]},
            "red": red_king_at((14, -5)),
        },
        owners={"blue": [(3, 0)]},
    )
    play(g, (16, -7), (16, -8))
    assert king(g, RED) == (14, -5)


def test_rule_5_2_a_swap_into_your_own_land_is_an_entry_A23() -> None:
    g = game(
        pieces={
            "blue": {"king": (18, -7), "knights": [(17, -7), (19, -7), (16, -5)]},
            "red": red_king_at((14, -5)),
        },
        owners={"blue": [(3, 0)]},
    )
    assert play(g, (18, -7), (17, -7)) == {"swap"}
    assert land_of(king(g, RED)) != (3, 0)


def test_rule_5_2_several_rival_kings_are_all_expelled_in_turn_order_after_the_mover_A29() -> None:
    # Green's king on (18,-7) and Red's on (18,-8) inside Blue's start land; Blue's knights block
    # (17,-8) and (18,-9), so both kings' nearest free outside cell is (17,-7): Green, next in
    # turn order after Blue, takes it
    g = game(
        pieces={
            "blue": {"king": (19, -5), "knights": [(17, -8), (18, -9)]},
            "green": {"king": (18, -7), "knights": [(-11, 19), (-12, 19)]},
            "red": {"king": (18, -8), "knights": [(-8, -11), (-7, -12)]},
        }
    )
    play(g, (19, -5), (19, -6))
    assert king(g, GREEN) == (17, -7)
    red_cell = king(g, RED)
    assert land_of(red_cell) != (4, 0) and hexdist((18, -8), red_cell) == 2
    # the order matters here: Red placed first would have taken (17,-7)
    reversed_order = game(
        pieces={
            "blue": {"king": (19, -6), "knights": [(17, -8), (18, -9)]},
            "green": {"king": (18, -7), "knights": [(-11, 19), (-12, 19)]},
            "red": {"king": (18, -8), "knights": [(-8, -11), (-7, -12)]},
        }
    )
    assert exile_oracle(reversed_order, RED, (4, 0)) == (17, -7)


def test_rule_5_2_exile_is_not_a_move_the_turn_passes_normally_A30() -> None:
    g = game(
        king_may_be_alone=False,
        pieces={
            "blue": {"king": (17, -7), "knights": [(19, -7), (21, -9)]},
            "red": red_king_at((20, -8)),
        },
    )
    play(g, (17, -7), (18, -7))
    red_cell = king(g, RED)
    assert land_of(red_cell) != (4, 0)
    assert not {c for c in knights(g, RED) if land_of(c) == land_of(red_cell)}  # alone: 4.11 is not checked
    assert g.turn == GREEN and len(knights(g, RED)) == 2  # nothing removed, no turn used by Red


# ---- 5.3 where the expelled king goes (A28) --------------------------------------------------------
def exile_oracle_after(g: Game, src: Cell, dst: Cell, q: int) -> Cell:
    """Return where q's king is expected to land once the acting king has moved ``src -> dst``."""
    probe = g.copy()
    probe.board[probe.geometry.cell_index(*dst)] = probe.board[probe.geometry.cell_index(*src)]
    probe.board[probe.geometry.cell_index(*src)] = 0
    probe.scalars[lay.KING_CELL + probe.turn] = probe.geometry.cell_index(*dst)
    return exile_oracle(probe, q, land_of(dst))


def test_rule_5_3_the_nearest_cell_wins_over_own_territory_A28() -> None:
    # Red owns (3,0); Blue's king on (14,-5) is expelled when Red's king enters (3,0). The
    # nearest outside cells (distance 2) are outside Blue's territory; Blue's land is 4 away.
    g = game(
        turn="red",
        pieces={"blue": {"king": (14, -5), "knights": [(19, -8), (19, -7)]}, "red": red_king_at((12, -5), 3)},
        owners={"red": [(3, 0)]},
    )
    play(g, (12, -5), (13, -5))
    cell = king(g, BLUE)
    assert hexdist((14, -5), cell) == 2
    assert land_of(cell) not in territory(g, BLUE)
    assert cell == exile_oracle_after(
        game(
            turn="red",
            pieces={"blue": {"king": (14, -5), "knights": [(19, -8), (19, -7)]}, "red": red_king_at((12, -5), 3)},
            owners={"red": [(3, 0)]},
        ),
        (12, -5),
        (13, -5),
        BLUE,
    )


def test_rule_5_3_among_the_nearest_cells_own_territory_comes_first() -> None:
    # Blue's territory (4,0)-(3,1)-(2,1); Blue's king on (12,-4) in Red's (2,0). Its neighbours
    # (13,-4) in (3,0) and (12,-3) in (2,1) are both 1 away; (13,-4) is nearer Blue's start
    # throne, but (12,-3) is in Blue's territory.
    g = game(
        turn="red",
        pieces={
            "blue": {"king": (12, -4), "knights": [(19, -8), (19, -7), (17, -2), (13, -1)]},
            "red": red_king_at((7, -3), 3),
        },
        owners={"blue": [(3, 1), (2, 1)], "red": [(2, 0)]},
    )
    assert hexdist((13, -4), START_THRONES[BLUE]) < hexdist((12, -3), START_THRONES[BLUE])
    play(g, (7, -3), (8, -3))  # Red's king enters its own land
    assert king(g, BLUE) == (12, -3)


def test_rule_5_3_then_the_cell_nearest_the_start_throne_then_r_then_q() -> None:
    # Paso 14: the four candidates at distance 3 that are 29 from Red's start throne tie; the
    # smallest r wins: (20,-11)
    g = game(
        pieces={
            "blue": {"king": (17, -7), "knights": [(19, -7), (21, -9)]},
            "red": red_king_at((20, -8)),
        }
    )
    play(g, (17, -7), (18, -7))
    assert king(g, RED) == (20, -11)


def test_rule_5_3_never_onto_a_throne_nor_into_a_land_holding_another_players_king() -> None:
    # as Paso 14, but Green's king stands in (4,-1), the land of (20,-11), (19,-10) and (18,-9)
    g = game(
        pieces={
            "blue": {"king": (17, -7), "knights": [(19, -7), (21, -9)]},
            "green": {"king": (17, -11), "knights": [(-11, 19), (-12, 19)]},
            "red": red_king_at((20, -8)),
        }
    )
    play(g, (17, -7), (18, -7))
    assert king(g, RED) == (17, -8)
    assert king(g, RED) not in all_thrones()


@pytest.mark.parametrize(
    "red_king, blue_src, blue_dst",
    [
        ((20, -8), (17, -7), (18, -7)),
        ((22, -10), (17, -7), (18, -8)),
        ((19, -6), (18, -9), (19, -9)),
        ((21, -7), (17, -6), (18, -6)),
    ],
)
def test_rule_5_3_expulsions_match_the_spec_key(red_king: Cell, blue_src: Cell, blue_dst: Cell) -> None:
    g = game(
        pieces={
            "blue": {"king": blue_src, "knights": [(19, -7), (21, -9)]},
            "red": red_king_at(red_king),
        }
    )
    expected = exile_oracle_after(g, blue_src, blue_dst, RED)
    play(g, blue_src, blue_dst)
    assert king(g, RED) == expected


def test_rule_5_3_decision_fallback_when_every_other_free_cell_is_in_a_land_holding_another_king() -> None:
    # docs/RULES.md: with no candidate outside lands holding other kings, the exiled king goes to
    # the best free non-throne cell outside the land, by the same key. Only a crowded board can
    # reach it: built here from raw arrays on the small map n=1, R=2 (7-cell lands).
    options = GameOptions(land_radius=1, map_radius=2)
    geo = build_geometry(1, 2)
    board, lands, scalars = initial_arrays(options)
    blue_start = int(geo.start_lands[BLUE])
    start_cells = {int(c) for c in geo.land_cells[blue_start]}
    # Blue's king stands just outside its start land, in a land L where Green's king is seated
    blue_src = next(
        int(y) for c in sorted(start_cells) for y in geo.cell_neighbors[c] if y >= 0 and int(y) not in start_cells
    )
    green_land = int(geo.cell_land[blue_src])
    blue_dst = next(int(y) for y in geo.cell_neighbors[blue_src] if int(y) in start_cells and not geo.is_throne[y])
    red_king = next(c for c in sorted(start_cells) if c != blue_dst and not geo.is_throne[c])
    board[:] = 0
    for p, cell in ((BLUE, blue_src), (GREEN, int(geo.land_throne[green_land])), (RED, red_king)):
        board[cell] = lay.piece_code(p, lay.KING)
        scalars[lay.KING_CELL + p] = cell
    for c in range(geo.num_cells):  # every other free non-throne cell outside L gets a knight
        if board[c] == 0 and not geo.is_throne[c] and geo.cell_land[c] != green_land and c != blue_dst:
            board[c] = lay.piece_code(GREEN, lay.KNIGHT)
    g = Game(options, board, lands, scalars)
    g.play(Move(blue_src, blue_dst))  # Blue's king enters its own land: Red's king is expelled

    free_in_l = [int(c) for c in geo.land_cells[green_land] if g.board[c] == 0 and not geo.is_throne[c]]
    x, home = geo.cell_coord(red_king), geo.cell_coord(int(geo.land_throne[geo.start_lands[RED]]))
    best = min(
        free_in_l + [g.king_cell(RED)],
        key=lambda c: (hexdist(x, geo.cell_coord(c)), hexdist(geo.cell_coord(c), home), geo.cell_r[c], geo.cell_q[c]),
    )
    assert geo.cell_land[g.king_cell(RED)] == green_land
    assert g.king_cell(RED) == best
    assert int(np.count_nonzero(g.board == lay.piece_code(RED, lay.KING))) == 1


# ---- 5.4 no conquest with another king in the land -------------------------------------------------
def test_rule_5_4_no_conquest_of_a_land_holding_another_players_king() -> None:
    g = game(pieces={"blue": {"king": (15, -6), "knights": [(16, -7), (16, -6)]}, "red": red_king_at((14, -5))})
    g.pass_turn()
    assert hold(g, BLUE, (3, 0)) == 0
    alone = game(pieces={"blue": {"king": (15, -6), "knights": [(16, -7), (16, -6)]}, "red": red_king_at((-8, -12))})
    alone.pass_turn()
    assert hold(alone, BLUE, (3, 0)) == 1


def test_rule_5_4_expelling_the_rival_king_lets_the_conquest_start() -> None:
    g = game(pieces={"blue": {"king": (16, -6), "knights": [(16, -7), (17, -7)]}, "red": red_king_at((14, -5))})
    play(g, (16, -6), (15, -6))  # reaching the throne expels Red's king (5.2), then 6.1 holds
    assert land_of(king(g, RED)) != (3, 0)
    assert hold(g, BLUE, (3, 0)) == 1
    assert throne((3, 0)) == (15, -6) and (14, -5) in land_cells((3, 0))


# ---- A31 / A60 ------------------------------------------------------------------------------
def test_A31_a_double_step_does_not_enter_the_land_of_its_middle_cell() -> None:
    # from (18,-8) the only free middle toward (17,-9) is (17,-8), in (3,0) where Red's king is
    # seated; the double step may still cross it, since only the destination land is entered
    g = game(
        pieces={
            "blue": {"king": (18, -8), "knights": [(19, -8), (19, -7)]},
            "red": {"king": (15, -6), "knights": [(18, -9), (-7, -12)]},  # its knight blocks (18,-9)
        }
    )
    assert land_of((17, -8)) == (3, 0) and land_of((17, -9)) == (4, -1)
    assert destinations(g, (18, -8))[(17, -9)] == {"double_step"}


def test_A60_a_king_may_sit_on_a_rival_start_throne_until_its_owner_comes_home() -> None:
    g = game(
        pieces={
            "blue": {"king": (-11, 20), "knights": [(19, -8), (19, -7)]},
            "green": {"king": (-9, 17), "knights": [(-11, 19), (-12, 19)]},
        }
    )
    assert land_of((-11, 20)) == (-4, 4) and land_of((-9, 17)) != (-4, 4)
    play(g, (-11, 20), (-12, 20))  # Blue's king takes Green's empty start throne
    g.pass_turn()
    assert hold(g, BLUE, (-4, 4)) == 0  # nothing to conquer there (rule 2.2)
    assert g.turn == RED
    g.pass_turn()
    g.pass_turn()  # Blue
    home = next(c for c in destinations(g, (-9, 17)) if land_of(c) == (-4, 4))
    play(g, (-9, 17), home)  # Green's king comes home: Blue's is expelled (5.2, A26)
    assert land_of(king(g, BLUE)) != (-4, 4)
