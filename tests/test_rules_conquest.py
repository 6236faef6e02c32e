"""Rules 6.1-6.8: conquering a land with the king (manual section 6, spec R-6, A32-A39, A43-A45).

The conquest counter ``hold[p][L]`` moves only at p's own end of turn: +1 when the position
holds, back to 0 when it does not (rules 6.4-6.5). Landmarks: Blue's start (4,0), then the
chain (3,0) (throne (15,-6)), (2,0) (throne (10,-4)), (1,0) (throne (5,-2)), centre (0,0).
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import (
    BLUE,
    CENTRE_PATH,
    GREEN,
    RED,
    first_conquered,
    game,
    guard_cell,
    hexdist,
    hold,
    knights,
    land_cells,
    lib,
    occupied,
    owner,
    passes,
    play,
    throne,
)
from helpers import FILLER as FILLER_BY_PLAYER

from dw_env.engine import Game

Cell = tuple[int, int]
Land = tuple[int, int]
BLUE_THRONE = (20, -8)
FILLER = FILLER_BY_PLAYER["blue"]  # lands Blue conquered once and lost since: one knight each (rule 6.7)
START_CELLS = sorted(land_cells((4, 0)) - {BLUE_THRONE})


def conquest_game(
    target: Land,
    own: int,
    *,
    blue_owns: tuple[Land, ...] = (),
    red_owns: tuple[Land, ...] = (),
    red_inside: int = 0,
    green_inside: int = 0,
    **kwargs: Any,
) -> Game:
    """Blue's king on ``target``'s throne with ``own`` Blue knights inside, and rival knights inside."""
    inside = sorted(land_cells(target) - {throne(target)})
    mine = inside[:own]
    reds = inside[own : own + red_inside]
    greens = inside[own + red_inside : own + red_inside + green_inside]
    blue_total = 2 + len(blue_owns) + len(FILLER)
    parked = [c for c in START_CELLS if c not in mine][: blue_total - own]
    red_total = 2 + len(red_owns)
    red_knights = reds + [(-8, -11), (-7, -12), (-7, -11), (-9, -11)][: red_total - len(reds)]
    green_knights = greens + [(-11, 19), (-12, 19)][: 2 - len(greens)]
    return game(
        pieces={
            "blue": {"king": throne(target), "knights": mine + parked},
            "red": {"king": (-8, -12), "knights": red_knights},
            "green": {"king": (-12, 20), "knights": green_knights},
        },
        owners={"blue": list(blue_owns), "red": list(red_owns)},
        first={"blue": FILLER},
        **kwargs,
    )


def starts(target: Land, own: int, **kwargs: Any) -> bool:
    """Return True if Blue's end of turn (a pass) starts the conquest of ``target``."""
    g = conquest_game(target, own, **kwargs)
    g.pass_turn()
    return hold(g, BLUE, target) == 1


# ---- 6.1 the conquest position --------------------------------------------------------------------
def test_rule_6_1_king_on_the_throne_no_other_king_and_enough_knights_start_a_conquest() -> None:
    assert starts((3, 0), 1)
    g = game(pieces={"blue": {"king": (16, -6), "knights": [(16, -7), (19, -7)]}})  # king beside the throne
    g.pass_turn()
    assert hold(g, BLUE, (3, 0)) == 0


def test_rule_6_1_own_lands_and_start_lands_are_never_conquered() -> None:
    g = conquest_game((3, 0), 2, blue_owns=((3, 0),))
    g.pass_turn()
    assert hold(g, BLUE, (3, 0)) == 0
    # Blue's king on Red's start throne with every Blue knight around it
    rival_start = sorted(land_cells((0, -4)) - {(-8, -12), (-8, -11), (-7, -12)})
    g2 = game(
        pieces={
            "blue": {"king": (-8, -12), "knights": rival_start[:10]},
            "red": {"king": (-3, -13), "knights": [(-8, -11), (-7, -12)]},
        },
        first={"blue": FILLER},
    )
    g2.pass_turn()
    assert hold(g2, BLUE, (0, -4)) == 0 and owner(g2, (0, -4)) == "red"


# ---- 6.2 / 6.3 knights needed = N + 1 (+1 owned) (+1 per rival knight) (+1 centre) ----------------
NEED_CASES = [
    # (description, target, need, keywords)
    ("neutral land touching the territory", (3, 0), 1, {}),
    ("rival-owned land touching the territory", (3, 0), 2, {"red_owns": ((3, 0),)}),
    ("neutral land at land distance 2 (N=1)", (2, 0), 2, {}),
    ("neutral land at land distance 3 (N=2)", (1, 0), 3, {}),
    ("rival-owned land with N=1", (2, 0), 3, {"red_owns": ((2, 0),)}),
    ("a Red and a Green knight inside (A33)", (3, 0), 3, {"red_inside": 1, "green_inside": 1}),
    ("the owner's own knights count too", (3, 0), 4, {"red_owns": ((3, 0),), "red_inside": 2}),
    ("the territory grows: (2,0) touches owned (3,0)", (2, 0), 1, {"blue_owns": ((3, 0),)}),
    ("N ignores who owns the lands in between (A32)", (2, 0), 2, {"red_owns": ((3, 0),)}),
    ("a disconnected own land does not shorten N (A9)", (2, 0), 2, {"blue_owns": ((2, -1),)}),
]


@pytest.mark.parametrize("target, need, kwargs", [c[1:] for c in NEED_CASES], ids=[c[0] for c in NEED_CASES])
def test_rule_6_2_knights_needed(target: Land, need: int, kwargs: dict[str, Any]) -> None:
    assert not starts(target, need - 1, **kwargs)
    assert starts(target, need, **kwargs)
    assert starts(target, need + 1, **kwargs)  # "la cantidad necesaria" is a minimum (A34)


def test_rule_6_3_n_counts_land_steps_to_the_start_connected_territory_A32() -> None:
    # N for (1,0): 3 land steps from (4,0), 2 from owned (3,0), 1 from owned (3,0)+(2,0)
    assert not starts((1, 0), 2) and starts((1, 0), 3)
    assert not starts((1, 0), 1, blue_owns=((3, 0),)) and starts((1, 0), 2, blue_owns=((3, 0),))
    assert starts((1, 0), 1, blue_owns=((3, 0), (2, 0)))


# ---- 6.4 holding: own turns, set-up counts, passes count ------------------------------------------
def test_rule_6_4_the_set_up_turn_counts_as_the_first_A37() -> None:
    g = game(pieces={"blue": {"king": (16, -6), "knights": [(17, -7), (19, -7)]}})
    play(g, (16, -6), (15, -6))
    assert hold(g, BLUE, (3, 0)) == 1


def test_rule_6_4_only_own_turns_count_and_a_pass_is_a_turn_A35() -> None:
    g = conquest_game((3, 0), 1)
    counts = []
    for _ in range(3):  # Blue, Green, Red pass
        g.pass_turn()
        counts.append(hold(g, BLUE, (3, 0)))
    g.pass_turn()
    counts.append(hold(g, BLUE, (3, 0)))
    assert counts == [1, 1, 1, 2]


def test_rule_6_4_a_conquest_completes_after_4_own_turns() -> None:
    g = conquest_game((3, 0), 1)
    seen = []
    for _ in range(4):
        assert owner(g, (3, 0)) is None
        g.pass_turn()
        seen.append(hold(g, BLUE, (3, 0)))
        passes(g, 2)
    assert seen == [1, 2, 3, 0]  # the counter is cleared when the land is taken
    assert owner(g, (3, 0)) == "blue"


@pytest.mark.parametrize("turns", [1, 2, 8])
def test_rule_6_4_the_number_of_turns_is_an_option(turns: int) -> None:
    g = conquest_game((3, 0), 1, turns_to_conquer=turns)
    for _ in range(turns - 1):
        g.pass_turn()
        passes(g, 2)
    assert owner(g, (3, 0)) is None
    g.pass_turn()
    assert owner(g, (3, 0)) == "blue"


# ---- 6.5 interruptions ----------------------------------------------------------------------------
def test_rule_6_5_leaving_the_position_resets_the_count_at_your_end_of_turn() -> None:
    pieces = {"blue": {"king": (15, -6), "knights": [(17, -7), (19, -7)]}}
    g = game(pieces=pieces, holds=[("blue", (3, 0), 2)])
    play(g, (17, -7), (18, -7))  # the only knight steps out of (3,0)
    assert hold(g, BLUE, (3, 0)) == 0
    g2 = game(pieces=pieces, holds=[("blue", (3, 0), 2)])
    play(g2, (17, -7), (16, -7))  # it moves but stays inside: the count goes on
    assert hold(g2, BLUE, (3, 0)) == 3


def test_rule_6_5_a_rival_knight_entering_breaks_the_position_at_the_holders_next_end_of_turn() -> None:
    g = game(
        turn="red",
        pieces={
            "blue": {"king": (15, -6), "knights": [(17, -7), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(14, -3), (-7, -12)]},
        },
        holds=[("blue", (3, 0), 2)],
    )
    play(g, (14, -3), (14, -4))  # Red's knight steps into (3,0)
    assert hold(g, BLUE, (3, 0)) == 2  # Red's end of turn never touches Blue's counter (A35)
    g.pass_turn()  # Blue: 1 knight against need 2
    assert hold(g, BLUE, (3, 0)) == 0


def test_rule_6_5_repairing_in_your_own_turn_keeps_the_count_A36() -> None:
    g = game(
        turn="red",
        pieces={
            "blue": {"king": (15, -6), "knights": [(17, -7), (19, -7)]},
            "red": {"king": (-8, -12), "knights": [(14, -3), (-7, -12)]},
        },
        holds=[("blue", (3, 0), 2)],
    )
    play(g, (14, -3), (14, -4))
    play(g, (19, -7), (17, -6))  # Blue adds a second knight: 2 against need 2
    assert hold(g, BLUE, (3, 0)) == 3


# ---- 6.6 the land changes hands ------------------------------------------------------------------
def test_rule_6_6_the_land_becomes_yours_and_the_previous_owner_loses_it() -> None:
    g = conquest_game((3, 0), 2, red_owns=((3, 0),), holds=[("blue", (3, 0), 3)])
    before = {p: knights(g, p) for p in range(3)}
    assert g.scores()[RED] == 1
    g.pass_turn()
    assert owner(g, (3, 0)) == "blue"
    assert g.scores()[RED] == 0 and g.scores()[BLUE] == 1
    assert knights(g, RED) == before[RED] and knights(g, BLUE) >= before[BLUE]  # knights stay where they are


def test_rule_6_6_decision_all_counters_on_the_land_are_cleared_at_once() -> None:
    # docs/RULES.md: when Blue takes (3,0), Green's liberation counter on it is cleared in
    # Blue's end of turn (it would fail at Green's next end of turn anyway: Blue's king is there)
    g = conquest_game(
        (3, 0),
        2,
        red_owns=((3, 0),),
        turns_to_conquer=1,
        liberations=[("green", (3, 0), 1)],
    )
    assert lib(g, GREEN, (3, 0)) == 1
    g.pass_turn()
    assert owner(g, (3, 0)) == "blue"
    assert lib(g, GREEN, (3, 0)) == 0


# ---- 6.7 a new knight for a first conquest ---------------------------------------------------------
def new_knight_oracle(g: Game, target: Land) -> Cell:
    """Rule 6.7 / A38: free non-throne cell of the land nearest its throne, then nearest the start throne, r, q."""
    t = throne(target)
    busy = occupied(g) | {t}
    pool = [c for c in land_cells(target) if c not in busy]
    if not pool:
        geometry = g.geometry
        everywhere = {geometry.cell_coord(i) for i in range(geometry.num_cells)}
        thrones = {geometry.cell_coord(int(c)) for c in geometry.land_throne}
        pool = sorted(everywhere - busy - thrones)
    return min(pool, key=lambda c: (hexdist(c, t), hexdist(c, BLUE_THRONE), c[1], c[0]))


def completed(g: Game) -> set[Cell]:
    """Pass Blue's turn; return the knights created by it."""
    before = knights(g, BLUE)
    g.pass_turn()
    return knights(g, BLUE) - before


def test_rule_6_7_the_first_conquest_of_a_land_gives_a_knight_next_to_the_throne() -> None:
    g = game(pieces={"blue": {"king": (15, -6), "knights": [(16, -7), (16, -6)]}}, holds=[("blue", (3, 0), 3)])
    expected = new_knight_oracle(g, (3, 0))
    assert expected == (15, -7)  # the two nearest-to-home throne neighbours are taken
    assert completed(g) == {expected}
    assert first_conquered(g, BLUE) == {(3, 0)}


def test_rule_6_7_with_the_throne_ring_full_the_knight_goes_to_the_nearest_free_cell_of_the_land_A38() -> None:
    ring = [(16, -6), (16, -7), (15, -7), (14, -6), (14, -5), (15, -5)]
    g = game(
        pieces={
            "blue": {"king": (15, -6), "knights": ring[:4]},
            "red": {"king": (-8, -12), "knights": ring[4:]},
        },
        first={"blue": FILLER[:2]},
        holds=[("blue", (3, 0), 3)],
    )
    assert completed(g) == {(17, -8)}


def test_rule_6_7_with_the_land_full_the_knight_goes_to_the_nearest_free_cell_of_the_map_A38() -> None:
    cells = sorted(land_cells((3, 0)) - {(15, -6)})  # 18 cells: 10 Blue, 4 Red, 4 Green knights
    g = game(
        pieces={
            "blue": {"king": (15, -6), "knights": cells[:10]},
            "red": {"king": (-8, -12), "knights": cells[10:14]},
            "green": {"king": (-12, 20), "knights": cells[14:]},
        },
        first={"blue": FILLER, "red": [(0, -3), (1, -4)], "green": [(-3, 3), (-4, 3)]},
        holds=[("blue", (3, 0), 3)],
    )
    expected = new_knight_oracle(g, (3, 0))
    assert expected == (18, -8)
    assert completed(g) == {expected}
    assert owner(g, (3, 0)) == "blue"


def test_rule_6_7_reconquering_a_lost_land_gives_no_second_knight_A39() -> None:
    g = conquest_game((3, 0), 1, holds=[("blue", (3, 0), 3)])
    g2 = game(
        pieces={"blue": {"king": (15, -6), "knights": [(16, -7)] + START_CELLS[: 2 + len(FILLER)]}},
        first={"blue": FILLER + [(3, 0)]},
        holds=[("blue", (3, 0), 3)],
    )
    assert len(completed(g)) == 1
    assert completed(g2) == set()
    assert owner(g2, (3, 0)) == "blue"


def test_rule_6_7_another_players_first_conquest_of_the_same_land_gives_that_player_a_knight_A39() -> None:
    # Blue once conquered (1,-4), next to Red's start land, and lost it; Red now conquers it
    g = game(
        turn="red",
        pieces={
            "blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), (21, -9)]},
            "red": {"king": (-3, -14), "knights": [(-2, -14), (-7, -12)]},
        },
        first={"blue": [(1, -4)]},
        holds=[("red", (1, -4), 3)],
    )
    before = knights(g, RED)
    g.pass_turn()
    assert owner(g, (1, -4)) == "red"
    assert len(knights(g, RED) - before) == 1
    assert first_conquered(g, RED) == {(1, -4)} and first_conquered(g, BLUE) == {(1, -4)}


# ---- 6.8 the centre -------------------------------------------------------------------------------
# 21 points and two ring-1 lands, but (1,0)-(1,-1) touch no land of the start-connected territory
CUT_PATH = [(3, 0), (4, -1), (3, 1), (3, -1), (2, 1), (4, -2), (1, 0), (1, -1)]


def centre_game(lands: list[Land], inside: list[Cell], *, red_inside: list[Cell] = (), **kwargs: Any) -> Game:  # type: ignore[assignment]
    """Blue's king on the centre throne, owning ``lands`` (one guard knight each) and ``inside`` knights."""
    extra = 2 - len(inside)  # Blue keeps 2 + len(lands) knights; spare ones wait in the start land
    spare = START_CELLS[: max(extra, 0)]
    return game(
        pieces={
            "blue": {"king": (0, 0), "knights": inside + spare + [guard_cell(x) for x in lands]},
            "red": {"king": (-8, -12), "knights": list(red_inside) + [(-8, -11), (-7, -12)][len(red_inside) :]},
        },
        owners={"blue": lands},
        **kwargs,
    )


def test_rule_6_8_the_centre_starts_with_a_path_20_points_and_2_knights_A45() -> None:
    g = centre_game(CENTRE_PATH, [(2, -1), (1, 1)])
    assert g.scores()[BLUE] == 20
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 1


def test_rule_6_8_one_knight_is_not_enough_for_the_centre() -> None:
    g = centre_game(CENTRE_PATH, [(2, -1)])
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 0


def test_rule_6_8_each_rival_knight_in_the_centre_adds_one() -> None:
    g = centre_game(CENTRE_PATH, [(2, -1), (1, 1)], red_inside=[(-1, 0)])
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 0


def test_rule_6_8_fewer_than_20_points_cannot_start_the_centre() -> None:
    g = centre_game(CENTRE_PATH[:-1], [(2, -1), (1, 1)])
    assert g.scores()[BLUE] == 19
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 0


def test_rule_6_8_a_ring_1_land_must_be_connected_to_the_start_land() -> None:
    # 20+ points and a ring-1 land, but (2,0) is missing so (1,0) and (1,-1) are cut off
    g = centre_game(CUT_PATH, [(2, -1), (1, 1)])
    assert g.scores()[BLUE] >= 20
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 0


def test_rule_6_8_the_point_minimum_applies_only_to_start_A44() -> None:
    # a running centre count continues with 19 points ...
    g = centre_game(CENTRE_PATH[:-1], [(2, -1), (1, 1)], holds=[("blue", (0, 0), 1)])
    g.pass_turn()
    assert hold(g, BLUE, (0, 0)) == 2
    # ... but the path is a continuing condition: without it the count resets
    g2 = centre_game(CUT_PATH, [(2, -1), (1, 1)], holds=[("blue", (0, 0), 2)])
    g2.pass_turn()
    assert hold(g2, BLUE, (0, 0)) == 0
